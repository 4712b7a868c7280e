//! The reconcile of a whole job: which deployment is current, then every group, then the deployment's status.

use crate::candidate::Candidate;
use crate::deployment::Deployments;
use crate::group::{Context, GroupEnd, GroupRun};
use crate::hooks::{Hooks, NoHooks};
use crate::pipeline::{self, Outcome, Reporting, Step};
use crate::policy::{GroupVersions, Policy};
use crate::retire::{retire, retire_group, Retirement};
use crate::{
    phrasing, validation, GroupAllocations, GroupPlan, InputError, Job, JobType, NewDeployment,
    Plan, PluginFailure, PolicyAction, Progress, Question, ReconcileInput, SessionError, SlotExt,
    StepReport, StepStatus,
};
use std::collections::BTreeMap;

/// Decides what must change for the job described by `input`, with no
/// policy consulted.
///
/// # Errors
/// When the input is inconsistent; the error names the offending field.
///
/// # Guarantees
/// Pure and deterministic: the same input gives the same plan. Every
/// allocation the plan names is in the input, and none is stopped twice.
pub fn reconcile(input: &ReconcileInput) -> Result<Plan, InputError> {
    match reconcile_step(input, &mut NoHooks) {
        Ok(Progress::Done(plan)) => Ok(plan),
        Err(StepError::Input(e)) => Err(e),
        // Without plugins nothing is asked and nothing replied.
        Ok(Progress::Ask(_)) | Err(StepError::Session(_)) => {
            unreachable!("a reconcile without plugins asks nothing")
        }
    }
}

/// Why a reconcile consulting policies stopped without a plan.
#[derive(Clone, Debug, PartialEq)]
pub enum StepError {
    /// The input is inconsistent.
    Input(InputError),
    /// A plugin failed and does not fail open, or the replies are malformed.
    Session(SessionError),
}

/// Decides as [`reconcile`] does, consulting `hooks` at the hook points they
/// ask for: returns the plan, or the first question `hooks` did not answer.
/// Asked again with the same input and hooks that now answer it, the
/// reconcile goes on from there: every run replays the same questions in the
/// same order.
///
/// # Errors
/// When the input is inconsistent, or a plugin that does not fail open
/// failed or answered something invalid (named an allocation that is not in
/// the slot, deferred into the past, ...).
///
/// # Guarantees
/// As [`reconcile`], for whatever the plugins answer: a proposal the guards
/// refuse is reported in the plan, never applied.
pub fn reconcile_step(
    input: &ReconcileInput,
    hooks: &mut dyn Hooks,
) -> Result<Progress, StepError> {
    validation::check(input).map_err(StepError::Input)?;
    let mut run = JobRun {
        input,
        hooks,
        promotions: Vec::new(),
        actions: Vec::new(),
        failures: Vec::new(),
        ext: Vec::new(),
        pending: None,
        refused: None,
        job: input.job.as_ref(),
        deployments: Deployments::new(None, None),
        groups: Vec::new(),
        complete: true,
        deployment: None,
        reports: vec![StepReport {
            step: "validate".into(),
            group: None,
            status: StepStatus::Done,
            message: format!(
                "{} in {} on {}",
                phrasing::count(
                    input.allocations.iter().map(|g| g.allocations.len()).sum(),
                    "allocation"
                ),
                phrasing::count(input.allocations.len(), "group"),
                phrasing::count(input.nodes.len(), "node")
            ),
        }],
    };
    pipeline::run(&mut run, &steps());
    if let Some(refused) = run.refused {
        return Err(StepError::Session(refused));
    }
    if let Some(question) = run.pending {
        return Ok(Progress::Ask(question));
    }
    Ok(Progress::Done(Plan {
        groups: run.groups,
        deployment: run.deployment,
        deployment_updates: run.deployments.updates,
        promotions: run.promotions,
        policy_actions: run.actions,
        plugin_failures: run.failures,
        steps: run.reports,
        ext: carried_ext(&input.ext, run.ext),
    }))
}

