//! Reconnection: allocations whose client came back either resume, or give way to the replacements placed meanwhile.

use super::run::GroupRun;
use crate::candidate::{Marks, Standing};
use crate::pipeline::Outcome;
use crate::reconnect_strategy::{pick, Keep};
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::{ClientStatus, DesiredStatus, Reason, ReconnectStrategy};
use std::collections::BTreeMap;

pub(super) fn run(g: &mut GroupRun) -> Outcome {
    let reconnecting = g.positions(Standing::Reconnecting);
    if reconnecting.is_empty() {
        return Outcome::skipped("no client came back");
    }
    let strategy = g
        .spec
        .disconnect
        .as_ref()
        .map_or(ReconnectStrategy::BestScore, |d| d.reconcile);
    let in_view: BTreeMap<&str, usize> = g
        .candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.has(Marks::TRACKED))
        .map(|(i, c)| (c.id(), i))
        .collect();
    let stops_before = g.plan.stops.len();
    for &r in &reconnecting {
        let chain = replacements(g, &in_view, r);
        settle_reconnecting(g, r, &chain, strategy);
    }
    let stopped = g.plan.stops.len() - stops_before;
    for i in 0..g.candidates.len() {
        let c = &mut g.candidates[i];
        let in_working_set = matches!(
            c.standing,
            Standing::Untainted | Standing::Migrating | Standing::Lost | Standing::Disconnecting
        );
        if c.has(Marks::STOPPED) && (in_working_set || c.is(Standing::Reconnecting)) {
            c.standing = Standing::Out;
        }
    }
    let mut resumed = 0;
    for &r in &reconnecting {
        if g.candidates[r].has(Marks::STOPPED) {
            continue;
        }
        g.candidates[r].standing = Standing::Untainted;
        if resumes(g, r) {
            let entry = g.candidates[r].resume();
            g.plan.reconnect_updates.push(entry);
            resumed += 1;
        }
    }
    g.counters().reconnect += resumed;
    Outcome::done(say!(
        reconnecting.len(),
        " reconnecting: ",
        resumed,
        " resume, ",
        stopped,
        " allocations stopped"
    ))
}

/// Decides one reconnecting allocation against its replacements.
fn settle_reconnecting(g: &mut GroupRun, r: usize, chain: &[usize], strategy: ReconnectStrategy) {
    let c = &g.candidates[r];
    if !c.is_server_terminal() && c.client_status() == ClientStatus::Failed {
        let message = "failed while its client was disconnected".to_string();
        g.stop(
            r,
            Reason::ReconnectFailed,
            Some(ClientStatus::Failed),
            message,
            Counted::AsStop,
        );
        return;
    }
    if !wanted(g, r) {
        let message = "its client reconnected, but it is no longer wanted".to_string();
        g.stop(r, Reason::ReconnectUnwanted, None, message, Counted::AsStop);
        return;
    }
    for &x in chain {
        if g.candidates[x].is_server_terminal() {
            continue;
        }
        let (original, replacement) = (&g.candidates[r], &g.candidates[x]);
        match pick(strategy, original, replacement, g.ctx.now) {
            Keep::Replacement => {
                let message = say!("its replacement ", replacement.id(), " is kept");
                g.stop(
                    r,
                    Reason::ReconnectSuperseded,
                    None,
                    message,
                    Counted::AsStop,
                );
            }
            Keep::Original => {
                let message = say!("the original ", original.id(), " reconnected and is kept");
                g.stop(
                    x,
                    Reason::ReplacementSuperseded,
                    None,
                    message,
                    Counted::AsStop,
                );
            }
        }
    }
}

/// Still desired to run, not asked to move, and of the job's current version.
fn wanted(g: &GroupRun, r: usize) -> bool {
    let c = &g.candidates[r];
    let t = c.transition();
    let job = g.ctx.job;
    c.glance().desired_status == DesiredStatus::Run
        && !(t.migrate || t.reschedule || t.force_reschedule)
        && !c.is_older_than(job.version, job.create_index)
}

/// Resumed on its client: wanted, and reported running.
fn resumes(g: &GroupRun, r: usize) -> bool {
    wanted(g, r) && g.candidates[r].client_status() == ClientStatus::Running
}

/// The chain of replacements of candidate `r`, followed through the
/// allocations in view until a link is missing, in slot order.
fn replacements(g: &GroupRun, in_view: &BTreeMap<&str, usize>, r: usize) -> Vec<usize> {
    let mut chain = Vec::new();
    let mut next = g.candidates[r].alloc().next_allocation();
    while let Some(&x) = next.and_then(|id| in_view.get(id)) {
        if x == r || chain.contains(&x) {
            break;
        }
        chain.push(x);
        next = g.candidates[x].alloc().next_allocation();
    }
    chain.sort_unstable();
    chain
}
