//! The state of a job's reconcile while its steps run, kept whole between pauses at hook points, and the plan it comes to.

use crate::allocation_ref::AllocationList;
use crate::candidate::Candidate;
use crate::deciding::Deciding;
use crate::deployment::Deployments;
use crate::named_groups::NamedGroups;
use crate::pipeline::Reporting;
use crate::post_slot::post_slot_items;
use crate::ruling::{Rulings, Wants};
use crate::sentence::say;
use crate::slot_hooks::HookedGroup;
use crate::system::nodes::Cluster;
use crate::{
    phrasing, GroupPlan, Job, NewDeployment, Plan, PolicyAction, ReconcileInput, SlotExt,
    StepReport, StepStatus,
};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The plugin data the plan carries: what the input carried, with `fresh`
/// data in place of earlier data for the same plugin and slot, sorted by
/// plugin, group, node and slot.
pub(crate) fn carried_ext(input: &[SlotExt], fresh: Vec<SlotExt>) -> Vec<SlotExt> {
    let key = |e: &SlotExt| (e.plugin.clone(), e.group.clone(), e.node.clone(), e.slot);
    let mut by_key: BTreeMap<(String, String, Option<String>, u32), SlotExt> =
        input.iter().map(|e| (key(e), e.clone())).collect();
    for e in fresh {
        by_key.insert(key(&e), e);
    }
    by_key.into_values().collect()
}

/// A group of the current deployment whose canaries await promotion.
pub(crate) struct Awaiting<'a> {
    /// The deployment's identifier.
    pub(crate) deployment: &'a str,
    pub(crate) group: &'a str,
    pub(crate) desired_canaries: u32,
    /// Its canaries still running, in slot order.
    pub(crate) canaries: Vec<Candidate<'a>>,
}

impl Awaiting<'_> {
    pub(crate) fn healthy(&self) -> usize {
        self.canaries
            .iter()
            .filter(|c| c.glance().is_healthy())
            .count()
    }
}

/// A group as the run has it once its steps ended: its plan, or its run
/// kept whole until the review of the plan is over.
pub(crate) enum Decided<'a> {
    Plan(Box<GroupPlan>),
    Run(Box<Deciding<'a>>),
}

/// The state of a job's run, kept between pauses.
pub(crate) struct JobRun<'a> {
    pub(crate) input: &'a ReconcileInput,
    pub(crate) job: Option<&'a Job>,
    /// The hook points the run pauses at.
    pub(crate) wants: Wants,
    /// What the caller ruled at the hook point the run paused at.
    pub(crate) rulings: Option<Rulings>,
    pub(crate) deployments: Deployments<'a>,
    pub(crate) promotions: Vec<crate::Promotion>,
    /// What policies did, in the order they were asked.
    pub(crate) actions: Vec<PolicyAction>,
    /// Deployment groups whose canaries await promotion, once known.
    pub(crate) awaiting: Vec<Awaiting<'a>>,
    /// The group being decided, paused at a hook point.
    pub(crate) current: Option<Box<Deciding<'a>>>,
    /// The groups decided so far, in order.
    pub(crate) decided: Vec<Decided<'a>>,
    /// Every group of the input, by name, in the order they are decided.
    pub(crate) groups: NamedGroups<'a>,
    /// The allocations of the input's groups, in input order.
    pub(crate) lists: Vec<AllocationList<'a>>,
    /// What a system job's groups read of the cluster, once the first of
    /// them is decided.
    pub(crate) cluster: Option<Rc<Cluster>>,
    pub(crate) next_group: usize,
    /// The job step to run next.
    pub(crate) cursor: usize,
    pub(crate) complete: bool,
    pub(crate) deployment: Option<NewDeployment>,
    pub(crate) reports: Vec<StepReport>,
}

impl<'a> JobRun<'a> {
    /// A run of `input`, which must be valid, pausing where `wants` says;
    /// `lists` are its groups' allocations, in input order.
    pub(crate) fn new(
        input: &'a ReconcileInput,
        lists: Vec<AllocationList<'a>>,
        wants: Wants,
    ) -> Self {
        let allocations = lists.iter().map(|list| list.len()).sum();
        Self {
            input,
            job: input.job.as_ref(),
            wants,
            rulings: None,
            deployments: Deployments::new(None, None),
            promotions: Vec::new(),
            actions: Vec::new(),
            awaiting: Vec::new(),
            current: None,
            decided: Vec::new(),
            groups: NamedGroups::new(input, &lists, input.job.as_ref()),
            lists,
            cluster: None,
            next_group: 0,
            cursor: 0,
            complete: true,
            deployment: None,
            reports: vec![StepReport {
                step: "validate".into(),
                group: None,
                status: StepStatus::Done,
                message: say!(
                    phrasing::count(allocations, "allocation"),
                    " in ",
                    phrasing::count(input.allocations.len(), "group"),
                    " on ",
                    phrasing::count(input.nodes.len(), "node")
                ),
            }],
        }
    }

    /// The plan of a run that is over; what the run held goes into it.
    pub(crate) fn finish(&mut self) -> Plan {
        finish_groups(self);
        Plan {
            groups: std::mem::take(&mut self.decided)
                .into_iter()
                .map(|d| match d {
                    Decided::Plan(plan) => *plan,
                    Decided::Run(g) => g.finish().0,
                })
                .collect(),
            deployment: self.deployment.take(),
            deployment_updates: std::mem::take(&mut self.deployments.updates),
            promotions: std::mem::take(&mut self.promotions),
            policy_actions: std::mem::take(&mut self.actions),
            plugin_failures: Vec::new(),
            steps: std::mem::take(&mut self.reports),
            ext: carried_ext(&self.input.ext, Vec::new()),
            plugin_logs: Vec::new(),
        }
    }

    /// The groups kept for review that have proposed changes, by their
    /// position in `decided`, with the slots that have them.
    pub(crate) fn review_items(&self) -> Vec<(usize, Vec<u32>)> {
        self.decided
            .iter()
            .enumerate()
            .filter_map(|(at, d)| match d {
                Decided::Run(g) => Some((at, post_slot_items(g.as_ref()))),
                Decided::Plan(_) => None,
            })
            .filter(|(_, slots)| !slots.is_empty())
            .collect()
    }
}

impl Reporting for JobRun<'_> {
    fn reports(&mut self) -> &mut Vec<StepReport> {
        &mut self.reports
    }

    fn group(&self) -> Option<String> {
        None
    }

    fn every_step(&self) -> bool {
        self.input.explain
    }
}

/// Turns the groups kept for review into plans, in place.
pub(crate) fn finish_groups(run: &mut JobRun) {
    for d in run.decided.iter_mut() {
        if let Decided::Run(_) = d {
            let Decided::Run(g) =
                std::mem::replace(d, Decided::Plan(Box::new(crate::group::empty_plan(""))))
            else {
                continue;
            };
            let (plan, complete) = g.finish();
            run.complete &= complete;
            *d = Decided::Plan(Box::new(plan));
        }
    }
}
