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
pub(crate) mod destructive;
mod disconnect;
mod followups;
mod migration;
mod placement;
mod reconnect;
mod rescheduling;
mod rollout;
mod run;
pub(crate) mod screen;
mod surplus;
pub(crate) mod updates;

pub(crate) use run::{deployment_state, empty_plan, Context, GroupRun};

use crate::followup::{Batch, Purpose};
use crate::pipeline::step_table;
use crate::slot_hooks::{hooked_run, HookedGroup, Place, SlotOf};
use crate::{post_slot, pre_slot, GroupPlan};
use std::ops::Range;

// The steps of a group that exists and wants allocations, in order.
step_table! {
    GroupRun<'_> {
        "screen" => screen::run,
        "canaries" => canaries::run,
        "classify" => classify::run,
        "pre-slot" => pre_slot::run::<GroupRun>,
        "reschedule" => rescheduling::run,
        "reconnect" => reconnect::run,
        "disconnect" => disconnect::run,
        "follow-ups" => followups::run,
        "surplus" => surplus::run,
        "updates" => updates::run,
        "canary-placement" => canary_placement::run,
        "budget" => budget::run,
        "placement" => placement::run,
        "destructive" => destructive::run,
        "migration" => migration::run,
        "rollout" => rollout::run,
        "count-cap" => count_cap::run,
        "post-slot" => post_slot::run::<GroupRun>,
        "completion" => completion::run,
    }
}

impl<'a> HookedGroup<'a> for GroupRun<'a> {
    hooked_run!('a);

    fn claimants(&self, slot: u32) -> Range<usize> {
        self.slots.claimants(slot)
    }

    fn place(&self, slot: u32) -> Place {
        Place {
            index: slot,
            node: None,
        }
    }

    fn slot_of(&self) -> SlotOf<'_> {
        SlotOf::Index
    }

    fn pre_slot_items(&self) -> Vec<u32> {
        self.slots.all(self.spec.count)
    }

    fn defer(&mut self, batches: Vec<Batch>) {
        self.create_evals(batches, Purpose::PolicyDeferral, false);
    }

    fn set_incomplete(&mut self) {
        self.complete = false;
    }

    fn finish(self) -> (GroupPlan, bool) {
        self.finish_plan()
    }
}
