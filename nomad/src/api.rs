//! The parts of Nomad's API objects that slotwise reads, under Nomad's own JSON names; every other field is ignored.
//!
//! Go's JSON encoding writes `null` for empty maps, slices and pointers, so
//! every collection and optional object here accepts `null`.

use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;

/// `null` read as the type's default, as Go writes empty collections.
fn nullable<'de, T: Default + Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A job, as `/v1/job/:id` and each entry of `/v1/job/:id/versions` give it.
/// The task groups are kept as JSON too: the fingerprints hash fields that
/// slotwise does not otherwise read.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Job {
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(default, deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(rename = "Type", default, deserialize_with = "nullable")]
    pub kind: String,
    #[serde(default)]
    pub version: u64,
    #[serde(default)]
    pub create_index: u64,
    #[serde(default)]
    pub modify_index: u64,
    #[serde(default)]
    pub job_modify_index: u64,
    #[serde(default)]
    pub priority: u32,
    #[serde(default)]
    pub stop: bool,
    #[serde(default)]
    pub multiregion: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "nullable")]
    pub meta: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "nullable")]
    pub task_groups: Vec<serde_json::Value>,
}

/// The fields of a task group the reconciler's input carries.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TaskGroup {
    pub name: String,
    #[serde(default)]
    pub count: u32,
    #[serde(default)]
    pub update: Option<UpdateStrategy>,
    #[serde(default)]
    pub reschedule_policy: Option<ReschedulePolicy>,
    #[serde(default)]
    pub disconnect: Option<DisconnectStrategy>,
    /// Before `disconnect` blocks: how long a disconnected client's
    /// allocations are kept.
    #[serde(default)]
    pub max_client_disconnect: Option<i64>,
    /// Before `disconnect` blocks: stop allocations on a client out of
    /// contact for this long.
    #[serde(default)]
    pub stop_after_client_disconnect: Option<i64>,
    #[serde(default, deserialize_with = "nullable")]
    pub tasks: Vec<Task>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateStrategy {
    #[serde(default)]
    pub max_parallel: u32,
    #[serde(default)]
    pub canary: u32,
    #[serde(default)]
    pub auto_promote: bool,
    #[serde(default)]
    pub auto_revert: bool,
    #[serde(default)]
    pub progress_deadline: i64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReschedulePolicy {
    #[serde(default)]
    pub attempts: u32,
    #[serde(default)]
    pub interval: i64,
    #[serde(default)]
    pub delay: i64,
    #[serde(default, deserialize_with = "nullable")]
    pub delay_function: String,
    #[serde(default)]
    pub max_delay: i64,
    #[serde(default)]
    pub unlimited: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DisconnectStrategy {
    #[serde(default)]
    pub lost_after: i64,
    #[serde(default)]
    pub replace: Option<bool>,
    #[serde(default, deserialize_with = "nullable")]
    pub reconcile: String,
    #[serde(default)]
    pub stop_on_client_after: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Task {
    pub name: String,
    #[serde(default)]
    pub leader: bool,
    #[serde(default)]
    pub kill_timeout: Option<i64>,
}

/// `/v1/job/:id/versions`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct JobVersions {
    #[serde(default, deserialize_with = "nullable")]
    pub versions: Vec<Job>,
}

/// An entry of `/v1/jobs`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct JobListStub {
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(default, deserialize_with = "nullable")]
    pub namespace: String,
}

