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
mod nodes;
mod placement;
mod rollout;
mod rules;
mod screen;
mod slots;
mod tainted;
mod tally;
mod updates;

use crate::candidate::gather;
use crate::pipeline::Outcome;
use crate::reconcile::group_names;
use crate::retire::retire_group;
use crate::run::{Decided, JobRun};
use crate::{phrasing, JobType, ReconcileInput, StepReport, StepStatus};
use group::{Context, NodeGroupRun};
use nodes::NodeSet;

/// Whether jobs of `kind` are decided per node.
pub(crate) fn is_system(kind: JobType) -> bool {
    matches!(kind, JobType::System | JobType::Sysbatch)
}

/// The `groups` step of a system job: every group of the job, then those
/// only allocations still name.
pub(crate) fn groups(run: &mut JobRun) -> Outcome {
    let (input, Some(job)) = (run.input, run.job) else {
        return Outcome::skipped("no job");
    };
    let ctx = Context {
        input,
        job,
        nodes: NodeSet::new(input),
        sysbatch: job.kind == JobType::Sysbatch,
        untracked_rollout: input.deployment.is_none()
            && runs_version(input, job.version, job.create_index),
        has_version: nodes_with_version(input, job.version, job.create_index),
    };
    let mut reports = std::mem::take(&mut run.reports);
    if run.wants.pre_slot || run.wants.post_slot || run.wants.review {
        // The promotion hook is asked for system canaries as for any job;
        // the slot hooks are not wired to node slots yet, and the report
        // says so rather than leaving a plugin's silence unexplained.
        reports.push(StepReport {
            step: "slot-hooks".into(),
            group: None,
            status: StepStatus::Skipped,
            message:
                "plugins are not asked at pre-slot and post-slot about a system job's node slots"
                    .into(),
        });
    }
    for name in group_names(input, Some(job)) {
        let mut candidates = gather(input, Some(job), name);
        let spec = job.groups.iter().find(|g| g.name == name);
        let plan = match spec {
            Some(spec) if spec.count > 0 => {
                let group = NodeGroupRun::new(&ctx, &mut run.deployments, spec, candidates);
                let (plan, complete) = group.run(&mut reports);
                run.complete &= complete;
                plan
            }
            _ => {
                // Only live allocations are stopped; finished ones stay as
                // they are, as Nomad's node reconciler never sees them.
                for c in candidates.iter_mut().filter(|c| c.observed().is_terminal()) {
                    c.untrack(|| "finished; nothing to stop");
                }
                retire_group(name, spec, &mut candidates, input, &mut reports)
            }
        };
        run.decided.push(Decided::Plan(Box::new(plan)));
    }
    run.reports = reports;
    Outcome::done(format!(
        "{} reconciled on {}",
        phrasing::count(run.decided.len(), "group"),
        phrasing::count(ctx.nodes.eligible().len(), "eligible node")
    ))
}

/// Whether some live allocation of the job runs `version` of instance
/// `create_index`.
fn runs_version(input: &ReconcileInput, version: u64, create_index: u64) -> bool {
    input
        .allocations
        .iter()
        .flat_map(|g| &g.allocations)
        .any(|a| {
            a.spec.job_version == version
                && a.spec.job_create_index == create_index
                && !a.observed.is_terminal()
        })
}

/// Per node position, whether the node holds an allocation of `version` of
/// instance `create_index`, running or finished.
fn nodes_with_version(input: &ReconcileInput, version: u64, create_index: u64) -> Vec<bool> {
    let mut has = vec![false; input.nodes.len()];
    for a in input.allocations.iter().flat_map(|g| &g.allocations) {
        if a.spec.job_version == version && a.spec.job_create_index == create_index {
            has[a.spec.node as usize] = true;
        }
    }
    has
}

/// The `deployment-status` step of a system job: the deployment is complete
/// when every group is and no canary awaits promotion; an existing
/// deployment whose totals were recounted is sent in full.
pub(crate) fn deployment_status(run: &mut JobRun) -> Outcome {
    let Some(job) = run.job else {
        return Outcome::skipped("no job");
    };
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
