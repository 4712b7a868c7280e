//! Updates: each allocation that stays is judged by its node's eligibility and the job's changes: kept, resumed, updated in place, due for replacement, or stopped; finished sysbatch work runs again only when the job changed.

use super::nodes::Eligibility;
use super::run::NodeGroupRun;
use crate::candidate::{Marks, Standing};
use crate::classification::Taint;
use crate::group::updates::decide;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::{Reason, UpdateKind};

/// What the step decided, for its report.
#[derive(Default)]
struct Tally {
    kept: u32,
    in_place: u32,
    destructive: u32,
    stopped: u32,
    resumed: u32,
    reruns: u32,
}

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    let mut t = Tally::default();
    for i in 0..g.candidates.len() {
        let c = &g.candidates[i];
        if c.has(Marks::TRACKED)
            && !c.has(Marks::STOPPED)
            && matches!(c.standing, Standing::Untainted | Standing::Reconnecting)
        {
            judge(g, i, &mut t);
        }
    }
    if g.ctx.sysbatch {
        for s in 0..g.slots.len() {
            if let Some(f) = g.slots[s].finished {
                let live = g.slots[s]
                    .claimants
                    .clone()
                    .any(|i| !g.candidates[i].is_terminal());
                if !live {
                    finished(g, f, &mut t);
                }
            }
        }
    }
    g.plan.counters.ignore += t.kept;
    g.plan.counters.in_place += t.in_place;
    g.plan.counters.reconnect += t.resumed;
    Outcome::done(say!(
        t.kept,
        " unchanged, ",
        t.in_place,
        " in place, ",
        t.destructive,
        " need replacement, ",
        t.stopped,
        " stopped, ",
        t.resumed,
        " resumed, ",
        t.reruns,
        " finished runs due again"
    ))
}

/// Decides a live candidate on an untainted node.
fn judge(g: &mut NodeGroupRun, i: usize, t: &mut Tally) {
    let c = &g.candidates[i];
    let node = &c.node.id;
    let reconnecting = c.is(Standing::Reconnecting);
    let kind = decide(c);
    let stop = match g.ctx.cluster.nodes.of(c.alloc().node()) {
        Eligibility::NotTargeted => Some((
            Reason::NodeNotTargeted,
            say!("node ", node, " is no longer targeted by the job"),
        )),
        Eligibility::NotReady if kind != UpdateKind::Ignore => Some((
            Reason::NodeNotReady,
            say!("node ", node, " is not ready and the job changed"),
        )),
        Eligibility::NotReady | Eligibility::Eligible => None,
    };
    if let Some((reason, why)) = stop {
        let message = if reconnecting {
            say!("its client reconnected, but ", why)
        } else {
            why
        };
        g.stop(i, reason, None, message, Counted::AsStop);
        g.candidates[i].standing = Standing::Out;
        t.stopped += 1;
        return;
    }
    if reconnecting {
        let entry = g.candidates[i].resume();
        g.plan.reconnect_updates.push(entry);
        t.resumed += 1;
    }
    g.desired += 1;
    let on_ready_node =
        g.ctx.cluster.nodes.of(g.candidates[i].alloc().node()) == Eligibility::Eligible;
    let c = &mut g.candidates[i];
    c.update = Some(kind);
    match kind {
        _ if !on_ready_node => {
            c.standing = Standing::Ignored;
            c.settle(|| "its node is not ready; kept while the job is unchanged");
            t.kept += 1;
        }
        UpdateKind::Ignore => {
            c.standing = Standing::Ignored;
            c.settle(|| "up to date; left as it is");
            t.kept += 1;
        }
        UpdateKind::InPlace => {
            let message = "the group changed in a way the allocation absorbs in place".to_string();
            c.settle(|| say!("updated in place: ", message));
            c.standing = Standing::Out;
            let entry = c.update_entry(Reason::InPlaceUpdate, message);
            g.plan.in_place_updates.push(entry);
            t.in_place += 1;
        }
        UpdateKind::Destructive => {
            c.settle(|| "the group changed in a way that needs a new allocation");
            g.destructive.push(i);
            t.destructive += 1;
        }
    }
}

/// Decides the finished sysbatch allocation at `f`, in a slot where nothing
/// runs: it stays done unless the job changed in a way that needs a new
/// allocation, and the node can run one.
fn finished(g: &mut NodeGroupRun, f: usize, t: &mut Tally) {
    let c = &g.candidates[f];
    let kind = decide(c);
    let runnable = g.ctx.cluster.nodes.of(c.alloc().node()) == Eligibility::Eligible
        && matches!(Taint::of(c.node), Taint::None);
    let c = &mut g.candidates[f];
    match kind {
        UpdateKind::Destructive if runnable => {
            c.settle(|| "finished, but the job changed: it runs again");
            g.reruns.push(f);
            g.desired += 1;
            t.reruns += 1;
        }
        UpdateKind::Destructive => {
            c.settle(|| "finished; the job changed, but its node cannot run it again");
            t.kept += 1;
        }
        UpdateKind::InPlace | UpdateKind::Ignore => {
            c.settle(|| "finished under the job's current definition; not run again");
            g.desired += 1;
            t.kept += 1;
        }
    }
}
