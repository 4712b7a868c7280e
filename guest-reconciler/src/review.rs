//! Review: once every group is decided, the whole proposed plan is put to whoever wants a say; a veto withdraws every change of its slot.
//!
//! The slot is the unit that stays consistent: a replacement and the stop it
//! pairs with stand or fall together. Work a veto frees is not handed to
//! another slot in the same round, as at post-slot.

use crate::pipeline::Outcome;
use crate::post_slot::{withdraw, withdrawable_slots};
use crate::ruling::{ReviewVeto, Rulings};
use crate::run::{Decided, JobRun};
use crate::sentence::say;
use crate::slot_hooks::action;
use crate::slot_hooks::HookedGroup;
use crate::PolicyVerdict;
use std::collections::{BTreeMap, BTreeSet};

pub(crate) fn run(run: &mut JobRun) -> Outcome {
    if !run.wants.review {
        return Outcome::skipped("no plugin reviews the plan");
    }
    let items = run.review_items();
    if items.is_empty() {
        return Outcome::skipped("no changes to review");
    }
    let vetoes = match run.rulings.take() {
        Some(Rulings::Review(vetoes)) => vetoes,
        other => {
            run.rulings = other;
            return Outcome::pause();
        }
    };
    let slots: usize = items.iter().map(|(_, s)| s.len()).sum();
    // Per group vetoed: the slots a veto would withdraw anything from, found
    // once, and the slots withdrawn, all at once after the vetoes are read.
    // A pass over the plan per veto made vetoing every slot quadratic.
    let mut vetoed: BTreeMap<usize, (BTreeSet<u32>, BTreeSet<u32>)> = BTreeMap::new();
    for ReviewVeto {
        group,
        slot,
        by,
        reason,
        applied,
    } in vetoes
    {
        let Some(&(at, _)) = items.get(group) else {
            continue;
        };
        let Some(Decided::Run(g)) = run.decided.get_mut(at) else {
            continue;
        };
        let (withdrawable, withdrawn) = vetoed
            .entry(at)
            .or_insert_with(|| (withdrawable_slots(g.as_ref()), BTreeSet::new()));
        // A slot whose every change a safety rule binds keeps them: the
        // guard refuses the veto, and the plan says so. So does a slot
        // already withdrawn by an earlier veto: nothing is left to take.
        let applied = applied && withdrawable.contains(&slot) && !withdrawn.contains(&slot);
        let action = action(
            g.as_ref(),
            &by,
            slot,
            PolicyVerdict::Vetoed,
            &reason,
            applied,
        );
        if applied && g.parts().hooks.held.insert(slot) {
            withdrawn.insert(slot);
            g.set_incomplete();
        }
        g.parts().hooks.actions.push(action.clone());
        run.actions.push(action);
    }
    let mut total = 0;
    for (at, (_, withdrawn)) in vetoed {
        if let (Some(Decided::Run(g)), false) = (run.decided.get_mut(at), withdrawn.is_empty()) {
            withdraw(g.as_mut(), &withdrawn, "vetoed at review");
            total += withdrawn.len();
        }
    }
    Outcome::done(say!(
        crate::phrasing::count(slots, "slot"),
        " with changes reviewed in ",
        crate::phrasing::count(items.len(), "group"),
        "; ",
        total,
        " withdrawn"
    ))
}
