//! Bytes a plugin attached to a slot, as a scenario writes them.

use schemars::JsonSchema;
use serde::Deserialize;

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
