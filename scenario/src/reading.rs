//! Reading YAML and JSON text into the file types: an error names the field's path, the line and the column, in the scenario's own words.

use crate::error::ScenarioError;
use crate::limits::{MAX_ALIAS_VALUES, MAX_DEPTH, MAX_FILE_BYTES};
use crate::wording;
use serde::de::DeserializeOwned;
use std::path::Path;

/// The syntax of a scenario file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    Yaml,
    Json,
}

impl Syntax {
    /// JSON for `.json` files, YAML for any other.
    pub fn of(path: &Path) -> Self {
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => Syntax::Json,
            _ => Syntax::Yaml,
        }
    }
}

/// Reads `text` as a `T`.
///
/// # Errors
/// When the text is malformed (duplicate keys, nesting deeper than 64, an
/// alias bomb) or does not match the form of `T`; the message gives the
/// field's path and where in the text it is.
pub(crate) fn read<T: DeserializeOwned>(text: &str, syntax: Syntax) -> Result<T, ScenarioError> {
    let (path, message) = match syntax {
        Syntax::Yaml => {
            let options = serde_saphyr::options! {
                with_snippet: false,
                // A file within the size limit may hold as many values as it
                // has bytes; aliases may add only a few.
                budget: serde_saphyr::budget! {
                    max_events: MAX_FILE_BYTES as usize,
                    max_nodes: MAX_FILE_BYTES as usize,
                    max_depth: MAX_DEPTH,
                },
                alias_limits: serde_saphyr::alias_limits! {
                    max_total_replayed_events: MAX_ALIAS_VALUES,
                },
            };
            let mut path = String::new();
            let read = serde_saphyr::with_deserializer_from_str_with_options(text, options, |de| {
                serde_path_to_error::deserialize(de).map_err(|e| {
                    path = e.path().to_string();
                    e.into_inner()
                })
            });
            match read {
                Ok(value) => return Ok(value),
                Err(e) => (path, e.without_snippet().to_string()),
            }
        }
        Syntax::Json => {
            let mut de = serde_json::Deserializer::from_str(text);
            match serde_path_to_error::deserialize(&mut de) {
                Ok(value) => match de.end() {
                    Ok(()) => return Ok(value),
                    Err(e) => (String::new(), e.to_string()),
                },
                Err(e) => (e.path().to_string(), e.inner().to_string()),
            }
        }
    };
    let message = wording::rewrite(message.trim_start_matches("error: "), text);
    // Where the text stops making sense, the path ends in `?`.
    let path = shorten(path.trim_end_matches('?').trim_end_matches('.'));
    Err(ScenarioError::Format(if path.is_empty() {
        message
    } else {
        format!("{path}: {message}")
    }))
}

/// A path cut to its first 100 characters: the depth of a nesting bomb is
/// said by the message, not spelled out.
fn shorten(path: &str) -> String {
    match path.char_indices().nth(100) {
        Some((at, _)) => format!("{}…", &path[..at]),
        None => path.to_string(),
    }
}
