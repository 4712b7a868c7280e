//! The state of one group of a system job while its steps run, and what the steps do to it that more than one step needs.

use super::nodes::Cluster;
use super::rules::NodeRule;
use super::slots::{self, NodeSlot};
use crate::candidate::Candidate;
use crate::deployment::Deployments;
use crate::pipeline::Reporting;
use crate::ruling::Wants;
use crate::slot_hooks::{Counted, HookedGroup, SlotHooks};
use crate::{
    ClientStatus, DeploymentGroup, GroupPlan, Job, Reason, ReconcileInput, StepReport, TaskGroup,
};
use std::rc::Rc;
/// What a group of a system job reads of the job and its nodes.
pub(crate) struct Context<'a> {
    pub(crate) input: &'a ReconcileInput,
    pub(crate) job: &'a Job,
    /// What every group reads of the cluster, shared by them all.
    pub(crate) cluster: Rc<Cluster>,
    /// Run to completion: finished work counts as done.
    pub(crate) sysbatch: bool,
}

/// The state of one group while its steps run. It owns what it works on,
/// the job's deployments included while it runs, so that it can pause at a
/// hook point and resume later.
pub(crate) struct NodeGroupRun<'a> {
    pub(crate) ctx: Context<'a>,
    pub(crate) deployments: Deployments<'a>,
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
    /// What policies asked of and ruled on the group's node slots.
    pub(crate) hooks: SlotHooks,
    /// The step to run next.
    pub(crate) cursor: usize,
    pub(crate) reports: Vec<StepReport>,
}

impl<'a> NodeGroupRun<'a> {
    pub(crate) fn new(
        ctx: Context<'a>,
        deployments: Deployments<'a>,
        spec: &'a TaskGroup,
        mut candidates: Vec<Candidate<'a>>,
        wants: Wants,
    ) -> Self {
        let (dstate, dstate_existing) = crate::group::deployment_state(&deployments, spec);
        slots::sort(&mut candidates, &ctx.cluster.nodes);
        let slots = slots::build(&candidates, &ctx.cluster.nodes, spec.count);
        Self {
            ctx,
            deployments,
            spec,
            rules: vec![None; candidates.len()],
            slots,
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
            hooks: SlotHooks::new(wants),
            cursor: 0,
            reports: Vec::new(),
        }
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

    /// Whether the job's current version and instance created candidate `i`.
    pub(crate) fn is_current(&self, i: usize) -> bool {
        let alloc = self.candidates[i].alloc();
        alloc.job_version() == self.ctx.job.version
            && alloc.job_create_index() == self.ctx.job.create_index
    }
}

impl Reporting for NodeGroupRun<'_> {
    fn reports(&mut self) -> &mut Vec<StepReport> {
        &mut self.reports
    }

    fn group(&self) -> Option<String> {
        Some(self.spec.name.clone())
    }

    fn every_step(&self) -> bool {
        self.ctx.input.explain
    }
}
