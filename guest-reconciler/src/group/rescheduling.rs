//! Rescheduling: which failed allocations are replaced now, which later by a follow-up evaluation, and which not at all.

use super::run::GroupRun;
use crate::allocation::Glance;
use crate::candidate::{Candidate, Marks, Standing};
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::{phrasing, reschedule, ClientStatus, DesiredStatus, ObservedState, Timestamp};
use std::borrow::Cow;
use std::cell::LazyCell;

/// Replacements due within this window of `now` are made now, to absorb
/// clock drift between servers.
const RESCHEDULE_WINDOW: i64 = 1_000_000_000;

/// What the reschedule screen makes of an allocation before its policy is
/// consulted.
#[derive(PartialEq, Eq)]
pub(super) enum Screen {
    /// Keep it as it is: it counts and is never rescheduled.
    Keep,
    /// Drop it from the reconcile: it neither counts nor is replaced.
    Drop,
    /// Consult its reschedule policy.
    Consider,
}

/// Nomad's batch and service rules on which allocations may be rescheduled.
/// `observed` gives the whole observed state, which few cases read: a wire
/// record builds it when asked.
pub(super) fn screen<'o>(
    glance: &Glance,
    observed: impl Fn() -> Cow<'o, ObservedState>,
    is_batch: bool,
) -> Screen {
    let transition = &glance.transition;
    if is_batch {
        if transition.migrate_disable_placement {
            return Screen::Keep;
        }
        if transition.reschedule {
            return Screen::Consider;
        }
        return match glance.desired_status {
            DesiredStatus::Stop if observed().ran_successfully() => Screen::Keep,
            DesiredStatus::Stop if observed().last_reschedule_failed() => Screen::Consider,
            DesiredStatus::Stop | DesiredStatus::Evict => Screen::Drop,
            DesiredStatus::Run if glance.client_status == ClientStatus::Failed => Screen::Consider,
            DesiredStatus::Run => Screen::Keep,
        };
    }
    match glance.desired_status {
        DesiredStatus::Stop | DesiredStatus::Evict if observed().last_reschedule_failed() => {
            Screen::Consider
        }
        DesiredStatus::Stop | DesiredStatus::Evict => Screen::Drop,
        DesiredStatus::Run => match glance.client_status {
            ClientStatus::Complete | ClientStatus::Lost => Screen::Drop,
            _ => Screen::Consider,
        },
    }
}

/// When an allocation is to be replaced.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Verdict {
    Now,
    Later(Timestamp),
    Stay,
}

/// What the reschedule policy says of candidate `c`. A disconnecting
/// allocation counts its delay from now; an unknown one that this evaluation
/// was created for counts it from when it became unknown.
pub(super) fn verdict(g: &GroupRun, c: &Candidate, disconnecting: bool) -> Verdict {
    let transition = c.transition();
    if let Some(current) = g.deployments.current_asked() {
        let active = g
            .deployments
            .current_status()
            .is_some_and(crate::deployment::is_active);
        // An allocation of a deployment in progress is left to the deployment.
        if c.in_deployment(current) && active && !transition.reschedule {
            return Verdict::Stay;
        }
    }
    let forced = transition.force_reschedule && c.glance().is_client_terminal();
    if disconnecting && !c.policy.replace_on_disconnect() {
        return if forced { Verdict::Now } else { Verdict::Stay };
    }
    if forced {
        return Verdict::Now;
    }
    // Built from a wire record only when a step below asks for it: a running
    // allocation passes through here without, and building it for each of
    // them took some 5% of a records reconcile of 10,000 allocations.
    let observed = LazyCell::new(|| c.observed());
    let (now, eval_id) = (g.ctx.now, g.ctx.eval_id);
    // An empty evaluation id matches an allocation without a follow-up
    // evaluation, as in Nomad; its tests rely on it. Read only when needed:
    // most allocations are not due, and the field lies far from the rest.
    let followup = || observed.followup_eval.as_deref().unwrap_or("");
    let next = if disconnecting {
        reschedule::since(c.policy.reschedule(), &observed, now)
    } else if c.client_status() == ClientStatus::Unknown && followup() == eval_id {
        let since = observed.history().last_unknown().unwrap_or(0);
        reschedule::since(c.policy.reschedule(), &observed, since)
    } else {
        let policy = c.policy.reschedule();
        reschedule::after_failure(policy, c.glance(), || &**observed, g.ctx.is_batch)
    };
    if !next.eligible {
        return Verdict::Stay;
    }
    let followup = followup();
    if followup == eval_id || next.at.saturating_sub(now) <= RESCHEDULE_WINDOW {
        Verdict::Now
    } else if followup.is_empty() {
        Verdict::Later(next.at)
    } else {
        Verdict::Stay
    }
}

