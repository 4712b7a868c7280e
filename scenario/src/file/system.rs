//! The compact cluster of a system or sysbatch job, as a scenario writes it.

use super::allocation::Outdated;
use schemars::JsonSchema;
use serde::Deserialize;
use slotwise_reconciler::ClientStatus;

/// The cluster a system or sysbatch job runs on. Every field is optional.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SystemFile {
    /// How many nodes to add after `nodes`: `node-0`, `node-1`, ... (zero
    /// padded, so that id order is number order), ready unless a state
    /// below takes them.
    #[serde(default)]
    pub nodes: u32,
    /// Down nodes: a count, taken from the added nodes in the order of these
    /// fields (`down` first, then `disconnected`, `draining`, ...), or a list
    /// of node ids.
    pub down: Option<NodePick>,
    /// Disconnected nodes.
    pub disconnected: Option<NodePick>,
    /// Draining nodes. Allocations the job already runs there are marked to
    /// migrate, as the node drainer does.
    pub draining: Option<NodePick>,
    /// Nodes still initializing.
    pub initializing: Option<NodePick>,
    /// Nodes the cluster no longer knows (garbage-collected).
    pub gone: Option<NodePick>,
    /// Ready nodes marked ineligible for scheduling: not ready for the job.
    pub ineligible: Option<NodePick>,
    /// Ready nodes outside the job's datacenters or node pool: the job no
    /// longer targets them.
    pub not_targeted: Option<NodePick>,
    /// The eligible nodes, by id, exactly as the scheduler computed them,
    /// instead of deriving them from the node states.
    pub eligible: Option<Vec<String>>,
    /// The not-ready nodes, by id, exactly as the scheduler computed them.
    pub not_ready: Option<Vec<String>>,
    /// Where the job already runs: `all`, a count (the first nodes of the
    /// list) or node ids. Each gets one allocation of every group per slot
    /// below its count, unless `allocations` gives the group one on that node.
    pub job_on: Option<NodePick>,
    /// The client status of those allocations. Default `running`.
    pub client: Option<ClientStatus>,
    /// The part of their definition that differs from the group's.
    pub outdated: Option<Outdated>,
    /// The job version they were created from. Default: the job's.
    pub version: Option<u64>,
}

/// Which nodes: a count, `all`, or ids.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(untagged)]
pub enum NodePick {
    Count(u32),
    All(All),
    Ids(Vec<String>),
}

/// Every node.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
pub enum All {
    All,
}
