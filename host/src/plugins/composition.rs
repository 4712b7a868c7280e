//! Composing the answers of several plugins into one ruling per item: the most cautious answer wins, and every plugin keeps its own data.

use crate::plugin_wit::types::{
    Adjustment, CandidateAdjustment, PostSlotDecision, PreSlotDecision, PromotionDecision,
};
use crate::wit::{PluginExt, PostSlotRuling, PreSlotRuling, PromotionRuling};

/// Pre-slot answers so far: a hold wins; adjustments merge, the earlier
/// plugin's choice winning for a candidate both adjust.
#[derive(Default)]
pub struct PreSlotVotes {
    hold: Option<(String, String)>,
    adjust: Vec<(String, Adjustment)>,
    pub ext: Vec<PluginExt>,
}

impl PreSlotVotes {
    pub fn add(&mut self, by: &str, decision: PreSlotDecision) {
        match decision {
            PreSlotDecision::Proceed => {}
            PreSlotDecision::Hold(why) => {
                self.hold.get_or_insert_with(|| (by.to_string(), why));
            }
            PreSlotDecision::Adjust(a) => self.adjust.push((by.to_string(), a)),
        }
    }

    pub fn ruling(self) -> PreSlotRuling {
        let (decision, by) = if let Some((by, why)) = self.hold {
            (PreSlotDecision::Hold(why), by)
        } else if self.adjust.is_empty() {
            (PreSlotDecision::Proceed, String::new())
        } else {
            let (by, adjustment) = merge(self.adjust);
            (PreSlotDecision::Adjust(adjustment), by)
        };
        PreSlotRuling {
            decision,
            by,
            ext: self.ext,
        }
    }
}

fn merge(adjustments: Vec<(String, Adjustment)>) -> (String, Adjustment) {
    let by: Vec<&str> = adjustments.iter().map(|(b, _)| b.as_str()).collect();
    let by = by.join(", ");
    let reason = if adjustments.len() == 1 {
        adjustments[0].1.reason.clone()
    } else {
        let reasons: Vec<String> = adjustments
            .iter()
            .map(|(b, a)| format!("{b}: {}", a.reason))
            .collect();
        reasons.join("; ")
    };
    let mut candidates: Vec<CandidateAdjustment> = Vec::new();
    for (_, a) in adjustments {
        for c in a.candidates {
            match candidates.iter_mut().find(|m| m.allocation == c.allocation) {
                Some(m) => {
                    m.reclassify = m.reclassify.or(c.reclassify);
                    m.update = m.update.or(c.update);
                }
                None => candidates.push(c),
            }
        }
    }
    (by, Adjustment { candidates, reason })
}

/// Post-slot answers so far: a veto wins, then the latest deferral.
#[derive(Default)]
pub struct PostSlotVotes {
    decision: Option<(String, PostSlotDecision)>,
    pub ext: Vec<PluginExt>,
}

impl PostSlotVotes {
    pub fn add(&mut self, by: &str, decision: PostSlotDecision) {
        let replaces = match (&self.decision, &decision) {
            (_, PostSlotDecision::Accept) => false,
            (None, _) => true,
            (Some((_, PostSlotDecision::Veto(_))), _) => false,
            (Some(_), PostSlotDecision::Veto(_)) => true,
            (Some((_, PostSlotDecision::Defer(old))), PostSlotDecision::Defer(new)) => {
                new.until > old.until
            }
            (Some(_), PostSlotDecision::Defer(_)) => true,
        };
        if replaces {
            self.decision = Some((by.to_string(), decision));
        }
    }

    pub fn ruling(self) -> PostSlotRuling {
        let (by, decision) = self
            .decision
            .unwrap_or((String::new(), PostSlotDecision::Accept));
        PostSlotRuling {
            decision,
            by,
            ext: self.ext,
        }
    }
}

/// Promotion answers so far: a failure wins, then waiting, then promotion.
#[derive(Default)]
pub struct PromotionVotes {
    decision: Option<(String, PromotionDecision)>,
}

impl PromotionVotes {
    pub fn add(&mut self, by: &str, decision: PromotionDecision) {
        let rank = |d: &PromotionDecision| match d {
            PromotionDecision::Fail(_) => 2,
            PromotionDecision::Wait(_) => 1,
            PromotionDecision::Promote(_) => 0,
        };
        if self
            .decision
            .as_ref()
            .is_none_or(|(_, old)| rank(&decision) > rank(old))
        {
            self.decision = Some((by.to_string(), decision));
        }
    }

    pub fn ruling(self) -> PromotionRuling {
        match self.decision {
            Some((by, decision)) => PromotionRuling {
                decision: Some(decision),
                by,
            },
            None => PromotionRuling {
                decision: None,
                by: String::new(),
            },
        }
    }
}
