//! When a failed allocation may be replaced: delays, attempts and intervals of its reschedule policy.

use crate::allocation::Glance;
use crate::{
    ClientStatus, DelayFunction, DesiredStatus, Duration, ObservedState, ReschedulePolicy,
    Timestamp,
};
use std::ops::Deref;

/// The next time an allocation may be rescheduled, and whether its policy
/// still allows it then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NextReschedule {
    pub(crate) at: Timestamp,
    pub(crate) eligible: bool,
}

impl NextReschedule {
    const NEVER: Self = Self {
        at: 0,
        eligible: false,
    };
}

/// The delay before the next reschedule, grown from the previous one by the
/// policy's delay function and capped by its maximum delay. A lineage that ran
/// longer than the cap since its last reschedule starts over at the base delay.
pub(crate) fn next_delay(policy: &ReschedulePolicy, observed: &ObservedState) -> Duration {
    let base = policy.delay;
    let events = match &observed.reschedule {
        Some(tracker) if !tracker.events.is_empty() => &tracker.events,
        _ => return base,
    };
    let last = &events[events.len() - 1];
    let grown = match policy.delay_function {
        DelayFunction::Constant => return base,
        DelayFunction::Exponential => last.delay.saturating_mul(2),
        DelayFunction::Fibonacci => match events.len() {
            1 => base,
            n => {
                let before = events[n - 2].delay;
                // The series restarts after a reset: (max, base) is followed by base.
                if before == policy.max_delay && last.delay == policy.delay {
                    last.delay
                } else {
                    last.delay.saturating_add(before)
                }
            }
        },
    };
    if policy.max_delay > 0 && grown > policy.max_delay {
        let since_last = observed.last_event_time().saturating_sub(last.at);
        if since_last > policy.max_delay {
            return base;
        }
        return policy.max_delay;
    }
    grown
}

/// The reschedule time counted from `fail_time`, and whether the policy's
/// attempts within its interval still allow a reschedule.
pub(crate) fn from_failure(
    policy: &ReschedulePolicy,
    observed: &ObservedState,
    fail_time: Timestamp,
) -> NextReschedule {
    let delay = next_delay(policy, observed);
    let at = fail_time.saturating_add(delay);
    let eligible = match &observed.reschedule {
        // Limited attempts are counted even when the policy is also unlimited.
        Some(tracker) if policy.attempts > 0 && !tracker.events.is_empty() => {
            let recent = tracker
                .events
                .iter()
                .filter(|e| fail_time.saturating_sub(e.at) < policy.interval)
                .count();
            recent < policy.attempts as usize && delay < policy.interval
        }
        // A tracker without events allows no limited attempt, as in Nomad.
        tracker => policy.unlimited || (policy.attempts > 0 && tracker.is_none()),
    };
    NextReschedule { at, eligible }
}

/// When an allocation that stopped on its own may be rescheduled: counted from
/// its last event, for failed or lost allocations (or batch work stopped to be
/// rescheduled) whose policy allows rescheduling at all. `glance` is
/// `observed`'s, and `observed` is asked for only past the answers `glance`
/// gives: most allocations of a large group are running and never get that
/// far, and a wire record builds its observed state afresh when asked.
pub(crate) fn after_failure<O: Deref<Target = ObservedState>>(
    policy: Option<&ReschedulePolicy>,
    glance: &Glance,
    observed: impl FnOnce() -> O,
    is_batch: bool,
) -> NextReschedule {
    let Some(policy) = policy.filter(|p| p.attempts > 0 || p.unlimited) else {
        return NextReschedule::NEVER;
    };
    let rescheduled_batch = is_batch && glance.transition.reschedule;
    let not_failed = !matches!(
        glance.client_status,
        ClientStatus::Failed | ClientStatus::Lost
    );
    if not_failed && !rescheduled_batch {
        return NextReschedule::NEVER;
    }
    let observed = observed();
    let stopped_for_good =
        glance.desired_status == DesiredStatus::Stop && !observed.last_reschedule_failed();
    if stopped_for_good {
        return NextReschedule::NEVER;
    }
    from_failure(policy, &observed, observed.last_event_time())
}

/// When an allocation may be rescheduled counting from `since`, whatever its
/// status: used for allocations whose client disconnected.
pub(crate) fn since(
    policy: Option<&ReschedulePolicy>,
    observed: &ObservedState,
    since: Timestamp,
) -> NextReschedule {
    match policy {
        Some(policy) => from_failure(policy, observed, since),
        None => NextReschedule::NEVER,
    }
}
