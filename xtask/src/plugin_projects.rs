//! The projects `slotwise plugin new` writes, one per language, built and checked as their README tells a plugin author to: unit tests, `slotwise plugin build`, then `slotwise check` on the scenario they come with.

use crate::run::Workspace;
use anyhow::{Context, Result};
use std::path::Path;

/// Writes, builds and checks a new Rust plugin and a new JavaScript one
/// under `target/plugin-new/`.
///
/// # Errors
/// When writing, building, testing or checking either fails.
pub fn test(ws: &Workspace) -> Result<()> {
    let slotwise = ws.slotwise().display().to_string();
    let base = ws.root.join("target/plugin-new");
    // The Rust project builds where the workspace does, so that its
    // dependencies, locked to the workspace's versions, are compiled once.
    let target = ws.root.join("target");
    let sdk = ws.root.join("plugins/sdk");
    for (lang, name) in [("rust", "frozen-rust"), ("js", "frozen-js")] {
        let dir = base.join(lang);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        let dir_arg = dir.display().to_string();
        let sdk_arg = sdk.display().to_string();
        ws.run_with(
            &ws.root,
            &slotwise,
            &[
                "plugin", "new", name, "--lang", lang, "--dir", &dir_arg, "--sdk", &sdk_arg,
            ],
            &[],
        )?;
        let env: &[(&str, &Path)] = &[("CARGO_TARGET_DIR", &target)];
        if lang == "rust" {
            let lock = dir.join("Cargo.lock");
            std::fs::copy(ws.root.join("Cargo.lock"), &lock)
                .with_context(|| format!("writing {}", lock.display()))?;
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            ws.run_with(&dir, &cargo, &["test"], env)?;
        }
        ws.run_with(&ws.root, &slotwise, &["plugin", "build", &dir_arg], env)?;
        let tests = dir.join("tests").display().to_string();
        ws.run_with(&ws.root, &slotwise, &["check", &tests], &[])?;
    }
    Ok(())
}
