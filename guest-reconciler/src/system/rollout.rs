//! Rollout: a system job's change under an update strategy gets a deployment, unless one already tracks the group or the version already ran to a finish.

use super::run::NodeGroupRun;
use crate::deployment::strategy;
use crate::pipeline::Outcome;

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    if g.dstate_existing {
        return Outcome::skipped("the current deployment already tracks the group");
    }
    if strategy(g.spec.update.as_ref()).is_none() {
        return Outcome::skipped("no update strategy");
    }
    if g.deployments.is_paused() || g.deployments.is_failed() {
        return Outcome::skipped("the current deployment is paused or failed");
    }
    let job = g.ctx.job;
    if g.deployments
        .old
        .is_some_and(|d| d.job_version == job.version)
    {
        return Outcome::skipped("a finished deployment already rolled out this version");
    }
    if g.ctx.cluster.untracked_rollout {
        return Outcome::skipped(
            "the job had no deployment and already runs this version somewhere",
        );
    }
    let changing =
        !g.destructive.is_empty() || !g.reruns.is_empty() || g.plan.counters.in_place > 0;
    if !changing && !missing_version(g) {
        return Outcome::skipped("every node already runs this version of the group");
    }
    let eval = crate::Evaluation {
        id: g.ctx.input.eval.id.clone(),
        priority: g.ctx.input.eval.priority,
    };
    g.deployments.create_if_absent(job, &eval, g.ctx.input.now);
    g.deployments.put_group(g.dstate.clone());
    g.tracked = true;
    Outcome::done("the deployment tracks the group")
}

/// Whether some node the group uses holds nothing, live or finished, of the
/// job's current version in any group: the version is new there.
fn missing_version(g: &NodeGroupRun) -> bool {
    g.slots.iter().any(|slot| {
        let used = g.ctx.cluster.nodes.of(slot.node) == super::nodes::Eligibility::Eligible
            || slot
                .claimants
                .clone()
                .any(|i| !g.candidates[i].is_terminal());
        used && !g.ctx.cluster.has_version[slot.node as usize]
    })
}
