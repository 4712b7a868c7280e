//! Placement: every slot on an eligible, untainted node where nothing of the group runs gets a new allocation; finished sysbatch work is not placed again.

use super::nodes::Eligibility;
use super::run::NodeGroupRun;
use crate::classification::Taint;
use crate::pipeline::Outcome;
use crate::sentence::say;
use crate::{Placement, Reason};

pub(super) fn run(g: &mut NodeGroupRun) -> Outcome {
    let nodes = &g.ctx.input.nodes;
    let mut placed = 0;
    for s in 0..g.slots.len() {
        let slot = &g.slots[s];
        let node = &nodes[slot.node as usize];
        let free = slot.index < g.spec.count
            && g.ctx.cluster.nodes.of(slot.node) == Eligibility::Eligible
            && matches!(Taint::of(node), Taint::None)
            && slot
                .claimants
                .clone()
                .all(|i| g.candidates[i].is_terminal());
        // Finished sysbatch work holds its slot; the updates step decided it.
        if !free || (g.ctx.sysbatch && slot.finished.is_some()) {
            continue;
        }
        let previous = slot.finished.map(|f| g.candidates[f].id().to_string());
        let message = match &previous {
            Some(p) => say!(
                "node ",
                node.id,
                " runs nothing of the group; replaces finished allocation ",
                p
            ),
            None => say!("node ", node.id, " runs nothing of the group"),
        };
        g.plan.placements.push(on_node(
            slot.node,
            slot.index,
            previous,
            Reason::FillSlot,
            message,
        ));
        placed += 1;
    }
    g.plan.counters.place += placed;
    g.desired += placed;
    if placed == 0 {
        return Outcome::skipped("every eligible node runs the group");
    }
    Outcome::done(say!(placed, " placements on nodes without the group"))
}

/// A placement on node `node` in slot `index`, replacing `previous` if any.
/// A canary has its own reason; no system placement reschedules or
/// downgrades.
pub(super) fn on_node(
    node: u32,
    index: u32,
    previous: Option<String>,
    reason: Reason,
    message: String,
) -> Placement {
    Placement {
        name_index: index,
        canary: reason == Reason::Canary,
        previous_allocation: previous,
        reschedule: false,
        previous_lost: false,
        downgrade_non_canary: false,
        min_job_version: 0,
        reason,
        message,
        node: Some(node),
    }
}
