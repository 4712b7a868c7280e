//! The plugins shipped in `plugins/`: Rust crates built for `wasm32-unknown-unknown` and wrapped like the reconciler, into `target/slotwise/plugins/`.

use crate::component::wrap;
use crate::run::Workspace;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// A plugin crate: a package whose library is a `cdylib`.
struct PluginCrate {
    package: String,
}

/// Builds every plugin crate under `plugins/`, one cargo invocation each so
/// that one plugin's hook features do not leak into another's world, and
/// writes `target/slotwise/plugins/<package>.wasm`.
pub fn build(ws: &Workspace) -> Result<Vec<PathBuf>> {
    let out_dir = ws.root.join("target/slotwise/plugins");
    std::fs::create_dir_all(&out_dir)?;
    let mut built = Vec::new();
    for plugin in crates(&ws.root.join("plugins"))? {
        ws.cargo(&[
            "build",
            "--release",
            "--package",
            &plugin.package,
            "--target",
            "wasm32-unknown-unknown",
        ])?;
        let module = ws.root.join(format!(
            "target/wasm32-unknown-unknown/release/{}.wasm",
            plugin.package.replace('-', "_")
        ));
        let component = wrap(&module)?;
        let out = out_dir.join(format!("{}.wasm", plugin.package));
        std::fs::write(&out, &component).with_context(|| format!("writing {}", out.display()))?;
        println!(
            "plugin: {} ({} KiB, no imports)",
            out.display(),
            component.len() / 1024
        );
        built.push(out);
    }
    Ok(built)
}

/// The plugin crates under `dir`, two levels deep, in path order.
fn crates(dir: &Path) -> Result<Vec<PluginCrate>> {
    let mut manifests = Vec::new();
    for entry in read_sorted(dir)? {
        let manifest = entry.join("Cargo.toml");
        if manifest.exists() {
            manifests.push(manifest);
        } else if entry.is_dir() {
            manifests.extend(
                read_sorted(&entry)?
                    .into_iter()
                    .map(|e| e.join("Cargo.toml"))
                    .filter(|m| m.exists()),
            );
        }
    }
    let mut found = Vec::new();
    for manifest in manifests {
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        if !text.contains("\"cdylib\"") {
            continue;
        }
        let package = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("name = \""))
            .and_then(|rest| rest.strip_suffix('"'))
            .with_context(|| format!("{} names no package", manifest.display()))?;
        found.push(PluginCrate {
            package: package.to_string(),
        });
    }
    Ok(found)
}

fn read_sorted(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    Ok(entries)
}
