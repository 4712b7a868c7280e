//! Completion: whether the group needs nothing more of the current deployment.

use super::run::GroupRun;
use crate::candidate::{Marks, Standing};
use crate::pipeline::Outcome;
use crate::sentence::say;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    if g.dstate_existing {
        // The run may have changed the state it read, as Nomad does in place.
        g.deployments.put_group(g.dstate.clone());
    }
    if g.requires_canaries || any_pending(g) {
        g.complete = false;
        // Only a plan that reports skipped steps words the count, which
        // takes two passes over a large group's candidates.
        if !g.ctx.explain {
            return Outcome::skipped("changes still to roll out");
        }
        return Outcome::skipped(say!(pending(g), " changes still to roll out"));
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

/// The changes decided that need no pass over the candidates to count.
fn decided(g: &GroupRun) -> usize {
    g.destructive.len() + g.in_place as usize + g.plan.placements.len() + g.rescheduling_later
}

/// Whether the rollout has changes still to make: decided ones, or
/// candidates migrating or being rescheduled now. Stops at the first.
fn any_pending(g: &GroupRun) -> bool {
    decided(g) > 0
        || g.candidates
            .iter()
            .any(|c| c.is(Standing::Migrating) || c.has(Marks::RESCHEDULE_NOW))
}

/// How many changes the rollout has still to make.
fn pending(g: &GroupRun) -> usize {
    decided(g) + g.count_of(Standing::Migrating) + g.rescheduling_now()
}
