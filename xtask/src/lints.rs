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

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variables through which cargo runs clippy-driver, as `cargo clippy` sets them.
const WRAPPER: &str = "RUSTC_WORKSPACE_WRAPPER";
const ARGS: &str = "CLIPPY_ARGS";

/// What `cargo clippy -- -D warnings` passes on: clippy-driver reads its
/// arguments from one variable, separated by this marker.
const DENY_WARNINGS: &str = "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__";

/// Makes every cargo command this process starts from now on lint the
/// workspace's crates as it compiles them, warnings denied. Returns false,
/// changing nothing, when the toolchain has no clippy-driver, or one that
/// no longer denies a lint given as `cargo clippy` gives it (see
/// [`refuses_canary`]): the caller then runs the lints on their own.
///
/// Every later cargo command must see the same variables, or cargo would
/// compile the workspace's crates again: they are set for the whole process.
pub fn while_building() -> bool {
    let Some(driver) = driver() else {
        println!("no clippy-driver beside cargo");
        return false;
    };
    if !refuses_canary(&driver, DENY_WARNINGS) {
        println!(
            "{} compiled a lint-breaking canary under {WRAPPER} and {ARGS}: clippy no longer reads them as this build sets them",
            driver.display()
        );
        return false;
    }
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

/// A crate clippy must refuse with warnings denied (`len_zero`, a lint of
/// clippy's style group that rustc itself does not have).
const CANARY: &str = "pub fn empty(v: &[u8]) -> bool {\n    v.len() == 0\n}\n";

/// Whether `driver`, run as cargo runs a workspace wrapper (the compiler's
/// path first) with `clippy_args` in the variable `cargo clippy` uses,
/// refuses [`CANARY`] naming its lint. The variables and the separator are
/// clippy's interface, not cargo's: if a release changed them, the build
/// would compile unlinted and pass, and only this would notice.
fn refuses_canary(driver: &Path, clippy_args: &str) -> bool {
    let folder = std::env::temp_dir().join(format!("slotwise-lint-canary-{}", std::process::id()));
    let source = folder.join("canary.rs");
    let refused = std::fs::create_dir_all(&folder)
        .and_then(|()| std::fs::write(&source, CANARY))
        .and_then(|()| {
            // In cargo's place clippy-driver is given the compiler's path
            // first, and only checks that it names `rustc`.
            Command::new(driver)
                .arg("rustc")
                .args([
                    "--crate-type",
                    "lib",
                    "--edition",
                    "2021",
                    "--emit",
                    "metadata",
                ])
                .arg("--out-dir")
                .arg(&folder)
                .arg(&source)
                .env(ARGS, clippy_args)
                // As cargo marks the crates of the workspace it builds.
                .env("CARGO_PRIMARY_PACKAGE", "1")
                .output()
        })
        .is_ok_and(|o| {
            !o.status.success() && String::from_utf8_lossy(&o.stderr).contains("len_zero")
        });
    // A leftover temporary folder is harmless; the answer is what matters.
    let _ = std::fs::remove_dir_all(&folder);
    refused
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toolchains_clippy_refuses_the_canary_only_when_warnings_are_denied() {
        let driver = driver().expect("CI installs clippy with the toolchain");
        assert!(refuses_canary(&driver, DENY_WARNINGS));
        // The refusal comes from the denied lint, not from a canary that
        // fails to compile.
        assert!(!refuses_canary(&driver, ""));
    }
}
