//! Migration: allocations marked to move are stopped and placed again elsewhere, whatever the deployment's state.

use super::run::GroupRun;
use crate::candidate::Standing;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::{Placement, Reason};

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let migrating = g.positions(Standing::Migrating);
    if migrating.is_empty() {
        return Outcome::skipped("nothing to migrate");
    }
    let mut placed = 0;
    for i in migrating {
        let c = &g.candidates[i];
        let transition = c.transition();
        // Batch work drained without placement, or stopped to be
        // rescheduled, is not placed again here.
        let replace =
            !(g.ctx.is_batch && (transition.reschedule || transition.migrate_disable_placement));
        let canary = c.glance().canary;
        let placement = replace.then(|| Placement {
            name_index: c.index(),
            canary,
            previous_allocation: Some(c.id().to_string()),
            reschedule: false,
            previous_lost: false,
            downgrade_non_canary: g.canarying && !canary,
            min_job_version: c.alloc().job_version(),
            reason: Reason::Migrate,
            message: say!("moves allocation ", c.id(), " off node ", c.node.id),
            node: None,
        });
        let message = say!("marked to move off node ", c.node.id);
        g.stop(i, Reason::Migrate, None, message, Counted::AsMigration);
        if let Some(p) = placement {
            g.plan.placements.push(p);
            placed += 1;
        }
    }
    Outcome::done(say!(placed, " allocations moved"))
}
