//! Finding the reconciler component and the shipped plugins: given, from the environment, or beside the executable.

use anyhow::{bail, Result};
use std::path::PathBuf;

/// The component file: `given` (from `--component` or `SLOTWISE_COMPONENT`),
/// else `reconciler.wasm` beside the executable, else where `cargo xtask
/// build` puts it relative to the executable (`target/slotwise/`).
pub fn component(given: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(path) = given {
        return Ok(path);
    }
    let exe = std::env::current_exe()?;
    let dir = exe.parent().map(PathBuf::from).unwrap_or_default();
    let candidates = [
        dir.join("reconciler.wasm"),
        dir.join("../slotwise/reconciler.wasm"),
    ];
    match candidates.iter().find(|p| p.exists()) {
        Some(found) => Ok(found.clone()),
        None => bail!(
            "no reconciler component found (looked at {}); build it with `cargo xtask build`, or pass --component",
            candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The directory of shipped plugins: `given` (from `--plugin-dir` or
/// `SLOTWISE_PLUGIN_DIR`), else `plugins/` beside the executable, else where
/// `cargo xtask build` puts them (`target/slotwise/plugins/`). A directory
/// that does not exist is only an error once a plugin is looked up in it.
pub fn plugin_dir(given: Option<PathBuf>) -> PathBuf {
    if let Some(path) = given {
        return path;
    }
    let dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(PathBuf::from))
        .unwrap_or_default();
    let beside = dir.join("plugins");
    if beside.is_dir() {
        beside
    } else {
        dir.join("../slotwise/plugins")
    }
}
