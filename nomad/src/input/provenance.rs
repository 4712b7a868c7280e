//! Where each input field came from: errors that name the API call and the field.

use crate::snapshot::JobSnapshot;

/// An API object slotwise cannot turn into input. It names the endpoint and
/// the field.
#[derive(Debug, thiserror::Error)]
#[error("{endpoint}: {field}: {message}")]
pub struct MappingError {
    /// The call whose answer holds the field, like `GET /v1/job/web`.
    pub endpoint: String,
    /// The field, like `TaskGroups[0].Update.MaxParallel` or `[3].Name`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

/// What mapping one job needs to name a field's origin in an error.
pub(super) struct Context<'a> {
    pub(super) snapshot: &'a JobSnapshot,
}

impl Context<'_> {
    pub(super) fn error(
        &self,
        endpoint: &str,
        field: String,
        message: impl Into<String>,
    ) -> MappingError {
        let namespace = if self.snapshot.namespace == "default" {
            String::new()
        } else {
            format!("?namespace={}", self.snapshot.namespace)
        };
        MappingError {
            endpoint: format!("GET /v1/{endpoint}{namespace}"),
            field,
            message: message.into(),
        }
    }
}
