//! Composing the checked answers of several plugins to one batch into rulings: a monitoring plugin's answer is only reported, and of the applied answers the most cautious wins.

use crate::answers::Checked;
use crate::plugin::{Adjustment, PostSlotDecision, PreSlotDecision, PromotionDecision};
use crate::ruling::{self, Adjusted, ReviewVeto, Ruled, Ruling, Rulings};
use crate::sentence::say;
use crate::views::{reconciler_update, standing, Shown};
use crate::{PolicyAction, PolicyVerdict, SlotExt};

/// One plugin's checked answers, and who gave them.
pub(crate) struct Answer<'p> {
    pub(crate) plugin: &'p str,
    pub(crate) monitor: bool,
    pub(crate) checked: Checked,
}

/// The rulings the answers come to, and the bytes plugins attached to slots.
pub(crate) fn compose(shown: &Shown, answers: Vec<Answer>) -> (Rulings, Vec<SlotExt>) {
    let mut ext = Vec::new();
    let rulings = match shown.hook {
        crate::plugin::Hook::PreSlot => Rulings::PreSlot(pre_slot(shown, answers, &mut ext)),
        crate::plugin::Hook::PostSlot => Rulings::PostSlot(post_slot(shown, answers, &mut ext)),
        crate::plugin::Hook::Promotion => Rulings::Promotion(promotion(shown, answers)),
        crate::plugin::Hook::Review => Rulings::Review(review(shown, answers)),
    };
    (rulings, ext)
}

/// What a monitoring plugin would have done to an item: a group at
/// promotion, or batch slot `at`.
fn monitored(
    shown: &Shown,
    plugin: &str,
    group: usize,
    at: Option<usize>,
    verdict: PolicyVerdict,
    reason: String,
) -> PolicyAction {
    let slot = at.map(|at| &shown.slots[at]);
    PolicyAction {
        plugin: plugin.to_string(),
        group: shown.groups[group].clone(),
        slot: slot.map(|s| s.index),
        node: slot.and_then(|s| s.node.as_ref()).map(|(node, _)| *node),
        verdict,
        reason,
        applied: false,
    }
}

/// Keeps the bytes `plugin` attached to batch slot `at`.
fn keep(shown: &Shown, ext: &mut Vec<SlotExt>, plugin: &str, at: usize, data: Option<Vec<u8>>) {
    if let Some(data) = data {
        let slot = &shown.slots[at];
        ext.push(SlotExt {
            plugin: plugin.to_string(),
            group: shown.groups[slot.group].clone(),
            slot: slot.index,
            node: slot.node.as_ref().map(|(_, id)| id.clone()),
            data,
        });
    }
}

/// Per slot: a hold wins; adjustments merge, the earlier plugin's choice
/// winning for a candidate two adjust.
fn pre_slot(
    shown: &Shown,
    answers: Vec<Answer>,
    ext: &mut Vec<SlotExt>,
) -> Vec<Ruling<ruling::PreSlot>> {
    let mut rulings: Vec<Ruling<ruling::PreSlot>> =
        (0..shown.slots.len()).map(|_| Ruling::default()).collect();
    let mut adjustments: Vec<Vec<(&str, Adjustment)>> = vec![Vec::new(); shown.slots.len()];
    for answer in answers {
        let Checked::PreSlot(list) = answer.checked else {
            continue;
        };
        for (at, (decision, data)) in list.into_iter().enumerate() {
            keep(shown, ext, answer.plugin, at, data);
            let slot = &shown.slots[at];
            let ruling = &mut rulings[at];
            match (decision, answer.monitor) {
                (PreSlotDecision::Proceed, _) => {}
                (PreSlotDecision::Hold(why), true) => ruling.monitored.push(monitored(
                    shown,
                    answer.plugin,
                    slot.group,
                    Some(at),
                    PolicyVerdict::Held,
                    why,
                )),
                (PreSlotDecision::Adjust(a), true) => ruling.monitored.push(monitored(
                    shown,
                    answer.plugin,
                    slot.group,
                    Some(at),
                    PolicyVerdict::Adjusted,
                    a.reason,
                )),
                (PreSlotDecision::Hold(why), false) => {
                    if ruling
                        .ruled
                        .as_ref()
                        .is_none_or(|r| !matches!(r.decision, ruling::PreSlot::Hold(_)))
                    {
                        ruling.ruled = Some(Ruled {
                            by: answer.plugin.to_string(),
                            decision: ruling::PreSlot::Hold(why),
                        });
                    }
                }
                (PreSlotDecision::Adjust(a), false) => adjustments[at].push((answer.plugin, a)),
            }
        }
    }
    for (at, (ruling, adjust)) in rulings.iter_mut().zip(adjustments).enumerate() {
        if ruling.ruled.is_none() && !adjust.is_empty() {
            ruling.ruled = Some(merge(shown, at, adjust));
        }
    }
    rulings
}

