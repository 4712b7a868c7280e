//! Reconciling a scenario on the encoded path while holding as few copies of a large input as possible: the host's structures give way to the buffer before the component decodes its own.

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
    let bytes = wire::encode_input_records(input);
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
