//! Duplicates: a node runs one allocation of a group per slot, so when several live ones stay on it, the newest of the job's current version is kept.

use super::run::NodeGroupRun;
use crate::candidate::{Marks, Standing};
use crate::group::updates::decide;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::{Reason, UpdateKind};

/// Whether the candidate at `i` stays on its node after its classification:
/// not migrating, lost, or already stopped.
fn stays(g: &NodeGroupRun, i: usize) -> bool {
    let c = &g.candidates[i];
    c.has(Marks::TRACKED)
        && !c.has(Marks::STOPPED)
        && !matches!(
            c.standing,
            Standing::Migrating | Standing::Lost | Standing::Out
        )
}

/// When more than one live allocation claims a slot, whatever stops one of
/// them (as a duplicate, to migrate, as lost, for a reconnected original)
/// binds: no hold, veto or deferral withdraws it, so a policy can never
/// leave two allocations of the group running on one node.
fn crowded(g: &mut NodeGroupRun, claimants: std::ops::Range<usize>) {
    let live = |c: &crate::candidate::Candidate| !c.is_terminal();
    if g.candidates[claimants.clone()]
        .iter()
        .filter(|c| live(c))
        .count()
        < 2
    {
        return;
    }
    for c in &g.candidates[claimants] {
        if live(c) {
            g.hooks.binding.insert(c.id().to_string());
        }
    }
}

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    let mut stopped = 0;
    for s in 0..g.slots.len() {
        let claimants = g.slots[s].claimants.clone();
        crowded(g, claimants.clone());
        // Most slots hold one allocation: count before collecting.
        if claimants.clone().filter(|&i| stays(g, i)).count() < 2 {
            continue;
        }
        let staying: Vec<usize> = claimants.filter(|&i| stays(g, i)).collect();
        // Candidates are in creation order within a slot, so the last one of
        // the best standing is the newest: up to date first, then of the
        // job's current version.
        let rank = |i: usize| {
            let up_to_date = decide(&g.candidates[i]) == UpdateKind::Ignore;
            (up_to_date, g.is_current(i), i)
        };
        let keep = staying
            .iter()
            .copied()
            .max_by_key(|&i| rank(i))
            .unwrap_or(staying[0]);
        let node = &g.candidates[keep].node.id;
        let message = say!(
            "allocation ",
            g.candidates[keep].id(),
            " of the group already runs on node ",
            node
        );
        for i in staying.into_iter().filter(|&i| i != keep) {
            // A held duplicate was counted as ignored when held.
            if g.candidates[i].is(Standing::Held) {
                g.plan.counters.ignore = g.plan.counters.ignore.saturating_sub(1);
            }
            g.stop(i, Reason::Duplicate, None, message.clone(), Counted::AsStop);
            g.candidates[i].standing = Standing::Out;
            stopped += 1;
        }
    }
    if stopped == 0 {
        return Outcome::skipped("one allocation per node and slot");
    }
    Outcome::done(say!(stopped, " duplicate allocations stopped"))
}
