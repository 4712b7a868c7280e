//! The packages users install: `slotwise` for Python (a wheel), `@slotwise/reconciler` for npm (a tarball), built into `target/packages/` from `packages/` and the components, then installed into fresh environments and tested as a user would; and the crates for crates.io, checked by a dry run.

mod crates;
mod npm;
mod python;
mod readme;
mod staging;

use crate::run::Workspace;
use crate::{component, wit_types};
use anyhow::Result;
use staging::Bundle;
use std::path::PathBuf;

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

/// The dry run of publishing the crates; then, with the components built,
/// the README's Rust snippet; then builds the packages, installs each into
/// a fresh environment and runs its tests against `target/debug/slotwise`,
/// which must be built.
pub fn test(ws: &Workspace) -> Result<()> {
    crates::dry_run(ws)?;
    let bundle = bundle(ws)?;
    let output = readme::expected_output(ws)?;
    // Built with the workspace's features, as `cargo xtask test`'s build step
    // builds it: `cargo run --package slotwise-host` alone would compile
    // wasmtime again with the host's features only.
    ws.cargo(&["build", "--workspace", "--examples"])?;
    readme::prints(
        ws,
        &ws.root.join("target/debug/examples/embedding"),
        &[],
        &output,
    )?;
    let wheel = python::build(ws, &bundle)?;
    python::test(ws, &wheel, &output)?;
    let tarball = npm::build(ws, &bundle)?;
    npm::test(ws, &tarball, &output)
}

/// What the npm package bundles, written into `packages/npm/generated`, so
/// that the repository's copy works as it is: the playground links it.
pub fn generate_npm_in_repository(ws: &Workspace) -> Result<()> {
    let bundle = bundle(ws)?;
    npm::generate(ws, &bundle, &ws.root.join("packages/npm/generated"))
}

fn bundle(ws: &Workspace) -> Result<Bundle> {
    ws.rustup_target("wasm32-unknown-unknown")?;
    Ok(Bundle {
        reconciler: component::build(ws)?,
        reader: component::reader(ws)?,
        wit_types: wit_types::write(ws)?,
    })
}
