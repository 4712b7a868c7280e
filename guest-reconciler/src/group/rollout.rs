//! Rollout: a change under an update strategy gets a deployment, unless one already tracks the group.

use super::run::GroupRun;
use crate::candidate::Marks;
use crate::deployment::strategy;
use crate::pipeline::Outcome;
use crate::sentence::say;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    if g.dstate_existing {
        return Outcome::skipped("the current deployment already tracks the group");
    }
    if strategy(g.spec.update.as_ref()).is_none() {
        return Outcome::skipped("no update strategy");
    }
    if g.dstate.desired_total == 0 {
        return Outcome::skipped("nothing to roll out");
    }
    let job = g.ctx.job;
    let updating_spec = !g.destructive.is_empty() || g.in_place > 0;
    let version_runs = g.candidates.iter().any(|c| {
        c.has(Marks::TRACKED)
            && c.alloc().job_version() == job.version
            && c.alloc().job_create_index() == job.create_index
    });
    // Replacing failed or lost allocations of a version already running is
    // not a rollout.
    if version_runs && !updating_spec {
        return Outcome::skipped("the version already runs and its definition did not change");
    }
    let eval = crate::Evaluation {
        id: g.ctx.eval_id.to_string(),
        priority: g.ctx.eval_priority,
    };
    g.deployments.create_if_absent(job, &eval, g.ctx.now);
    g.deployments.put_group(g.dstate.clone());
    Outcome::done(say!(
        "the deployment tracks ",
        g.dstate.desired_total,
        " allocations of the group"
    ))
}
