//! The crates published to crates.io: `slotwise-reconciler`, `slotwise-scenario` (which the host reads plugin entries with) and `slotwise-host`, checked by a dry run of `cargo publish`.

use crate::run::Workspace;
use anyhow::Result;

/// The crates, each after those it depends on.
pub const PUBLISHED: [&str; 3] = ["slotwise-reconciler", "slotwise-scenario", "slotwise-host"];

/// Packages the crates and builds each from its package alone, as crates.io
/// would: cargo resolves the crates not yet published from the packages it
/// has just made, and the rest from the registry.
pub fn dry_run(ws: &Workspace) -> Result<()> {
    let mut args = vec!["publish", "--dry-run", "--allow-dirty"];
    for package in PUBLISHED {
        args.extend(["--package", package]);
    }
    // A packaged crate is a workspace of its own, without this one's
    // profiles: with the same settings it reuses the dependencies the
    // workspace build compiled instead of compiling wasmtime again.
    args.extend([
        "--config",
        "profile.dev.package.\"*\".opt-level=2",
        "--config",
        "profile.dev.package.\"*\".debug=false",
    ]);
    ws.cargo(&args)
}
