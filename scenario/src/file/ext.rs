//! Bytes a plugin attached to a slot, as a scenario writes them.

use schemars::JsonSchema;
use serde::Deserialize;

/// Bytes a plugin attached to a slot, written as text.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "plugin data: a map with `plugin`, `slot`, `text` and optionally `group`"
)]
pub struct ExtFile {
    pub plugin: String,
    /// Default `web`.
    pub group: Option<String>,
    pub slot: u32,
    /// The bytes, as UTF-8 text.
    pub text: String,
}
