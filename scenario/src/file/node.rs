//! A node as a scenario writes it.

use schemars::JsonSchema;
use serde::Deserialize;
use slotwise_reconciler::NodeStatus;
use std::collections::BTreeMap;

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
