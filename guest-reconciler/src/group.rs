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
mod post_slot;
mod pre_slot;
mod reconnect;
mod rescheduling;
mod rollout;
mod run;
pub(crate) mod screen;
mod surplus;
pub(crate) mod updates;

pub(crate) use post_slot::{changes_by_slot, withdraw, ChangeKind, Proposals, Proposed};
pub(crate) use run::{deployment_state, empty_plan, Context, GroupRun};

use crate::pipeline::{self, Flow, Step};
use crate::ruling::Point;

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
            run: pre_slot::run,
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
            run: post_slot::run,
        },
        Step {
            name: "completion",
            run: completion::run,
        },
    ]
}

impl GroupRun<'_> {
    /// Runs the steps from where the run stopped, until one pauses or all
    /// have run. The caller gives the rulings the paused step waits for in
    /// `rulings` before running it again.
    pub(crate) fn advance(&mut self) -> Flow {
        let mut cursor = self.cursor;
        let flow = pipeline::run(self, &steps(), &mut cursor);
        self.cursor = cursor;
        flow
    }

    /// The hook point the run is paused at, if any.
    pub(crate) fn paused_at(&self) -> Option<Point> {
        let steps = steps();
        Point::of_step(steps.get(self.cursor)?.name)
    }
}
