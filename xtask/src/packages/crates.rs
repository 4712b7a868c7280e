//! The crates published to crates.io: `slotwise-reconciler`, `slotwise-scenario` (the scenario files the host's README reads) and `slotwise-host`, checked by a dry run of `cargo publish`.

use crate::run::Workspace;
use anyhow::Result;

/// The crates, each after those it depends on.
pub const PUBLISHED: [&str; 3] = ["slotwise-reconciler", "slotwise-scenario", "slotwise-host"];

/// Packages the crates and builds each from its package alone, as crates.io
/// would: cargo resolves the crates not yet published from the packages it
/// has just made, and the rest from the registry.
pub fn dry_run(ws: &Workspace) -> Result<()> {
    let target = ws.root.join("target/publish-check").display().to_string();
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
