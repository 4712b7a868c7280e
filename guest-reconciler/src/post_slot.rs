//! Post-slot: what is proposed for each slot is put to whoever wants a say, who may accept it, veto it or defer it to a later evaluation.
//!
//! A vetoed or deferred slot keeps what it has: every entry of the plan that
//! concerns it is withdrawn and the counters follow. Work freed by a withdrawal
//! (a rollout budget, say) is not handed to another slot in the same round,
//! so the policy is never asked about changes it has not seen.

use crate::candidate::Marks;
use crate::followup::batches;
use crate::pipeline::Outcome;
use crate::ruling::{PostSlot, Ruling, Rulings};
use crate::sentence::say;
use crate::slot_hooks::{action, Counted, HookedGroup, SlotOf};
use crate::{AllocationUpdate, GroupPlan, PolicyVerdict, Reason};
use std::collections::BTreeSet;

/// The post-slot step of any group.
pub(crate) fn run<'a, G: HookedGroup<'a>>(g: &mut G) -> Outcome {
    if !g.hooks().prepared {
        // Slots held before the decision keep what early steps proposed for them too.
        let held = g.hooks().held.clone();
        withdraw(g, &held, "its slot is held");
        g.parts().hooks.prepared = true;
    }
    if !g.hooks().wants.post_slot {
        return Outcome::skipped("no plugin reviews proposed changes");
    }
    // Resumed with rulings, the slots are those the run paused with.
    let shown = g.parts().hooks.post_slot_items.take();
    let items = match shown {
        Some(items) if matches!(g.hooks().rulings, Some(Rulings::PostSlot(_))) => items,
        _ => post_slot_items(g),
    };
    if items.is_empty() {
        return Outcome::skipped("no changes to review");
    }
    let hooks = g.parts().hooks;
    let rulings = match hooks.rulings.take() {
        Some(Rulings::PostSlot(rulings)) => rulings,
        other => {
            hooks.rulings = other;
            hooks.post_slot_items = Some(items);
            return Outcome::pause();
        }
    };
    let mut kept = BTreeSet::new();
    let mut deferrals = Vec::new();
    let withdrawable = withdrawable_slots(g);
    for (Ruling { ruled, monitored }, &slot) in rulings.into_iter().zip(&items) {
        if let Some(ruled) = ruled {
            // A slot whose every change a safety rule binds keeps them: the
            // guard refuses the ruling, and the plan says so.
            let applies = withdrawable.contains(&slot);
            if applies {
                kept.insert(slot);
            }
            let (verdict, why) = match &ruled.decision {
                PostSlot::Veto(why) => (PolicyVerdict::Vetoed, why),
                PostSlot::Defer { until, reason } => {
                    if applies {
                        deferrals.push((slot as usize, *until));
                    }
                    (PolicyVerdict::Deferred, reason)
                }
            };
            let action = action(g, &ruled.by, slot, verdict, why, applies);
            g.parts().hooks.actions.push(action);
        }
        g.parts().hooks.actions.extend(monitored);
    }
    let deferred = deferrals.len();
    withdraw(g, &kept, "kept by a policy");
    g.parts().hooks.held.extend(&kept);
    g.defer(batches(deferrals));
    Outcome::done(say!(
        crate::phrasing::count(items.len(), "slot"),
        " reviewed; ",
        kept.len() - deferred,
        " vetoed, ",
        deferred,
        " deferred"
    ))
}

/// The slots of `g` shown to plugins with their proposed changes, in
/// order: those with changes that no one holds.
pub(crate) fn post_slot_items<'a>(g: &(impl HookedGroup<'a> + ?Sized)) -> Vec<u32> {
    let held = &g.hooks().held;
    let mut slots: Vec<u32> = changes_by_slot(g.plan(), &g.slot_of())
        .changes
        .iter()
        .map(|(slot, _)| *slot)
        .filter(|slot| !held.contains(slot))
        .collect();
    slots.dedup();
    slots
}

/// The kind of a change the plan proposes for a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    Place,
    Stop,
    Migrate,
    InPlaceUpdate,
    DestructiveUpdate,
    Disconnect,
    Reconnect,
    AttachFollowup,
}

/// One change the plan proposes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proposed<'p> {
    pub(crate) kind: ChangeKind,
    /// The existing allocation it concerns, if any.
    pub(crate) allocation: Option<&'p str>,
    pub(crate) reason: Reason,
    pub(crate) message: &'p str,
}

/// The changes a plan proposes, by slot: one list sorted by slot, each
/// slot's in the order a reader of the plan meets them.
pub(crate) struct Proposals<'p> {
    pub(crate) changes: Vec<(u32, Proposed<'p>)>,
}

