//! The `bench` command: reconcile times natively and through the component, on generated rolling updates, and what plugin hooks add.

mod hooks;
mod neutral;
mod timing;
mod workload;

use anyhow::{Context, Result};
use slotwise_host::component::precompile;
use slotwise_host::transcode::transcode;
use slotwise_host::{wit, ComponentReconciler};
use slotwise_reconciler as core;
use std::path::Path;
use std::time::Instant;
use timing::{human, time};
use workload::rolling_update;

/// Prints the figures for each size, the cost of a small reconcile, then
/// what plugins found in `shipped` add per hook call.
pub fn run(component_path: &Path, shipped: &Path, sizes: &[usize], rounds: usize) -> Result<()> {
    let reconciler = ComponentReconciler::load(component_path)?;
    println!("rolling update: 60% old version, 30% new, 5% failed, 2% on a down node, 1% draining");
    println!("times: median of {rounds} reconciles (best in parentheses)\n");
    println!(
        "{:>8}  {:>22}  {:>22}  {:>7}  {:>8}",
        "allocs", "native", "component", "ratio", "changes"
    );
    for &n in sizes {
        let input = rolling_update(n);
        let crossing: wit::ReconcileInput = transcode(&input)?;
        let native = time(rounds, || {
            let _ = core::reconcile(&input);
        });
        let through = time(rounds, || {
            let _ = reconciler.reconcile(&crossing);
        });
        let plan =
            core::reconcile(&input).map_err(|e| anyhow::anyhow!("{}: {}", e.field, e.message))?;
        let changes: usize = plan
            .groups
            .iter()
            .map(|g| g.placements.len() + g.stops.len() + g.destructive_updates.len())
            .sum();
        println!(
            "{n:>8}  {:>22}  {:>22}  {:>6.2}x  {changes:>8}",
            native.show(),
            through.show(),
            through.median.as_secs_f64() / native.median.as_secs_f64()
        );
    }
    small(component_path, rounds.max(200))?;
    hooks::run(&reconciler, shipped, rounds)
}

/// Loading a precompiled component, then instantiation plus a count-10
/// reconcile, which is what a host pays per question.
fn small(component_path: &Path, rounds: usize) -> Result<()> {
    let cwasm = std::env::temp_dir().join(format!("slotwise-bench-{}.cwasm", std::process::id()));
    precompile(component_path, &cwasm)?;
    let started = Instant::now();
    let reconciler =
        ComponentReconciler::load(&cwasm).context("loading the precompiled component")?;
    let load = started.elapsed();
    let _ = std::fs::remove_file(&cwasm);
    let input: wit::ReconcileInput = transcode(&rolling_update(10))?;
    let instantiation = time(rounds, || {
        let _ = reconciler.instantiate_only();
    });
    let small = time(rounds, || {
        let _ = reconciler.reconcile(&input);
    });
    println!("\nload of the precompiled component: {}", human(load));
    println!(
        "instantiation alone: {} ({rounds} rounds)",
        instantiation.show()
    );
    println!("instantiation + count-10 reconcile: {}", small.show());
    Ok(())
}
