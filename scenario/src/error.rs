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
