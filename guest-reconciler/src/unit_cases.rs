//! Nomad's unit-level cases, kept as data beside the conformance scenarios and read by the unit tests of the module they exercise.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A file of cases: the Nomad test they come from, and the cases.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Cases<C> {
    pub(crate) nomad: String,
    pub(crate) cases: Vec<C>,
}

/// Every `*.unit.yaml` file under `tests/conformance/nomad/<theme>`, parsed,
/// with its path; fails the test when the folder or a file is unusable.
pub(crate) fn load<C: DeserializeOwned>(theme: &str) -> Vec<(PathBuf, Cases<C>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/conformance/nomad")
        .join(theme);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".unit.yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no unit cases in {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let parsed =
                serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, parsed)
        })
        .collect()
}
