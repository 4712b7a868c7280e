//! The scenario file format: what a file may say, with every default documented.
//!
//! The defaults follow Nomad's test fixtures (`mock.Job()`, `mock.Alloc()`),
//! so that a conformance case reads in a few lines.

use crate::time::{Duration, Time};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use slotwise_reconciler::{
    ClientStatus, DelayFunction, DeploymentStatus, DesiredStatus, EvalTrigger, NodeStatus,
    ReconnectStrategy, TaskLifecycle, UpdateKind,
};
use std::collections::BTreeMap;

/// Tells a field that is absent (`None`) from one set to null (`Some(None)`).
fn present<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A scenario: the state of one job at one instant, and optionally the plan
/// expected of it.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a scenario: a map with fields such as `job`, `allocations` and `expect`"
)]
pub struct ScenarioFile {
    /// What the scenario shows.
    pub description: Option<String>,
    /// The Nomad test (and case) the scenario reproduces.
    pub nomad: Option<String>,
    /// The job. Absent: a service job `mock-job` with one group `web` of 10.
    /// Null: the job was purged.
    #[serde(default, deserialize_with = "present")]
    pub job: Option<Option<JobFile>>,
    /// The job's identifier when the job is null; else taken from the job.
    pub job_id: Option<String>,
    /// Nodes that allocations name. An allocation naming none gets a ready
    /// node of its own.
    #[serde(default, deserialize_with = "crate::limits::nodes")]
    pub nodes: Vec<NodeFile>,
    /// The existing allocations, by group.
    #[serde(default)]
    pub allocations: IndexMap<String, Vec<AllocFile>>,
    /// The job's latest deployment.
    pub deployment: Option<DeploymentFile>,
    /// The evaluation. Absent: id `""` and priority 50, as in Nomad's tests.
    pub eval: Option<EvalFile>,
    /// The current time. Absent: 2026-01-01T00:00:00Z.
    pub now: Option<Time>,
    /// Ask for the per-slot explanation.
    #[serde(default)]
    pub explain: bool,
    /// Plugin data carried over from the previous plan.
    #[serde(default)]
    pub ext: Vec<ExtFile>,
    /// A scripted policy: fixed rulings at the hook points, to show what the
    /// reconciler does with them. Not together with `plugins`.
    pub policy: Option<crate::policy::PolicyFile>,
    /// Policy plugins to consult, in order, as a plugins file lists them.
    #[serde(default)]
    pub plugins: Vec<crate::plugins::PluginEntry>,
    /// The plan expected; absent when the scenario only runs.
    pub expect: Option<ExpectFile>,
    /// For system and sysbatch jobs: the cluster, compactly (node counts and
    /// states, where the job already runs, which nodes are eligible).
    pub system: Option<crate::system::SystemFile>,
    /// The reconciler's input in full, as `slotwise input` prints it, instead
    /// of the compact fields (`job`, `job-id`, `nodes`, `allocations`,
    /// `deployment`, `eval`, `now`, `explain`, `ext`).
    pub input: Option<Box<slotwise_reconciler::ReconcileInput>>,
}

/// The job.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a job: a map with fields such as `id`, `type` and `groups`"
)]
pub struct JobFile {
    /// Default `mock-job`.
    pub id: Option<String>,
    /// `service` (default), `batch`, `system` or `sysbatch`.
    #[serde(rename = "type")]
    pub kind: Option<JobKind>,
    /// Default 0.
    pub version: Option<u64>,
    /// Default 42.
    pub create_index: Option<u64>,
    /// Default 99.
    pub modify_index: Option<u64>,
    /// Default 99.
    pub job_modify_index: Option<u64>,
    /// Default 50.
    pub priority: Option<u32>,
    /// Default false.
    #[serde(default)]
    pub stopped: bool,
    /// Default false.
    #[serde(default)]
    pub multiregion: bool,
    /// Default: one group `web` of 10.
    pub groups: Option<Vec<GroupFile>>,
    /// Group definitions of earlier versions.
    #[serde(default)]
    pub history: Vec<PastVersionFile>,
}

/// The job's scheduler type.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(
    rename_all = "kebab-case",
    expecting = "a job type: `service` or `batch`"
)]
pub enum JobKind {
    Service,
    Batch,
    System,
    Sysbatch,
}

/// An earlier version of the job.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an earlier version: a map with `version` and `groups`"
)]
pub struct PastVersionFile {
    pub version: u64,
    /// Default: the job's create index.
    pub create_index: Option<u64>,
    pub groups: Vec<GroupFile>,
}

