//! Updates: each allocation that stays is compared with the group's definition; it is left alone, updated in place, or due for replacement.

use super::run::GroupRun;
use crate::candidate::{Candidate, Drift, Marks, Standing};
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::{AllocationUpdate, Reason, UpdateKind};

/// How `c` absorbs the group's current definition `spec`: as a policy or the
/// caller forces it, else by comparing fingerprints. A change that needs a new
/// allocation wins even for a finished one; any other change leaves a
/// finished allocation alone.
pub(crate) fn decide(c: &Candidate) -> UpdateKind {
    if let Some(kind) = c.forced_update {
        return kind;
    }
    match c.drift() {
        Drift::None => UpdateKind::Ignore,
        Drift::Destructive => UpdateKind::Destructive,
        Drift::InPlace if c.is_terminal() => UpdateKind::Ignore,
        Drift::InPlace => UpdateKind::InPlace,
    }
}

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let mut ignored = 0;
    for i in g.positions(Standing::Untainted) {
        let kind = decide(&g.candidates[i]);
        let c = &mut g.candidates[i];
        c.update = Some(kind);
        match kind {
            UpdateKind::Ignore => {
                ignored += 1;
                c.settle(|| "up to date; left as it is");
            }
            UpdateKind::Destructive => {
                c.settle(|| "the group changed in a way that needs a new allocation");
                g.destructive.push(i);
            }
            UpdateKind::InPlace => {
                let message =
                    "the group changed in a way the allocation absorbs in place".to_string();
                c.settle(|| say!("updated in place: ", message));
                g.plan.in_place_updates.push(AllocationUpdate {
                    allocation: c.id().to_string(),
                    name_index: c.index(),
                    followup_eval: None,
                    reason: Reason::InPlaceUpdate,
                    message,
                });
                g.in_place += 1;
            }
        }
    }
    g.plan.counters.ignore += ignored;
    g.plan.counters.in_place += g.in_place;
    if !g.dstate_existing {
        g.dstate.desired_total += g.destructive.len() as u32 + g.in_place;
    }
    // While canaries await promotion they are kept, but they do not count
    // toward the group when placements are decided.
    if g.canarying {
        for c in g
            .candidates
            .iter_mut()
            .filter(|c| c.has(Marks::CANARY) && c.is(Standing::Untainted))
        {
            c.standing = Standing::Out;
            c.settle(|| "canary awaiting promotion; kept");
        }
    }
    Outcome::done(say!(
        ignored,
        " unchanged, ",
        g.in_place,
        " in place, ",
        g.destructive.len(),
        " need replacement"
    ))
}