/// The plugin data the plan carries: what the input carried, with what
/// plugins attached this run in place of their earlier data for the same
/// slot, sorted by plugin, group and slot.
fn carried_ext(input: &[SlotExt], fresh: Vec<SlotExt>) -> Vec<SlotExt> {
    let key = |e: &SlotExt| (e.plugin.clone(), e.group.clone(), e.slot);
    let mut by_key: BTreeMap<(String, String, u32), SlotExt> =
        input.iter().map(|e| (key(e), e.clone())).collect();
    for e in fresh {
        by_key.insert(key(&e), e);
    }
    by_key.into_values().collect()
}

/// The state of a job's run while its steps run.
pub(crate) struct JobRun<'a, 'h> {
    pub(crate) input: &'a ReconcileInput,
    pub(crate) hooks: &'h mut dyn Hooks,
    pub(crate) promotions: Vec<crate::Promotion>,
    /// What policies did, in the order they were asked.
    pub(crate) actions: Vec<PolicyAction>,
    /// Plugin answers the plan goes without.
    pub(crate) failures: Vec<PluginFailure>,
    /// Bytes policies attached to slots this run.
    ext: Vec<SlotExt>,
    /// The question the plugins have not replied to yet.
    pub(crate) pending: Option<Question>,
    /// Why the run cannot go on.
    pub(crate) refused: Option<SessionError>,
    pub(crate) job: Option<&'a Job>,
    pub(crate) deployments: Deployments<'a>,
    pub(crate) groups: Vec<GroupPlan>,
    pub(crate) complete: bool,
    pub(crate) deployment: Option<NewDeployment>,
    pub(crate) reports: Vec<StepReport>,
}

impl Reporting for JobRun<'_, '_> {
    fn reports(&mut self) -> &mut Vec<StepReport> {
        &mut self.reports
    }

    fn group(&self) -> Option<String> {
        None
    }
}

/// The job-wide steps, in order.
fn steps<'a, 'h>() -> [Step<JobRun<'a, 'h>>; 5] {
    [
        Step {
            name: "deployment",
            run: current_deployment,
        },
        Step {
            name: "stop-job",
            run: stop_job,
        },
        Step {
            name: "promotion",
            run: crate::promotion::run,
        },
        Step {
            name: "groups",
            run: groups,
        },
        Step {
            name: "deployment-status",
            run: deployment_status,
        },
    ]
}

fn current_deployment(run: &mut JobRun) -> Outcome {
    run.deployments = Deployments::new(run.job, run.input.deployment.as_ref());
    match (run.deployments.current_id(), run.deployments.old) {
        (Some(id), _) => Outcome::done(format!("deployment {id} is current")),
        (None, Some(old)) => Outcome::done(format!("deployment {} is no longer current", old.id)),
        (None, None) => Outcome::skipped("the job has no deployment"),
    }
}

fn stop_job(run: &mut JobRun) -> Outcome {
    if run.job.is_some_and(|j| !j.stopped) {
        return Outcome::skipped("the job runs");
    }
    let (input, job) = (run.input, run.job);
    for name in group_names(input, job) {
        let mut candidates = gather(input, job, name);
        for c in candidates.iter_mut() {
            if c.observed().is_terminal() {
                c.untrack(|| "already terminal; nothing to stop");
            }
        }
        let plan = retire(
            name,
            &mut candidates,
            Retirement::JobStopped,
            input.now,
            input.explain,
        );
        run.groups.push(plan);
    }
    let why = if job.is_some() { "stopped" } else { "gone" };
    Outcome::done(format!("the job is {why}; every allocation is stopped")).and_finish()
}

