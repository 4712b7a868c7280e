//! The deployment in progress, as a scenario writes it.

use crate::time::Duration;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;
use slotwise_reconciler::DeploymentStatus;

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
