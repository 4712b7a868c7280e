//! The explanation of a group's plan: per slot, who claims it, how each claimant was classified, and what was decided.

use crate::candidate::Candidate;
use crate::slot::Slots;
use crate::{CandidateReport, GroupPlan, SlotReport};
use std::collections::BTreeMap;

/// One report per slot below `count` and per slot anything claims or fills.
pub(crate) fn slots(
    count: u32,
    slots: &Slots,
    candidates: &[Candidate],
    plan: &GroupPlan,
) -> Vec<SlotReport> {
    let mut decisions: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut note = |index: u32, text: String| decisions.entry(index).or_default().push(text);
    for p in &plan.placements {
        let kind = if p.canary { "place canary" } else { "place" };
        note(p.name_index, format!("{kind} ({})", p.reason.name()));
    }
    for s in &plan.stops {
        note(
            s.name_index,
            format!("stop {} ({})", s.allocation, s.reason.name()),
        );
    }
    for d in &plan.destructive_updates {
        note(
            d.name_index,
            format!("replace {} ({})", d.allocation, d.reason.name()),
        );
    }
    let updates = [
        ("update in place", &plan.in_place_updates),
        ("attach follow-up to", &plan.attribute_updates),
        ("mark unknown", &plan.disconnect_updates),
        ("resume", &plan.reconnect_updates),
    ];
    for (verb, list) in updates {
        for u in list {
            note(u.name_index, format!("{verb} {}", u.allocation));
        }
    }
    let mut indexes = slots.all(count);
    indexes.extend(decisions.keys().copied());
    indexes.sort_unstable();
    indexes.dedup();
    indexes
        .into_iter()
        .map(|index| {
            let claimants = candidates[slots.claimants(index)]
                .iter()
                .map(report)
                .collect();
            SlotReport {
                index,
                within_count: index < count,
                candidates: claimants,
                decision: decisions
                    .remove(&index)
                    .map_or_else(|| "no change".to_string(), |d| d.join("; ")),
            }
        })
        .collect()
}

fn report(c: &Candidate) -> CandidateReport {
    CandidateReport {
        allocation: c.id().to_string(),
        classification: c.rule.map(|r| r.class),
        rule: c.rule.map_or("none", |r| r.name).to_string(),
        outcome: c
            .outcome
            .clone()
            .unwrap_or_else(|| "left as it is".to_string()),
    }
}