impl<'p> Proposals<'p> {
    /// The changes proposed for slot `index`.
    pub(crate) fn of(&self, index: u32) -> impl Iterator<Item = &Proposed<'p>> {
        let first = self.changes.partition_point(|(i, _)| *i < index);
        self.changes[first..]
            .iter()
            .take_while(move |(i, _)| *i == index)
            .map(|(_, p)| p)
    }
}

/// The changes the plan proposes, by slot, each slot found by `slot_of`.
pub(crate) fn changes_by_slot<'p>(plan: &'p GroupPlan, slot_of: &SlotOf) -> Proposals<'p> {
    let mut changes: Vec<(u32, Proposed<'p>)> = Vec::new();
    let mut add = |slot: Option<u32>,
                   kind: ChangeKind,
                   allocation: Option<&'p String>,
                   reason: Reason,
                   message: &'p str| {
        if let Some(slot) = slot {
            changes.push((
                slot,
                Proposed {
                    kind,
                    allocation: allocation.map(String::as_str),
                    reason,
                    message,
                },
            ));
        }
    };
    for p in &plan.placements {
        // A migration is one change: its stop stands for it.
        if p.reason != Reason::Migrate {
            let previous = p.previous_allocation.as_ref();
            let slot = slot_of.placement(p);
            add(slot, ChangeKind::Place, previous, p.reason, &p.message);
        }
    }
    for s in &plan.stops {
        let kind = if s.reason == Reason::Migrate {
            ChangeKind::Migrate
        } else {
            ChangeKind::Stop
        };
        let slot = slot_of.allocation(&s.allocation, s.name_index);
        add(slot, kind, Some(&s.allocation), s.reason, &s.message);
    }
    for d in &plan.destructive_updates {
        let slot = slot_of.allocation(&d.allocation, d.name_index);
        let kind = ChangeKind::DestructiveUpdate;
        add(slot, kind, Some(&d.allocation), d.reason, &d.message);
    }
    let updates = [
        (ChangeKind::InPlaceUpdate, &plan.in_place_updates),
        (ChangeKind::Disconnect, &plan.disconnect_updates),
        (ChangeKind::Reconnect, &plan.reconnect_updates),
        (ChangeKind::AttachFollowup, &plan.attribute_updates),
    ];
    for (kind, list) in updates {
        for u in list {
            let slot = slot_of.allocation(&u.allocation, u.name_index);
            add(slot, kind, Some(&u.allocation), u.reason, &u.message);
        }
    }
    // Stable: each slot's changes keep the order they were met in.
    changes.sort_by_key(|(slot, _)| *slot);
    Proposals { changes }
}

/// Takes every entry concerning `slots` out of the plan, with the counters
/// that counted them, and the follow-up evaluations nothing refers to any
/// more. The existing allocations concerned are left as they are, and counted
/// as ignored.
pub(crate) fn withdraw<'a>(
    g: &mut (impl HookedGroup<'a> + ?Sized),
    slots: &BTreeSet<u32>,
    why: &str,
) {
    if slots.is_empty() {
        return;
    }
    let (placed, claimed) = concerned(g, slots);
    let claimants: Vec<_> = slots.iter().map(|&slot| g.claimants(slot)).collect();
    let parts = g.parts();
    let plan = parts.plan;
    let referenced_before = followup_refs(plan);
    let mut touched: BTreeSet<String> = BTreeSet::new();
    let counters = &mut plan.counters;
    let mut at = 0;
    plan.placements.retain(|p| {
        let keep = !placed.contains(&at);
        at += 1;
        if keep {
            return true;
        }
        // The counter a placement went to follows from why it was made: a
        // failed canary's replacement is a canary but counts as a placement,
        // finished sysbatch work placed again as a destructive update, and a
        // migration on its stop.
        let counter = match p.reason {
            Reason::Canary => Some(&mut counters.canary),
            Reason::DestructiveUpdate => Some(&mut counters.destructive),
            Reason::Migrate => None,
            _ => Some(&mut counters.place),
        };
        if let Some(counter) = counter {
            *counter = counter.saturating_sub(1);
        }
        touched.extend(p.previous_allocation.clone());
        false
    });
    let apart = &parts.hooks.stops_counted_apart;
    plan.stops.retain(|s| {
        if !claimed.contains(s.allocation.as_str()) {
            return true;
        }
        let counter = match apart.get(&s.allocation) {
            None => Some(&mut counters.stop),
            Some(Counted::AsMigration) => Some(&mut counters.migrate),
            Some(_) => None,
        };
        if let Some(counter) = counter {
            *counter = counter.saturating_sub(1);
        }
        touched.insert(s.allocation.clone());
        false
    });
    plan.destructive_updates.retain(|d| {
        let keep = !claimed.contains(d.allocation.as_str());
        if !keep {
            counters.destructive = counters.destructive.saturating_sub(1);
            touched.insert(d.allocation.clone());
        }
        keep
    });
    let lists = [
        (&mut plan.in_place_updates, &mut counters.in_place),
        (&mut plan.disconnect_updates, &mut counters.disconnect),
        (&mut plan.reconnect_updates, &mut counters.reconnect),
    ];
    for (list, counter) in lists {
        list.retain(|u| {
            let keep = !claimed.contains(u.allocation.as_str());
            if !keep {
                *counter = counter.saturating_sub(1);
                touched.insert(u.allocation.clone());
            }
            keep
        });
    }
    plan.attribute_updates.retain(|u| {
        let keep = !claimed.contains(u.allocation.as_str());
        if !keep {
            touched.insert(u.allocation.clone());
        }
        keep
    });
    for range in claimants {
        for c in &mut parts.candidates[range] {
            if !touched.contains(c.id()) {
                continue;
            }
            if c.take(Marks::RESCHEDULE_NOW) {
                counters.reschedule_now = counters.reschedule_now.saturating_sub(1);
            }
            if c.reschedule_later.take().is_some() {
                counters.reschedule_later = counters.reschedule_later.saturating_sub(1);
            }
            c.unmark(Marks::STOPPED);
            c.unmark(Marks::RESUMED);
            c.followup = None;
            c.settle(|| say!("left as it is: ", why));
        }
    }
    counters.ignore += touched.len() as u32;
    let referenced_after = followup_refs(plan);
    plan.followup_evals
        .retain(|e| !referenced_before.contains(&e.id) || referenced_after.contains(&e.id));
}

