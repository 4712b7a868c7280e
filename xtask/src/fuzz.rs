//! `cargo xtask fuzz [--long]`: every fuzz target over its corpus in `fuzz/corpus/`, with libFuzzer where a nightly toolchain is present, else with the stable engine.

use crate::run::Workspace;
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// Cases per target: the test run's, and `--long`'s.
pub const RUNS: u64 = 20_000;
pub const LONG_RUNS: u64 = 1_000_000;

/// Fuzzes every target `runs` times.
///
/// # Errors
/// When a target panics (the case is kept in its corpus) or a tool fails.
pub fn run(ws: &Workspace, runs: u64) -> Result<()> {
    if nightly() {
        libfuzzer(ws, runs)
    } else {
        println!("no nightly toolchain: fuzzing with the stable engine");
        stable(ws, runs)
    }
}

/// Whether `cargo +nightly` works.
fn nightly() -> bool {
    nightly_cargo()
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `cargo +nightly`, free of what the stable cargo running xtask set.
fn nightly_cargo() -> Command {
    let mut command = Command::new("cargo");
    command.arg("+nightly");
    for var in [
        "RUSTUP_TOOLCHAIN",
        "CARGO",
        "RUSTC",
        "RUSTDOC",
        "RUSTC_WRAPPER",
    ] {
        command.env_remove(var);
    }
    crate::lints::without(&mut command);
    command
}

fn stable(ws: &Workspace, runs: u64) -> Result<()> {
    ws.cargo(&[
        "run",
        "--package",
        "slotwise-fuzz",
        "--bin",
        "fuzz-stable",
        "--",
        "--runs",
        &runs.to_string(),
    ])
}

fn libfuzzer(ws: &Workspace, runs: u64) -> Result<()> {
    let has_cargo_fuzz = nightly_cargo()
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_cargo_fuzz {
        ws.cargo(&["install", "cargo-fuzz", "--locked"])?;
    }
    // The libFuzzer targets are the files of `fuzz/fuzz_targets/`; the
    // crate's other binary is the stable engine.
    let mut targets: Vec<String> = std::fs::read_dir(ws.root.join("fuzz/fuzz_targets"))
        .context("cannot list fuzz/fuzz_targets")?
        .filter_map(|e| e.ok()?.path().file_stem()?.to_str().map(str::to_string))
        .collect();
    targets.sort();
    if targets.is_empty() {
        bail!("fuzz/fuzz_targets holds no target");
    }
    for target in &targets {
        // New inputs go to a scratch corpus; the tree's is only read, and
        // grows by the crashes kept as regression cases.
        let scratch = ws.root.join("target/fuzz/corpus").join(target);
        let artifacts = ws.root.join("target/fuzz/artifacts").join(target);
        std::fs::create_dir_all(&scratch)?;
        std::fs::create_dir_all(&artifacts)?;
        let kept = ws.root.join("fuzz/corpus").join(target);
        let args = [
            "fuzz".to_string(),
            "run".into(),
            "--sanitizer".into(),
            "none".into(),
            "--no-default-features".into(),
            "--codegen-units".into(),
            codegen_units(runs).to_string(),
            "--features".into(),
            "libfuzzer".into(),
            target.clone(),
            scratch.display().to_string(),
            kept.display().to_string(),
            "--".into(),
            format!("-runs={runs}"),
            format!("-artifact_prefix={}/", artifacts.display()),
            "-max_len=65536".into(),
            "-print_final_stats=1".into(),
        ];
        println!("$ cargo +nightly {}", args.join(" "));
        let started = std::time::Instant::now();
        let status = nightly_cargo()
            .args(&args)
            .current_dir(&ws.root)
            .status()
            .context("cannot run cargo fuzz")?;
        println!(
            "  ({:.0}s: {target}, building and fuzzing)",
            started.elapsed().as_secs_f64()
        );
        if !status.success() {
            let copied = keep_crashes(&artifacts, &kept)?;
            bail!("{target}: libFuzzer found a failure; kept in fuzz/corpus/{target}/: {copied}");
        }
    }
    Ok(())
}

/// How many codegen units the targets are built with. cargo-fuzz builds
/// with one by default: the fastest runs, but the reconciler and scenario
/// crates then compile on one core each. Measured on the 2-core CI machine,
/// the test run's build and 100,000 cases took 251 s with one and 145 s with
/// sixteen, the cases themselves 10 s against 15; a long run keeps one.
fn codegen_units(runs: u64) -> u32 {
    if runs <= RUNS {
        16
    } else {
        1
    }
}

/// Copies libFuzzer's crash files into the corpus; names them.
fn keep_crashes(artifacts: &Path, corpus: &Path) -> Result<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(artifacts)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if ["crash-", "oom-", "timeout-"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            std::fs::copy(&path, corpus.join(name))?;
            names.push(name.to_string());
        }
    }
    Ok(names.join(", "))
}
