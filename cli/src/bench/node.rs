//! The Node measurement: the same workload through jco's bindings, typed and encoded, timed by `tests/node/bench.mjs`.

use super::timing::Timing;
use anyhow::{bail, Context, Result};
use slotwise_reconciler::ReconcileInput;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Node's figures for one size.
pub struct Figures {
    pub typed: Timing,
    pub encoded: Timing,
}

#[derive(serde::Deserialize)]
struct Report {
    typed: Vec<u64>,
    encoded: Vec<u64>,
}

/// Times `input` in Node, or `None` when the script or Node is missing
/// (`cargo xtask bench` installs what it needs).
pub fn measure(input: &ReconcileInput, rounds: usize) -> Result<Option<Figures>> {
    let script = Path::new("tests/node/bench.mjs");
    if !script.exists() || !Path::new("tests/node/node_modules").exists() {
        return Ok(None);
    }
    let file =
        std::env::temp_dir().join(format!("slotwise-bench-input-{}.json", std::process::id()));
    std::fs::write(&file, serde_json::to_vec(input)?)?;
    let output = Command::new("node")
        .arg(script)
        .arg(&file)
        .arg(rounds.to_string())
        .output();
    let _ = std::fs::remove_file(&file);
    let output = match output {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).context("running node"),
    };
    if !output.status.success() {
        bail!(
            "tests/node/bench.mjs failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let report: Report =
        serde_json::from_slice(&output.stdout).context("reading tests/node/bench.mjs's report")?;
    let timing = |ns: Vec<u64>| Timing::of(ns.into_iter().map(Duration::from_nanos).collect());
    Ok(Some(Figures {
        typed: timing(report.typed),
        encoded: timing(report.encoded),
    }))
}
