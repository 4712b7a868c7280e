//! The `check` command: runs scenario files and reports, per file, whether the plans meet their expectations.

use anyhow::Result;
use slotwise_cli::conformance::{self, Runner};
use std::path::PathBuf;

/// Runs every scenario under `paths`; returns whether all passed.
pub fn run(paths: &[PathBuf], runner: &Runner) -> Result<bool> {
    let files = conformance::files(paths)?;
    let (mut passed, mut failed) = (0, 0);
    for path in &files {
        let shown = path.display();
        let failures = match conformance::load(path) {
            Err(e) => vec![format!("{e:#}")],
            Ok(mut scenario) => {
                let outcome = runner.run(&mut scenario, path)?;
                if scenario.expect.is_none() && outcome.failures.is_empty() {
                    println!("ok    {shown} (no expectation; ran)");
                    passed += 1;
                    continue;
                }
                outcome.failures
            }
        };
        if failures.is_empty() {
            println!("pass  {shown}");
            passed += 1;
        } else {
            println!("FAIL  {shown}");
            for line in failures {
                println!("      {line}");
            }
            failed += 1;
        }
    }
    let mode = if runner.component.is_some() {
        "natively and through the component"
    } else {
        "natively"
    };
    println!(
        "\n{passed} passed, {failed} failed ({} files, {mode})",
        files.len()
    );
    Ok(failed == 0)
}
