//! The plan a scenario expects: only what it names is checked.

use super::allocation::Indexes;
use super::ext::ExtFile;
use crate::time::Time;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;
use slotwise_reconciler::{ClientStatus, DeploymentStatus, EvalTrigger};
use std::collections::BTreeMap;

/// The plan expected. Lists and counters left out are expected empty or
/// zero, as Nomad's tests assert them; a group left out of `groups` is
/// expected absent, when `groups` is given.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected plan: a map with fields such as `groups`, `deployment` and `error`"
)]
pub struct ExpectFile {
    /// The error expected instead of a plan.
    pub error: Option<ErrorExpect>,
    /// Per group.
    pub groups: Option<IndexMap<String, GroupExpect>>,
    /// The deployment created; absent or null when none is.
    pub deployment: Option<DeploymentExpect>,
    #[serde(default)]
    pub deployment_updates: Vec<DeploymentUpdateExpect>,
    /// Classification of allocations, by id (asks for the explanation).
    #[serde(default)]
    pub classification: BTreeMap<String, slotwise_reconciler::Classification>,
    /// Promotion decisions, in order; absent: none.
    #[serde(default)]
    pub promotions: Vec<PromotionExpect>,
    /// What policies did, in order; absent: nothing.
    #[serde(default)]
    pub policy_actions: Vec<ActionExpect>,
    /// Plugin answers the plan goes without, in order; absent: none.
    #[serde(default)]
    pub plugin_failures: Vec<FailureExpect>,
    /// The plugin data the plan carries, every entry; absent: not checked.
    pub ext: Option<Vec<ExtFile>>,
    /// Steps that must be in the report.
    #[serde(default)]
    pub steps: Vec<StepExpect>,
    /// The lines plugins logged, every one, in order; absent: not checked.
    pub plugin_logs: Option<Vec<LogExpect>>,
}

/// An expected log line; unset fields are not checked.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LogExpect {
    pub plugin: Option<String>,
    /// `pre-slot`, `post-slot`, `promotion` or `review`.
    pub hook: Option<String>,
    pub group: Option<String>,
    pub level: Option<slotwise_reconciler::LogLevel>,
    /// Text the line must contain.
    pub message: String,
}

/// An expected promotion decision; unset fields are not checked.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected promotion: a map with `group`, `promoted` and optionally `reason` and `message`"
)]
pub struct PromotionExpect {
    pub group: String,
    pub promoted: bool,
    pub reason: Option<slotwise_reconciler::Reason>,
    /// Text the message must contain.
    pub message: Option<String>,
}

/// An expected policy action; unset fields are not checked.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected policy action: a map with `verdict` and optional fields such as `plugin` and `slot`"
)]
pub struct ActionExpect {
    pub plugin: Option<String>,
    pub group: Option<String>,
    pub slot: Option<u32>,
    /// The node of a system job's node slot, by id.
    pub node: Option<String>,
    pub verdict: slotwise_reconciler::PolicyVerdict,
    pub applied: Option<bool>,
    /// Text the reason must contain.
    pub reason: Option<String>,
}

/// An expected plugin failure; unset fields are not checked.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected plugin failure: a map with optional fields such as `plugin`, `hook` and `cause`"
)]
pub struct FailureExpect {
    pub plugin: Option<String>,
    /// `pre-slot`, `post-slot`, `promotion` or `load`.
    pub hook: Option<String>,
    pub group: Option<String>,
    pub slot: Option<u32>,
    /// The node of a system job's node slot, by id.
    pub node: Option<String>,
    /// Text the cause must contain.
    pub cause: Option<String>,
}

/// A step the report must hold; unset fields are not checked.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected step: a map with `step` and optionally `group`, `status` and `message`"
)]
pub struct StepExpect {
    pub step: String,
    pub group: Option<String>,
    pub status: Option<slotwise_reconciler::StepStatus>,
    /// Text the message must contain.
    pub message: Option<String>,
}

