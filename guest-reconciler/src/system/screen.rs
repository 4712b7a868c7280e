//! Screening: per slot, live allocations stay in play, the newest finished one is kept as the slot's history, older ones leave the reconcile.

use super::run::NodeGroupRun;
use crate::candidate::Standing;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::Reason;

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    let count = g.spec.count;
    let (mut live, mut beyond, mut old) = (0, 0, 0);
    for s in 0..g.slots.len() {
        let (index, claimants) = (g.slots[s].index, g.slots[s].claimants.clone());
        let mut newest_finished = None;
        for i in claimants {
            let c = &mut g.candidates[i];
            if c.is_terminal() {
                if let Some(older) = newest_finished.replace(i) {
                    g.candidates[older].untrack(|| "a newer finished allocation holds the slot");
                    old += 1;
                }
                continue;
            }
            if index < count {
                live += 1;
                continue;
            }
            let message = say!("slot ", index, " is beyond the group's count of ", count);
            g.stop(i, Reason::ScaleDown, None, message, Counted::AsStop);
            g.candidates[i].standing = Standing::Out;
            beyond += 1;
        }
        if let Some(f) = newest_finished {
            if index < count {
                g.slots[s].finished = Some(f);
                g.candidates[f].drop_out(|| "finished; the slot's latest run");
            } else {
                g.candidates[f].untrack(|| "finished, in a slot beyond the count");
            }
        }
    }
    Outcome::done(say!(
        live,
        " live allocations in play, ",
        beyond,
        " beyond the count stopped, ",
        old,
        " older finished ones set aside"
    ))
}
