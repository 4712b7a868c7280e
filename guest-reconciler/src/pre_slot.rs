//! Pre-slot: the slots of a group before it is decided are put to whoever wants a say, who may hold a slot, reclassify its candidates or choose how they update.

use crate::candidate::{Marks, Standing};
use crate::pipeline::Outcome;
use crate::ruling::{Adjusted, PreSlot, Ruling, Rulings};
use crate::sentence::say;
use crate::slot_hooks::{act, HookedGroup};
use crate::PolicyVerdict;

/// The pre-slot step of any group.
pub(crate) fn run<'a, G: HookedGroup<'a>>(g: &mut G) -> Outcome {
    if !g.hooks().wants.pre_slot {
        return Outcome::skipped("no plugin looks at slots");
    }
    let hooks = g.parts().hooks;
    let rulings = match hooks.rulings.take() {
        Some(Rulings::PreSlot(rulings)) => rulings,
        other => {
            hooks.rulings = other;
            return Outcome::pause();
        }
    };
    let slots = g.pre_slot_items();
    let (mut held, mut adjusted) = (0, 0);
    for (Ruling { ruled, monitored }, &slot) in rulings.into_iter().zip(&slots) {
        if let Some(ruled) = ruled {
            match &ruled.decision {
                PreSlot::Hold(why) => {
                    hold(g, slot, &ruled.by, why);
                    held += 1;
                }
                PreSlot::Adjust { reason, candidates } => {
                    adjusted += adjust(g, slot, &ruled.by, reason, candidates);
                }
            }
        }
        g.parts().hooks.actions.extend(monitored);
    }
    Outcome::done(say!(
        crate::phrasing::count(slots.len(), "slot"),
        " looked at; ",
        held,
        " held, ",
        crate::phrasing::count(adjusted as usize, "candidate"),
        " adjusted"
    ))
}

/// Keeps slot `slot` as it is: its candidates are left alone, counted as
/// ignored, and keep the slot from being filled or given up.
fn hold<'a>(g: &mut impl HookedGroup<'a>, slot: u32, by: &str, why: &str) {
    let claimants = g.claimants(slot);
    let parts = g.parts();
    parts.hooks.held.insert(slot);
    let mut ignored = 0;
    for c in &mut parts.candidates[claimants] {
        if !c.has(Marks::TRACKED) || c.is(Standing::Out) {
            continue;
        }
        if !c.is(Standing::Ignored) {
            ignored += 1;
        }
        c.standing = Standing::Held;
        c.settle(|| say!("held by ", by, ": ", why));
    }
    parts.plan.counters.ignore += ignored;
    act(g, by, slot, PolicyVerdict::Held, why);
}

/// Applies the adjustments of slot `slot`; returns how many candidates
/// they changed. Each names a candidate of the slot: the caller checked.
fn adjust<'a>(
    g: &mut impl HookedGroup<'a>,
    slot: u32,
    by: &str,
    why: &str,
    candidates: &[Adjusted],
) -> u32 {
    let mut changed = 0;
    let claimants = g.claimants(slot);
    let parts = g.parts();
    for a in candidates {
        if !claimants.contains(&a.candidate) {
            continue;
        }
        let c = &mut parts.candidates[a.candidate];
        if !c.has(Marks::TRACKED) || c.is(Standing::Out) {
            continue;
        }
        if let Some(standing) = a.standing {
            let was_ignored = c.is(Standing::Ignored);
            c.standing = standing;
            // An ignored candidate was counted as such when classified.
            if was_ignored {
                parts.plan.counters.ignore = parts.plan.counters.ignore.saturating_sub(1);
            }
        }
        if let Some(kind) = a.update {
            c.forced_update = Some(kind);
        }
        c.settle(|| say!("adjusted by ", by, ": ", why));
        changed += 1;
    }
    act(g, by, slot, PolicyVerdict::Adjusted, why);
    changed
}
