//! Reconciling a scenario on the encoded path while holding as few copies of a large input as possible: the host's structures give way to the buffer as it is written, before the component reads it.

use slotwise_host::{ComponentReconciler, HostError};
use slotwise_reconciler::{wire, InputError, Plan, ReconcileInput};

/// Reconciles `input` through `reconciler`'s encoded path. The allocations
/// are encoded, then dropped from `input` and their memory handed back to
/// the system before the component runs; what is left of `input` (the job,
/// the nodes, the time) is what the plan is rendered with.
///
/// # Errors
/// As [`ComponentReconciler::reconcile_encoded`].
pub fn reconcile(
    reconciler: &ComponentReconciler,
    input: &mut ReconcileInput,
) -> Result<Result<Plan, InputError>, HostError> {
    // The allocations give way to their records as these are written, so
    // that the expanded input and its buffer are never both whole.
    let bytes = wire::encode_input_records_releasing(input);
    drop(std::mem::take(&mut input.allocations));
    release_freed_memory();
    let outcome = reconciler.reconcile_encoded(&bytes)?;
    drop(bytes);
    Ok(wire::decode_outcome(&outcome)?)
}

/// Returns memory the allocator keeps after a large free to the system, so
/// that the component's memory does not come on top of it.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases free memory of glibc's heap; it
    // touches no memory the program still uses.
    unsafe {
        libc::malloc_trim(0);
    }
}
