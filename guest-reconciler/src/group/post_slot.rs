//! Post-slot: what is proposed for each slot is put to whoever wants a say, who may accept it, veto it or defer it to a later evaluation.
//!
//! A vetoed or deferred slot keeps what it has: every entry of the plan that
//! concerns it is withdrawn and the counters follow. Work freed by a withdrawal
//! (a rollout budget, say) is not handed to another slot in the same round,
//! so the policy is never asked about changes it has not seen.

use super::run::GroupRun;
use crate::followup::{batches, Purpose};
use crate::pipeline::Outcome;
use crate::ruling::{PostSlot, Ruling, Rulings};
use crate::{GroupPlan, PolicyVerdict, Reason};
use std::collections::BTreeSet;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    if !g.post_slot_prepared {
        // Slots held before the decision keep what early steps proposed for them too.
        let held = g.held_slots.clone();
        withdraw(g, &held, "its slot is held");
        g.post_slot_prepared = true;
    }
    if !g.wants.post_slot {
        return Outcome::skipped("no plugin reviews proposed changes");
    }
    let items = g.post_slot_items();
    if items.is_empty() {
        return Outcome::skipped("no changes to review");
    }
    let rulings = match g.rulings.take() {
        Some(Rulings::PostSlot(rulings)) => rulings,
        other => {
            g.rulings = other;
            return Outcome::pause();
        }
    };
    let mut kept = BTreeSet::new();
    let mut deferrals = Vec::new();
    for (Ruling { ruled, monitored }, &index) in rulings.into_iter().zip(&items) {
        if let Some(ruled) = ruled {
            match &ruled.decision {
                PostSlot::Veto(why) => {
                    kept.insert(index);
                    g.act(&ruled.by, index, PolicyVerdict::Vetoed, why);
                }
                PostSlot::Defer { until, reason } => {
                    kept.insert(index);
                    deferrals.push((index as usize, *until));
                    g.act(&ruled.by, index, PolicyVerdict::Deferred, reason);
                }
            }
        }
        g.actions.extend(monitored);
    }
    let deferred = deferrals.len();
    withdraw(g, &kept, "kept by a policy");
    g.held_slots.extend(&kept);
    g.create_evals(batches(deferrals), Purpose::PolicyDeferral, false);
    Outcome::done(format!(
        "{} reviewed; {} vetoed, {deferred} deferred",
        crate::phrasing::count(items.len(), "slot"),
        kept.len() - deferred
    ))
}

impl GroupRun<'_> {
    /// The slots shown to plugins with their proposed changes, in order:
    /// those with changes that no one holds.
    pub(crate) fn post_slot_items(&self) -> Vec<u32> {
        let mut slots: Vec<u32> = changes_by_slot(&self.plan)
            .changes
            .iter()
            .map(|(index, _)| *index)
            .filter(|index| !self.held_slots.contains(index))
            .collect();
        slots.dedup();
        slots
    }
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

/// The changes the plan proposes, by slot.
pub(crate) fn changes_by_slot<'p>(plan: &'p GroupPlan) -> Proposals<'p> {
    let mut changes: Vec<(u32, Proposed<'p>)> = Vec::new();
    let mut add = |index: u32,
                   kind: ChangeKind,
                   allocation: Option<&'p String>,
                   reason: Reason,
                   message: &'p str| {
        changes.push((
            index,
            Proposed {
                kind,
                allocation: allocation.map(String::as_str),
                reason,
                message,
            },
        ));
    };
    for p in &plan.placements {
        // A migration is one change: its stop stands for it.
        if p.reason != Reason::Migrate {
            let previous = p.previous_allocation.as_ref();
            add(
                p.name_index,
                ChangeKind::Place,
                previous,
                p.reason,
                &p.message,
            );
        }
    }
    for s in &plan.stops {
        let kind = if s.reason == Reason::Migrate {
            ChangeKind::Migrate
        } else {
            ChangeKind::Stop
        };
        add(
            s.name_index,
            kind,
            Some(&s.allocation),
            s.reason,
            &s.message,
        );
    }
    for d in &plan.destructive_updates {
        let kind = ChangeKind::DestructiveUpdate;
        add(
            d.name_index,
            kind,
            Some(&d.allocation),
            d.reason,
            &d.message,
        );
    }
    let updates = [
        (ChangeKind::InPlaceUpdate, &plan.in_place_updates),
        (ChangeKind::Disconnect, &plan.disconnect_updates),
        (ChangeKind::Reconnect, &plan.reconnect_updates),
        (ChangeKind::AttachFollowup, &plan.attribute_updates),
    ];
    for (kind, list) in updates {
        for u in list {
            add(
                u.name_index,
                kind,
                Some(&u.allocation),
                u.reason,
                &u.message,
            );
        }
    }
    // Stable: each slot's changes keep the order they were met in.
    changes.sort_by_key(|(index, _)| *index);
    Proposals { changes }
}

