//! Running scenario files: natively and through the component, checking that both plans agree and meet the expectation.

use crate::component::ComponentReconciler;
use anyhow::{Context, Result};
use slotwise_reconciler as core;
use slotwise_scenario::{Scenario, Syntax};
use std::path::{Path, PathBuf};

/// Reads and prepares the scenario at `path`.
///
/// # Errors
/// When the file cannot be read or is not a valid scenario; the message names
/// the file and the field.
pub fn load(path: &Path) -> Result<Scenario> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    slotwise_scenario::parse(&text, Syntax::of(path)).with_context(|| path.display().to_string())
}

/// The scenario files under `paths`: files as given, directories searched
/// for `.yaml`, `.yml` and `.json` files, in name order. Unit-level cases
/// (`*.unit.yaml`) are left to the unit harnesses that read them.
///
/// # Errors
/// When a path does not exist or a directory cannot be read.
pub fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            collect(path, &mut found)?;
        } else if path.exists() {
            found.push(path.clone());
        } else {
            anyhow::bail!("{}: no such file or directory", path.display());
        }
    }
    Ok(found)
}

fn collect(dir: &Path, found: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, found)?;
        } else if is_scenario(&path) {
            found.push(path);
        }
    }
    Ok(())
}

fn is_scenario(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let scenario = name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json");
    scenario && !name.ends_with(".unit.yaml")
}

/// How running a scenario went.
pub struct Outcome {
    /// The native outcome.
    pub native: std::result::Result<core::Plan, core::InputError>,
    /// What is wrong, one line each; empty when all is well.
    pub failures: Vec<String>,
}

/// Runs `scenario` natively and, when given, through `component`; the plans
/// must be identical and meet the scenario's expectation.
///
/// # Errors
/// When the component itself fails (traps, cannot be called).
pub fn run(scenario: &Scenario, component: Option<&ComponentReconciler>) -> Result<Outcome> {
    let native = core::reconcile(&scenario.input);
    let mut failures = Vec::new();
    if let Some(component) = component {
        let through = component.reconcile_core(&scenario.input)?;
        if through != native {
            failures.push(format!(
                "the component's plan differs from the native one: {}",
                first_difference(&native, &through)
            ));
        }
    }
    if let Some(expect) = &scenario.expect {
        failures.extend(expect.check(&native));
    }
    Ok(Outcome { native, failures })
}

/// Where two outcomes first differ, as a JSON path.
fn first_difference<T: serde::Serialize>(a: &T, b: &T) -> String {
    fn walk(a: &serde_json::Value, b: &serde_json::Value, path: &mut String) -> Option<String> {
        use serde_json::Value;
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => x.iter().find_map(|(k, v)| {
                let len = path.len();
                path.push_str(&format!(".{k}"));
                let found = walk(v, y.get(k).unwrap_or(&Value::Null), path);
                path.truncate(len);
                found
            }),
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                x.iter().zip(y).enumerate().find_map(|(i, (v, w))| {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    let found = walk(v, w, path);
                    path.truncate(len);
                    found
                })
            }
            _ if a == b => None,
            _ => Some(format!("{path}: {a} vs {b}")),
        }
    }
    let (a, b) = (serde_json::to_value(a), serde_json::to_value(b));
    match (a, b) {
        (Ok(a), Ok(b)) => {
            walk(&a, &b, &mut String::from("plan")).unwrap_or_else(|| "unknown".into())
        }
        _ => "plans cannot be compared".into(),
    }
}
