//! The Python measurement: the `slotwise` package (PyPI's wasmtime, the encoded path) on the 10k-allocation workload, timed by `packages/python/bench.py` and printed beside Node and Rust.

use super::{rolling_update, Options, Row, Timing};
use anyhow::{bail, Context, Result};
use std::process::Command;
use std::time::Duration;

/// The size Python is measured at.
const SIZE: usize = 10_000;

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

/// Prints Python's time at 10k allocations beside the table's Node and
/// Rust figures, with the interpreter `SLOTWISE_PYTHON` names (a venv with
/// the package installed, which `cargo xtask bench` makes); not when the
/// bench is quick.
pub fn print_beside(rows: &[Row], options: &Options) -> Result<()> {
    if options.quick {
        return Ok(());
    }
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
    let row = rows.iter().find(|r| r.n == SIZE);
    let node = row
        .and_then(|r| r.node.as_ref())
        .map_or("-".into(), |f| f.encoded.show());
    println!(
        "\nPython (wasmtime-py, encoded) at {SIZE} allocations: {} over {ROUNDS} rounds; \
         Node (encoded) {node}; Rust: wasmtime (encoded) {}, native {}",
        encoded.show(),
        row.map_or("-".into(), |r| r.encoded.show()),
        row.map_or("-".into(), |r| r.native.show()),
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
