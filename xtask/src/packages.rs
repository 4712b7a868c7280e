//! The packages users install: `slotwise` for Python (a wheel), `@slotwise/reconciler` for npm (a tarball), built into `target/packages/` from `packages/` and the components, then installed into fresh environments and tested as a user would; and the crates for crates.io, checked by a dry run.

mod crates;
mod npm;
mod python;
mod readme;

use crate::declarations::{declare, Language};
use crate::run::Workspace;
use crate::{component, playground, wit_types};
use anyhow::{bail, Context, Result};
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

/// A fresh venv with the Python package installed, for the benchmark;
/// `remove_venv` removes it.
pub fn python_for_bench(ws: &Workspace) -> Result<PathBuf> {
    let bundle = bundle(ws)?;
    let wheel = python::build(ws, &bundle)?;
    python::python_venv(ws, "bench", &wheel, &[])
}

pub use python::remove_python_venv as remove_venv;

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

/// Stages `packages/<name>` into `target/packages/<name>`, emptied first,
/// without `left_out` (what stays in the repository: tests, examples) and
/// what tools leave behind.
fn stage(ws: &Workspace, name: &str, left_out: &[&str]) -> Result<PathBuf> {
    let staged = out_dir(ws).join(name);
    if staged.exists() {
        std::fs::remove_dir_all(&staged)
            .with_context(|| format!("emptying {}", staged.display()))?;
    }
    copy_into(&ws.root.join("packages").join(name), &staged, left_out)?;
    Ok(staged)
}

/// What tools leave in a package's folder.
const LEFT_BEHIND: [&str; 4] = ["node_modules", "__pycache__", "dist", ".pytest_cache"];

/// Copies the tree `from` into `to`, without the entries named in `skip`
/// at its top or anything tools left behind.
fn copy_into(from: &Path, to: &Path, skip: &[&str]) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        if skip.iter().chain(&LEFT_BEHIND).any(|s| name == *s) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type()?.is_dir() {
            copy_into(&entry.path(), &target, &[])?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Writes the contract's declarations in `language` to `path`.
fn declarations(ws: &Workspace, language: Language, path: &Path) -> Result<()> {
    let (resolve, wit) = wit_types::parse(ws)?;
    write(path, declare(&resolve, wit, language)?)
}

/// `target/packages/dist/<file>`, where a package is built, with any
/// earlier build of it removed.
fn artifact(ws: &Workspace, file: &str) -> Result<PathBuf> {
    let dist = out_dir(ws).join("dist");
    std::fs::create_dir_all(&dist)?;
    let path = dist.join(file);
    if path.exists() {
        std::fs::remove_file(&path)?;
    }
    Ok(path)
}

/// Fails unless `tool` built `artifact`.
fn built(artifact: &Path, tool: &str) -> Result<()> {
    if !artifact.exists() {
        bail!("{tool} built no {}", artifact.display());
    }
    println!("package: {}", artifact.display());
    Ok(())
}

/// Writes `contents` to `path`, creating its folder.
fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))
}
