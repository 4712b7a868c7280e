//! Surplus: lost allocations are stopped, and when more allocations claim slots than the count allows, slots give up their claims, highest first.

use super::run::GroupRun;
use crate::candidate::{Marks, Standing};
use crate::occupancy::Occupancy;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::{ClientStatus, Reason};

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let count = g.spec.count;
    g.canarying = g.dstate.desired_canaries != 0 && !g.dstate.promoted;
    // One pass over the candidates takes the slots' claims and the three
    // tallies below: in a group larger than the cache, each pass costs
    // about the candidates' bytes, and this step took four.
    let tally = Tally::of(g);
    g.occupancy = tally.occupancy;
    let lost = tally.lost;
    for &i in &lost {
        let message = lost_because(g, i);
        g.stop(
            i,
            Reason::Lost,
            Some(ClientStatus::Lost),
            message,
            Counted::AsStop,
        );
    }
    let counted = tally.working + g.held_within_count();
    let excess = counted as i64 + tally.migrating as i64 - i64::from(count);
    if excess <= 0 {
        return Outcome::done(say!(
            lost.len(),
            " lost stopped; no surplus for a count of ",
            count
        ));
    }
    let mut surplus = Surplus {
        remaining: excess as u32,
        stopped: 0,
    };
    if !g.canarying {
        give_up_canary_slots(g, &mut surplus);
    }
    give_up_migrating(g, &mut surplus);
    if !surplus.done() {
        let highest = g.occupancy.highest(surplus.remaining);
        for index in highest {
            let message = || {
                say!(
                    "slot ",
                    index,
                    " is beyond the ",
                    count,
                    " slots the group keeps"
                )
            };
            give_up(g, index, &mut surplus, Reason::ScaleDown, message, |_| true);
        }
    }
    // The highest slots may be held by lost or failed allocations, and a slot
    // may be claimed twice: whatever surplus remains goes from the top.
    let slots = g.slots.all(count);
    for &index in slots.iter().rev() {
        if surplus.done() {
            break;
        }
        let message = || {
            say!(
                "slot ",
                index,
                " is surplus; the group keeps ",
                count,
                " allocations"
            )
        };
        give_up(g, index, &mut surplus, Reason::ScaleDown, message, |_| true);
    }
    Outcome::done(say!(
        lost.len(),
        " lost stopped; ",
        surplus.stopped,
        " surplus stopped for a count of ",
        count
    ))
}

/// What the step reads of the candidates, in one pass.
struct Tally {
    /// The slots claimed: by candidates that hold one, and by policies.
    occupancy: Occupancy,
    /// The positions of the lost candidates, in order.
    lost: Vec<usize>,
    /// Candidates counted as running: working, and not unknown, which hold
    /// their slot but do not count; canaries awaiting promotion are not
    /// counted against the old version either (see `GroupRun::is_working`).
    working: usize,
    migrating: usize,
}

impl Tally {
    fn of(g: &GroupRun) -> Self {
        let (mut lost, mut working, mut migrating) = (Vec::new(), 0, 0);
        let claims = g.candidates.iter().enumerate().filter_map(|(i, c)| {
            match c.standing {
                Standing::Lost => lost.push(i),
                Standing::Migrating => migrating += 1,
                _ => {}
            }
            if g.is_working(i) && c.client_status() != ClientStatus::Unknown {
                working += 1;
            }
            let claims = c.has(Marks::RESCHEDULE_NOW)
                || matches!(
                    c.standing,
                    Standing::Untainted
                        | Standing::Migrating
                        | Standing::Lost
                        | Standing::Rescheduled
                );
            claims.then(|| c.index())
        });
        // A slot a policy holds stays taken, with or without an allocation.
        let claims = claims.chain(g.hooks.held.iter().copied());
        let occupancy = Occupancy::new(g.spec.count, claims);
        Self {
            occupancy,
            lost,
            working,
            migrating,
        }
    }
}

/// After promotion, an old allocation sharing its slot with a canary goes first.
fn give_up_canary_slots(g: &mut GroupRun, surplus: &mut Surplus) {
    let mut canary_slots = g.canary_slots();
    canary_slots.dedup();
    for &index in canary_slots.iter().rev() {
        let message = || say!("slot ", index, " is held by a promoted canary");
        give_up(g, index, surplus, Reason::CanaryPromoted, message, |c| {
            !c.has(Marks::CANARY)
        });
    }
}

/// Allocations about to migrate are cheaper to drop than running ones: the
/// highest slots among them stop instead of moving.
fn give_up_migrating(g: &mut GroupRun, surplus: &mut Surplus) {
    if surplus.done() {
        return;
    }
    let migrating = g.positions(Standing::Migrating);
    if migrating.is_empty() {
        return;
    }
    let count = g.spec.count;
    let mut moving = Occupancy::new(count, migrating.iter().map(|&i| g.candidates[i].index()));
    for index in moving.highest(surplus.remaining) {
        for i in g.slots.claimants(index).rev() {
            if surplus.done() || !g.candidates[i].is(Standing::Migrating) {
                continue;
            }
            let message = say!(
                "slot ",
                index,
                " is beyond the ",
                count,
                " slots the group keeps; not migrated"
            );
            surplus.take(g, i, Reason::ScaleDown, message);
            g.candidates[i].standing = Standing::Out;
            g.occupancy.release(index);
        }
    }
}

/// Stops the working claimants of slot `index` that `which` selects, newest
/// first, while surplus remains. The message is written only for a stop:
/// most slots a pass looks at give up nothing.
fn give_up(
    g: &mut GroupRun,
    index: u32,
    surplus: &mut Surplus,
    reason: Reason,
    message: impl Fn() -> String,
    which: impl Fn(&crate::candidate::Candidate) -> bool,
) {
    for i in g.slots.claimants(index).rev() {
        let c = &g.candidates[i];
        if surplus.done()
            || !g.is_working(i)
            || c.has(Marks::STOPPED)
            || c.is_server_terminal()
            || !which(c)
        {
            continue;
        }
        surplus.take(g, i, reason, message());
        g.candidates[i].standing = Standing::Out;
    }
}

/// How many more claims must go, and how many went.
struct Surplus {
    remaining: u32,
    stopped: u32,
}

impl Surplus {
    fn done(&self) -> bool {
        self.remaining == 0
    }

    fn take(&mut self, g: &mut GroupRun, i: usize, reason: Reason, message: String) {
        g.stop(i, reason, None, message, Counted::AsStop);
        self.remaining -= 1;
        self.stopped += 1;
    }
}

/// Why candidate `i` is lost, from the rule that classified it.
fn lost_because(g: &GroupRun, i: usize) -> String {
    let c = &g.candidates[i];
    let node = &c.node.id;
    match c.rule().map(|r| r.name) {
        Some("node-gone") => say!("node ", node, " is no longer known; the allocation is lost"),
        Some("disconnected-while-pending") => {
            say!("node ", node, " disconnected before the allocation started")
        }
        Some("disconnected-without-grace") => {
            say!(
                "node ",
                node,
                " disconnected and the group allows no time to reconnect"
            )
        }
        Some("unknown-past-lost-after") => "unknown for longer than lost-after".to_string(),
        _ => say!("node ", node, " is down; the allocation is lost"),
    }
}
