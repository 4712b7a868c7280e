//! Every scenario file runs natively and through the reconciler component: both outcomes must be identical and meet the scenario's expectation.
//!
//! The scenarios are `tests/conformance/**` (Nomad's reconciler tests,
//! re-expressed), `tests/policy/**` (what the reconciler does with policy
//! rulings), the shipped plugins' scenarios (`tests/plugins/<plugin>/`, and
//! `plugins/*/tests/` for any a plugin keeps beside its code) and the
//! documented examples in `docs/examples/`. The component and the plugins are
//! the ones `cargo xtask build` writes, or `SLOTWISE_COMPONENT` and
//! `SLOTWISE_PLUGIN_DIR`.

use libtest_mimic::{Arguments, Failed, Trial};
use slotwise_cli::conformance::{self, Runner};
use slotwise_host::ComponentReconciler;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let component = Arc::new(load_component(&root));
    let shipped: Arc<Path> = std::env::var_os("SLOTWISE_PLUGIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/slotwise/plugins"))
        .into();
    let mut dirs = vec![
        root.join("tests/conformance"),
        root.join("tests/policy"),
        root.join("tests/hostile"),
        root.join("tests/plugins"),
        root.join("docs/examples"),
    ];
    dirs.extend(plugin_scenario_dirs(&root.join("plugins")));
    let files = match conformance::files(&dirs) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("cannot list the scenarios: {e:#}");
            std::process::exit(2);
        }
    };
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .with_extension("")
                .display()
                .to_string();
            let component = Arc::clone(&component);
            let shipped = Arc::clone(&shipped);
            Trial::test(name, move || check(&path, &component, &shipped))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn load_component(root: &Path) -> Result<ComponentReconciler, String> {
    let path = std::env::var_os("SLOTWISE_COMPONENT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/slotwise/reconciler.wasm"));
    ComponentReconciler::load(&path)
        .map_err(|e| format!("{e} (build it with `cargo xtask build`, or set SLOTWISE_COMPONENT)"))
}

/// The `tests/` directory of every shipped plugin, in name order.
fn plugin_scenario_dirs(plugins: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(plugins)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path().join("tests")))
                .filter(|d| d.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

fn check(
    path: &Path,
    component: &Result<ComponentReconciler, String>,
    shipped: &Path,
) -> Result<(), Failed> {
    let component = component.as_ref().map_err(|e| Failed::from(e.as_str()))?;
    let mut scenario = conformance::load(path).map_err(|e| format!("{e:#}"))?;
    if scenario.expect.is_none() {
        return Err("a conformance scenario must say what it expects".into());
    }
    let runner = Runner {
        component: Some(component),
        shipped,
    };
    let outcome = runner
        .run(&mut scenario, path)
        .map_err(|e| format!("{e:#}"))?;
    if outcome.failures.is_empty() {
        Ok(())
    } else {
        Err(outcome.failures.join("\n").into())
    }
}
