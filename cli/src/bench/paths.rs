//! One input reconciled natively and through the component's encoded path, taking turns, with the size of its plan.

use super::timing::{interleaved, Timing};
use anyhow::Result;
use slotwise_host::ComponentReconciler;
use slotwise_reconciler as core;

/// `input` reconciled natively and through the component's encoded path,
/// interleaved, and how many placements, stops and replacements its plan
/// makes.
pub fn measure(
    reconciler: &ComponentReconciler,
    input: &core::ReconcileInput,
    rounds: usize,
) -> Result<(Timing, Timing, usize)> {
    let [native, through] = interleaved(
        rounds,
        [&mut || drop(core::reconcile(input)), &mut || {
            drop(reconciler.reconcile_core(input))
        }],
    );
    let plan = core::reconcile(input).map_err(|e| anyhow::anyhow!("{}: {}", e.field, e.message))?;
    let changes = plan
        .groups
        .iter()
        .map(|g| g.placements.len() + g.stops.len() + g.destructive_updates.len())
        .sum();
    Ok((native, through, changes))
}
