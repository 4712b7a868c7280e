//! The slot hooks' side of a group: what policies ruled on its slots, and what any group (of a service, batch or system job) shows and gives the pre-slot, post-slot and review steps.
//!
//! A slot is named by a number its group gives it: the name index for a
//! service or batch group, the slot's position for a system group, whose
//! slots are nodes. The steps that apply rulings work on that number alone;
//! where a slot is (its name index, its node) is asked of the group.

use crate::candidate::{Candidate, Marks};
use crate::deployment::Deployments;
use crate::followup::Batch;
use crate::pipeline::{Flow, Reporting};
use crate::ruling::{Point, Rulings, Wants};
use crate::{
    ClientStatus, GroupPlan, Placement, PolicyAction, PolicyVerdict, Reason, StepReport, TaskGroup,
};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

/// What policies asked of and ruled on a group's slots so far.
pub(crate) struct SlotHooks {
    /// The hook points the run pauses at.
    pub(crate) wants: Wants,
    /// What the caller ruled at the hook point the run paused at.
    pub(crate) rulings: Option<Rulings>,
    /// Whether the post-slot step has withdrawn the held slots' changes.
    pub(crate) prepared: bool,
    /// Slots a policy keeps as they are this round, held or vetoed.
    pub(crate) held: BTreeSet<u32>,
    /// How the stops that do not show in the stop counter were counted, by
    /// allocation: withdrawing a stop takes it off its own counter.
    pub(crate) stops_counted_apart: BTreeMap<String, Counted>,
    /// Allocations whose stops a safety rule binds: no hold, veto or
    /// deferral withdraws them (a system group's slot that more than one
    /// live allocation claims keeps the stops that leave it one).
    pub(crate) binding: BTreeSet<String>,
    /// What policies did, in the order they were asked.
    pub(crate) actions: Vec<PolicyAction>,
    /// The slots shown at the post-slot hook point while the run is paused
    /// there: the batch shows them and the rulings answer them in order,
    /// with no second pass over the plan's changes.
    pub(crate) post_slot_items: Option<Vec<u32>>,
}

impl SlotHooks {
    pub(crate) fn new(wants: Wants) -> Self {
        Self {
            wants,
            rulings: None,
            prepared: false,
            held: BTreeSet::new(),
            stops_counted_apart: BTreeMap::new(),
            binding: BTreeSet::new(),
            actions: Vec::new(),
            post_slot_items: None,
        }
    }
}

/// Where a slot is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// Its name index.
    pub(crate) index: u32,
    /// Its node, for a system group: a position in the input's nodes.
    pub(crate) node: Option<u32>,
}

/// Which slot each entry of a group's plan concerns.
pub(crate) enum SlotOf<'g> {
    /// Slots are name indexes.
    Index,
    /// Slots are nodes: by (node, name index) for placements, by
    /// allocation for the rest.
    Node {
        placed: BTreeMap<(u32, u32), u32>,
        claimed: BTreeMap<&'g str, u32>,
    },
}

impl SlotOf<'_> {
    pub(crate) fn placement(&self, p: &Placement) -> Option<u32> {
        match self {
            SlotOf::Index => Some(p.name_index),
            SlotOf::Node { placed, .. } => placed.get(&(p.node?, p.name_index)).copied(),
        }
    }

    /// The slot of an entry on allocation `allocation`, of name index `index`.
    pub(crate) fn allocation(&self, allocation: &str, index: u32) -> Option<u32> {
        match self {
            SlotOf::Index => Some(index),
            SlotOf::Node { claimed, .. } => claimed.get(allocation).copied(),
        }
    }
}

/// The split borrows the hook steps change a group through.
pub(crate) struct Parts<'g, 'a> {
    pub(crate) candidates: &'g mut [Candidate<'a>],
    pub(crate) plan: &'g mut GroupPlan,
    pub(crate) hooks: &'g mut SlotHooks,
}

/// Which counter a stop shows in. Nomad counts user-visible churn as
/// stops, a move off a node as a migration, and neither a canary's
/// migration nor the transient stops around canaries and reconnections.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Counted {
    AsStop,
    AsMigration,
    Not,
}

impl Parts<'_, '_> {
    /// Stops the candidate at `i`, once, counted as `counted` says; how it
    /// was counted is remembered unless as a stop, so that a hook
    /// withdrawing it takes it off that counter. A stop supersedes resuming
    /// the same allocation.
    pub(crate) fn stop(
        self,
        i: usize,
        reason: Reason,
        client_status: Option<ClientStatus>,
        message: String,
        counted: Counted,
    ) {
        let c = &mut self.candidates[i];
        if c.has(Marks::STOPPED) {
            return;
        }
        if c.take(Marks::RESUMED) {
            self.plan
                .reconnect_updates
                .retain(|u| u.allocation != c.id());
            self.plan.counters.reconnect -= 1;
        }
        self.plan.stops.push(c.stop(reason, client_status, message));
        let counters = &mut self.plan.counters;
        match counted {
            Counted::AsStop => counters.stop += 1,
            Counted::AsMigration => counters.migrate += 1,
            Counted::Not => {}
        }
        if counted != Counted::AsStop {
            (self.hooks.stops_counted_apart).insert(c.id().to_string(), counted);
        }
    }
}

