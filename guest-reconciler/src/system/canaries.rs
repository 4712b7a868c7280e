//! Canaries: while a change awaits promotion, a percentage of the nodes to update (rounded up, at most max-parallel) gets the new version first; the other replacements wait.

use super::placement::on_node;
use super::run::NodeGroupRun;
use crate::candidate::Standing;
use crate::deployment::strategy;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::slot_hooks::Counted;
use crate::Reason;
use std::collections::BTreeSet;

/// How many canaries `percent` of `nodes` makes, rounded up, and at most
/// `max_parallel`.
pub(crate) fn wanted(percent: u32, nodes: usize, max_parallel: u32) -> u32 {
    let scaled = u64::from(percent) * nodes as u64;
    (scaled.div_ceil(100)).min(u64::from(max_parallel)) as u32
}

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    let Some(update) = strategy(g.spec.update.as_ref()).filter(|u| u.canary > 0) else {
        return Outcome::skipped("no canaries in the update strategy");
    };
    if !g.tracked || g.dstate.promoted || g.ctx.job.version == 0 || g.destructive.is_empty() {
        return Outcome::skipped("no change awaits canaries");
    }
    g.canarying = true;
    let existing: Vec<usize> = (0..g.candidates.len())
        .filter(|&i| {
            let c = &g.candidates[i];
            c.is(Standing::Ignored) && c.glance().canary
        })
        .collect();
    let failed_canaries: BTreeSet<&str> = g
        .slots
        .iter()
        .filter_map(|s| s.finished)
        .map(|f| &g.candidates[f])
        .filter(|c| c.glance().canary)
        .map(|c| c.id())
        .collect();
    // A failed canary's replacement takes one of the canaries' nodes.
    let replacing = g
        .plan
        .placements
        .iter()
        .filter(|p| {
            p.previous_allocation
                .as_deref()
                .is_some_and(|id| failed_canaries.contains(id))
        })
        .count();
    let required = wanted(
        update.canary,
        g.destructive.len() + g.reruns.len() + existing.len(),
        update.max_parallel,
    );
    // While canaries are wanted, none of the other replacements happen.
    let live = std::mem::take(&mut g.destructive);
    let have = existing.len() + replacing;
    let new = if g.budget > 0 {
        (required as usize).saturating_sub(have).min(live.len())
    } else {
        0
    };
    let version = g.ctx.job.version;
    for (n, &i) in live.iter().enumerate() {
        if n >= new {
            let c = &mut g.candidates[i];
            c.settle(|| "needs a new allocation; waits for the canaries to be promoted");
            continue;
        }
        let c = &g.candidates[i];
        let node = c.alloc().node();
        let message = say!(
            "canary ",
            have + n + 1,
            " of ",
            required,
            " for job version ",
            version,
            ", on node ",
            c.node.id
        );
        let previous = Some(c.id().to_string());
        let placement = on_node(node, c.index(), previous, Reason::Canary, message);
        g.plan.placements.push(placement);
        let message = say!(
            "node ",
            c.node.id,
            " gets a canary of job version ",
            version
        );
        g.stop(i, Reason::ReplacedByCanary, None, message, Counted::Not);
    }
    g.plan.counters.canary += new as u32;
    g.plan.counters.ignore += (live.len() - new) as u32;
    g.dstate.desired_canaries = required;
    g.dstate.placed_canaries = existing
        .iter()
        .map(|&i| g.candidates[i].id().to_string())
        .collect();
    let status = if new < live.len() {
        Outcome::waiting
    } else {
        Outcome::done
    };
    status(say!(
        required,
        " canaries wanted, ",
        have,
        " in place, ",
        new,
        " placed; ",
        live.len() - new,
        " replacements wait for promotion"
    ))
}
