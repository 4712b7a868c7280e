//! Review: once every group is decided, the whole proposed plan is put to whoever wants a say; a veto withdraws every change of its slot.
//!
//! The slot is the unit that stays consistent: a replacement and the stop it
//! pairs with stand or fall together. Work a veto frees is not handed to
//! another slot in the same round, as at post-slot.

use crate::pipeline::Outcome;
use crate::post_slot::{withdraw, withdrawable};
use crate::ruling::{ReviewVeto, Rulings};
use crate::run::{Decided, JobRun};
use crate::sentence::say;
use crate::slot_hooks::action;
use crate::slot_hooks::HookedGroup;
use crate::PolicyVerdict;
use std::collections::BTreeSet;

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
    let mut withdrawn = 0;
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
        // A slot whose every change a safety rule binds keeps them: the
        // guard refuses the veto, and the plan says so.
        let applied = applied && withdrawable(g.as_ref(), slot);
        let action = action(
            g.as_ref(),
            &by,
            slot,
            PolicyVerdict::Vetoed,
            &reason,
            applied,
        );
        if applied && !g.hooks().held.contains(&slot) {
            withdraw(g.as_mut(), &BTreeSet::from([slot]), "vetoed at review");
            g.parts().hooks.held.insert(slot);
            g.set_incomplete();
            withdrawn += 1;
        }
        g.parts().hooks.actions.push(action.clone());
        run.actions.push(action);
    }
    Outcome::done(say!(
        crate::phrasing::count(slots, "slot"),
        " with changes reviewed in ",
        crate::phrasing::count(items.len(), "group"),
        "; ",
        withdrawn,
        " withdrawn"
    ))
}
