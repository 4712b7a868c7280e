//! Destructive updates: allocations the change cannot absorb are replaced on their node, in node order, as far as the budget allows; finished sysbatch work due again is placed anew.

use super::group::NodeGroupRun;
use crate::pipeline::Outcome;
use crate::{DestructiveUpdate, Placement, Reason};

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    let due = g.destructive.len();
    if due == 0 {
        return Outcome::skipped("nothing to replace");
    }
    let now = usize::try_from(g.budget.max(0))
        .unwrap_or(usize::MAX)
        .min(due);
    let version = g.ctx.job.version;
    for (n, i) in std::mem::take(&mut g.destructive).into_iter().enumerate() {
        let c = &mut g.candidates[i];
        if n >= now {
            c.settle(|| "needs a new allocation; waits for the rollout budget");
            continue;
        }
        let message = format!("replaced by job version {version} ({} of {due})", n + 1);
        c.settle(|| message.clone());
        if c.observed().is_terminal() {
            g.plan.placements.push(Placement {
                name_index: c.index(),
                canary: false,
                previous_allocation: Some(c.id().to_string()),
                reschedule: false,
                previous_lost: false,
                downgrade_non_canary: false,
                min_job_version: 0,
                reason: Reason::DestructiveUpdate,
                message: format!("runs job version {version} again on node {}", c.node.id),
                node: Some(c.alloc.spec.node),
            });
        } else {
            g.plan.destructive_updates.push(DestructiveUpdate {
                allocation: c.id().to_string(),
                name_index: c.index(),
                reason: Reason::DestructiveUpdate,
                message,
            });
        }
    }
    g.plan.counters.destructive += now as u32;
    g.plan.counters.ignore += (due - now) as u32;
    let status = if now < due {
        Outcome::waiting
    } else {
        Outcome::done
    };
    status(format!("{now} of {due} replaced now"))
}
