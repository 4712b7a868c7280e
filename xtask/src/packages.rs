//! The packages users install: `slotwise` for Python (a wheel), `@slotwise/reconciler` for npm (a tarball), built into `target/packages/` from `packages/` and the components, then installed into fresh environments and tested as a user would; and the crates for crates.io, checked by a dry run.

mod crates;
mod npm;
mod python;
mod readme;

use crate::run::Workspace;
use crate::{component, playground, wit_types};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// What every package bundles, built fresh.
struct Bundle {
    reconciler: PathBuf,
    reader: PathBuf,
    wit_types: PathBuf,
}

/// Builds every package into `target/packages/`.
pub fn build(ws: &Workspace) -> Result<()> {
    let bundle = bundle(ws)?;
    python::build(ws, &bundle)?;
    npm::build(ws, &bundle)?;
    Ok(())
}

/// Builds the packages, then installs each into a fresh environment and
/// runs its tests against `target/debug/slotwise`, which must be built;
/// then the dry run of publishing the crates.
pub fn test(ws: &Workspace) -> Result<()> {
    crates::dry_run(ws)?;
    let output = readme::expected_output(ws)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    readme::prints(
        ws,
        Path::new(&cargo),
        &[
            "run",
            "--quiet",
            "--package",
            "slotwise-host",
            "--example",
            "embedding",
        ],
        &output,
    )?;
    let bundle = bundle(ws)?;
    let wheel = python::build(ws, &bundle)?;
    python::test(ws, &wheel, &output)?;
    let tarball = npm::build(ws, &bundle)?;
    npm::test(ws, &tarball, &output)
}

fn bundle(ws: &Workspace) -> Result<Bundle> {
    ws.rustup_target("wasm32-unknown-unknown")?;
    Ok(Bundle {
        reconciler: component::build(ws)?,
        reader: playground::reader(ws)?,
        wit_types: wit_types::write(ws)?,
    })
}

/// Where packages are staged and built.
fn out_dir(ws: &Workspace) -> PathBuf {
    ws.root.join("target/packages")
}

/// Copies the tree `from` into `to`, which is emptied first, leaving out
/// what tools leave behind (`node_modules`, `__pycache__`, `dist`).
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to).with_context(|| format!("emptying {}", to.display()))?;
    }
    copy_into(from, to)
}

fn copy_into(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        if ["node_modules", "__pycache__", "dist", ".pytest_cache"]
            .iter()
            .any(|skip| name == *skip)
        {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type()?.is_dir() {
            copy_into(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Writes `contents` to `path`, creating its folder.
fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))
}
