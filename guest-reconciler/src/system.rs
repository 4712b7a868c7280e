//! System and sysbatch jobs: every group on every eligible node, decided slot by slot, where a slot is a node, a group and a name index.
//!
//! This is Nomad's node reconciler in the slot model, together with the
//! parts of its system scheduler that decide rather than place: the pace of
//! destructive updates under max-parallel, which nodes get canaries, and the
//! totals and completion of the deployment. The scheduler computes which
//! nodes are eligible and which are not ready; slotwise takes both as input
//! and never reads node attributes itself. The job-wide steps (current
//! deployment, stopped job, promotion) are those of every job; this module
//! replaces the per-group steps and the deployment's final status.

mod budget;
mod canaries;
mod classify;
mod completion;
mod destructive;
mod duplicates;
mod explain;
mod group;
pub(crate) mod nodes;
mod placement;
mod rollout;
mod rules;
mod run;
mod screen;
mod slots;
mod tainted;
mod tally;
mod updates;

use crate::candidate::gather;
use crate::deciding::Deciding;
use crate::deployment::Deployments;
use crate::pipeline::Outcome;
use crate::retire::retire_group;
use crate::run::{Decided, JobRun};
use crate::sentence::say;
use crate::{phrasing, JobType};
use nodes::Cluster;
use run::Context;
pub(crate) use run::NodeGroupRun;
use std::rc::Rc;

/// Starts deciding group `name` of a system job: its run, for the caller
/// to advance, or none when the group is retired at once (its plan is then
/// among the decided ones).
pub(crate) fn start<'a>(run: &mut JobRun<'a>, name: &'a str) -> Option<Box<Deciding<'a>>> {
    let (input, job) = (run.input, run.job?);
    let group = run.groups.get(name)?;
    let mut candidates = gather(input, group);
    let spec = group.spec;
    match spec {
        Some(spec) if spec.count > 0 => {
            let cluster = (run.cluster)
                .get_or_insert_with(|| Rc::new(Cluster::new(input, &run.lists, job)))
                .clone();
            let ctx = Context {
                input,
                job,
                cluster,
                sysbatch: job.kind == JobType::Sysbatch,
            };
            let deployments = std::mem::replace(&mut run.deployments, Deployments::new(None, None));
            let g = NodeGroupRun::new(ctx, deployments, spec, candidates, run.wants);
            Some(Box::new(Deciding::Nodes(g)))
        }
        _ => {
            // Only live allocations are stopped; finished ones stay as
            // they are, as Nomad's node reconciler never sees them.
            for c in candidates.iter_mut().filter(|c| c.is_terminal()) {
                c.untrack(|| "finished; nothing to stop");
            }
            let plan = retire_group(name, spec, &mut candidates, input, &mut run.reports);
            run.decided.push(Decided::Plan(Box::new(plan)));
            None
        }
    }
}

/// The report of the `groups` step of a system job.
pub(crate) fn decided(run: &JobRun) -> Outcome {
    let eligible = run.input.system.as_ref().map_or(0, |s| s.eligible.len());
    Outcome::done(say!(
        phrasing::count(run.decided.len(), "group"),
        " reconciled on ",
        phrasing::count(eligible, "eligible node")
    ))
}

/// The `deployment-status` step of a system job: the deployment is complete
/// when every group is and no canary awaits promotion; an existing
/// deployment whose totals were recounted is sent in full.
pub(crate) fn deployment_status(run: &mut JobRun) -> Outcome {
    let Some(job) = run.job else {
        return Outcome::skipped("no job");
    };
    crate::run::finish_groups(run);
    let awaiting_promotion = run
        .deployments
        .groups()
        .iter()
        .any(|g| g.desired_canaries > 0 && !g.promoted);
    let recounted = run.deployments.recounted(job);
    let complete = run.complete && !awaiting_promotion;
    run.deployment = run.deployments.finish(job, complete).or(recounted);
    let updates = run.deployments.updates.len();
    match &run.deployment {
        Some(d) => Outcome::done(d.message.clone()),
        None if updates == 0 => Outcome::skipped("no deployment change"),
        None => Outcome::done(phrasing::count(updates, "deployment update")),
    }
}
