//! Canary placement: a destructive change under an update strategy with canaries first places the canaries it lacks.

use super::run::GroupRun;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::{Placement, Reason};

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let Some(update) = g.spec.update.as_ref() else {
        return Outcome::skipped("no update strategy");
    };
    let canary_slots = g.canary_slots();
    let have = canary_slots.len() as u32;
    g.requires_canaries = !g.destructive.is_empty() && have < update.canary && !g.dstate.promoted;
    if !g.requires_canaries {
        g.canarying = g.dstate.desired_canaries != 0 && !g.dstate.promoted;
        return Outcome::skipped(say!(have, " canaries of ", update.canary, " needed"));
    }
    g.dstate.desired_canaries = update.canary;
    g.canarying = true;
    if g.deployments.is_paused() || g.deployments.is_failed() {
        return Outcome::waiting("the deployment is paused or failed; no canary is placed");
    }
    let missing = update.canary - have;
    g.plan.counters.canary += missing;
    let replaced: Vec<u32> = g
        .destructive
        .iter()
        .map(|&i| g.candidates[i].index())
        .collect();
    let slots = g.occupancy.next_canaries(missing, &canary_slots, &replaced);
    for (n, index) in slots.into_iter().enumerate() {
        g.plan.placements.push(Placement {
            name_index: index,
            canary: true,
            previous_allocation: None,
            reschedule: false,
            previous_lost: false,
            downgrade_non_canary: false,
            min_job_version: 0,
            reason: Reason::Canary,
            message: say!(
                "canary ",
                have + n as u32 + 1,
                " of ",
                update.canary,
                " for the new version"
            ),
            node: None,
        });
    }
    Outcome::done(say!(missing, " canaries placed"))
}
