//! The `check` command: runs scenario files and reports, per file, whether the plans meet their expectations.

use anyhow::Result;
use slotwise_cli::conformance::{self, Runner};
use std::io::Write;
use std::path::PathBuf;

/// Runs every scenario under `paths`; returns whether all passed. A scenario
/// without `expect` fails: it has nothing to check.
///
/// # Errors
/// When a path cannot be searched, the component fails, or standard output
/// cannot be written.
pub fn run(paths: &[PathBuf], runner: &Runner) -> Result<bool> {
    let files = conformance::files(paths)?;
    let mut out = std::io::stdout().lock();
    let (mut passed, mut failed) = (0, 0);
    for path in &files {
        let shown = path.display();
        let failures = match conformance::load(path) {
            Err(e) => vec![format!("{e:#}")],
            Ok(scenario) if scenario.expect.is_none() => {
                vec!["nothing to check: the scenario has no `expect`".to_string()]
            }
            Ok(mut scenario) => runner.run(&mut scenario, path)?.failures,
        };
        if failures.is_empty() {
            writeln!(out, "pass  {shown}")?;
            passed += 1;
        } else {
            writeln!(out, "FAIL  {shown}")?;
            for line in failures {
                writeln!(out, "      {line}")?;
            }
            failed += 1;
        }
    }
    let mode = if runner.component.is_some() {
        "natively and through the component"
    } else {
        "natively"
    };
    writeln!(
        out,
        "\n{passed} passed, {failed} failed ({} files, {mode})",
        files.len()
    )?;
    out.flush()?;
    Ok(failed == 0)
}
