//! A scripted policy: fixed rulings a scenario gives at the hook points, to show and test what the reconciler does with each.

use crate::file::Indexes;
use crate::input::expand;
use crate::time::Time;
use crate::ScenarioError;
use schemars::JsonSchema;
use serde::Deserialize;
use slotwise_reconciler::plugin::{
    Adjustment, CandidateAdjustment, Classification, Deferral, Hook, PostSlotDecision,
    PreSlotDecision, PromotionDecision, PromotionRequest, SlotProposal, SlotView, UpdateKind,
};
use slotwise_reconciler::{Hooks, PluginExt, PostSlotRuling, PreSlotRuling, PromotionRuling};
use std::collections::BTreeMap;

/// Rulings by hook point. Slots are named `group/index` (`web/3`) or
/// `group/first-last` (`web/0-4`); a slot or group not named gets the
/// reconciler's default: proceed, accept, or no say on promotion.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PolicyFile {
    /// The name the rulings are given by. Default `scripted`.
    pub name: Option<String>,
    /// Rulings on slots before they are decided.
    // Written `{hold: why}`, not as a YAML tag.
    #[serde(
        default,
        deserialize_with = "serde_yaml::with::singleton_map_recursive::deserialize"
    )]
    pub pre_slot: BTreeMap<String, PreSlotFile>,
    /// Rulings on the changes proposed for slots.
    // Written `{hold: why}`, not as a YAML tag.
    #[serde(
        default,
        deserialize_with = "serde_yaml::with::singleton_map_recursive::deserialize"
    )]
    pub post_slot: BTreeMap<String, PostSlotFile>,
    /// Rulings on canaries awaiting promotion, by group.
    // Written `{hold: why}`, not as a YAML tag.
    #[serde(
        default,
        deserialize_with = "serde_yaml::with::singleton_map_recursive::deserialize"
    )]
    pub promotion: BTreeMap<String, PromotionFile>,
    /// Bytes to attach to slots, as text, given with the pre-slot rulings.
    #[serde(default)]
    pub ext: BTreeMap<String, String>,
}

/// A pre-slot ruling.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub enum PreSlotFile {
    Proceed,
    /// Leave the slot untouched, for this reason.
    Hold(String),
    Adjust(AdjustFile),
}

/// Adjustments of some candidates of a slot.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AdjustFile {
    pub reason: String,
    pub candidates: Vec<CandidateAdjustFile>,
}

/// One candidate's adjustment.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CandidateAdjustFile {
    pub allocation: String,
    pub reclassify: Option<Classification>,
    pub update: Option<UpdateKind>,
}

/// A post-slot ruling.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub enum PostSlotFile {
    Accept,
    /// Keep the slot as it is, for this reason.
    Veto(String),
    Defer(DeferFile),
}

/// A deferral.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DeferFile {
    /// Like `now+10m`.
    pub until: Time,
    pub reason: String,
}

/// A promotion ruling.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub enum PromotionFile {
    Promote(String),
    Wait(String),
    Fail(String),
}

/// A policy that answers from a script.
pub struct ScriptedPolicy {
    name: String,
    pre_slot: BTreeMap<(String, u32), PreSlotDecision>,
    post_slot: BTreeMap<(String, u32), PostSlotDecision>,
    promotion: BTreeMap<String, PromotionDecision>,
    ext: BTreeMap<(String, u32), Vec<u8>>,
}

