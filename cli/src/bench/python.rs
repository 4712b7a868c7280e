//! The Python measurement: the `slotwise` package (PyPI's wasmtime, the encoded path) on the 10k-allocation workload, timed by `packages/python/bench.py` and printed beside Node and Rust.

use super::timing::Timing;
use anyhow::{bail, Context, Result};
use slotwise_cli::workload::rolling_update;
use std::process::Command;
use std::time::Duration;

/// The size Python is measured at.
pub const SIZE: usize = 10_000;

/// The other figures at `SIZE`, printed beside Python's.
pub struct Beside<'a> {
    /// Rust through the component's encoded path.
    pub encoded: &'a Timing,
    /// Rust natively.
    pub native: &'a Timing,
    /// Node's encoded path, when measured.
    pub node: Option<&'a Timing>,
}

/// Python's rounds are slower; fewer of them keep the bench short.
const ROUNDS: usize = 10;

#[derive(serde::Deserialize)]
struct Report {
    encoded: Vec<u64>,
    encode: Vec<u64>,
    call: Vec<u64>,
    decode: Vec<u64>,
    /// The encoded input's and outcome's sizes.
    bytes: [usize; 2],
}

/// Prints Python's time at `SIZE` allocations beside the table's Node and
/// Rust figures (`beside`, when the table has that size), with the
/// interpreter `SLOTWISE_PYTHON` names (a venv with the package installed,
/// which `cargo xtask bench` makes).
pub fn print_beside(beside: Option<Beside>) -> Result<()> {
    let Some(python) = std::env::var_os("SLOTWISE_PYTHON") else {
        println!("\nPython: not measured (SLOTWISE_PYTHON names no interpreter; `cargo xtask bench` sets it)");
        return Ok(());
    };
    let input = rolling_update(SIZE);
    let file =
        std::env::temp_dir().join(format!("slotwise-bench-python-{}.json", std::process::id()));
    std::fs::write(&file, serde_json::to_vec(&input)?)?;
    let output = Command::new(&python)
        .arg("packages/python/bench.py")
        .arg(&file)
        .arg(ROUNDS.to_string())
        .output();
    let _ = std::fs::remove_file(&file);
    let output = output.context("running Python")?;
    if !output.status.success() {
        bail!(
            "packages/python/bench.py failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let report: Report = serde_json::from_slice(&output.stdout)
        .context("reading packages/python/bench.py's report")?;
    let timing = |ns: Vec<u64>| Timing::of(ns.into_iter().map(Duration::from_nanos).collect());
    let encoded = timing(report.encoded);
    let node = beside
        .as_ref()
        .and_then(|b| b.node)
        .map_or("-".into(), Timing::show);
    println!(
        "\nPython (wasmtime-py, encoded) at {SIZE} allocations: {} over {ROUNDS} rounds; \
         Node (encoded) {node}; Rust: wasmtime (encoded) {}, native {}",
        encoded.show(),
        beside.as_ref().map_or("-".into(), |b| b.encoded.show()),
        beside.as_ref().map_or("-".into(), |b| b.native.show()),
    );
    println!(
        "  of which: encode {}, the component's call with its {} KiB in and {} KiB out {}, decode {}",
        timing(report.encode).show(),
        report.bytes[0] / 1024,
        report.bytes[1] / 1024,
        timing(report.call).show(),
        timing(report.decode).show(),
    );
    Ok(())
}
