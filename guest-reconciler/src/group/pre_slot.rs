//! Pre-slot: policies look at every slot before it is decided, and may hold it, reclassify its candidates or choose how they update.

use super::GroupRun;
use crate::candidate::Standing;
use crate::composition::{self, Tally};
use crate::pipeline::Outcome;
use crate::plugin::{Adjustment, Hook, PreSlotDecision};
use crate::{views, PolicyVerdict, Question};

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    if !g.hooks.asks(Hook::PreSlot) {
        return Outcome::skipped("no plugin looks at slots");
    }
    let indexes = g.slots.all(g.spec.count);
    let slots: Vec<_> = indexes
        .iter()
        .map(|&i| {
            let claimants = &g.candidates[g.slots.claimants(i)];
            views::slot(&g.spec.name, i, g.spec.count, claimants, g.ctx.now)
        })
        .collect();
    let Some(replies) = g.hooks.pre_slot(&slots) else {
        let asked = slots.len();
        g.pending = Some(Question::PreSlot(slots));
        return Outcome::waiting(format!("asks the plugins about {asked} slots")).and_finish();
    };
    if replies.len() != slots.len() {
        return g.miscounted(replies.len(), slots.len());
    }
    let (mut held, mut adjusted) = (0, 0);
    for ((slot, replies), &index) in slots.iter().zip(replies).zip(&indexes) {
        let mut tally = Tally::default();
        let composed = composition::pre_slot(g.hooks.consulted(), slot, replies, &mut tally);
        let (decision, by) = match composed {
            Ok(composed) => composed,
            Err(error) => return g.refuse(error),
        };
        match &decision {
            PreSlotDecision::Proceed => {}
            PreSlotDecision::Hold(why) => {
                hold(g, index, &by, why);
                held += 1;
            }
            PreSlotDecision::Adjust(adjustment) => {
                adjusted += adjust(g, index, &by, adjustment);
            }
        }
        g.tally(index, tally);
    }
    Outcome::done(format!(
        "{} slots looked at; {held} held, {adjusted} candidates adjusted",
        slots.len()
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

/// Applies `adjustment` to the candidates of slot `index`; returns how many
/// it changed. The ruling was checked: every allocation it names is a
/// candidate of the slot.
fn adjust(g: &mut GroupRun, index: u32, by: &str, adjustment: &Adjustment) -> u32 {
    let why = &adjustment.reason;
    let mut changed = 0;
    for a in &adjustment.candidates {
        let Some(i) = g
            .slots
            .claimants(index)
            .find(|&i| g.candidates[i].id() == a.allocation)
        else {
            continue;
        };
        let c = &mut g.candidates[i];
        if !c.tracked || c.is(Standing::Out) {
            continue;
        }
        if let Some(standing) = a.reclassify.and_then(views::standing) {
            let was_ignored = c.is(Standing::Ignored);
            c.standing = standing;
            // An ignored candidate was counted as such when classified.
            if was_ignored {
                g.plan.counters.ignore -= 1;
            }
        }
        let c = &mut g.candidates[i];
        if let Some(kind) = a.update {
            c.forced_update = Some(views::reconciler_update(kind));
        }
        c.settle(|| format!("adjusted by {by}: {why}"));
        changed += 1;
    }
    g.act(by, index, PolicyVerdict::Adjusted, why);
    changed
}
