//! Placement: failed allocations are replaced, lost ones replaced up to the count, free slots filled; the deployment decides how much of it happens now.

use super::run::{GroupRun, Proposal};
use crate::candidate::{Candidate, Marks, Standing};
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::{ClientStatus, Placement, Reason};

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    if g.waiting_for_lost {
        g.proposed.clear();
    } else {
        propose(g);
    }
    g.ready = !g.deployments.is_paused() && !g.deployments.is_failed() && !g.canarying;
    if g.ready {
        let placed = g.proposed.len() as u32;
        g.plan.counters.place += placed;
        let proposed = std::mem::take(&mut g.proposed);
        g.plan
            .placements
            .extend(proposed.into_iter().map(|p| p.placement));
        stop_replaced_failures(g);
        g.budget -= g.budget.min(i64::from(placed));
        return Outcome::done(say!(placed, " placements"));
    }
    let placed = place_despite_deployment(g);
    Outcome::waiting(say!(
        "the deployment holds new work back; ",
        placed,
        " replacements of lost or failed allocations placed anyway"
    ))
}

/// The placements the group needs, before the deployment has its say.
fn propose(g: &mut GroupRun) {
    let count = g.spec.count;
    let canarying = g.canarying;
    // One pass over the candidates proposes the replacements of failed
    // ones, counts those that hold the count and finds the lost: in a
    // group larger than the cache, each pass costs about the candidates'
    // bytes.
    let (mut proposed, mut existing, mut lost) = (Vec::new(), 0, Vec::new());
    for (i, c) in g.candidates.iter().enumerate() {
        let replaced = c.has(Marks::RESCHEDULE_NOW);
        if replaced {
            let message = say!("replaces failed allocation ", c.id());
            proposed.push(replacement(i, c, canarying, true, message));
        }
        existing += usize::from(c.is(Standing::Untainted))
            + usize::from(c.is(Standing::Migrating))
            + usize::from(replaced);
        if c.is(Standing::Lost) {
            lost.push(i);
        }
    }
    existing += g.held_within_count();
    for i in lost {
        if existing >= count as usize {
            break;
        }
        existing += 1;
        let c = &g.candidates[i];
        proposed.push(replacement(
            i,
            c,
            canarying,
            false,
            say!("replaces lost allocation ", c.id()),
        ));
    }
    if existing < count as usize {
        let missing = count - existing as u32;
        for index in g.occupancy.next(missing) {
            proposed.push(Proposal {
                previous: None,
                placement: Placement {
                    name_index: index,
                    canary: false,
                    previous_allocation: None,
                    reschedule: false,
                    previous_lost: false,
                    downgrade_non_canary: canarying,
                    min_job_version: 0,
                    reason: Reason::FillSlot,
                    message: say!("slot ", index, " is free; ", count, " allocations wanted"),
                    node: None,
                },
            });
        }
    }
    if !g.dstate_existing {
        g.dstate.desired_total += proposed.len() as u32;
    }
    g.proposed = proposed;
}

/// A placement that takes over the slot of candidate `c` at position `i`.
fn replacement(
    i: usize,
    c: &Candidate,
    canarying: bool,
    reschedule: bool,
    message: String,
) -> Proposal {
    let canary = c.glance().canary;
    Proposal {
        previous: Some(i),
        placement: Placement {
            name_index: c.index(),
            canary,
            previous_allocation: Some(c.id().to_string()),
            reschedule,
            previous_lost: !reschedule,
            downgrade_non_canary: canarying && !canary,
            min_job_version: c.alloc().job_version(),
            reason: if reschedule {
                Reason::RescheduleNow
            } else {
                Reason::Lost
            },
            message,
            node: None,
        },
    }
}

/// Failed allocations replaced now are stopped; disconnected, migrating and
/// unknown ones are left to their own handling.
fn stop_replaced_failures(g: &mut GroupRun) {
    for i in 0..g.candidates.len() {
        let c = &g.candidates[i];
        let failed = c.has(Marks::RESCHEDULE_NOW)
            && !c.has(Marks::DISCONNECTED)
            && !c.is(Standing::Migrating)
            && c.client_status() != ClientStatus::Unknown;
        if failed {
            let message = "failed; a replacement is placed".to_string();
            g.stop(i, Reason::RescheduleNow, None, message, Counted::AsStop);
        }
    }
}

/// While the deployment holds new work back, lost allocations are still
/// replaced, and so are failed ones that are not part of a failed deployment.
/// Returns how many placements were made.
fn place_despite_deployment(g: &mut GroupRun) -> u32 {
    let proposed = std::mem::take(&mut g.proposed);
    let lost = g.count_of(Standing::Lost);
    let mut placed = 0;
    for p in proposed
        .iter()
        .filter(|p| p.placement.previous_lost)
        .take(lost)
    {
        g.plan.placements.push(p.placement.clone());
        placed += 1;
    }
    let failed_deployment = g
        .deployments
        .is_failed()
        .then(|| g.deployments.current_id().map(str::to_string))
        .flatten();
    for p in proposed.into_iter().filter(|p| p.placement.reschedule) {
        let Some(prev) = p.previous else {
            continue;
        };
        if failed_deployment
            .as_deref()
            .is_some_and(|d| g.candidates[prev].in_deployment(g.deployments.asked(d)))
        {
            continue;
        }
        g.plan.placements.push(p.placement);
        placed += 1;
        if !g.candidates[prev].has(Marks::DISCONNECTED) {
            let message = "failed; a replacement is placed".to_string();
            g.stop(prev, Reason::RescheduleNow, None, message, Counted::AsStop);
        }
    }
    g.plan.counters.place += placed;
    placed
}
