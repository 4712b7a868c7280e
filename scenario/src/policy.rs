//! A scripted policy: plugins whose answers a scenario writes out, to show and test what the reconciler does with them.

use crate::file::Indexes;
use crate::input::expand;
use crate::plugins::{Mode, OnError};
use crate::time::Time;
use crate::ScenarioError;
use schemars::JsonSchema;
use serde::Deserialize;
use slotwise_reconciler::plugin::{
    Adjustment, CandidateAdjustment, Classification, Deferral, Hook, PostSlotAnswer,
    PostSlotDecision, PreSlotAnswer, PreSlotDecision, PromotionDecision, PromotionRequest,
    SlotProposal, SlotView, UpdateKind,
};
use slotwise_reconciler::{Consulted, Hooks, PostSlotReply, PreSlotReply, PromotionReply};
use std::collections::BTreeMap;

/// One scripted plugin, or several consulted in order.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PolicyFile {
    One(ScriptFile),
    Many(Vec<ScriptFile>),
}

/// A scripted plugin: its answers by hook point. Slots are named
/// `group/index` (`web/3`) or `group/first-last` (`web/0-4`); a slot or
/// group it does not name gets the neutral answer: proceed, accept, or no
/// say on promotion. It implements the hooks it names.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ScriptFile {
    /// Its name. Default `scripted`.
    pub name: Option<String>,
    /// Default `enforce`.
    #[serde(default)]
    pub mode: Mode,
    /// Default `fail-closed`.
    #[serde(default)]
    pub on_error: OnError,
    /// Answers on slots before they are decided.
    #[serde(default)]
    pub pre_slot: BTreeMap<String, PreSlotFile>,
    /// Answers on the changes proposed for slots.
    #[serde(default)]
    pub post_slot: BTreeMap<String, PostSlotFile>,
    /// Answers on canaries awaiting promotion, by group.
    #[serde(default)]
    pub promotion: BTreeMap<String, PromotionFile>,
    /// Bytes to attach to slots, as text, given with the pre-slot answers.
    #[serde(default)]
    pub ext: BTreeMap<String, String>,
    /// Failures to reply with instead of answers, as a plugin that traps or
    /// runs out of fuel would: the cause by slot (or group, for promotion).
    #[serde(default)]
    pub fail: FailFile,
}

/// Failures by hook point.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FailFile {
    #[serde(default)]
    pub pre_slot: BTreeMap<String, String>,
    #[serde(default)]
    pub post_slot: BTreeMap<String, String>,
    #[serde(default)]
    pub promotion: BTreeMap<String, String>,
}

/// A pre-slot answer.
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

/// A post-slot answer.
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

/// A promotion answer.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub enum PromotionFile {
    Promote(String),
    Wait(String),
    Fail(String),
}

/// Plugins that answer from scripts.
pub struct ScriptedPolicy {
    consulted: Vec<Consulted>,
    scripts: Vec<Script>,
}

/// One script, read.
struct Script {
    name: String,
    pre_slot: BySlot<Result<PreSlotDecision, String>>,
    post_slot: BySlot<Result<PostSlotDecision, String>>,
    promotion: BTreeMap<String, Result<PromotionDecision, String>>,
    ext: BySlot<Vec<u8>>,
}

impl ScriptedPolicy {
    /// The plugins `file` scripts, with times resolved against `now`.
    pub(crate) fn new(file: &PolicyFile, now: i64) -> Result<Self, ScenarioError> {
        let files = match file {
            PolicyFile::One(one) => std::slice::from_ref(one),
            PolicyFile::Many(many) => many.as_slice(),
        };
        let mut consulted = Vec::new();
        let mut scripts = Vec::new();
        for (n, file) in files.iter().enumerate() {
            let field = match file {
                _ if files.len() == 1 => "policy".to_string(),
                _ => format!("policy[{n}]"),
            };
            let script = Script::new(file, now, &field)?;
            let hooks = [
                (
                    Hook::PreSlot,
                    !(script.pre_slot.is_empty() && script.ext.is_empty()),
                ),
                (Hook::PostSlot, !script.post_slot.is_empty()),
                (Hook::Promotion, !script.promotion.is_empty()),
            ];
            consulted.push(Consulted {
                name: script.name.clone(),
                version: String::new(),
                hooks: hooks
                    .iter()
                    .filter(|(_, on)| *on)
                    .map(|(h, _)| *h)
                    .collect(),
                monitor: file.mode == Mode::Monitor,
                fail_open: file.on_error == OnError::FailOpen,
            });
            scripts.push(script);
        }
        Ok(Self { consulted, scripts })
    }