fn groups(run: &mut JobRun) -> Outcome {
    let (input, Some(job)) = (run.input, run.job) else {
        return Outcome::skipped("no job");
    };
    if crate::system::is_system(job.kind) {
        return crate::system::groups(run);
    }
    let ctx = Context {
        job,
        eval_id: &input.eval.id,
        eval_priority: input.eval.priority,
        now: input.now,
        is_batch: job.kind == JobType::Batch,
        explain: input.explain,
    };
    let mut reports = std::mem::take(&mut run.reports);
    for name in group_names(input, Some(job)) {
        let mut candidates = gather(input, Some(job), name);
        let spec = job.groups.iter().find(|g| g.name == name);
        let plan = match spec {
            Some(spec) if spec.count > 0 => {
                let outcome =
                    GroupRun::new(&ctx, &mut run.deployments, spec, candidates, run.hooks)
                        .run(&mut reports);
                run.actions.extend(outcome.actions);
                run.failures.extend(outcome.failures);
                run.ext.extend(outcome.ext);
                match outcome.end {
                    GroupEnd::Decided { plan, complete } => {
                        run.complete &= complete;
                        *plan
                    }
                    GroupEnd::Asking(question) => {
                        run.pending = Some(question);
                        run.reports = reports;
                        return Outcome::waiting(format!("group {name} asks the policies"))
                            .and_finish();
                    }
                    GroupEnd::Refused(error) => {
                        run.refused = Some(error);
                        run.reports = reports;
                        return Outcome::skipped(format!("group {name} stopped")).and_finish();
                    }
                }
            }
            _ => {
                crate::group::screen::server_stopped(&mut candidates, ctx.is_batch);
                retire_group(name, spec, &mut candidates, input, &mut reports)
            }
        };
        run.groups.push(plan);
    }
    run.reports = reports;
    Outcome::done(format!(
        "{} reconciled",
        phrasing::count(run.groups.len(), "group")
    ))
}

fn deployment_status(run: &mut JobRun) -> Outcome {
    let Some(job) = run.job else {
        return Outcome::skipped("no job");
    };
    if crate::system::is_system(job.kind) {
        return crate::system::deployment_status(run);
    }
    run.deployment = run.deployments.finish(job, run.complete);
    match &run.deployment {
        Some(d) => Outcome::done(d.message.clone()),
        None if run.deployments.updates.is_empty() => Outcome::skipped("no deployment change"),
        None => Outcome::done(format!(
            "{} deployment updates",
            run.deployments.updates.len()
        )),
    }
}

/// The groups to reconcile: the job's, in its order, then those only
/// allocations still name, in input order.
pub(crate) fn group_names<'a>(input: &'a ReconcileInput, job: Option<&'a Job>) -> Vec<&'a str> {
    let mut names: Vec<&str> = job
        .map(|j| j.groups.iter().map(|g| g.name.as_str()).collect())
        .unwrap_or_default();
    for g in &input.allocations {
        if !names.contains(&g.group.as_str()) {
            names.push(&g.group);
        }
    }
    names
}

/// The candidates of group `name`, sorted by slot, then by creation, then by
/// identifier: the order every later tie is broken in.
pub(crate) fn gather<'a>(
    input: &'a ReconcileInput,
    job: Option<&'a Job>,
    name: &str,
) -> Vec<Candidate<'a>> {
    let versions = GroupVersions::new(job, name);
    let allocations = input
        .allocations
        .iter()
        .find(|g| g.group == name)
        .map_or(&[][..], |g: &GroupAllocations| &g.allocations);
    let mut candidates: Vec<Candidate<'a>> = allocations
        .iter()
        .map(|a| {
            // Validation guarantees the node exists.
            let node = &input.nodes[a.spec.node as usize];
            let policy = Policy::new(versions.for_allocation(&a.spec));
            Candidate::new(a, node, policy, input.explain)
        })
        .collect();
    candidates.sort_by(|a, b| {
        (a.index(), a.alloc.spec.create_index, a.id()).cmp(&(
            b.index(),
            b.alloc.spec.create_index,
            b.id(),
        ))
    });
    candidates
}
