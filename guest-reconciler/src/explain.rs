//! The explanation of a group's plan: per slot, who claims it, how each claimant was classified, and what was decided.

use crate::candidate::Candidate;
use crate::sentence::say;
use crate::slot::Slots;
use crate::{CandidateReport, GroupPlan, PolicyAction, SlotReport};
use std::collections::BTreeMap;

/// One report per slot below `count` and per slot anything claims or fills.
pub(crate) fn slots(
    count: u32,
    slots: &Slots,
    candidates: &[Candidate],
    plan: &GroupPlan,
    actions: &[PolicyAction],
) -> Vec<SlotReport> {
    let mut decisions: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut note = |index: u32, text: String| decisions.entry(index).or_default().push(text);
    for p in &plan.placements {
        let kind = if p.canary { "place canary" } else { "place" };
        note(p.name_index, say!(kind, " (", p.reason.name(), ")"));
    }
    for s in &plan.stops {
        note(
            s.name_index,
            say!("stop ", s.allocation, " (", s.reason.name(), ")"),
        );
    }
    for d in &plan.destructive_updates {
        note(
            d.name_index,
            say!("replace ", d.allocation, " (", d.reason.name(), ")"),
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
            note(u.name_index, say!(verb, " ", u.allocation));
        }
    }
    let mut policy: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for a in actions {
        if let Some(index) = a.slot {
            policy.entry(index).or_default().push(policy_line(a));
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
                policy: policy.remove(&index).unwrap_or_default(),
                node: None,
            }
        })
        .collect()
}

/// A candidate's report. A candidate screened out before classification is
/// reported with what the rule table says of it all the same, so that a reader
/// sees every allocation's class; its outcome says it was screened out.
fn report(c: &Candidate) -> CandidateReport {
    let rule = c.rule().unwrap_or_else(|| c.rule_for());
    CandidateReport {
        allocation: c.id().to_string(),
        classification: Some(rule.class),
        rule: rule.name.to_string(),
        outcome: c.outcome_sentence().to_string(),
    }
}

/// What a policy did to a slot, as a slot's explanation says it.
pub(crate) fn policy_line(a: &PolicyAction) -> String {
    let unapplied = if a.applied { "" } else { " (not applied)" };
    say!(
        a.verdict.name(),
        " by ",
        a.plugin,
        ": ",
        a.reason,
        unapplied
    )
}