/// An allocation: an entry of `/v1/job/:id/allocations` (a list stub), or
/// `/v1/allocation/:id` in full. The fields only the full form has are
/// optional.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Allocation {
    #[serde(rename = "ID")]
    pub id: String,
    pub name: String,
    #[serde(rename = "NodeID", default, deserialize_with = "nullable")]
    pub node_id: String,
    pub task_group: String,
    #[serde(default)]
    pub job_version: Option<u64>,
    #[serde(default, deserialize_with = "nullable")]
    pub desired_status: String,
    #[serde(default, deserialize_with = "nullable")]
    pub client_status: String,
    #[serde(default)]
    pub desired_transition: Option<DesiredTransition>,
    #[serde(default, deserialize_with = "nullable")]
    pub task_states: BTreeMap<String, TaskState>,
    #[serde(default)]
    pub deployment_status: Option<AllocDeploymentStatus>,
    #[serde(rename = "FollowupEvalID", default, deserialize_with = "nullable")]
    pub followup_eval_id: String,
    #[serde(default, deserialize_with = "nullable")]
    pub next_allocation: String,
    #[serde(default)]
    pub reschedule_tracker: Option<RescheduleTracker>,
    #[serde(default)]
    pub create_index: u64,
    #[serde(default)]
    pub modify_time: i64,
    // Only in the full allocation.
    #[serde(default)]
    pub job: Option<Job>,
    #[serde(rename = "DeploymentID", default)]
    pub deployment_id: Option<String>,
    #[serde(default)]
    pub previous_allocation: Option<String>,
    #[serde(default)]
    pub alloc_states: Option<Vec<AllocState>>,
    #[serde(default)]
    pub metrics: Option<AllocationMetric>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DesiredTransition {
    #[serde(default)]
    pub migrate: Option<bool>,
    #[serde(default)]
    pub reschedule: Option<bool>,
    #[serde(default)]
    pub force_reschedule: Option<bool>,
    #[serde(default)]
    pub migrate_disable_placement: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TaskState {
    #[serde(default, deserialize_with = "nullable")]
    pub state: String,
    #[serde(default)]
    pub failed: bool,
    #[serde(default)]
    pub restarts: u32,
    #[serde(default)]
    pub last_restart: Option<String>,
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub finished_at: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AllocDeploymentStatus {
    #[serde(default)]
    pub healthy: Option<bool>,
    #[serde(default)]
    pub timestamp: Option<String>,
    #[serde(default)]
    pub canary: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RescheduleTracker {
    #[serde(default, deserialize_with = "nullable")]
    pub events: Vec<RescheduleEvent>,
    #[serde(default, deserialize_with = "nullable")]
    pub last_reschedule: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RescheduleEvent {
    #[serde(default)]
    pub reschedule_time: i64,
    #[serde(default)]
    pub delay: i64,
}

/// An entry of the allocation's history of whole-allocation changes.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AllocState {
    /// 0 is the client status; Nomad records no other field today.
    #[serde(default)]
    pub field: u8,
    #[serde(default, deserialize_with = "nullable")]
    pub value: String,
    #[serde(default)]
    pub time: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AllocationMetric {
    #[serde(default, deserialize_with = "nullable")]
    pub score_meta_data: Vec<NodeScoreMeta>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct NodeScoreMeta {
    #[serde(rename = "NodeID", default, deserialize_with = "nullable")]
    pub node_id: String,
    #[serde(default)]
    pub norm_score: f64,
}

/// `/v1/node/:id`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Node {
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(default, deserialize_with = "nullable")]
    pub status: String,
    /// Set while the node drains.
    #[serde(default)]
    pub drain_strategy: Option<serde_json::Value>,
    /// The older flag, still written beside the strategy.
    #[serde(default)]
    pub drain: bool,
    #[serde(default, deserialize_with = "nullable")]
    pub meta: BTreeMap<String, String>,
}

/// `/v1/job/:id/deployment`: the latest deployment, or `null`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Deployment {
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(rename = "JobID")]
    pub job_id: String,
    #[serde(default)]
    pub job_version: u64,
    #[serde(default)]
    pub job_create_index: u64,
    #[serde(default, deserialize_with = "nullable")]
    pub status: String,
    #[serde(default, deserialize_with = "nullable")]
    pub status_description: String,
    #[serde(default, deserialize_with = "nullable")]
    pub task_groups: BTreeMap<String, DeploymentState>,
    #[serde(default)]
    pub create_index: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeploymentState {
    #[serde(default)]
    pub auto_revert: bool,
    #[serde(default)]
    pub auto_promote: bool,
    #[serde(default)]
    pub progress_deadline: i64,
    #[serde(default)]
    pub promoted: bool,
    #[serde(default, deserialize_with = "nullable")]
    pub placed_canaries: Vec<String>,
    #[serde(default)]
    pub desired_canaries: u32,
    #[serde(default)]
    pub desired_total: u32,
    #[serde(default)]
    pub placed_allocs: u32,
    #[serde(default)]
    pub healthy_allocs: u32,
    #[serde(default)]
    pub unhealthy_allocs: u32,
}

/// `/v1/job/:id/plan`: Nomad's dry run, of which slotwise reads the counters.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct JobPlanResponse {
    #[serde(default)]
    pub annotations: Option<PlanAnnotations>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PlanAnnotations {
    #[serde(rename = "DesiredTGUpdates", default, deserialize_with = "nullable")]
    pub desired_tg_updates: BTreeMap<String, DesiredUpdates>,
}

/// Nomad's counters for one group.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "PascalCase")]
pub struct DesiredUpdates {
    #[serde(default)]
    pub ignore: u64,
    #[serde(default)]
    pub place: u64,
    #[serde(default)]
    pub migrate: u64,
    #[serde(default)]
    pub stop: u64,
    #[serde(default)]
    pub in_place_update: u64,
    #[serde(default)]
    pub destructive_update: u64,
    #[serde(default)]
    pub canary: u64,
    #[serde(default)]
    pub preemptions: u64,
    #[serde(default)]
    pub disconnect: u64,
    #[serde(default)]
    pub reconnect: u64,
    #[serde(default)]
    pub reschedule_now: u64,
    #[serde(default)]
    pub reschedule_later: u64,
}
