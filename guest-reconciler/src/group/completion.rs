//! Completion: whether the group needs nothing more of the current deployment.

use super::run::GroupRun;
use crate::candidate::Standing;
use crate::pipeline::Outcome;
use crate::sentence::say;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    if g.dstate_existing {
        // The run may have changed the state it read, as Nomad does in place.
        g.deployments.put_group(g.dstate.clone());
    }
    let pending = g.destructive.len()
        + g.in_place as usize
        + g.plan.placements.len()
        + g.count_of(Standing::Migrating)
        + g.rescheduling_now()
        + g.rescheduling_later;
    if pending > 0 || g.requires_canaries {
        g.complete = false;
        return Outcome::skipped(say!(pending, " changes still to roll out"));
    }
    if !g.hooks.held.is_empty() {
        g.complete = false;
        let held = g.hooks.held.len();
        return Outcome::skipped(say!(held, " slots kept as they are by a policy"));
    }
    if g.deployments.current_id().is_none() {
        g.complete = false;
        return Outcome::skipped("no current deployment");
    }
    g.complete = match g.deployments.group(&g.spec.name) {
        None => true,
        Some(ds) => {
            ds.healthy_allocs >= ds.desired_total.max(ds.desired_canaries)
                && (ds.desired_canaries == 0 || ds.promoted)
        }
    };
    if g.complete {
        Outcome::done("every allocation is placed and healthy")
    } else {
        Outcome::waiting("waiting for allocations to become healthy or canaries to be promoted")
    }
}
