//! Where the encoded path's time goes at one size: the host's encoding, the guest's decoding, the reconcile as wasm and as native code, and the host's reading of the plan, taken in turn round by round.
//!
//! The guest's decoding is timed as the call on the same input refused at
//! validation's first check (its job id changed), which the guest reaches
//! only once it has decoded the whole buffer: that call is the crossing,
//! the decoding and the dropping of the decoded input, and nothing of the
//! reconcile.

use super::timing::{interleaved, Timing};
use anyhow::{ensure, Result};
use slotwise_cli::workload::rolling_update;
use slotwise_host::ComponentReconciler;
use slotwise_reconciler as core;

/// The size the split is measured at: the first ratio aim's.
pub const SIZE: usize = 10_000;

/// Prints, per allocation, what each part of an encoded reconcile at
/// `SIZE` costs beside the native reconcile, and what the same work costs
/// as wasm and as native code.
pub fn run(reconciler: &ComponentReconciler, rounds: usize) -> Result<()> {
    let input = rolling_update(SIZE);
    let mut refused = input.clone();
    refused.job_id.push_str("-elsewhere");
    let encoded = core::wire::encode_input_records(&input);
    let encoded_refused = core::wire::encode_input_records(&refused);
    let outcome = reconciler.reconcile_encoded(&encoded)?;
    ensure!(
        matches!(reconciler.reconcile_core(&refused)?, Err(e) if e.field == "job.id"),
        "the changed job id was not the first thing refused"
    );
    let [native, guest_native, encode, call, call_refused, decode] = interleaved(
        rounds,
        [
            &mut || drop(core::reconcile(&input)),
            &mut || drop(core::wire::reconcile_encoded(encoded.clone())),
            &mut || drop(core::wire::encode_input_records(&input)),
            &mut || drop(reconciler.reconcile_encoded(&encoded)),
            &mut || drop(reconciler.reconcile_encoded(&encoded_refused)),
            &mut || drop(core::wire::decode_outcome(&outcome)),
        ],
    );
    let per = |t: &Timing| t.per(SIZE);
    let whole = per(&encode) + per(&call) + per(&decode);
    let reconcile_in_guest = per(&call) - per(&call_refused);
    println!(
        "\nwhere an encoded reconcile's time goes at {}k ({} B in, {} B out), ns per allocation, medians taken in turn",
        SIZE / 1000,
        encoded.len(),
        outcome.len()
    );
    let rows = [
        ("native reconcile", per(&native)),
        ("encoded, all told", whole),
        ("  host: encoding the input", per(&encode)),
        (
            "  guest: crossing in, decoding, dropping the input",
            per(&call_refused),
        ),
        (
            "  guest: the reconcile, writing the plan, crossing out",
            reconcile_in_guest,
        ),
        ("  host: reading the plan", per(&decode)),
        (
            "the guest's whole call, run natively (decode, reconcile, write)",
            per(&guest_native),
        ),
        ("the guest's whole call, as wasm", per(&call)),
    ];
    for (what, ns) in rows {
        println!("  {what:<66} {ns:>6.0}");
    }
    println!(
        "  the guest's call as wasm over native code: {:.2}x; encoded over native reconcile: {:.2}x; \
         around the reconcile (the input's crossing and both its forms, the plan's reading): {:.0} ns",
        per(&call) / per(&guest_native),
        whole / per(&native),
        per(&encode) + per(&call_refused) + per(&decode)
    );
    // What no work on the guest's side of the input can go below: the
    // encoded path with the input's crossing, decoding and dropping free.
    let without_input = whole - per(&call_refused);
    println!(
        "  were the input's crossing, decoding and dropping free in the guest: {without_input:.0} ns, {:.2}x native",
        without_input / per(&native)
    );
    Ok(())
}
