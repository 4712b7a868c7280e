//! The npm package `@slotwise/reconciler`: `packages/npm` staged with the components transpiled by jco, the contract's description and its TypeScript declarations, packed by npm, and tested from a fresh project that installs the tarball.

use super::readme;
use super::staging::{artifact, built, copy_into, declarations, out_dir, stage, write, Bundle};
use crate::declarations::Language;
use crate::run::Workspace;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// TypeScript, to check the declarations as a user's compiler reads them.
const TYPESCRIPT: &str = "typescript@5.9.3";

/// playwright-core, to drive Chromium for the test of the package in a
/// browser; the playground's version.
const PLAYWRIGHT: &str = "playwright-core@1.65.1";

/// Stages the package and packs it into `target/packages/dist/`.
pub fn build(ws: &Workspace, bundle: &Bundle) -> Result<PathBuf> {
    // What `generate` left in the repository's copy is written afresh.
    let staged = stage(ws, "npm", &["tests", "scripts", "examples", "generated"])?;
    generate(ws, bundle, &staged.join("generated"))?;

    let tarball = artifact(ws, "slotwise-reconciler-0.1.0.tgz")?;
    let dist = tarball.parent().context("the tarball has a folder")?;
    ws.run_in(
        &staged,
        "npm",
        &[
            "pack",
            "--quiet",
            "--pack-destination",
            &dist.display().to_string(),
        ],
    )?;
    built(&tarball, "npm")?;
    Ok(tarball)
}

/// Writes what the package bundles into `generated`: the components
/// transpiled by jco, the contract's description and its TypeScript
/// declarations. Into `packages/npm/generated` (ignored by git), it makes the
/// repository's copy of the package work as it is, which the playground links.
pub fn generate(ws: &Workspace, bundle: &Bundle, generated: &Path) -> Result<()> {
    let source = ws.root.join("packages/npm");
    // jco, to transpile the components, is a dev dependency of the package.
    ws.run_in(&source, "npm", &["ci", "--no-audit", "--no-fund"])?;
    let components = bundle
        .reconciler
        .parent()
        .context("the components have a folder")?;
    ws.run_in(
        &source,
        "node",
        &[
            "scripts/components.mjs",
            &components.display().to_string(),
            &generated.display().to_string(),
        ],
    )?;
    let description = std::fs::read_to_string(&bundle.wit_types)?;
    write(
        &generated.join("wit-types.js"),
        format!(
            "// The contract's description, from wit-types.json.\nexport default {description};\n"
        ),
    )?;
    declarations(ws, Language::TypeScript, &generated.join("contract.d.ts"))
}

/// A fresh project at `target/packages/project-<name>` with the tarball
/// and `extra` packages installed.
pub fn project(ws: &Workspace, name: &str, tarball: &Path, extra: &[&str]) -> Result<PathBuf> {
    let dir = out_dir(ws).join(format!("project-{name}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    write(
        &dir.join("package.json"),
        format!(
            "{{\"name\": \"slotwise-{name}\", \"version\": \"0.0.0\", \"private\": true, \"type\": \"module\"}}\n"
        ),
    )?;
    let tarball = tarball.display().to_string();
    let mut args = vec!["install", "--no-audit", "--no-fund", "--quiet", &tarball];
    args.extend_from_slice(extra);
    ws.run_in(&dir, "npm", &args)?;
    Ok(dir)
}

/// Installs the tarball into a fresh project and runs `packages/npm/tests`
/// there against `target/debug/slotwise`, in Node and in Chromium; checks the declarations with
/// TypeScript as a user's project would compile them; runs the README's
/// snippet, which must print `output`.
pub fn test(ws: &Workspace, tarball: &Path, output: &str) -> Result<()> {
    let dir = project(ws, "test", tarball, &[TYPESCRIPT, PLAYWRIGHT])?;
    let outcome = run_tests(ws, &dir, output);
    std::fs::remove_dir_all(&dir)?;
    outcome
}

fn run_tests(ws: &Workspace, dir: &Path, output: &str) -> Result<()> {
    // Copied in, so that `@slotwise/reconciler` resolves to the installed package.
    for folder in ["tests", "examples"] {
        copy_into(
            &ws.root.join("packages/npm").join(folder),
            &dir.join(folder),
            &[],
        )?;
    }
    ws.run_in(
        dir,
        "npx",
        &[
            "tsc",
            "--noEmit",
            "--strict",
            "--target",
            "es2022",
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            "tests/types.ts",
        ],
    )?;
    let slotwise = ws.slotwise();
    ws.run_with(
        dir,
        "node",
        &["--test", "tests/"],
        &[("SLOTWISE", &slotwise), ("SLOTWISE_ROOT", &ws.root)],
    )?;
    let snippet = dir.join("examples/embedding.mjs").display().to_string();
    readme::prints(ws, Path::new("node"), &[&snippet], output)
}
