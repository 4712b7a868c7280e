//! Disconnection: allocations whose client just disconnected are marked unknown, may be replaced, and get an evaluation for when they time out.

use super::rescheduling::{already_replaced, screen, verdict, Screen, Verdict};
use super::run::GroupRun;
use crate::candidate::{Marks, Standing};
use crate::followup::{batches, Purpose};
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::ClientStatus;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let disconnecting = g.positions(Standing::Disconnecting);
    if disconnecting.is_empty() {
        return Outcome::skipped("no client disconnected");
    }
    let now = g.ctx.now;
    let mut replaced = 0;
    for &d in &disconnecting {
        let c = &g.candidates[d];
        let out_of_play = c.client_status() == ClientStatus::Unknown
            || already_replaced(c)
            || screen(c.glance(), || c.observed(), g.ctx.is_batch) == Screen::Drop;
        let outcome = if out_of_play {
            None
        } else {
            Some(verdict(g, c, true))
        };
        let c = &mut g.candidates[d];
        c.mark(Marks::DISCONNECTED);
        match outcome {
            None => c.standing = Standing::Out,
            Some(Verdict::Now) => {
                c.standing = Standing::Rescheduled;
                c.mark(Marks::RESCHEDULE_NOW);
                replaced += 1;
            }
            Some(Verdict::Later(at)) => {
                c.standing = Standing::Untainted;
                c.reschedule_later = Some(Box::new(at));
            }
            Some(Verdict::Stay) => c.standing = Standing::Untainted,
        }
        c.settle(|| {
            say!(
                "client on node ",
                c.node.id,
                " disconnected; marked unknown"
            )
        });
    }
    let timeouts = disconnecting
        .iter()
        .map(|&d| (d, now.saturating_add(g.candidates[d].policy.lost_after())))
        .collect();
    g.create_evals(batches(timeouts), Purpose::DisconnectTimeout, true);
    let later = g
        .candidates
        .iter()
        .filter(|c| c.reschedule_later.is_some())
        .count();
    let counters = &mut g.plan.counters;
    counters.disconnect = disconnecting.len() as u32;
    counters.reschedule_now = g
        .candidates
        .iter()
        .filter(|c| c.has(Marks::RESCHEDULE_NOW))
        .count() as u32;
    counters.reschedule_later = later as u32;
    Outcome::done(say!(
        disconnecting.len(),
        " allocations marked unknown, ",
        replaced,
        " of them replaced now"
    ))
}
