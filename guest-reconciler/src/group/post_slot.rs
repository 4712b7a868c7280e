//! Post-slot: policies see what is proposed for each slot, and may accept it, veto it or defer it to a later evaluation.
//!
//! A vetoed or deferred slot keeps what it has: every entry of the plan that
//! concerns it is withdrawn and the counters follow. Work freed by a withdrawal
//! (a rollout budget, say) is not handed to another slot in the same round,
//! so the policy is never asked about changes it has not seen.

use super::GroupRun;
use crate::composition::{self, Tally};
use crate::followup::{batches, Purpose};
use crate::pipeline::Outcome;
use crate::plugin::{ChangeKind, Hook, PostSlotDecision, ProposedChange, SlotProposal};
use crate::{views, GroupPlan, PolicyVerdict, Question, Reason};
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    // Slots held before the decision keep what early steps proposed for them too.
    let held = g.held_slots.clone();
    withdraw(g, &held, "its slot is held");
    if !g.hooks.asks(Hook::PostSlot) {
        return Outcome::skipped("no plugin reviews proposed changes");
    }
    let proposals: Vec<SlotProposal> = changes_by_slot(&g.plan)
        .into_iter()
        .filter(|(index, _)| !held.contains(index))
        .map(|(index, changes)| {
            let claimants = &g.candidates[g.slots.claimants(index)];
            SlotProposal {
                slot: views::slot(&g.spec.name, index, g.spec.count, claimants, g.ctx.now),
                changes,
            }
        })
        .collect();
    if proposals.is_empty() {
        return Outcome::skipped("no changes to review");
    }
    let Some(replies) = g.hooks.post_slot(&proposals) else {
        let asked = proposals.len();
        g.pending = Some(Question::PostSlot(proposals));
        return Outcome::waiting(format!("asks the plugins about {asked} slots with changes"))
            .and_finish();
    };
    if replies.len() != proposals.len() {
        return g.miscounted(replies.len(), proposals.len());
    }
    let mut kept = BTreeSet::new();
    let mut deferrals = Vec::new();
    for (proposal, replies) in proposals.iter().zip(replies) {
        let index = proposal.slot.index;
        let mut tally = Tally::default();
        let composed = composition::post_slot(g.hooks.consulted(), proposal, replies, &mut tally);
        let (decision, by) = match composed {
            Ok(composed) => composed,
            Err(error) => return g.refuse(error),
        };
        match &decision {
            PostSlotDecision::Accept => {}
            PostSlotDecision::Veto(why) => {
                kept.insert(index);
                g.act(&by, index, PolicyVerdict::Vetoed, why);
            }
            PostSlotDecision::Defer(d) => {
                kept.insert(index);
                deferrals.push((index as usize, d.until));
                g.act(&by, index, PolicyVerdict::Deferred, &d.reason);
            }
        }
        g.tally(index, tally);
    }
    let deferred = deferrals.len();
    withdraw(g, &kept, "kept by a policy");
    g.held_slots.extend(&kept);
    g.create_evals(batches(deferrals), Purpose::PolicyDeferral, false);
    Outcome::done(format!(
        "{} slots reviewed; {} vetoed, {deferred} deferred",
        proposals.len(),
        kept.len() - deferred
    ))
}

/// The changes the plan proposes, by slot, in the order a reader of the plan
/// meets them.
fn changes_by_slot(plan: &GroupPlan) -> BTreeMap<u32, Vec<ProposedChange>> {
    let mut by_slot: BTreeMap<u32, Vec<ProposedChange>> = BTreeMap::new();
    let mut add = |index: u32, kind, allocation: Option<&String>, reason: Reason, message: &str| {
        by_slot.entry(index).or_default().push(ProposedChange {
            kind,
            allocation: allocation.cloned(),
            reason: reason.name().to_string(),
            message: message.to_string(),
        });
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
    by_slot
}

/// Takes every entry concerning `slots` out of the plan, with the counters
/// that counted them, and the follow-up evaluations nothing refers to any
/// more. The existing allocations concerned are left as they are, and counted
/// as ignored.
fn withdraw(g: &mut GroupRun, slots: &BTreeSet<u32>, why: &str) {
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