impl ScriptedPolicy {
    /// The policy `file` scripts, with its times resolved against `now`.
    pub(crate) fn new(file: &PolicyFile, now: i64) -> Result<Self, ScenarioError> {
        let pre_slot = by_slot(&file.pre_slot, "policy.pre-slot", |r| match r {
            PreSlotFile::Proceed => PreSlotDecision::Proceed,
            PreSlotFile::Hold(why) => PreSlotDecision::Hold(why.clone()),
            PreSlotFile::Adjust(a) => PreSlotDecision::Adjust(Adjustment {
                reason: a.reason.clone(),
                candidates: a
                    .candidates
                    .iter()
                    .map(|c| CandidateAdjustment {
                        allocation: c.allocation.clone(),
                        reclassify: c.reclassify,
                        update: c.update,
                    })
                    .collect(),
            }),
        })?;
        let post_slot = by_slot(&file.post_slot, "policy.post-slot", |r| match r {
            PostSlotFile::Accept => PostSlotDecision::Accept,
            PostSlotFile::Veto(why) => PostSlotDecision::Veto(why.clone()),
            PostSlotFile::Defer(d) => PostSlotDecision::Defer(Deferral {
                until: d.until.resolve(now),
                reason: d.reason.clone(),
            }),
        })?;
        let ext = by_slot(&file.ext, "policy.ext", |text| text.as_bytes().to_vec())?;
        let promotion = file
            .promotion
            .iter()
            .map(|(group, r)| {
                let decision = match r {
                    PromotionFile::Promote(why) => PromotionDecision::Promote(why.clone()),
                    PromotionFile::Wait(why) => PromotionDecision::Wait(why.clone()),
                    PromotionFile::Fail(why) => PromotionDecision::Fail(why.clone()),
                };
                (group.clone(), decision)
            })
            .collect();
        Ok(Self {
            name: file.name.clone().unwrap_or_else(|| "scripted".to_string()),
            pre_slot,
            post_slot,
            promotion,
            ext,
        })
    }

    fn ext_of(&self, group: &str, index: u32) -> Vec<PluginExt> {
        self.ext
            .get(&(group.to_string(), index))
            .map(|data| PluginExt {
                plugin: self.name.clone(),
                data: data.clone(),
            })
            .into_iter()
            .collect()
    }

    /// Who a ruling is by: the policy when it has a say, else no one.
    fn by(&self, has_say: bool) -> String {
        if has_say {
            self.name.clone()
        } else {
            String::new()
        }
    }
}

impl Hooks for ScriptedPolicy {
    fn asks(&self, hook: Hook) -> bool {
        match hook {
            Hook::PreSlot => !self.pre_slot.is_empty() || !self.ext.is_empty(),
            Hook::PostSlot => !self.post_slot.is_empty(),
            Hook::Promotion => !self.promotion.is_empty(),
        }
    }

    fn promotion(&mut self, requests: &[PromotionRequest]) -> Option<Vec<PromotionRuling>> {
        let rulings = requests.iter().map(|r| {
            let decision = self.promotion.get(&r.group).cloned();
            PromotionRuling {
                by: self.by(decision.is_some()),
                decision,
            }
        });
        Some(rulings.collect())
    }

    fn pre_slot(&mut self, slots: &[SlotView]) -> Option<Vec<PreSlotRuling>> {
        let rulings = slots.iter().map(|s| {
            let decision = self.pre_slot.get(&(s.group.clone(), s.index)).cloned();
            PreSlotRuling {
                by: self.by(decision.is_some()),
                decision: decision.unwrap_or(PreSlotDecision::Proceed),
                ext: self.ext_of(&s.group, s.index),
            }
        });
        Some(rulings.collect())
    }

    fn post_slot(&mut self, proposals: &[SlotProposal]) -> Option<Vec<PostSlotRuling>> {
        let rulings = proposals.iter().map(|p| {
            let key = (p.slot.group.clone(), p.slot.index);
            let decision = self.post_slot.get(&key).cloned();
            PostSlotRuling {
                by: self.by(decision.is_some()),
                decision: decision.unwrap_or(PostSlotDecision::Accept),
                ext: Vec::new(),
            }
        });
        Some(rulings.collect())
    }
}

/// `entries` keyed by `(group, slot)`, each slot of a range getting the same value.
fn by_slot<F, T>(
    entries: &BTreeMap<String, F>,
    field: &str,
    convert: impl Fn(&F) -> T,
) -> Result<BTreeMap<(String, u32), T>, ScenarioError>
where
    T: Clone,
{
    let mut out = BTreeMap::new();
    for (key, entry) in entries {
        let path = format!("{field}.{key}");
        let Some((group, slots)) = key.split_once('/') else {
            return Err(ScenarioError::Invalid {
                field: path,
                message: "a slot is named `group/index`, like `web/3`".into(),
            });
        };
        let indexes = match slots.parse::<u32>() {
            Ok(i) => Indexes::One(i),
            Err(_) => Indexes::Range(slots.to_string()),
        };
        let value = convert(entry);
        for index in expand(&indexes, &path)? {
            out.insert((group.to_string(), index), value.clone());
        }
    }
    Ok(out)
}
