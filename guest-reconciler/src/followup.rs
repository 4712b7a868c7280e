//! Follow-up evaluations: delayed work batched so that no two evaluations are due within five seconds of each other.

use crate::sentence::say;
use crate::{Duration, EvalTrigger, FollowupEval, Job, Reason, Timestamp};

/// Items due less than this long after the first of a batch join the batch.
const BATCH_WINDOW: Duration = 5_000_000_000;

/// What a follow-up evaluation is created for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Replace failed allocations once their delay has passed.
    RescheduleLater,
    /// Replace lost allocations once their client has stopped them.
    LostLater,
    /// Decide about disconnected allocations once `lost-after` passes.
    DisconnectTimeout,
    /// Look again at slots a policy deferred.
    PolicyDeferral,
}

impl Purpose {
    /// The trigger of the `nth` evaluation of a batch run. As in Nomad, only
    /// the first evaluation of delayed rescheduling keeps the requested
    /// trigger; later ones say `alloc-failure`.
    pub(crate) fn trigger(self, nth: usize) -> EvalTrigger {
        match self {
            Purpose::RescheduleLater if nth == 0 => EvalTrigger::AllocReschedule,
            Purpose::RescheduleLater | Purpose::LostLater => EvalTrigger::AllocFailure,
            Purpose::DisconnectTimeout => EvalTrigger::MaxDisconnectTimeout,
            Purpose::PolicyDeferral => EvalTrigger::PolicyDeferral,
        }
    }

    /// The status description of the `nth` evaluation, empty where Nomad
    /// leaves it empty.
    pub(crate) fn description(self, nth: usize) -> &'static str {
        match self {
            Purpose::RescheduleLater | Purpose::LostLater if nth == 0 => {
                "created for delayed rescheduling"
            }
            Purpose::RescheduleLater | Purpose::LostLater => "",
            Purpose::DisconnectTimeout => "created for delayed disconnect timeout",
            Purpose::PolicyDeferral => "created for a policy's deferral",
        }
    }

    pub(crate) fn reason(self) -> Reason {
        match self {
            Purpose::RescheduleLater => Reason::RescheduleLater,
            Purpose::LostLater => Reason::StopOnClientAfter,
            Purpose::DisconnectTimeout => Reason::DisconnectTimeout,
            Purpose::PolicyDeferral => Reason::DeferredByPolicy,
        }
    }

    /// What the evaluation will do for `n` allocations.
    pub(crate) fn task(self, n: usize) -> String {
        let plural = if n == 1 { "" } else { "s" };
        match self {
            Purpose::RescheduleLater => say!("replace ", n, " failed allocation", plural),
            Purpose::LostLater => {
                say!(
                    "replace ",
                    n,
                    " lost allocation",
                    plural,
                    " once the client has stopped them"
                )
            }
            Purpose::DisconnectTimeout => {
                say!(
                    "decide about ",
                    n,
                    " disconnected allocation",
                    plural,
                    " when lost-after passes"
                )
            }
            Purpose::PolicyDeferral => say!("look again at ", n, " deferred slot", plural),
        }
    }
}

impl Purpose {
    /// The `nth` evaluation of a run, `id`, for the items of `batch`.
    pub(crate) fn evaluation(
        self,
        nth: usize,
        batch: &Batch,
        id: String,
        job: &Job,
        priority: u32,
        now: Timestamp,
    ) -> FollowupEval {
        FollowupEval {
            trigger: self.trigger(nth),
            wait_until: batch.wait_until,
            description: self.description(nth).to_string(),
            priority,
            job_modify_index: job.modify_index,
            reason: self.reason(),
            message: say!(
                self.task(batch.members.len()),
                " ",
                crate::phrasing::relative(batch.wait_until, now)
            ),
            id,
        }
    }
}

/// Items due together.
pub(crate) struct Batch {
    pub(crate) wait_until: Timestamp,
    pub(crate) members: Vec<usize>,
}

/// Batches `(item, due)` pairs: in order of time, each batch starts at its
/// earliest item and takes every item due less than five seconds after it.
pub(crate) fn batches(mut items: Vec<(usize, Timestamp)>) -> Vec<Batch> {
    items.sort_by_key(|&(_, due)| due);
    let mut out: Vec<Batch> = Vec::new();
    for (item, due) in items {
        match out.last_mut() {
            Some(batch) if due.saturating_sub(batch.wait_until) < BATCH_WINDOW => {
                batch.members.push(item)
            }
            _ => out.push(Batch {
                wait_until: due,
                members: vec![item],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;

    #[test]
    fn items_within_five_seconds_of_a_batch_start_share_its_evaluation() {
        let b = batches(vec![
            (0, 15 * S),
            (1, 25 * S),
            (2, 15 * S + S / 10),
            (3, 19 * S),
        ]);
        let shape: Vec<(i64, Vec<usize>)> =
            b.into_iter().map(|b| (b.wait_until, b.members)).collect();
        assert_eq!(shape, vec![(15 * S, vec![0, 2, 3]), (25 * S, vec![1])]);
    }

    #[test]
    fn an_item_exactly_five_seconds_later_starts_a_new_batch() {
        assert_eq!(batches(vec![(0, 0), (1, 5 * S)]).len(), 2);
    }
}