/// An error instead of a plan.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected error: a map with `field` and `message`"
)]
pub struct ErrorExpect {
    /// The input field it names; absent for an error of a policy.
    pub field: Option<String>,
    /// Text the message must contain.
    pub message: Option<String>,
}

/// What one group's plan must hold.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a group's expected plan: a map with fields such as `counters`, `place` and `stop`"
)]
pub struct GroupExpect {
    #[serde(default)]
    pub counters: CountersExpect,
    pub place: Option<Entries>,
    pub stop: Option<Entries>,
    pub destructive: Option<Entries>,
    pub in_place: Option<Entries>,
    pub attribute: Option<Entries>,
    pub disconnect: Option<Entries>,
    pub reconnect: Option<Entries>,
    pub followup_evals: Option<Vec<EvalExpect>>,
}

/// The counters; unset ones are zero.
#[derive(Deserialize, JsonSchema, Default, Clone, Copy)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "counters: a map from counter names (such as `place` and `stop`) to numbers"
)]
pub struct CountersExpect {
    #[serde(default)]
    pub ignore: u32,
    #[serde(default)]
    pub place: u32,
    #[serde(default)]
    pub migrate: u32,
    #[serde(default)]
    pub stop: u32,
    #[serde(default)]
    pub in_place: u32,
    #[serde(default)]
    pub destructive: u32,
    #[serde(default)]
    pub canary: u32,
    #[serde(default)]
    pub reschedule_now: u32,
    #[serde(default)]
    pub reschedule_later: u32,
    #[serde(default)]
    pub disconnect: u32,
    #[serde(default)]
    pub reconnect: u32,
}

/// Expected entries of one kind: how many, or which.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum Entries {
    Count(usize),
    Listed(Vec<EntryExpect>),
}

/// An expected entry: its slot (or a range of slots), or its details.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum EntryExpect {
    Slots(Indexes),
    Detail(EntryDetail),
}

/// An expected entry's details; unset ones are not checked.
#[derive(Deserialize, JsonSchema, Default, Clone, Debug)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected entry: a map with fields such as `index`, `alloc` and `canary`"
)]
pub struct EntryDetail {
    pub index: Option<u32>,
    /// The allocation it concerns (for placements, the previous one).
    pub alloc: Option<String>,
    pub canary: Option<bool>,
    pub reschedule: Option<bool>,
    /// Whether a placement replaces an allocation.
    pub replaces: Option<bool>,
    pub lost: Option<bool>,
    pub downgrade: Option<bool>,
    pub client_status: Option<ClientStatus>,
    /// The follow-up evaluation attached, by position in the group's list.
    pub eval: Option<usize>,
    /// The node, by id: where a placement goes, or where the allocation runs.
    pub node: Option<String>,
}

/// An expected follow-up evaluation; unset fields are not checked.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected follow-up evaluation: a map with `wait-until`, `trigger` and `description`"
)]
pub struct EvalExpect {
    pub wait_until: Option<Time>,
    pub trigger: Option<EvalTrigger>,
    pub description: Option<String>,
}

/// The expected deployment; unset fields are not checked.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected deployment: a map with `description`, `status` and `groups`"
)]
pub struct DeploymentExpect {
    pub description: Option<String>,
    pub status: Option<DeploymentStatus>,
    /// Every group the deployment holds.
    #[serde(default)]
    pub groups: IndexMap<String, DeploymentGroupExpect>,
}

/// An expected deployment group; unset fields are not checked.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a deployment group's expectation: a map with `desired-total`, `desired-canaries` and `promoted`"
)]
pub struct DeploymentGroupExpect {
    pub desired_total: Option<u32>,
    pub desired_canaries: Option<u32>,
    pub promoted: Option<bool>,
    /// How many canaries the deployment lists as placed.
    pub placed_canaries: Option<usize>,
}

/// An expected deployment status change.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an expected deployment update: a map with `status` and `description`"
)]
pub struct DeploymentUpdateExpect {
    pub status: DeploymentStatus,
    pub description: Option<String>,
}