/// A task group.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a task group: a map with fields such as `name`, `count` and `update`"
)]
pub struct GroupFile {
    /// Default `web`.
    pub name: Option<String>,
    /// Default 10; 1 in a system or sysbatch job.
    pub count: Option<u32>,
    /// Absent: no update strategy. `canary` is Nomad's test strategy with 2
    /// canaries and max-parallel 2; `rolling` has max-parallel 4; neither has
    /// a progress deadline.
    pub update: Option<UpdateFile>,
    /// Absent: 2 attempts in 10m, 5s apart, constant (Nomad's test default).
    /// Null: no reschedule policy.
    #[serde(default, deserialize_with = "present")]
    pub reschedule: Option<Option<RescheduleFile>>,
    /// Absent: disconnected allocations are lost at once.
    pub disconnect: Option<DisconnectFile>,
    /// Default: one task `web` with a 5s kill timeout.
    pub tasks: Option<Vec<TaskFile>>,
    /// Default: destructive 1, in-place 1.
    pub fingerprint: Option<FingerprintFile>,
}

/// An update strategy, written out or named.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum UpdateFile {
    Preset(UpdatePreset),
    Strategy(UpdateStrategyFile),
}

/// Named update strategies of Nomad's tests.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(
    rename_all = "kebab-case",
    expecting = "an update preset: `canary` or `rolling`"
)]
pub enum UpdatePreset {
    /// 2 canaries, max-parallel 2.
    Canary,
    /// No canaries, max-parallel 4.
    Rolling,
}

/// An update strategy, field by field.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an update strategy: a map with fields such as `max-parallel` and `canary`"
)]
pub struct UpdateStrategyFile {
    /// Default 1.
    pub max_parallel: Option<u32>,
    #[serde(default)]
    pub canary: u32,
    #[serde(default)]
    pub auto_promote: bool,
    #[serde(default)]
    pub auto_revert: bool,
    /// Default 10m.
    pub progress_deadline: Option<Duration>,
}

/// A reschedule policy; unset fields are zero.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a reschedule policy: a map with fields such as `attempts`, `interval` and `delay`"
)]
pub struct RescheduleFile {
    #[serde(default)]
    pub attempts: u32,
    pub interval: Option<Duration>,
    pub delay: Option<Duration>,
    /// Default `constant`.
    pub function: Option<DelayFunction>,
    pub max_delay: Option<Duration>,
    #[serde(default)]
    pub unlimited: bool,
}

/// A disconnect policy.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a disconnect policy: a map with fields such as `lost-after` and `replace`"
)]
pub struct DisconnectFile {
    /// Default 0: lost at once.
    pub lost_after: Option<Duration>,
    /// Default true.
    pub replace: Option<bool>,
    /// Default `best-score`.
    pub reconcile: Option<ReconnectStrategy>,
    pub stop_on_client_after: Option<Duration>,
}

/// A task.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a task: a map with `name` and optionally `leader` and `kill-timeout`"
)]
pub struct TaskFile {
    pub name: String,
    #[serde(default)]
    pub leader: bool,
    /// Default 5s.
    pub kill_timeout: Option<Duration>,
}

/// A group fingerprint.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a fingerprint: a map with `destructive` and `in-place`"
)]
pub struct FingerprintFile {
    pub destructive: u64,
    pub in_place: u64,
}

/// A node.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a node: a map with `id` and optionally `status`, `draining` and `meta`"
)]
pub struct NodeFile {
    pub id: String,
    /// Default `ready`.
    pub status: Option<NodeStatus>,
    #[serde(default)]
    pub draining: bool,
    #[serde(default)]
    pub meta: BTreeMap<String, String>,
}

/// Slot indexes: one (`3`) or an inclusive range (`"0-4"`).
#[derive(JsonSchema, Clone)]
#[serde(untagged)]
pub enum Indexes {
    One(u32),
    Range(String),
}

/// One allocation, or one per index of a range. Unset fields follow Nomad's
/// `mock.Alloc()`: desired `run`, client `pending`, on a ready node of its
/// own, of the job's current version and definition.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an allocation: a map with `index` and optional fields such as `client` and `node`"
)]
pub struct AllocFile {
    /// The slot, or a range of slots for several alike allocations.
    pub index: Indexes,
    /// Default `<group>-<index>` (in a system or sysbatch job with a node,
    /// `<group>-<node>`, and `-<index>` after it when the index is not 0),
    /// suffixed `-2`, `-3`, ... for a slot's further allocations. Only for a
    /// single index.
    pub id: Option<String>,
    /// A node of `nodes`, by id.
    pub node: Option<String>,
    /// Default: the job's version.
    pub version: Option<u64>,
    /// Default: the job's create index.
    pub job_create_index: Option<u64>,
    /// Default: 100 plus the allocation's position in the file.
    pub create_index: Option<u64>,
    pub deployment: Option<String>,
    pub previous: Option<String>,
    pub next: Option<String>,
    /// Default: the fingerprint of the group as the job defines it now.
    pub fingerprint: Option<FingerprintFile>,
    /// The part of the allocation's definition that differs from the
    /// group's: its fingerprint is the group's with that part changed.
    pub outdated: Option<Outdated>,
    /// Forces the update decision.
    pub update: Option<UpdateKind>,
    pub score: Option<f64>,
    /// Default `run`.
    pub desired: Option<DesiredStatus>,
    /// Default `pending`.
    pub client: Option<ClientStatus>,
    /// Requested transitions, by name.
    #[serde(default)]
    pub transition: Vec<Transition>,
    pub healthy: Option<bool>,
    #[serde(default)]
    pub canary: bool,
    pub health_changed: Option<Time>,
    /// Past reschedules; giving any (even none) gives the allocation a tracker.
    pub reschedule_events: Option<Vec<RescheduleEventFile>>,
    /// The last attempt to place a replacement failed (gives a tracker).
    #[serde(default)]
    pub reschedule_failed: bool,
    pub followup_eval: Option<String>,
    pub client_states: Option<Vec<ClientStateFile>>,
    pub tasks: Option<Vec<TaskStateFile>>,
    /// Shorthand for one task `web` that finished then (failed when the
    /// client status is `failed`).
    pub finished: Option<Time>,
    /// Default: the Unix epoch.
    pub modify_time: Option<Time>,
    pub meta: Option<BTreeMap<String, String>>,
}