/// A group being decided, as the job's run and the slot hooks see it,
/// whichever reconciler decides it.
pub(crate) trait HookedGroup<'a>: Reporting {
    fn spec(&self) -> &'a TaskGroup;
    fn candidates(&self) -> &[Candidate<'a>];
    fn plan(&self) -> &GroupPlan;
    fn hooks(&self) -> &SlotHooks;
    fn parts(&mut self) -> Parts<'_, 'a>;
    /// The positions of the candidates claiming slot `slot`.
    fn claimants(&self, slot: u32) -> Range<usize>;
    /// Where slot `slot` is.
    fn place(&self, slot: u32) -> Place;
    /// Which slot each plan entry concerns.
    fn slot_of(&self) -> SlotOf<'_>;
    /// The slots shown to plugins before the group is decided, in order.
    fn pre_slot_items(&self) -> Vec<u32>;
    /// Creates the follow-up evaluations that look again at deferred
    /// slots; each batch's members are slots.
    fn defer(&mut self, batches: Vec<Batch>);
    /// Marks the group as needing more of the current deployment.
    fn set_incomplete(&mut self);
    /// Runs the group's steps from where they stopped, until one pauses or
    /// all have run; the rulings the paused step waits for are in `hooks`.
    fn advance(&mut self) -> Flow;
    /// The hook point the group is paused at, if any.
    fn paused_at(&self) -> Option<Point>;
    /// Appends the reports of the steps run so far to `report`.
    fn take_reports(&mut self, report: &mut Vec<StepReport>);
    /// Hands the job's deployments back once the group's steps ended.
    fn take_deployments(&mut self) -> Deployments<'a>;
    /// The group's plan, and whether it needs nothing more of the current
    /// deployment.
    fn finish(self) -> (GroupPlan, bool)
    where
        Self: Sized;
}

/// Records what policy `by` did to slot `slot` of `g`, and why.
pub(crate) fn act<'a>(
    g: &mut (impl HookedGroup<'a> + ?Sized),
    by: &str,
    slot: u32,
    verdict: PolicyVerdict,
    reason: &str,
) {
    let action = action(g, by, slot, verdict, reason, true);
    g.parts().hooks.actions.push(action);
}

/// What policy `by` did to slot `slot` of `g`, as the plan records it.
pub(crate) fn action<'a>(
    g: &(impl HookedGroup<'a> + ?Sized),
    by: &str,
    slot: u32,
    verdict: PolicyVerdict,
    reason: &str,
    applied: bool,
) -> PolicyAction {
    let place = g.place(slot);
    PolicyAction {
        plugin: by.to_string(),
        group: g.spec().name.clone(),
        slot: Some(place.index),
        node: place.node,
        verdict,
        reason: reason.to_string(),
        applied,
    }
}

/// The methods of [`HookedGroup`] that read and lend a run's own fields and
/// drive its step table, written once for every kind of group: for a run
/// whose fields are named `spec`, `candidates`, `plan`, `hooks`,
/// `deployments`, `reports` and `cursor`, in a module whose `step_table!` declares
/// its steps. `$a` is the run's lifetime.
macro_rules! hooked_run {
    ($a:lifetime) => {
        fn spec(&self) -> &$a $crate::TaskGroup {
            self.spec
        }

        fn candidates(&self) -> &[$crate::candidate::Candidate<$a>] {
            &self.candidates
        }

        fn plan(&self) -> &$crate::GroupPlan {
            &self.plan
        }

        fn hooks(&self) -> &$crate::slot_hooks::SlotHooks {
            &self.hooks
        }

        fn parts(&mut self) -> $crate::slot_hooks::Parts<'_, $a> {
            $crate::slot_hooks::Parts {
                candidates: &mut self.candidates,
                plan: &mut self.plan,
                hooks: &mut self.hooks,
            }
        }

        fn advance(&mut self) -> $crate::pipeline::Flow {
            let mut cursor = self.cursor;
            let flow = run_steps(self, &mut cursor);
            self.cursor = cursor;
            flow
        }

        fn paused_at(&self) -> Option<$crate::ruling::Point> {
            $crate::ruling::Point::of_step(STEPS.get(self.cursor)?)
        }

        fn take_reports(&mut self, report: &mut Vec<$crate::StepReport>) {
            report.append(&mut self.reports);
        }

        fn take_deployments(&mut self) -> $crate::deployment::Deployments<$a> {
            let none = $crate::deployment::Deployments::new(None, None);
            std::mem::replace(&mut self.deployments, none)
        }
    };
}
pub(crate) use hooked_run;
