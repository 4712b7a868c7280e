//! The state of one group while its steps run, and what the steps do to it that more than one step needs.

use crate::candidate::{Candidate, Marks, Standing};
use crate::deployment::Deployments;
use crate::followup::{Batch, Purpose};
use crate::occupancy::Occupancy;
use crate::pipeline::Reporting;
use crate::ruling::Wants;
use crate::slot::Slots;
use crate::slot_hooks::{Counted, HookedGroup, SlotHooks};
use crate::{
    ClientStatus, DeploymentGroup, DesiredUpdates, GroupPlan, Job, Placement, Reason, StepReport,
    TaskGroup, Timestamp,
};

/// What every group of a run shares.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    pub(crate) job: &'a Job,
    pub(crate) eval_id: &'a str,
    pub(crate) eval_priority: u32,
    pub(crate) now: Timestamp,
    pub(crate) is_batch: bool,
    /// Whether the plan explains each slot.
    pub(crate) explain: bool,
}

/// A placement the group needs, and the candidate it replaces, if any.
pub(crate) struct Proposal {
    pub(crate) placement: Placement,
    pub(crate) previous: Option<usize>,
}

/// The state of one group while its steps run. It owns what it works on,
/// the job's deployments included while it runs, so that it can pause at a
/// hook point and resume later.
pub(crate) struct GroupRun<'a> {
    pub(crate) ctx: Context<'a>,
    pub(crate) deployments: Deployments<'a>,
    pub(crate) spec: &'a TaskGroup,
    /// Sorted by slot, then creation, so that each slot's candidates are contiguous.
    pub(crate) candidates: Vec<Candidate<'a>>,
    pub(crate) slots: Slots,
    /// The group's deployment state: the current deployment's, or a fresh one.
    pub(crate) dstate: DeploymentGroup,
    /// Whether `dstate` came from the current deployment.
    pub(crate) dstate_existing: bool,
    /// Taken slots, once the working sets are known.
    pub(crate) occupancy: Occupancy,
    /// Positions of candidates that need a destructive update.
    pub(crate) destructive: Vec<usize>,
    /// How many candidates are updated in place.
    pub(crate) in_place: u32,
    /// Lost allocations whose clients stop them later hold every placement back.
    pub(crate) waiting_for_lost: bool,
    /// How many candidates wait for a later reschedule.
    pub(crate) rescheduling_later: usize,
    /// Canaries of the deployment await promotion.
    pub(crate) canarying: bool,
    /// Canaries are still missing for a destructive change.
    pub(crate) requires_canaries: bool,
    /// How many more allocations the rollout may change now.
    pub(crate) budget: i64,
    /// Placements computed before the deployment decides which it allows.
    pub(crate) proposed: Vec<Proposal>,
    /// The deployment allows new work: neither paused, failed nor canarying.
    pub(crate) ready: bool,
    /// The follow-up evaluations created so far.
    pub(crate) evals_created: usize,
    pub(crate) plan: GroupPlan,
    /// The group needs nothing more of the current deployment.
    pub(crate) complete: bool,
    /// What policies asked of and ruled on the group's slots.
    pub(crate) hooks: SlotHooks,
    /// The step to run next.
    pub(crate) cursor: usize,
    pub(crate) reports: Vec<StepReport>,
}

impl<'a> GroupRun<'a> {
    pub(crate) fn new(
        ctx: Context<'a>,
        deployments: Deployments<'a>,
        spec: &'a TaskGroup,
        candidates: Vec<Candidate<'a>>,
        wants: Wants,
    ) -> Self {
        let (dstate, dstate_existing) = deployment_state(&deployments, spec);
        Self {
            ctx,
            deployments,
            spec,
            slots: Slots::new(&candidates),
            candidates,
            dstate,
            dstate_existing,
            occupancy: Occupancy::new(0, []),
            destructive: Vec::new(),
            in_place: 0,
            waiting_for_lost: false,
            rescheduling_later: 0,
            canarying: false,
            requires_canaries: false,
            budget: 0,
            proposed: Vec::new(),
            ready: false,
            evals_created: 0,
            plan: empty_plan(&spec.name),
            complete: false,
            hooks: SlotHooks::new(wants),
            cursor: 0,
            reports: Vec::new(),
        }
    }

    /// The group's plan, with its slots explained when asked for, and
    /// whether the group needs nothing more of the current deployment.
    pub(crate) fn finish_plan(mut self) -> (GroupPlan, bool) {
        if self.ctx.explain {
            self.plan.slots = crate::explain::slots(
                self.spec.count,
                &self.slots,
                &self.candidates,
                &self.plan,
                &self.hooks.actions,
            );
        }
        (self.plan, self.complete)
    }

    pub(crate) fn counters(&mut self) -> &mut DesiredUpdates {
        &mut self.plan.counters
    }

    /// Positions of the candidates in `standing`, in slot order.
    pub(crate) fn positions(&self, standing: Standing) -> Vec<usize> {
        (0..self.candidates.len())
            .filter(|&i| self.candidates[i].is(standing))
            .collect()
    }