/// A part of a group definition.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "kebab-case", expecting = "`destructive` or `in-place`")]
pub enum Outdated {
    Destructive,
    InPlace,
}

/// A requested transition.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(
    rename_all = "kebab-case",
    expecting = "a transition: `migrate`, `reschedule`, `force-reschedule` or `migrate-disable-placement`"
)]
pub enum Transition {
    Migrate,
    Reschedule,
    ForceReschedule,
    MigrateDisablePlacement,
}

/// A past reschedule.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a past reschedule: a map with `at` and `delay`"
)]
pub struct RescheduleEventFile {
    pub at: Time,
    pub delay: Duration,
}

/// A recorded client status change.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a client status change: a map with `status` and `at`"
)]
pub struct ClientStateFile {
    /// A client status, or `""` for an entry Nomad recorded with an empty
    /// value.
    #[serde(deserialize_with = "status_or_empty")]
    #[schemars(schema_with = "status_or_empty_schema")]
    pub status: Option<ClientStatus>,
    /// Default: the Unix epoch.
    pub at: Option<Time>,
}

/// An empty string is the empty value Nomad can record; anything else must
/// be a client status.
fn status_or_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ClientStatus>, D::Error> {
    let text = String::deserialize(d)?;
    if text.is_empty() {
        return Ok(None);
    }
    ClientStatus::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(&text)).map(Some)
}

fn status_or_empty_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let status = generator.subschema_for::<ClientStatus>();
    schemars::json_schema!({"anyOf": [status, {"const": ""}]})
}

/// A task's state.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a task state: a map with `name` and optional fields such as `state` and `finished`"
)]
pub struct TaskStateFile {
    pub name: String,
    /// Default `running`.
    pub state: Option<TaskLifecycle>,
    #[serde(default)]
    pub failed: bool,
    pub started: Option<Time>,
    pub finished: Option<Time>,
    #[serde(default)]
    pub restarts: u32,
    pub last_restart: Option<Time>,
}

/// The job's latest deployment.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a deployment: a map with fields such as `id`, `status` and `groups`"
)]
pub struct DeploymentFile {
    /// Default `deployment-1`.
    pub id: Option<String>,
    /// Default: the job's id.
    pub job_id: Option<String>,
    /// Default: the job's version.
    pub version: Option<u64>,
    /// Default: the job's create index.
    pub job_create_index: Option<u64>,
    /// Default `running`.
    pub status: Option<DeploymentStatus>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub groups: IndexMap<String, DeploymentGroupFile>,
}

/// A deployment's state for a group; unset counts are zero.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a deployment's group: a map with fields such as `desired-total` and `promoted`"
)]
pub struct DeploymentGroupFile {
    #[serde(default)]
    pub promoted: bool,
    #[serde(default)]
    pub placed_canaries: Vec<String>,
    #[serde(default)]
    pub desired_canaries: u32,
    #[serde(default)]
    pub desired_total: u32,
    #[serde(default)]
    pub placed: u32,
    #[serde(default)]
    pub healthy: u32,
    #[serde(default)]
    pub unhealthy: u32,
    #[serde(default)]
    pub auto_promote: bool,
    #[serde(default)]
    pub auto_revert: bool,
    pub progress_deadline: Option<Duration>,
}

/// The evaluation.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an evaluation: a map with `id` and `priority`"
)]
pub struct EvalFile {
    #[serde(default)]
    pub id: String,
    /// Default 50.
    pub priority: Option<u32>,
}

/// Bytes a plugin attached to a slot, written as text.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "plugin data: a map with `plugin`, `slot`, `text` and optionally `group` and `node`"
)]
pub struct ExtFile {
    pub plugin: String,
    /// Default `web`.
    pub group: Option<String>,
    /// The slot's name index.
    pub slot: u32,
    /// For a node slot of a system job: the node's id.
    pub node: Option<String>,
    /// The bytes, as UTF-8 text.
    pub text: String,
}

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