/// The adjustments of several plugins on batch slot `at`, as one.
fn merge(shown: &Shown, at: usize, adjustments: Vec<(&str, Adjustment)>) -> Ruled<ruling::PreSlot> {
    let by: Vec<&str> = adjustments.iter().map(|(b, _)| *b).collect();
    let reason = if let [(_, only)] = adjustments.as_slice() {
        only.reason.clone()
    } else {
        let reasons: Vec<String> = adjustments
            .iter()
            .map(|(b, a)| say!(b, ": ", a.reason))
            .collect();
        reasons.join("; ")
    };
    let slot = &shown.slots[at];
    let mut candidates: Vec<Adjusted> = Vec::new();
    // Where each of the slot's candidates is in `candidates`, once adjusted:
    // a scan of `candidates` per adjustment was quadratic in a large slot.
    let mut merged: Vec<Option<usize>> = vec![None; slot.candidates.count as usize];
    for (_, a) in &adjustments {
        for c in &a.candidates {
            // Checked: the candidate is within the slot's span.
            let in_slot = c.candidate.wrapping_sub(slot.candidates.first) as usize;
            let Some(found) = merged.get(in_slot).copied() else {
                continue;
            };
            let standing = c.reclassify.and_then(standing);
            let update = c.update.map(reconciler_update);
            match found {
                Some(m) => {
                    let m = &mut candidates[m];
                    m.standing = m.standing.or(standing);
                    m.update = m.update.or(update);
                }
                None => {
                    merged[in_slot] = Some(candidates.len());
                    candidates.push(Adjusted {
                        candidate: slot.group_first + in_slot,
                        standing,
                        update,
                    });
                }
            }
        }
    }
    Ruled {
        by: by.join(", "),
        decision: ruling::PreSlot::Adjust { reason, candidates },
    }
}

/// Per slot: a veto wins, then the latest deferral.
fn post_slot(
    shown: &Shown,
    answers: Vec<Answer>,
    ext: &mut Vec<SlotExt>,
) -> Vec<Ruling<ruling::PostSlot>> {
    let mut rulings: Vec<Ruling<ruling::PostSlot>> =
        (0..shown.slots.len()).map(|_| Ruling::default()).collect();
    for answer in answers {
        let Checked::PostSlot(list) = answer.checked else {
            continue;
        };
        for (at, (decision, data)) in list.into_iter().enumerate() {
            keep(shown, ext, answer.plugin, at, data);
            let slot = &shown.slots[at];
            let ruling = &mut rulings[at];
            let decision = match decision {
                PostSlotDecision::Accept => continue,
                PostSlotDecision::Veto(why) => ruling::PostSlot::Veto(why),
                PostSlotDecision::Defer(d) => ruling::PostSlot::Defer {
                    until: d.until,
                    reason: d.reason,
                },
            };
            if answer.monitor {
                let (verdict, why) = match decision {
                    ruling::PostSlot::Veto(why) => (PolicyVerdict::Vetoed, why),
                    ruling::PostSlot::Defer { reason, .. } => (PolicyVerdict::Deferred, reason),
                };
                let action = monitored(shown, answer.plugin, slot.group, Some(at), verdict, why);
                ruling.monitored.push(action);
                continue;
            }
            let replaces = match (&ruling.ruled, &decision) {
                (None, _) => true,
                (
                    Some(Ruled {
                        decision: ruling::PostSlot::Veto(_),
                        ..
                    }),
                    _,
                ) => false,
                (Some(_), ruling::PostSlot::Veto(_)) => true,
                (
                    Some(Ruled {
                        decision: ruling::PostSlot::Defer { until: old, .. },
                        ..
                    }),
                    ruling::PostSlot::Defer { until: new, .. },
                ) => new > old,
            };
            if replaces {
                ruling.ruled = Some(Ruled {
                    by: answer.plugin.to_string(),
                    decision,
                });
            }
        }
    }
    rulings
}

/// Per deployment group: a failure wins, then waiting, then promotion; no
/// ruling when no plugin applied a say.
fn promotion(shown: &Shown, answers: Vec<Answer>) -> Vec<Ruling<ruling::Promotion>> {
    let rank = |d: &ruling::Promotion| match d {
        ruling::Promotion::Fail(_) => 2,
        ruling::Promotion::Wait(_) => 1,
        ruling::Promotion::Promote(_) => 0,
    };
    let mut rulings: Vec<Ruling<ruling::Promotion>> =
        (0..shown.groups.len()).map(|_| Ruling::default()).collect();
    for answer in answers {
        let Checked::Promotion(list) = answer.checked else {
            continue;
        };
        for (at, decision) in list.into_iter().enumerate() {
            let (decision, verdict) = match decision {
                PromotionDecision::Abstain => continue,
                PromotionDecision::Promote(w) => {
                    (ruling::Promotion::Promote(w), PolicyVerdict::Promoted)
                }
                PromotionDecision::Wait(w) => (ruling::Promotion::Wait(w), PolicyVerdict::Waited),
                PromotionDecision::Fail(w) => (ruling::Promotion::Fail(w), PolicyVerdict::Failed),
            };
            let ruling = &mut rulings[at];
            if answer.monitor {
                let why = match decision {
                    ruling::Promotion::Promote(w)
                    | ruling::Promotion::Wait(w)
                    | ruling::Promotion::Fail(w) => w,
                };
                ruling
                    .monitored
                    .push(monitored(shown, answer.plugin, at, None, verdict, why));
            } else if ruling
                .ruled
                .as_ref()
                .is_none_or(|old| rank(&decision) > rank(&old.decision))
            {
                ruling.ruled = Some(Ruled {
                    by: answer.plugin.to_string(),
                    decision,
                });
            }
        }
    }
    rulings
}

/// Every veto, in the order plugins were asked; a monitoring plugin's are
/// only reported.
fn review(shown: &Shown, answers: Vec<Answer>) -> Vec<ReviewVeto> {
    let mut vetoes = Vec::new();
    for answer in answers {
        let Checked::Review(list) = answer.checked else {
            continue;
        };
        for (at, reason) in list {
            let slot = &shown.slots[at];
            vetoes.push(ReviewVeto {
                group: slot.group,
                slot: slot.slot,
                by: answer.plugin.to_string(),
                reason,
                applied: !answer.monitor,
            });
        }
    }
    vetoes
}