/// The slots of `g` a hold, veto or deferral would withdraw anything from:
/// not those whose every change a safety rule binds. Found in one pass
/// over the plan for every slot asked about, where a pass per slot made a
/// veto of every slot of a large group quadratic (80,000 allocations: 0.4 s
/// at post-slot, 0.8 s at review).
pub(crate) fn withdrawable_slots<'a>(g: &(impl HookedGroup<'a> + ?Sized)) -> BTreeSet<u32> {
    withdrawable_entries(g)
        .into_iter()
        .map(|(slot, _)| slot)
        .collect()
}

/// The entries of `g`'s plan that concern `slots` and may be withdrawn:
/// placements by position, the rest by allocation.
fn concerned<'a>(
    g: &(impl HookedGroup<'a> + ?Sized),
    slots: &BTreeSet<u32>,
) -> (BTreeSet<usize>, BTreeSet<String>) {
    let mut placed = BTreeSet::new();
    let mut claimed = BTreeSet::new();
    for (slot, entry) in withdrawable_entries(g) {
        if !slots.contains(&slot) {
            continue;
        }
        match entry {
            Entry::Placement(at) => placed.insert(at),
            Entry::Allocation(id) => claimed.insert(id.clone()),
        };
    }
    (placed, claimed)
}

/// An entry of a group's plan a policy may withdraw.
enum Entry<'p> {
    /// A placement, by its position among the plan's placements.
    Placement(usize),
    /// Any entry on an existing allocation: a stop or an update.
    Allocation(&'p String),
}

/// Every entry of `g`'s plan a policy may withdraw, with its slot. Stops a
/// safety rule makes are never among them.
fn withdrawable_entries<'p, 'a>(g: &'p (impl HookedGroup<'a> + ?Sized)) -> Vec<(u32, Entry<'p>)> {
    let slot_of = g.slot_of();
    let plan = g.plan();
    let placed = (plan.placements.iter().enumerate())
        .filter_map(|(at, p)| Some((slot_of.placement(p)?, Entry::Placement(at))));
    let binding = &g.hooks().binding;
    let stops = (plan.stops.iter())
        .filter(|s| !binding.contains(&s.allocation))
        .map(|s| (&s.allocation, s.name_index));
    let destructive = (plan.destructive_updates.iter()).map(|d| (&d.allocation, d.name_index));
    let updates = allocation_updates(plan).map(|u| (&u.allocation, u.name_index));
    let claimed = stops
        .chain(destructive)
        .chain(updates)
        .filter_map(|(a, index)| Some((slot_of.allocation(a, index)?, Entry::Allocation(a))));
    placed.chain(claimed).collect()
}

/// The follow-up evaluations the plan's entries refer to.
fn followup_refs(plan: &GroupPlan) -> BTreeSet<String> {
    let stops = plan.stops.iter().filter_map(|s| s.followup_eval.clone());
    let updates = allocation_updates(plan).filter_map(|u| u.followup_eval.clone());
    stops.chain(updates).collect()
}

/// Every update of an existing allocation the plan holds, list after list.
fn allocation_updates(plan: &GroupPlan) -> impl Iterator<Item = &AllocationUpdate> {
    [
        &plan.in_place_updates,
        &plan.disconnect_updates,
        &plan.reconnect_updates,
        &plan.attribute_updates,
    ]
    .into_iter()
    .flatten()
}
