//! The reconcile of a whole job: which deployment is current, the promotion of canaries, every group, the review of the whole plan, then the deployment's status.
//!
//! A run can pause at the hook points its caller wants (see `ruling`) and
//! resume there with the caller's rulings: it keeps its whole state between,
//! so nothing is computed twice.

use crate::allocation_ref::AllocationList;
use crate::candidate::gather;
use crate::deciding::Deciding;
use crate::deployment::Deployments;
use crate::group::{Context, GroupRun};
use crate::job::is_system;
use crate::pipeline::{step_table, Flow, Outcome};
use crate::retire::{retire, retire_group, Retirement};
use crate::ruling::{Point, Wants};
use crate::run::{finish_groups, Decided, JobRun};
use crate::sentence::say;
use crate::slot_hooks::HookedGroup;
use crate::validation::Noted;
use crate::{phrasing, validation, InputError, JobType, Plan, ReconcileInput};

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
    validation::check(input)?;
    Ok(plan(input, AllocationList::of_input(input)))
}

/// As [`reconcile`], validating from the notes of the input's reader when
/// it has them (see `validation::Screen`).
pub(crate) fn reconcile_noted<I: Noted + ?Sized>(input: &I) -> Result<Plan, InputError> {
    validation::check_noted(input)?;
    Ok(plan(input, input.lists()))
}

/// The plan for a valid input, whose groups' allocations are `lists`.
fn plan<'a>(input: &'a ReconcileInput, lists: Vec<AllocationList<'a>>) -> Plan {
    let mut run = JobRun::new(input, lists, Wants::default());
    // Nothing is wanted, so no step pauses: the run goes to its end.
    run.advance();
    run.finish()
}

impl JobRun<'_> {
    /// Runs the job's steps from where the run stopped, until one pauses
    /// at a hook point or the run is over. Before calling it again, the
    /// caller gives its rulings for that hook point in `rulings`.
    pub(crate) fn advance(&mut self) -> Flow {
        let mut cursor = self.cursor;
        let flow = run_steps(self, &mut cursor);
        self.cursor = cursor;
        flow
    }

    /// The hook point the run is paused at, if any.
    pub(crate) fn paused_at(&self) -> Option<Point> {
        if let Some(g) = self.current.as_deref() {
            return g.paused_at();
        }
        Point::of_step(STEPS.get(self.cursor)?)
    }
}

// The job-wide steps, in order.
step_table! {
    JobRun<'_> {
        "deployment" => current_deployment,
        "stop-job" => stop_job,
        "promotion" => crate::promotion::run,
        "groups" => groups,
        "review" => crate::review::run,
        "deployment-status" => deployment_status,
    }
}

fn current_deployment(run: &mut JobRun) -> Outcome {
    run.deployments = Deployments::new(run.job, run.input.deployment.as_ref());
    match (run.deployments.current_id(), run.deployments.old) {
        (Some(id), _) => Outcome::done(say!("deployment ", id, " is current")),
        (None, Some(old)) => Outcome::done(say!("deployment ", old.id, " is no longer current")),
        (None, None) => Outcome::skipped("the job has no deployment"),
    }
}

fn stop_job(run: &mut JobRun) -> Outcome {
    if run.job.is_some_and(|j| !j.stopped) {
        return Outcome::skipped("the job runs");
    }
    let (input, job) = (run.input, run.job);
    for (name, group) in run.groups.in_order() {
        let mut candidates = gather(input, group);
        for c in candidates.iter_mut() {
            if c.is_terminal() {
                c.untrack(|| "already terminal; nothing to stop");
            }
        }
        let plan = retire(name, &mut candidates, Retirement::JobStopped, input.explain);
        run.decided.push(Decided::Plan(Box::new(plan)));
    }
    let why = if job.is_some() { "stopped" } else { "gone" };
    Outcome::done(say!("the job is ", why, "; every allocation is stopped")).and_finish()
}

/// Decides the groups one after the other; a group that pauses at a hook
/// point pauses the step, which goes on with it when resumed.
fn groups(run: &mut JobRun) -> Outcome {
    let Some(job) = run.job else {
        return Outcome::skipped("no job");
    };
    let system = is_system(job.kind);
    loop {
        if let Some(mut g) = run.current.take() {
            g.parts().hooks.rulings = run.rulings.take();
            let flow = g.advance();
            g.take_reports(&mut run.reports);
            if flow == Flow::Paused {
                run.current = Some(g);
                return Outcome::pause();
            }
            run.deployments = g.take_deployments();
            run.actions.extend(g.hooks().actions.iter().cloned());
            if run.wants.review {
                run.decided.push(Decided::Run(g));
            } else {
                let (plan, complete) = g.finish();
                run.complete &= complete;
                run.decided.push(Decided::Plan(Box::new(plan)));
            }
        }
        let Some(&name) = run.groups.names.get(run.next_group) else {
            break;
        };
        run.next_group += 1;
        run.current = if system {
            crate::system::start(run, name)
        } else {
            start(run, name)
        };
    }
    if system {
        return crate::system::decided(run);
    }
    Outcome::done(say!(
        phrasing::count(run.decided.len(), "group"),
        " reconciled"
    ))
}

/// Starts deciding group `name` of a service or batch job: its run, for the
/// caller to advance, or none when the group is retired at once (its plan
/// is then among the decided ones).
fn start<'a>(run: &mut JobRun<'a>, name: &'a str) -> Option<Box<Deciding<'a>>> {
    let (input, job) = (run.input, run.job?);
    let ctx = Context {
        job,
        eval_id: &input.eval.id,
        eval_priority: input.eval.priority,
        now: input.now,
        is_batch: job.kind == JobType::Batch,
        explain: input.explain,
    };
    let group = run.groups.get(name)?;
    let mut candidates = gather(input, group);
    match group.spec {
        Some(spec) if spec.count > 0 => {
            let deployments = std::mem::replace(&mut run.deployments, Deployments::new(None, None));
            let g = GroupRun::new(ctx, deployments, spec, candidates, run.wants);
            Some(Box::new(Deciding::Slots(g)))
        }
        spec => {
            crate::group::screen::server_stopped(&mut candidates, ctx.is_batch);
            let plan = retire_group(name, spec, &mut candidates, input, &mut run.reports);
            run.decided.push(Decided::Plan(Box::new(plan)));
            None
        }
    }
}

fn deployment_status(run: &mut JobRun) -> Outcome {
    let Some(job) = run.job else {
        return Outcome::skipped("no job");
    };
    if is_system(job.kind) {
        return crate::system::deployment_status(run);
    }
    finish_groups(run);
    run.deployment = run.deployments.finish(job, run.complete);
    match &run.deployment {
        Some(d) => Outcome::done(d.message.clone()),
        None if run.deployments.updates.is_empty() => Outcome::skipped("no deployment change"),
        None => Outcome::done(say!(run.deployments.updates.len(), " deployment updates")),
    }
}
