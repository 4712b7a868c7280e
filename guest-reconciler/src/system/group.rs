//! One group of a system job: its node slots, the allocations that claim them, and the ordered steps that decide them.
//!
//! The steps follow the order of Nomad's node reconciler and of the system
//! scheduler that applies its result: live allocations are classified
//! first, free slots are filled, and only then are the job's changes paced by
//! the rollout budget and, while canaries are wanted, held for them.
//! Policy plugins have their say where they do for service jobs: pre-slot
//! after `classify`, post-slot after every change is proposed.

use super::nodes::NodeSet;
use super::rules::NodeRule;
use super::slots::{self, NodeSlot};
use super::{budget, canaries, classify, completion, destructive, duplicates, placement};
use super::{rollout, screen, tainted, tally, updates};
use crate::candidate::Candidate;
use crate::deployment::Deployments;
use crate::pipeline::{self, Reporting, Step};
use crate::{
    ClientStatus, DeploymentGroup, GroupPlan, Job, Reason, ReconcileInput, StepReport, TaskGroup,
};

/// What every group of a system job's run shares.
pub(crate) struct Context<'a> {
    pub(crate) input: &'a ReconcileInput,
    pub(crate) job: &'a Job,
    pub(crate) nodes: NodeSet,
    /// Run to completion: finished work counts as done.
    pub(crate) sysbatch: bool,
    /// The job had no deployment and some allocation already runs its
    /// current version: a rollout under way without a deployment gets none,
    /// as it could never be told complete.
    pub(crate) untracked_rollout: bool,
    /// Per node position: whether the node holds an allocation of the job's
    /// current version, running or finished, in any group.
    pub(crate) has_version: Vec<bool>,
}

/// The state of one group while its steps run.
pub(crate) struct NodeGroupRun<'a, 'r> {
    pub(crate) ctx: &'r Context<'a>,
    pub(crate) deployments: &'r mut Deployments<'a>,
    pub(crate) spec: &'a TaskGroup,
    /// Sorted by node, then index, so that a slot's candidates are contiguous.
    pub(crate) candidates: Vec<Candidate<'a>>,
    /// The rule that classified each candidate, once classified.
    pub(crate) rules: Vec<Option<&'static NodeRule>>,
    pub(crate) slots: Vec<NodeSlot>,
    /// The group's deployment state: the current deployment's, or a fresh one.
    pub(crate) dstate: DeploymentGroup,
    /// Whether `dstate` came from the current deployment.
    pub(crate) dstate_existing: bool,
    /// Whether a deployment tracks the group, existing or created this run.
    pub(crate) tracked: bool,
    /// Positions of live candidates due for a new allocation of the new version.
    pub(crate) destructive: Vec<usize>,
    /// Positions of finished sysbatch allocations to run again.
    pub(crate) reruns: Vec<usize>,
    /// Canaries are wanted before the rest is replaced.
    pub(crate) canarying: bool,
    /// How many more allocations the rollout may replace now.
    pub(crate) budget: i64,
    /// How many allocations the group has or gets on its nodes: what the
    /// deployment counts as its total.
    pub(crate) desired: u32,
    pub(crate) plan: GroupPlan,
    /// The group needs nothing more of the current deployment.
    pub(crate) complete: bool,
    reports: Vec<StepReport>,
}

/// The steps of a group that exists and wants allocations, in order.
fn steps<'a, 'r>() -> [Step<NodeGroupRun<'a, 'r>>; 13] {
    [
        Step {
            name: "screen",
            run: screen::run,
        },
        Step {
            name: "classify",
            run: classify::run,
        },
        Step {
            name: "duplicates",
            run: duplicates::run,
        },
        Step {
            name: "tainted",
            run: tainted::run,
        },
        Step {
            name: "updates",
            run: updates::run,
        },
        Step {
            name: "placement",
            run: placement::run,
        },
        Step {
            name: "rollout",
            run: rollout::run,
        },
        Step {
            name: "budget",
            run: budget::run,
        },
        Step {
            name: "canaries",
            run: canaries::run,
        },
        Step {
            name: "reruns",
            run: destructive::reruns,
        },
        Step {
            name: "destructive",
            run: destructive::run,
        },
        Step {
            name: "deployment-state",
            run: tally::run,
        },
        Step {
            name: "completion",
            run: completion::run,
        },
    ]
}

impl<'a, 'r> NodeGroupRun<'a, 'r> {
    pub(crate) fn new(
        ctx: &'r Context<'a>,
        deployments: &'r mut Deployments<'a>,
        spec: &'a TaskGroup,
        mut candidates: Vec<Candidate<'a>>,
    ) -> Self {
        let (dstate, dstate_existing) = crate::group::deployment_state(deployments, spec);
        slots::sort(&mut candidates, &ctx.nodes);
        Self {
            ctx,
            deployments,
            spec,
            rules: vec![None; candidates.len()],
            slots: slots::build(&candidates, &ctx.nodes, spec.count),
            candidates,
            dstate,
            dstate_existing,
            tracked: dstate_existing,
            destructive: Vec::new(),
            reruns: Vec::new(),
            canarying: false,
            budget: 0,
            desired: 0,
            plan: crate::group::empty_plan(&spec.name),
            complete: true,
            reports: Vec::new(),
        }
    }

    /// Runs the steps, appending their reports; returns the group's plan and
    /// whether it needs nothing more of the current deployment.
    pub(crate) fn run(mut self, report: &mut Vec<StepReport>) -> (GroupPlan, bool) {
        // No step of a node group pauses: its hook points are not wired yet.
        pipeline::run(&mut self, &steps(), &mut 0);
        report.append(&mut self.reports);
        if self.ctx.input.explain {
            self.plan.slots = super::explain::slots(&self);
        }
        (self.plan, self.complete)
    }

    /// Stops the candidate at `i`, once. `counted` says whether the stop shows
    /// in the group's stop counter.
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
        self.plan.stops.push(c.stop(reason, client_status, message));
        if counted {
            self.plan.counters.stop += 1;
        }
    }

    /// Whether the job's current version and instance created candidate `i`.
    pub(crate) fn is_current(&self, i: usize) -> bool {
        let spec = &self.candidates[i].alloc.spec;
        spec.job_version == self.ctx.job.version
            && spec.job_create_index == self.ctx.job.create_index
    }
}

impl Reporting for NodeGroupRun<'_, '_> {
    fn reports(&mut self) -> &mut Vec<StepReport> {
        &mut self.reports
    }

    fn group(&self) -> Option<String> {
        Some(self.spec.name.clone())
    }
}
