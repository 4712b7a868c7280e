//! The evaluation being processed, as a scenario writes it.

use schemars::JsonSchema;
use serde::Deserialize;

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
