//! Finding the reconciler component, the shipped plugins and the playground: given, from the environment, beside the executable, else what the binary carries.

use crate::embedded::CARRIED;
use anyhow::{bail, Result};
use slotwise_cli::playground::{DirFiles, EmbeddedFiles, Files};
use slotwise_host::ComponentReconciler;
use std::path::PathBuf;
use std::sync::Arc;

/// The directory of the executable, where a build or a release puts what it
/// finds beside it.
fn exe_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(PathBuf::from))
        .unwrap_or_default()
}

/// The component files looked for when none is given: `reconciler.wasm`
/// beside the executable, else where `cargo xtask build` puts it relative to
/// the executable (`target/slotwise/`).
fn component_candidates() -> [PathBuf; 2] {
    let dir = exe_dir();
    [
        dir.join("reconciler.wasm"),
        dir.join("../slotwise/reconciler.wasm"),
    ]
}

fn no_component() -> anyhow::Error {
    let looked: Vec<String> = component_candidates()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    anyhow::anyhow!(
        "no reconciler component found (looked at {}); build it with `cargo xtask build`, or pass --component",
        looked.join(", ")
    )
}

/// The reconciler, ready to run: `given` (from `--component` or
/// `SLOTWISE_COMPONENT`), else a component file found beside the executable,
/// else the one this binary carries.
pub fn reconciler(given: Option<PathBuf>) -> Result<ComponentReconciler> {
    let found = given.or_else(|| component_candidates().into_iter().find(|p| p.exists()));
    match (found, CARRIED) {
        (Some(path), _) => Ok(ComponentReconciler::load(&path)?),
        (None, Some(carried)) => carried.reconciler(),
        (None, None) => Err(no_component()),
    }
}

/// The component as a file, for what hands it to child processes: as
/// [`reconciler`] finds it, the carried one unpacked into the user's cache.
pub fn component(given: Option<PathBuf>) -> Result<PathBuf> {
    let found = given.or_else(|| component_candidates().into_iter().find(|p| p.exists()));
    match (found, CARRIED) {
        (Some(path), _) => Ok(path),
        (None, Some(carried)) => carried.component_file(),
        (None, None) => Err(no_component()),
    }
}

/// The directory of shipped plugins: `given` (from `--plugin-dir` or
/// `SLOTWISE_PLUGIN_DIR`), else `plugins/` beside the executable, else where
/// `cargo xtask build` puts them (`target/slotwise/plugins/`), else the
/// plugins this binary carries, unpacked into the user's cache. A directory
/// that does not exist is only an error once a plugin is looked up in it.
pub fn plugin_dir(given: Option<PathBuf>) -> PathBuf {
    if let Some(path) = given {
        return path;
    }
    let dir = exe_dir();
    let beside = dir.join("plugins");
    let built = dir.join("../slotwise/plugins");
    if beside.is_dir() {
        return beside;
    }
    match CARRIED {
        Some(carried) if !built.is_dir() => carried.plugin_dir().unwrap_or_else(|e| {
            eprintln!("warning: cannot unpack the plugins this binary carries: {e:#}");
            built
        }),
        _ => built,
    }
}

/// A plugin file named on the command line: the path itself when it exists,
/// else, for a bare name such as `canary-gate`, the shipped plugin of that
/// name.
pub fn plugin_file(file: PathBuf, shipped: impl FnOnce() -> PathBuf) -> PathBuf {
    let bare = file.components().count() == 1 && file.extension().is_none();
    if file.exists() || !bare {
        return file;
    }
    let named = shipped().join(file.with_extension("wasm"));
    if named.is_file() {
        named
    } else {
        file
    }
}

/// The playground's files: `given`, else `playground/` beside the
/// executable, else where `cargo xtask playground` builds them relative to
/// the executable (`target/debug/` → `playground/dist`), else the files this
/// binary carries.
pub fn playground(given: Option<PathBuf>) -> Result<Arc<dyn Files>> {
    if let Some(dir) = given {
        return Ok(Arc::new(DirFiles::new(&dir)?));
    }
    let dir = exe_dir();
    let candidates = [dir.join("playground"), dir.join("../../playground/dist")];
    if let Some(found) = candidates.iter().find(|p| p.join("index.html").is_file()) {
        return Ok(Arc::new(DirFiles::new(found)?));
    }
    if let Some(carried) = CARRIED {
        return Ok(Arc::new(EmbeddedFiles {
            files: carried.playground,
        }));
    }
    let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    bail!(
        "no built playground found (looked at {}); build it with `cargo xtask playground`, or pass --dir",
        looked.join(", ")
    )
}

/// What `--version` prints after the version: the interfaces this binary
/// speaks, and the component it carries.
pub fn version_details() -> String {
    let plugin: Vec<String> = slotwise_host::plugin_wit::VERSIONS
        .iter()
        .map(|v| format!("{}@{v}", slotwise_host::plugin_wit::PACKAGE))
        .collect();
    let component = match CARRIED {
        Some(carried) => format!(
            "carried, sha256 {} ({} plugins, {} playground files)",
            carried.component_sha256,
            carried.plugins.len(),
            carried.playground.len()
        ),
        None => "none carried; found at run time (built without the `embedded` feature)".into(),
    };
    format!(
        "{}\nreconciler interface: {}\nplugin interfaces: {}\ncomponent: {component}",
        env!("CARGO_PKG_VERSION"),
        slotwise_host::component::INTERFACE,
        plugin.join(", "),
    )
}