    /// Per item, the replies of the scripts implementing `hook`.
    fn replies<I, R>(
        &self,
        hook: Hook,
        items: &[I],
        reply: impl Fn(&Script, &I) -> Option<R>,
    ) -> Vec<Vec<R>> {
        let asked: Vec<&Script> = self
            .scripts
            .iter()
            .zip(&self.consulted)
            .filter(|(_, c)| c.hooks.contains(&hook))
            .map(|(s, _)| s)
            .collect();
        items
            .iter()
            .map(|item| asked.iter().filter_map(|s| reply(s, item)).collect())
            .collect()
    }
}

impl Script {
    fn new(file: &ScriptFile, now: i64, field: &str) -> Result<Self, ScenarioError> {
        let mut pre_slot = by_slot(&file.pre_slot, &format!("{field}.pre-slot"), |r| {
            Ok(match r {
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
            })
        })?;
        pre_slot.extend(failing(
            &file.fail.pre_slot,
            &format!("{field}.fail.pre-slot"),
        )?);
        let mut post_slot = by_slot(&file.post_slot, &format!("{field}.post-slot"), |r| {
            Ok(match r {
                PostSlotFile::Accept => PostSlotDecision::Accept,
                PostSlotFile::Veto(why) => PostSlotDecision::Veto(why.clone()),
                PostSlotFile::Defer(d) => PostSlotDecision::Defer(Deferral {
                    until: d.until.resolve(now),
                    reason: d.reason.clone(),
                }),
            })
        })?;
        post_slot.extend(failing(
            &file.fail.post_slot,
            &format!("{field}.fail.post-slot"),
        )?);
        let mut promotion: BTreeMap<String, Result<PromotionDecision, String>> = file
            .promotion
            .iter()
            .map(|(group, r)| {
                let decision = match r {
                    PromotionFile::Promote(why) => PromotionDecision::Promote(why.clone()),
                    PromotionFile::Wait(why) => PromotionDecision::Wait(why.clone()),
                    PromotionFile::Fail(why) => PromotionDecision::Fail(why.clone()),
                };
                (group.clone(), Ok(decision))
            })
            .collect();
        promotion.extend(
            file.fail
                .promotion
                .iter()
                .map(|(group, cause)| (group.clone(), Err(cause.clone()))),
        );
        Ok(Self {
            name: file.name.clone().unwrap_or_else(|| "scripted".to_string()),
            pre_slot,
            post_slot,
            promotion,
            ext: by_slot(&file.ext, &format!("{field}.ext"), |text| {
                text.as_bytes().to_vec()
            })?,
        })
    }
}

impl Hooks for ScriptedPolicy {
    fn consulted(&self) -> &[Consulted] {
        &self.consulted
    }

    fn promotion(&mut self, requests: &[PromotionRequest]) -> Option<Vec<Vec<PromotionReply>>> {
        // A group a script does not name gets no say from it.
        Some(self.replies(Hook::Promotion, requests, |script, r| {
            let answer = script.promotion.get(&r.group)?.clone();
            Some(PromotionReply {
                plugin: script.name.clone(),
                answer,
            })
        }))
    }

    fn pre_slot(&mut self, slots: &[SlotView]) -> Option<Vec<Vec<PreSlotReply>>> {
        Some(self.replies(Hook::PreSlot, slots, |script, s| {
            let key = (s.group.clone(), s.index);
            let decision = script
                .pre_slot
                .get(&key)
                .cloned()
                .unwrap_or(Ok(PreSlotDecision::Proceed));
            let ext = script.ext.get(&key).cloned();
            Some(PreSlotReply {
                plugin: script.name.clone(),
                answer: decision.map(|decision| PreSlotAnswer { decision, ext }),
            })
        }))
    }

    fn post_slot(&mut self, proposals: &[SlotProposal]) -> Option<Vec<Vec<PostSlotReply>>> {
        Some(self.replies(Hook::PostSlot, proposals, |script, p| {
            let key = (p.slot.group.clone(), p.slot.index);
            let decision = script
                .post_slot
                .get(&key)
                .cloned()
                .unwrap_or(Ok(PostSlotDecision::Accept));
            Some(PostSlotReply {
                plugin: script.name.clone(),
                answer: decision.map(|decision| PostSlotAnswer {
                    decision,
                    ext: None,
                }),
            })
        }))
    }
}

/// Scripted answers keyed by `(group, slot)`.
type BySlot<T> = BTreeMap<(String, u32), T>;

/// The failures `fail` scripts, keyed by `(group, slot)`.
fn failing<T: Clone>(
    fail: &BTreeMap<String, String>,
    field: &str,
) -> Result<BySlot<Result<T, String>>, ScenarioError> {
    by_slot(fail, field, |cause| Err(cause.clone()))
}

/// `entries` keyed by `(group, slot)`, each slot of a range getting the same value.
fn by_slot<F, T>(
    entries: &BTreeMap<String, F>,
    field: &str,
    convert: impl Fn(&F) -> T,
) -> Result<BySlot<T>, ScenarioError>
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