/// An allocation that failed and was already replaced is not replaced again.
pub(super) fn already_replaced(c: &Candidate) -> bool {
    c.is_replaced() && c.is_terminal()
}

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let (mut now, mut later, mut dropped) = (0, 0, 0);
    for i in 0..g.candidates.len() {
        let c = &g.candidates[i];
        let migrating = c.is(Standing::Migrating);
        if !(c.is(Standing::Untainted) || migrating) {
            continue;
        }
        if already_replaced(c) {
            if !migrating {
                let next = c.alloc().next_allocation().unwrap_or_default();
                g.candidates[i].drop_out(|| say!("already replaced by ", next));
                dropped += 1;
            }
            continue;
        }
        match screen(c.glance(), || c.observed(), g.ctx.is_batch) {
            Screen::Keep => continue,
            Screen::Drop if !migrating => {
                g.candidates[i].drop_out(|| "stopped or finished; neither counted nor replaced");
                dropped += 1;
                continue;
            }
            Screen::Drop => continue,
            Screen::Consider => {}
        }
        let verdict = verdict(g, &g.candidates[i], false);
        let c = &mut g.candidates[i];
        match verdict {
            Verdict::Now => {
                c.mark(Marks::RESCHEDULE_NOW);
                if !migrating {
                    c.standing = Standing::Rescheduled;
                }
                c.settle(|| "failed; replaced now");
                now += 1;
            }
            Verdict::Later(at) => {
                c.reschedule_later = Some(Box::new(at));
                c.settle(|| say!("failed; replaced ", phrasing::relative(at, g.ctx.now)));
                later += 1;
            }
            Verdict::Stay => {}
        }
    }
    if now + later + dropped == 0 {
        return Outcome::skipped("no failed allocation to reschedule");
    }
    Outcome::done(say!(
        now,
        " to replace now, ",
        later,
        " to replace later, ",
        dropped,
        " out of play"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DesiredStatus, RescheduleTracker, TaskLifecycle, TaskState};
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    struct Case {
        name: String,
        batch: bool,
        desired: DesiredStatus,
        client: ClientStatus,
        task_failed: bool,
        #[serde(default)]
        last_reschedule_failed: bool,
        expect: Filtered,
    }

    /// Nomad's `shouldFilter` answer.
    #[derive(Deserialize, Debug, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    struct Filtered {
        untainted: bool,
        ignore: bool,
    }

    fn observed(case: &Case) -> ObservedState {
        ObservedState {
            desired_status: case.desired,
            client_status: case.client,
            desired_transition: None,
            health: None,
            reschedule: case.last_reschedule_failed.then(|| RescheduleTracker {
                events: Vec::new(),
                last_failed: true,
            }),
            followup_eval: None,
            client_states: None,
            tasks: Some(vec![TaskState {
                name: "task".into(),
                state: TaskLifecycle::Dead,
                failed: case.task_failed,
                started_at: None,
                finished_at: None,
                restarts: 0,
                last_restart: None,
            }]),
            modify_time: 0,
            meta: None,
        }
    }

    #[test]
    fn nomad_should_filter_cases_hold() {
        for (_, cases) in crate::unit_cases::load::<Case>("rescheduling-units") {
            for case in &cases.cases {
                let observed = observed(case);
                let got = match screen(&observed.glance(), || Cow::Borrowed(&observed), case.batch)
                {
                    Screen::Keep => Filtered {
                        untainted: true,
                        ignore: false,
                    },
                    Screen::Drop => Filtered {
                        untainted: false,
                        ignore: true,
                    },
                    Screen::Consider => Filtered {
                        untainted: false,
                        ignore: false,
                    },
                };
                assert_eq!(got, case.expect, "{} / {}", cases.nomad, case.name);
            }
        }
    }
}