/// Takes every entry concerning `slots` out of the plan, with the counters
/// that counted them, and the follow-up evaluations nothing refers to any
/// more. The existing allocations concerned are left as they are, and counted
/// as ignored.
pub(crate) fn withdraw(g: &mut GroupRun, slots: &BTreeSet<u32>, why: &str) {
    if slots.is_empty() {
        return;
    }
    let referenced_before = followup_refs(&g.plan);
    let mut touched: BTreeSet<String> = BTreeSet::new();
    let plan = &mut g.plan;
    let counters = &mut plan.counters;
    plan.placements.retain(|p| {
        if !slots.contains(&p.name_index) {
            return true;
        }
        if p.canary {
            counters.canary = counters.canary.saturating_sub(1);
        } else if p.reason != Reason::Migrate {
            counters.place = counters.place.saturating_sub(1);
        }
        touched.extend(p.previous_allocation.clone());
        false
    });
    let uncounted = &g.uncounted_stops;
    plan.stops.retain(|s| {
        if !slots.contains(&s.name_index) {
            return true;
        }
        if s.reason == Reason::Migrate {
            counters.migrate = counters.migrate.saturating_sub(1);
        } else if !uncounted.contains(&s.allocation) {
            counters.stop = counters.stop.saturating_sub(1);
        }
        touched.insert(s.allocation.clone());
        false
    });
    plan.destructive_updates.retain(|d| {
        let keep = !slots.contains(&d.name_index);
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
            let keep = !slots.contains(&u.name_index);
            if !keep {
                *counter = counter.saturating_sub(1);
                touched.insert(u.allocation.clone());
            }
            keep
        });
    }
    plan.attribute_updates.retain(|u| {
        let keep = !slots.contains(&u.name_index);
        if !keep {
            touched.insert(u.allocation.clone());
        }
        keep
    });
    for &index in slots {
        for i in g.slots.claimants(index) {
            let c = &mut g.candidates[i];
            if !touched.contains(c.id()) {
                continue;
            }
            if std::mem::take(&mut c.reschedule_now) {
                counters.reschedule_now = counters.reschedule_now.saturating_sub(1);
            }
            if c.reschedule_later.take().is_some() {
                counters.reschedule_later = counters.reschedule_later.saturating_sub(1);
            }
            c.stopped = false;
            c.resumed = false;
            c.followup = None;
            c.settle(|| format!("left as it is: {why}"));
        }
    }
    counters.ignore += touched.len() as u32;
    let referenced_after = followup_refs(plan);
    plan.followup_evals
        .retain(|e| !referenced_before.contains(&e.id) || referenced_after.contains(&e.id));
}

/// The follow-up evaluations the plan's entries refer to.
fn followup_refs(plan: &GroupPlan) -> BTreeSet<String> {
    let stops = plan.stops.iter().filter_map(|s| s.followup_eval.clone());
    let updates = [
        &plan.in_place_updates,
        &plan.disconnect_updates,
        &plan.reconnect_updates,
        &plan.attribute_updates,
    ]
    .into_iter()
    .flatten()
    .filter_map(|u| u.followup_eval.clone());
    stops.chain(updates).collect()
}
