//! A plugin that asks for its slot batches packed decides exactly as one that reads them typed: every scenario with scripted plugins plans the same both ways.

use slotwise_scenario::{parse, Syntax};
use std::path::{Path, PathBuf};

/// Every scenario file under `dir`, depth first, in name order.
fn scenario_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            scenario_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            found.push(path);
        }
    }
}

/// The plan of the scenario in `text`, its scripts asking packed or typed.
fn plan(text: &str, packed: bool) -> Option<String> {
    let scenario = parse(text, Syntax::Yaml).ok()?;
    let relay = scenario.policy?;
    let mut relay = if packed { relay.packed() } else { relay };
    let consulted = relay.consulted();
    let plan = slotwise_reconciler::reconcile_with(scenario.input, consulted, &mut relay);
    Some(format!("{plan:?}"))
}

#[test]
fn every_scripted_scenario_plans_the_same_with_packed_and_typed_batches() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests");
    let mut files = Vec::new();
    scenario_files(&root, &mut files);
    let mut compared = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Some(typed) = plan(&text, false) else {
            continue;
        };
        let packed = plan(&text, true).expect("the scenario read once reads twice");
        assert_eq!(packed, typed, "{}", file.display());
        compared += 1;
    }
    // The policy scenarios are many; a walk that finds few went wrong.
    assert!(compared >= 40, "only {compared} scripted scenarios found");
}
