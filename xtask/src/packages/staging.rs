//! Staging a package: its folder copied into `target/packages/` with what it bundles, and the artifacts built from it.

use crate::declarations::{declare, Language};
use crate::run::Workspace;
use crate::wit_types;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// What every package bundles, built fresh.
pub struct Bundle {
    pub reconciler: PathBuf,
    pub reader: PathBuf,
    pub wit_types: PathBuf,
}

/// Where packages are staged and built.
pub fn out_dir(ws: &Workspace) -> PathBuf {
    ws.root.join("target/packages")
}

/// Stages `packages/<name>` into `target/packages/<name>`, emptied first,
/// without `left_out` (what stays in the repository: tests, examples) and
/// what tools leave behind.
pub fn stage(ws: &Workspace, name: &str, left_out: &[&str]) -> Result<PathBuf> {
    let staged = out_dir(ws).join(name);
    if staged.exists() {
        std::fs::remove_dir_all(&staged)
            .with_context(|| format!("emptying {}", staged.display()))?;
    }
    copy_into(&ws.root.join("packages").join(name), &staged, left_out)?;
    Ok(staged)
}

/// What tools leave in a package's folder.
pub const LEFT_BEHIND: [&str; 4] = ["node_modules", "__pycache__", "dist", ".pytest_cache"];

/// Copies the tree `from` into `to`, without the entries named in `skip`
/// at its top or anything tools left behind.
pub fn copy_into(from: &Path, to: &Path, skip: &[&str]) -> Result<()> {
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
pub fn declarations(ws: &Workspace, language: Language, path: &Path) -> Result<()> {
    let (resolve, wit) = wit_types::parse(ws)?;
    write(path, declare(&resolve, wit, language)?)
}

/// `target/packages/dist/<file>`, where a package is built, with any
/// earlier build of it removed.
pub fn artifact(ws: &Workspace, file: &str) -> Result<PathBuf> {
    let dist = out_dir(ws).join("dist");
    std::fs::create_dir_all(&dist)?;
    let path = dist.join(file);
    if path.exists() {
        std::fs::remove_file(&path)?;
    }
    Ok(path)
}

/// Fails unless `tool` built `artifact`.
pub fn built(artifact: &Path, tool: &str) -> Result<()> {
    if !artifact.exists() {
        bail!("{tool} built no {}", artifact.display());
    }
    println!("package: {}", artifact.display());
    Ok(())
}

/// Writes `contents` to `path`, creating its folder.
pub fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))
}
