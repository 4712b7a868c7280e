//! Clippy's lints run as the workspace compiles, not in a check of their own: CI then compiles every dependency once, where a check before the build compiled each twice.
//!
//! `cargo clippy` is `cargo check` with clippy-driver as the compiler of
//! the workspace's crates. Made the compiler of the build instead, it lints
//! the same crates and targets with the same arguments while producing
//! what the tests run. On the 2-core CI machine the lints were a step of
//! 346 s before a build of 576 s, most of it checking wasmtime, cranelift
//! and the other dependencies the build then compiled again; linted as it
//! builds, the build took 649 s.
//!
//! Cargo counts the compiler among what a crate was built with: after
//! `cargo xtask test`, a plain `cargo build` compiles the workspace's own
//! crates again (not their dependencies), and the other way round.

use std::path::PathBuf;
use std::process::Command;

/// The variables through which cargo runs clippy-driver, as `cargo clippy` sets them.
const WRAPPER: &str = "RUSTC_WORKSPACE_WRAPPER";
const ARGS: &str = "CLIPPY_ARGS";

/// What `cargo clippy -- -D warnings` passes on: clippy-driver reads its
/// arguments from one variable, separated by this marker.
const DENY_WARNINGS: &str = "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__";

/// Makes every cargo command this process starts from now on lint the
/// workspace's crates as it compiles them, warnings denied. Returns false,
/// changing nothing, when the toolchain has no working clippy-driver.
///
/// Every later cargo command must see the same variables, or cargo would
/// compile the workspace's crates again: they are set for the whole process.
pub fn while_building() -> bool {
    let Some(driver) = driver() else {
        return false;
    };
    // Set once, before any thread or child process is started.
    std::env::set_var(WRAPPER, driver);
    std::env::set_var(ARGS, DENY_WARNINGS);
    true
}

/// `command` without the lint wrapper: for builds of another toolchain
/// (nightly's fuzzing), and for the components, whose bytes must not depend
/// on how the build was asked for (clippy-driver compiles without MIR
/// optimizations).
pub fn without(command: &mut Command) -> &mut Command {
    command.env_remove(WRAPPER).env_remove(ARGS)
}

/// The clippy-driver of the toolchain that runs this build, if it works.
fn driver() -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO").map(PathBuf::from)?;
    let driver = cargo.with_file_name("clippy-driver");
    Command::new(&driver)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some(driver)
}
