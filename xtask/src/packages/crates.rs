//! The crates published to crates.io: `slotwise-reconciler`, `slotwise-scenario` (the scenario files the host's README reads) and `slotwise-host`, checked by a dry run of `cargo publish`.

use crate::run::Workspace;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The crates, each after those it depends on.
pub const PUBLISHED: [&str; 3] = ["slotwise-reconciler", "slotwise-scenario", "slotwise-host"];

/// Packages the crates and builds each from its package alone, as crates.io
/// would: cargo resolves the crates not yet published from the packages it
/// has just made, and the rest from the registry.
pub fn dry_run(ws: &Workspace) -> Result<()> {
    let target = ws.root.join("target/publish-check");
    forget_earlier_packages(&target)?;
    let target = target.display().to_string();
    let mut args = vec!["publish", "--dry-run", "--allow-dirty"];
    for package in PUBLISHED {
        args.extend(["--package", package]);
    }
    // Built in a target folder of their own: a packaged crate built in the
    // workspace's would overwrite the workspace's build of the same crate
    // with other features. Without debug information, wasmtime compiles
    // faster and takes less room.
    args.extend([
        "--target-dir",
        &target,
        "--config",
        "profile.dev.debug=false",
    ]);
    ws.cargo(&args)
}

/// Removes what an earlier dry run left of the crates: cargo takes a crate
/// from a registry to be the same whenever its name and version are, so it
/// would reuse the source it unpacked into its registry sources and the
/// build in `target` of the crates' earlier packages, and verify a crate
/// changed since against its old dependencies.
fn forget_earlier_packages(target: &Path) -> Result<()> {
    let debug = target.join("debug");
    for folder in [".fingerprint", "deps", "build"] {
        let Ok(entries) = std::fs::read_dir(debug.join(folder)) else {
            continue;
        };
        for entry in entries {
            let path = entry?.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if !(name.starts_with("slotwise") || name.starts_with("libslotwise")) {
                continue;
            }
            if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            }
            .with_context(|| format!("removing {}", path.display()))?;
        }
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    let Ok(registries) = std::fs::read_dir(home.join("registry/src")) else {
        return Ok(());
    };
    let version = env!("CARGO_PKG_VERSION");
    for registry in registries {
        let registry = registry?.path();
        for name in PUBLISHED {
            let unpacked = registry.join(format!("{name}-{version}"));
            if unpacked.is_dir() {
                std::fs::remove_dir_all(&unpacked)
                    .with_context(|| format!("removing {}", unpacked.display()))?;
            }
        }
    }
    Ok(())
}
