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
use crate::pipeline::Step;
use crate::slot_hooks::{hooked_run, HookedGroup, Place, SlotOf};
use crate::{post_slot, pre_slot, GroupPlan};
use std::ops::Range;

/// The steps of a group that exists and wants allocations, in order.
fn steps<'a>() -> [Step<GroupRun<'a>>; 19] {
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
            name: "pre-slot",
            run: pre_slot::run::<GroupRun>,
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
            name: "post-slot",
            run: post_slot::run::<GroupRun>,
        },
        Step {
            name: "completion",
            run: completion::run,
        },
    ]
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

    fn finish(self: Box<Self>) -> (GroupPlan, bool) {
        self.finish_plan()
    }
}
