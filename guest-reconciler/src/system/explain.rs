//! The explanation of a system group's plan: per node slot, who claims it, how each claimant was classified, what was decided, and what policies did.

use super::run::NodeGroupRun;
use crate::explain::policy_line;
use crate::sentence::say;
use crate::{CandidateReport, SlotReport};
use std::collections::BTreeMap;

/// One report per slot of the group.
pub(crate) fn slots(g: &NodeGroupRun) -> Vec<SlotReport> {
    let mut slot_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut at: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for (s, slot) in g.slots.iter().enumerate() {
        at.insert((slot.node, slot.index), s);
        for i in slot.claimants.clone() {
            slot_of.insert(g.candidates[i].id(), s);
        }
    }
    let mut decisions: Vec<Vec<String>> = vec![Vec::new(); g.slots.len()];
    let plan = &g.plan;
    for p in &plan.placements {
        let kind = if p.canary { "place canary" } else { "place" };
        let slot = p.node.and_then(|node| at.get(&(node, p.name_index)));
        if let Some(&s) = slot {
            decisions[s].push(say!(kind, " (", p.reason.name(), ")"));
        }
    }
    let mut note = |alloc: &str, text: String| {
        if let Some(&s) = slot_of.get(alloc) {
            decisions[s].push(text);
        }
    };
    for s in &plan.stops {
        note(
            &s.allocation,
            say!("stop ", s.allocation, " (", s.reason.name(), ")"),
        );
    }
    for d in &plan.destructive_updates {
        note(
            &d.allocation,
            say!("replace ", d.allocation, " (", d.reason.name(), ")"),
        );
    }
    let updates = [
        ("update in place", &plan.in_place_updates),
        ("mark unknown", &plan.disconnect_updates),
        ("resume", &plan.reconnect_updates),
    ];
    for (verb, list) in updates {
        for u in list {
            note(&u.allocation, say!(verb, " ", u.allocation));
        }
    }
    g.slots
        .iter()
        .zip(decisions)
        .map(|(slot, decided)| SlotReport {
            index: slot.index,
            within_count: slot.index < g.spec.count,
            candidates: slot.claimants.clone().map(|i| report(g, i)).collect(),
            decision: if decided.is_empty() {
                "no change".to_string()
            } else {
                decided.join("; ")
            },
            policy: (g.hooks.actions.iter())
                .filter(|a| a.slot == Some(slot.index) && a.node == Some(slot.node))
                .map(policy_line)
                .collect(),
            node: Some(slot.node),
        })
        .collect()
}

/// A candidate's report: the system rule that classified it, or how the
/// screen set it aside.
fn report(g: &NodeGroupRun, i: usize) -> CandidateReport {
    let c = &g.candidates[i];
    let (classification, rule) = match g.rules[i] {
        Some(rule) => (Some(rule.class), rule.name),
        None if c.is_terminal() => (None, "finished"),
        None => (None, "screened"),
    };
    CandidateReport {
        allocation: c.id().to_string(),
        classification,
        rule: rule.to_string(),
        outcome: c.outcome_sentence().to_string(),
    }
}