    /// The name indexes of the group's canaries, in slot order.
    pub(crate) fn canary_slots(&self) -> Vec<u32> {
        (self.candidates.iter())
            .filter(|c| c.has(Marks::CANARY))
            .map(|c| c.index())
            .collect()
    }

    /// How many candidates are in `standing`.
    pub(crate) fn count_of(&self, standing: Standing) -> usize {
        self.candidates.iter().filter(|c| c.is(standing)).count()
    }

    /// Whether candidate `i` works for the group: untainted, and not a canary
    /// set aside while it awaits promotion.
    pub(crate) fn is_working(&self, i: usize) -> bool {
        let c = &self.candidates[i];
        c.is(Standing::Untainted) && !(self.canarying && c.has(Marks::CANARY))
    }

    /// How many slots below the count a policy holds: each stands for one
    /// allocation of the group, whatever claims it.
    pub(crate) fn held_within_count(&self) -> usize {
        let count = self.spec.count;
        self.hooks.held.iter().filter(|&&i| i < count).count()
    }

    /// How many candidates are being replaced now.
    pub(crate) fn rescheduling_now(&self) -> usize {
        self.candidates
            .iter()
            .filter(|c| c.has(Marks::RESCHEDULE_NOW))
            .count()
    }

    /// Stops the candidate at `i`, once: see [`crate::slot_hooks::Parts::stop`].
    pub(crate) fn stop(
        &mut self,
        i: usize,
        reason: Reason,
        client_status: Option<ClientStatus>,
        message: String,
        counted: Counted,
    ) {
        self.parts()
            .stop(i, reason, client_status, message, counted);
    }

    /// Creates one follow-up evaluation per batch, and, when `attach` says
    /// so, attaches each to the candidates its batch's members are positions of.
    pub(crate) fn create_evals(&mut self, batches: Vec<Batch>, purpose: Purpose, attach: bool) {
        for (nth, batch) in batches.into_iter().enumerate() {
            let id = self.next_eval_id();
            if attach {
                let shared = std::rc::Rc::new(id.clone());
                for &m in &batch.members {
                    self.candidates[m].followup = Some(shared.clone());
                }
            }
            let (job, priority, now) = (self.ctx.job, self.ctx.eval_priority, self.ctx.now);
            let eval = purpose.evaluation(nth, &batch, id, job, priority, now);
            self.plan.followup_evals.push(eval);
        }
    }

    /// The identifier of the next follow-up evaluation.
    fn next_eval_id(&mut self) -> String {
        let id = crate::ids::followup_eval(
            &self.ctx.job.id,
            self.ctx.eval_id,
            &self.spec.name,
            self.evals_created,
        );
        self.evals_created += 1;
        id
    }
}

impl Reporting for GroupRun<'_> {
    fn reports(&mut self) -> &mut Vec<StepReport> {
        &mut self.reports
    }

    fn group(&self) -> Option<String> {
        Some(self.spec.name.clone())
    }

    fn every_step(&self) -> bool {
        self.ctx.explain
    }
}

/// The group's state in the current deployment, and whether the deployment
/// holds one; a fresh state when it does not.
pub(crate) fn deployment_state(
    deployments: &Deployments,
    spec: &TaskGroup,
) -> (DeploymentGroup, bool) {
    match deployments.group(&spec.name) {
        Some(existing) => (existing.clone(), true),
        None => (fresh_state(spec), false),
    }
}

/// A deployment state for a group the current deployment does not hold yet.
fn fresh_state(spec: &TaskGroup) -> DeploymentGroup {
    let update = crate::deployment::strategy(spec.update.as_ref());
    DeploymentGroup {
        group: spec.name.clone(),
        promoted: false,
        placed_canaries: Vec::new(),
        desired_canaries: 0,
        desired_total: 0,
        placed_allocs: 0,
        healthy_allocs: 0,
        unhealthy_allocs: 0,
        auto_promote: update.is_some_and(|u| u.auto_promote),
        auto_revert: update.is_some_and(|u| u.auto_revert),
        progress_deadline: update.map_or(0, |u| u.progress_deadline),
    }
}

/// A plan with nothing in it for `group`.
pub(crate) fn empty_plan(group: &str) -> GroupPlan {
    GroupPlan {
        group: group.to_string(),
        counters: DesiredUpdates {
            ignore: 0,
            place: 0,
            migrate: 0,
            stop: 0,
            in_place: 0,
            destructive: 0,
            canary: 0,
            reschedule_now: 0,
            reschedule_later: 0,
            disconnect: 0,
            reconnect: 0,
        },
        placements: Vec::new(),
        stops: Vec::new(),
        in_place_updates: Vec::new(),
        destructive_updates: Vec::new(),
        attribute_updates: Vec::new(),
        disconnect_updates: Vec::new(),
        reconnect_updates: Vec::new(),
        followup_evals: Vec::new(),
        slots: Vec::new(),
    }
}
