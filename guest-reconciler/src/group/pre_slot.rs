//! Pre-slot: the slots of the group before it is decided are put to whoever wants a say, who may hold a slot, reclassify its candidates or choose how they update.

use super::run::GroupRun;
use crate::candidate::Standing;
use crate::pipeline::Outcome;
use crate::ruling::{Adjusted, PreSlot, Ruling, Rulings};
use crate::PolicyVerdict;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    if !g.wants.pre_slot {
        return Outcome::skipped("no plugin looks at slots");
    }
    let rulings = match g.rulings.take() {
        Some(Rulings::PreSlot(rulings)) => rulings,
        other => {
            g.rulings = other;
            return Outcome::pause();
        }
    };
    let indexes = g.pre_slot_items();
    let (mut held, mut adjusted) = (0, 0);
    for (Ruling { ruled, monitored }, &index) in rulings.into_iter().zip(&indexes) {
        if let Some(ruled) = ruled {
            match &ruled.decision {
                PreSlot::Hold(why) => {
                    hold(g, index, &ruled.by, why);
                    held += 1;
                }
                PreSlot::Adjust { reason, candidates } => {
                    adjusted += adjust(g, index, &ruled.by, reason, candidates);
                }
            }
        }
        g.actions.extend(monitored);
    }
    Outcome::done(format!(
        "{} looked at; {held} held, {} adjusted",
        crate::phrasing::count(indexes.len(), "slot"),
        crate::phrasing::count(adjusted as usize, "candidate")
    ))
}

/// Keeps slot `index` as it is: its candidates are left alone, counted as
/// ignored, and keep the slot from being filled or given up.
fn hold(g: &mut GroupRun, index: u32, by: &str, why: &str) {
    g.held_slots.insert(index);
    let mut ignored = 0;
    for i in g.slots.claimants(index) {
        let c = &mut g.candidates[i];
        if !c.tracked || c.is(Standing::Out) {
            continue;
        }
        if !c.is(Standing::Ignored) {
            ignored += 1;
        }
        c.standing = Standing::Held;
        c.settle(|| format!("held by {by}: {why}"));
    }
    g.counters().ignore += ignored;
    g.act(by, index, PolicyVerdict::Held, why);
}

/// Applies the adjustments of slot `index`; returns how many candidates
/// they changed. Each names a candidate of the slot: the caller checked.
fn adjust(g: &mut GroupRun, index: u32, by: &str, why: &str, candidates: &[Adjusted]) -> u32 {
    let mut changed = 0;
    let claimants = g.slots.claimants(index);
    for a in candidates {
        if !claimants.contains(&a.candidate) {
            continue;
        }
        let c = &mut g.candidates[a.candidate];
        if !c.tracked || c.is(Standing::Out) {
            continue;
        }
        if let Some(standing) = a.standing {
            let was_ignored = c.is(Standing::Ignored);
            c.standing = standing;
            // An ignored candidate was counted as such when classified.
            if was_ignored {
                g.plan.counters.ignore -= 1;
            }
        }
        let c = &mut g.candidates[a.candidate];
        if let Some(kind) = a.update {
            c.forced_update = Some(kind);
        }
        c.settle(|| format!("adjusted by {by}: {why}"));
        changed += 1;
    }
    g.act(by, index, PolicyVerdict::Adjusted, why);
    changed
}
