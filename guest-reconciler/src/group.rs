//! One group's reconcile: its candidates by slot, and the ordered steps that decide them.
//!
//! The steps follow the order in which Nomad's cluster reconciler decides a
//! group, because many outcomes depend on it: canaries leave the untainted set
//! before placements are counted, placements consume the max-parallel budget
//! before destructive updates, and the cap on placements comes last.

mod budget;
mod canaries;
mod canary_placement;
mod classify;
mod completion;
mod count_cap;
mod destructive;
mod disconnect;
mod followups;
mod migration;
mod placement;
mod reconnect;
mod rescheduling;
mod rollout;
pub(crate) mod screen;
mod surplus;
mod updates;

use crate::candidate::{Candidate, Standing};
use crate::deployment::Deployments;
use crate::followup::{Batch, Purpose};
use crate::occupancy::Occupancy;
use crate::pipeline::Reporting;
use crate::pipeline::{self, Step};
use crate::slot::Slots;
use crate::{
    phrasing, ClientStatus, DeploymentGroup, DesiredUpdates, FollowupEval, GroupPlan, Job, Reason,
    StepReport, TaskGroup, Timestamp,
};

/// What every group of a run shares.
pub(crate) struct Context<'a> {
    pub(crate) job: &'a Job,
    pub(crate) eval_id: &'a str,
    pub(crate) eval_priority: u32,
    pub(crate) now: Timestamp,
    pub(crate) is_batch: bool,
    /// Whether the plan explains each slot.
    pub(crate) explain: bool,
}

/// The state of one group while its steps run.
pub(crate) struct GroupRun<'a, 'r> {
    pub(crate) ctx: &'r Context<'a>,
    pub(crate) deployments: &'r mut Deployments<'a>,
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
    pub(crate) proposed: Vec<placement::Proposal>,
    /// The deployment allows new work: neither paused, failed nor canarying.
    pub(crate) ready: bool,
    /// The follow-up evaluations created so far.
    pub(crate) evals_created: usize,
    pub(crate) plan: GroupPlan,
    /// The group needs nothing more of the current deployment.
    pub(crate) complete: bool,
    reports: Vec<StepReport>,
}

/// The steps of a group that exists and wants allocations, in order.
fn steps<'a, 'r>() -> [Step<GroupRun<'a, 'r>>; 17] {
    [
        Step {
            name: "screen",
            run: screen::run,
        },
        Step {
            name: "canaries",
            run: canaries::run,
        },
        Step {
            name: "classify",
            run: classify::run,
        },
        Step {
            name: "reschedule",
            run: rescheduling::run,
        },
        Step {
            name: "reconnect",
            run: reconnect::run,
        },
        Step {
            name: "disconnect",
            run: disconnect::run,
        },
        Step {
            name: "follow-ups",
            run: followups::run,
        },
        Step {
            name: "surplus",
            run: surplus::run,
        },
        Step {
            name: "updates",
            run: updates::run,
        },
        Step {
            name: "canary-placement",
            run: canary_placement::run,
        },
        Step {
            name: "budget",
            run: budget::run,
        },
        Step {
            name: "placement",
            run: placement::run,
        },
        Step {
            name: "destructive",
            run: destructive::run,
        },
        Step {
            name: "migration",
            run: migration::run,
        },
        Step {
            name: "rollout",
            run: rollout::run,
        },
        Step {
            name: "count-cap",
            run: count_cap::run,
        },
        Step {
            name: "completion",
            run: completion::run,
        },
    ]
}

impl<'a, 'r> GroupRun<'a, 'r> {
    pub(crate) fn new(
        ctx: &'r Context<'a>,
        deployments: &'r mut Deployments<'a>,
        spec: &'a TaskGroup,
        candidates: Vec<Candidate<'a>>,
    ) -> Self {
        let (dstate, dstate_existing) = match deployments.group(&spec.name) {
            Some(existing) => (existing.clone(), true),
            None => (fresh_state(spec), false),
        };
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
            reports: Vec::new(),
        }
    }

    /// Runs the steps, appending their reports; returns the group's plan and
    /// whether the group is done with the current deployment.
    pub(crate) fn run(mut self, report: &mut Vec<StepReport>) -> (GroupPlan, bool) {
        pipeline::run(&mut self, &steps());
        if self.ctx.explain {
            self.plan.slots = crate::explain::slots(
                self.spec.count,
                &self.slots,
                &self.candidates,
                &self.plan,
                self.ctx.now,
            );
        }
        report.append(&mut self.reports);
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

    /// How many candidates are in `standing`.
    pub(crate) fn count_of(&self, standing: Standing) -> usize {
        self.candidates.iter().filter(|c| c.is(standing)).count()
    }

    /// Whether candidate `i` works for the group: untainted, and not a canary
    /// set aside while it awaits promotion.
    pub(crate) fn is_working(&self, i: usize) -> bool {
        let c = &self.candidates[i];
        c.is(Standing::Untainted) && !(self.canarying && c.canary)
    }

    /// How many candidates are being replaced now.
    pub(crate) fn rescheduling_now(&self) -> usize {
        self.candidates.iter().filter(|c| c.reschedule_now).count()
    }

    /// Stops the candidate at `i`, once. `counted` says whether the stop shows
    /// in the group's stop counter, which Nomad keeps for user-visible churn.
    pub(crate) fn stop(
        &mut self,
        i: usize,
        reason: Reason,
        client_status: Option<ClientStatus>,
        message: String,
        counted: bool,
    ) {
        let c = &mut self.candidates[i];
        if c.stopped {
            return;
        }
        // A stop supersedes resuming the same allocation in this plan.
        if std::mem::take(&mut c.resumed) {
            self.plan
                .reconnect_updates
                .retain(|u| u.allocation != c.id());
            self.plan.counters.reconnect -= 1;
        }
        self.plan.stops.push(c.stop(reason, client_status, message));
        if counted {
            self.plan.counters.stop += 1;
        }
    }

    /// Creates one follow-up evaluation per batch, and attaches each to the
    /// candidates of its batch.
    pub(crate) fn create_evals(&mut self, batches: Vec<Batch>, purpose: Purpose) {
        for (nth, batch) in batches.into_iter().enumerate() {
            let id = self.next_eval_id();
            for &m in &batch.members {
                self.candidates[m].followup = Some(id.clone());
            }
            self.plan.followup_evals.push(FollowupEval {
                trigger: purpose.trigger(nth),
                wait_until: batch.wait_until,
                description: purpose.description(nth).to_string(),
                priority: self.ctx.eval_priority,
                job_modify_index: self.ctx.job.modify_index,
                reason: purpose.reason(),
                message: format!(
                    "{} {}",
                    purpose.task(batch.members.len()),
                    phrasing::relative(batch.wait_until, self.ctx.now)
                ),
                id,
            });
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

impl Reporting for GroupRun<'_, '_> {
    fn reports(&mut self) -> &mut Vec<StepReport> {
        &mut self.reports
    }

    fn group(&self) -> Option<String> {
        Some(self.spec.name.clone())
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
