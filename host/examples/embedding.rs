//! Embedding slotwise in Rust: a scenario's plan, natively and through the sandboxed component (run from the repository's root after `cargo xtask build`).
use slotwise_host::ComponentReconciler;
use slotwise_scenario::{parse, Syntax};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string("docs/examples/node-down.yaml")?;
    let input = parse(&text, Syntax::Yaml)?.input;

    // Natively: slotwise-reconciler alone.
    let plan = slotwise_reconciler::reconcile(&input)?;
    // Sandboxed: the component in wasmtime, an instance per reconcile.
    let reconciler = ComponentReconciler::load(Path::new("target/slotwise/reconciler.wasm"))?;
    assert_eq!(reconciler.reconcile_core(&input)??, plan);

    for group in &plan.groups {
        for stop in &group.stops {
            println!(
                "{}: stop {} ({})",
                group.group, stop.allocation, stop.message
            );
        }
        for placement in &group.placements {
            println!(
                "{}: place slot {} ({})",
                group.group, placement.name_index, placement.message
            );
        }
    }
    Ok(())
}
