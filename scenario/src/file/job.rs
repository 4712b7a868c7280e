//! The job, its groups and tasks as a scenario writes them, with Nomad's fixture defaults.

use super::presence::present;
use crate::time::Duration;
use schemars::JsonSchema;
use serde::Deserialize;
use slotwise_reconciler::{DelayFunction, ReconnectStrategy};

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
