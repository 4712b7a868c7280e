//! The browser playground: the repository's copy of `@slotwise/reconciler` made to work (the reconciler and the scenario reader come from it), then the playground's npm build and tests in `playground/`.

use crate::run::Workspace;
use crate::{component, packages, plugins, wit_types};
use anyhow::Result;
use std::path::Path;

/// Builds the playground's static files into `playground/dist`, with the
/// components it bundles: the reconciler and the reader (through the npm
/// package), the shipped plugins. The host is not needed for them.
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

/// The npm package the playground links, made to work in the repository,
/// then `playground/dist` from the components already built.
pub fn static_files(ws: &Workspace) -> Result<()> {
    packages::generate_npm_in_repository(ws)?;
    npm(ws, &["ci", "--no-audit", "--no-fund"])?;
    npm(ws, &["run", "build"])
}

/// Runs npm with `args` for the playground's package.
fn npm(ws: &Workspace, args: &[&str]) -> Result<()> {
    let mut full = vec!["--prefix", "playground"];
    full.extend_from_slice(args);
    ws.run(Path::new("npm"), &full)
}
