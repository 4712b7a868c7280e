//! Why a scenario file cannot be used.

/// Why a scenario file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// Not well-formed YAML or JSON, or a field of the wrong shape; the
    /// message names the field and the line.
    #[error("{0}")]
    Format(String),
    /// Well-formed, but inconsistent.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
}

impl ScenarioError {
    /// A well-formed field whose value does not fit the rest of the file.
    pub(crate) fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }
}
