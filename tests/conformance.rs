//! Every scenario file runs natively and through the reconciler component: both plans must be identical and meet the scenario's expectation.
//!
//! The scenarios are `tests/conformance/**` (Nomad's reconciler tests,
//! re-expressed) and the documented examples in `docs/examples/`. The
//! component is the one `cargo xtask build` writes, or `SLOTWISE_COMPONENT`.

use libtest_mimic::{Arguments, Failed, Trial};
use slotwise_host::{conformance, ComponentReconciler};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let component = Arc::new(load_component(&root));
    let dirs = [root.join("tests/conformance"), root.join("docs/examples")];
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
            Trial::test(name, move || check(&path, &component))
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

fn check(path: &Path, component: &Result<ComponentReconciler, String>) -> Result<(), Failed> {
    let component = component.as_ref().map_err(|e| Failed::from(e.as_str()))?;
    let scenario = conformance::load(path).map_err(|e| format!("{e:#}"))?;
    if scenario.expect.is_none() {
        return Err("a conformance scenario must say what it expects".into());
    }
    let outcome = conformance::run(&scenario, Some(component)).map_err(|e| format!("{e:#}"))?;
    if outcome.failures.is_empty() {
        Ok(())
    } else {
        Err(outcome.failures.join("\n").into())
    }
}
