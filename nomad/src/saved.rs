//! Saved scenarios: the reconciler input built from a cluster, with where and when it was read, so the case can be replayed.
//!
//! The file is a scenario with a `description` and a top-level `input:` that
//! holds the full reconciler input as the contract's JSON renders it (what
//! `slotwise input` prints). Nothing about the connection is written but the
//! address, never the token.

use serde::{Deserialize, Serialize};
use slotwise_reconciler::ReconcileInput;

/// A saved scenario.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedScenario {
    /// The job, namespace, region and time it was read.
    pub description: String,
    /// The reconciler input.
    pub input: ReconcileInput,
}

/// Where a plan's input came from, for the description.
pub struct Origin<'a> {
    /// The job.
    pub job: &'a str,
    /// Its namespace.
    pub namespace: &'a str,
    /// The region asked, if one was named.
    pub region: Option<&'a str>,
    /// The address or directory read.
    pub from: &'a str,
    /// The time of the input, as RFC 3339.
    pub when: &'a str,
}

impl SavedScenario {
    /// A scenario of `input`, read as `origin` says.
    pub fn new(origin: &Origin, input: ReconcileInput) -> Self {
        let region = origin
            .region
            .map(|r| format!(", region {r}"))
            .unwrap_or_default();
        SavedScenario {
            description: format!(
                "Job {} in namespace {}{region}, read from {} at {}.",
                origin.job, origin.namespace, origin.from, origin.when
            ),
            input,
        }
    }

    /// The scenario as YAML.
    ///
    /// # Errors
    /// Never for inputs built by this crate; a serializer failure otherwise.
    pub fn to_yaml(&self) -> Result<String, serde_saphyr::ser::Error> {
        serde_saphyr::to_string(self)
    }

    /// A saved scenario read back.
    ///
    /// # Errors
    /// When `text` is not a saved scenario.
    pub fn from_yaml(text: &str) -> Result<Self, serde_saphyr::Error> {
        serde_saphyr::from_str(text)
    }
}
