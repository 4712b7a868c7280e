//! Destructive updates: allocations the change cannot absorb are replaced on their node, in node order, as far as the budget allows; finished sysbatch work due again is placed anew.

use super::placement::on_node;
use super::run::NodeGroupRun;
use crate::group::destructive::replace_within_budget;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::Reason;

/// Finished sysbatch work the job's change makes due again: each gets a new
/// allocation on its node, as far as the budget allows, before any live
/// allocation is replaced.
pub(super) fn reruns(g: &mut NodeGroupRun) -> Outcome {
    let due = std::mem::take(&mut g.reruns);
    if due.is_empty() {
        return Outcome::skipped("no finished work to run again");
    }
    let now = usize::try_from(g.budget.max(0))
        .unwrap_or(usize::MAX)
        .min(due.len());
    let version = g.ctx.job.version;
    for &f in &due[..now] {
        let c = &mut g.candidates[f];
        let message = say!("runs job version ", version, " again on node ", c.node.id);
        c.settle(|| message.clone());
        let (node, index, previous) = (c.alloc().node(), c.index(), c.id().to_string());
        let placement = on_node(
            node,
            index,
            Some(previous),
            Reason::DestructiveUpdate,
            message,
        );
        g.plan.placements.push(placement);
    }
    for &f in &due[now..] {
        g.candidates[f].settle(|| "finished; runs again when the rollout budget allows");
    }
    g.budget = g.budget.saturating_sub(now as i64);
    g.plan.counters.destructive += now as u32;
    g.plan.counters.ignore += (due.len() - now) as u32;
    Outcome::done(say!(now, " of ", due.len(), " finished runs placed again"))
}

/// Live allocations the change cannot absorb, replaced in node order.
pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    if g.destructive.is_empty() {
        return Outcome::skipped("nothing to replace");
    }
    let due = std::mem::take(&mut g.destructive);
    replace_within_budget(&mut g.candidates, &due, g.budget, &mut g.plan)
}
