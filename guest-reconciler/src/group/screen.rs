//! Screening: allocations the server already stopped, and finished batch work of older versions, leave the reconcile.

use super::run::GroupRun;
use crate::candidate::{Candidate, Marks, Standing};
use crate::pipeline::Outcome;
use crate::sentence::say;

/// Takes out allocations the server already stopped. Batch allocations stay
/// unless they are to be rescheduled, so that finished work keeps counting
/// toward the group and is not run again. Returns how many were taken out.
pub(crate) fn server_stopped(candidates: &mut [Candidate], is_batch: bool) -> usize {
    let mut taken_out = 0;
    for c in candidates.iter_mut() {
        // The candidate's own copy of the server's status settles most of
        // them without reading the allocation.
        if !c.is_server_terminal() {
            continue;
        }
        let kept_as_done = is_batch && !c.transition().reschedule;
        if !kept_as_done {
            c.untrack(|| "already stopped by the server; nothing to decide");
            taken_out += 1;
        }
    }
    taken_out
}

/// Screens the group's candidates.
pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let stopped = server_stopped(&mut g.candidates, g.ctx.is_batch);
    let mut old = 0;
    if g.ctx.is_batch {
        let (version, create_index) = (g.ctx.job.version, g.ctx.job.create_index);
        for c in g.candidates.iter_mut().filter(|c| c.has(Marks::TRACKED)) {
            if c.is_terminal() && c.is_older_than(version, create_index) {
                let own = c.alloc().job_version();
                c.untrack(|| say!("finished under job version ", own, "; ignored"));
                c.standing = Standing::Ignored;
                old += 1;
            }
        }
    }
    g.counters().ignore += old as u32;
    let total = g.candidates.len();
    if stopped + old == 0 {
        return Outcome::skipped(say!("all ", total, " allocations are in play"));
    }
    Outcome::done(say!(
        total - stopped - old,
        " of ",
        total,
        " allocations in play; ",
        stopped,
        " already stopped by the server, ",
        old,
        " finished under an older version"
    ))
}
