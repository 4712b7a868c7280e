//! The browser playground: the scenario-reader component it reads scenarios with, then its npm build and tests in `playground/`.

use crate::component;
use crate::run::Workspace;
use crate::{plugins, wit_types};
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Builds the scenario-reader component into `target/slotwise/scenario-reader.wasm`.
pub fn reader(ws: &Workspace) -> Result<PathBuf> {
    // The `scenario` crate needs the reconciler's types, and a `cdylib`
    // exports what its dependencies export: the reader carries the
    // reconciler's interfaces too, unused by the playground.
    let out = ws.root.join("target/slotwise/scenario-reader.wasm");
    component::build_package(ws, "slotwise-scenario-reader", &out)?;
    Ok(out)
}

/// Builds the playground's static files into `playground/dist`, with the
/// components it bundles: the reconciler, the shipped plugins, the WIT type
/// description and the reader. The host is not needed for them.
pub fn build(ws: &Workspace) -> Result<()> {
    ws.rustup_target("wasm32-unknown-unknown")?;
    component::build(ws)?;
    plugins::build(ws)?;
    wit_types::write(ws)?;
    static_files(ws)
}

/// Runs the playground's unit tests and its end-to-end test in Chromium,
/// which compares its plans with those of `target/debug/slotwise`: the
/// components and the host must be built already, as `cargo xtask test`
/// builds them before.
pub fn test(ws: &Workspace) -> Result<()> {
    static_files(ws)?;
    npm(ws, &["test"])
}

/// The reader, then `playground/dist` from the components already built.
pub fn static_files(ws: &Workspace) -> Result<()> {
    reader(ws)?;
    npm(ws, &["ci", "--no-audit", "--no-fund"])?;
    npm(ws, &["run", "build"])
}

/// Runs npm with `args` for the playground's package.
fn npm(ws: &Workspace, args: &[&str]) -> Result<()> {
    let mut full = vec!["--prefix", "playground"];
    full.extend_from_slice(args);
    ws.run(Path::new("npm"), &full)
}
