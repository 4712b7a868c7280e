//! A group being decided, by name index (service and batch jobs) or by node (system jobs), as one type the job's run holds.
//!
//! The run held it as a `Box<dyn HookedGroup>`: every method first called
//! through the trait object in a fresh instance of the component made
//! wasmtime fill a function-table entry, some seven per reconcile, which a
//! count-10 reconcile felt. Matching on the two kinds calls them directly.

use crate::candidate::Candidate;
use crate::deployment::Deployments;
use crate::followup::Batch;
use crate::group::GroupRun;
use crate::pipeline::{Flow, Reporting};
use crate::ruling::Point;
use crate::slot_hooks::{HookedGroup, Parts, Place, SlotHooks, SlotOf};
use crate::system::NodeGroupRun;
use crate::{GroupPlan, StepReport, TaskGroup};
use std::ops::Range;

pub(crate) enum Deciding<'a> {
    /// A group of a service or batch job: a slot per name index.
    Slots(GroupRun<'a>),
    /// A group of a system or sysbatch job: a slot per node.
    Nodes(NodeGroupRun<'a>),
}

/// Calls `$call` on whichever kind of group `$self` is.
macro_rules! each {
    ($self:expr, $g:ident => $call:expr) => {
        match $self {
            Deciding::Slots($g) => $call,
            Deciding::Nodes($g) => $call,
        }
    };
}

impl Reporting for Deciding<'_> {
    fn reports(&mut self) -> &mut Vec<StepReport> {
        each!(self, g => g.reports())
    }

    fn group(&self) -> Option<String> {
        each!(self, g => g.group())
    }

    fn every_step(&self) -> bool {
        each!(self, g => g.every_step())
    }
}

impl<'a> HookedGroup<'a> for Deciding<'a> {
    fn spec(&self) -> &'a TaskGroup {
        each!(self, g => g.spec())
    }

    fn candidates(&self) -> &[Candidate<'a>] {
        each!(self, g => g.candidates())
    }

    fn plan(&self) -> &GroupPlan {
        each!(self, g => g.plan())
    }

    fn hooks(&self) -> &SlotHooks {
        each!(self, g => g.hooks())
    }

    fn parts(&mut self) -> Parts<'_, 'a> {
        each!(self, g => g.parts())
    }

    fn claimants(&self, slot: u32) -> Range<usize> {
        each!(self, g => g.claimants(slot))
    }

    fn place(&self, slot: u32) -> Place {
        each!(self, g => g.place(slot))
    }

    fn slot_of(&self) -> SlotOf<'_> {
        each!(self, g => g.slot_of())
    }

    fn pre_slot_items(&self) -> Vec<u32> {
        each!(self, g => g.pre_slot_items())
    }

    fn defer(&mut self, batches: Vec<Batch>) {
        each!(self, g => g.defer(batches))
    }

    fn set_incomplete(&mut self) {
        each!(self, g => g.set_incomplete())
    }

    fn advance(&mut self) -> Flow {
        each!(self, g => g.advance())
    }

    fn paused_at(&self) -> Option<Point> {
        each!(self, g => g.paused_at())
    }

    fn take_reports(&mut self, report: &mut Vec<StepReport>) {
        each!(self, g => g.take_reports(report))
    }

    fn take_deployments(&mut self) -> Deployments<'a> {
        each!(self, g => g.take_deployments())
    }

    fn finish(self) -> (GroupPlan, bool) {
        each!(self, g => g.finish())
    }
}
