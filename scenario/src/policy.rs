//! A scenario's scripted policy, as the file writes it: plugins whose answers by slot, group and hook are written out. `scripted_relay.rs` answers with them.

use crate::plugins::{Mode, OnError};
use crate::time::Time;
use schemars::JsonSchema;
use serde::Deserialize;
use slotwise_reconciler::plugin::{Classification, Hook, UpdateKind};
use std::collections::BTreeMap;

/// One scripted plugin, or several consulted in order.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PolicyFile {
    One(Box<ScriptFile>),
    Many(Vec<ScriptFile>),
}

/// A scripted plugin: its answers by hook point. Slots are named
/// `group/index` (`web/3`) or `group/first-last` (`web/0-4`), and a system
/// job's node slots `group@node` (`web@node-2`); a slot or
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
    /// Vetoes of the whole proposed plan: the reason by slot. A slot named
    /// here has its first proposed change vetoed, which withdraws the slot's.
    #[serde(default)]
    pub review: BTreeMap<String, String>,
    /// Failures to reply with instead of answers, as a plugin that traps or
    /// runs out of fuel would: the cause by slot (or group, for promotion).
    /// A batch holding a slot named here fails whole.
    #[serde(default)]
    pub fail: FailFile,
    /// A line to log at every call of a hook, by hook.
    #[serde(default)]
    pub log: BTreeMap<Hook, String>,
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
    #[serde(default)]
    pub review: BTreeMap<String, String>,
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
