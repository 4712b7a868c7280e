//! The native reconcile alone at sizes inside and beyond the cache, beside a bare read of the records: the linearity aim's figures, in context.

use super::timing::time;
use slotwise_cli::workload::rolling_update;
use slotwise_reconciler::{self as core, ReconcileInput};
use std::hint::black_box;

/// Sizes inside the cache (10k: a few MB in all), just beyond it (300k)
/// and far beyond it (1M).
const SIZES: [usize; 3] = [10_000, 300_000, 1_000_000];

/// The native reconcile's time per allocation at 10k and at 300k, each
/// measured in rounds of its own: the linearity aim's figures.
pub struct Growth {
    pub small: f64,
    pub large: f64,
}

/// Prints, per size, the native reconcile and a single in-order read of
/// every allocation's record, both per allocation; then how each grows.
/// Time that grows as much for the bare read as for the reconcile comes
/// from memory, not from the algorithm.
pub fn run(rounds: usize) -> Growth {
    println!(
        "\nlinearity: native alone, per allocation (the aim compares 300k with 10k), in context"
    );
    println!(
        "{:>9}  {:>12}  {:>24}",
        "allocs", "reconcile", "one read of the records"
    );
    let mut rows = Vec::new();
    for n in SIZES {
        let input = rolling_update(n);
        let reconcile = time(rounds, || drop(black_box(core::reconcile(&input)))).per(n);
        let read = time(rounds, || {
            black_box(read_records(&input));
        })
        .per(n);
        println!("{n:>9}  {reconcile:>9.0} ns  {read:>21.1} ns");
        rows.push((reconcile, read));
    }
    let [small, large, huge] = [rows[0], rows[1], rows[2]];
    println!(
        "  300k over 10k: reconcile {:.2}x, read {:.2}x; 1M over 300k, both beyond the cache: reconcile {:.2}x",
        large.0 / small.0,
        large.1 / small.1,
        huge.0 / large.0
    );
    let cold = cold_small(rounds);
    println!(
        "  10k with another input each round ({COLD_INPUTS} in turn, none left in the cache by the round before): \
         reconcile {cold:.0} ns; 300k over that: {:.2}x",
        large.0 / cold
    );
    Growth {
        small: small.0,
        large: large.0,
    }
}

/// How many copies of the 10k input the cold measurement takes in turn:
/// some 5 MB each, together well beyond the 32 MiB cache.
const COLD_INPUTS: usize = 16;

/// The native reconcile's time per allocation at 10k when its input is not
/// in the cache, as when a host plans one job after another: the aim's 10k
/// figure reconciles the same input round after round, which then stays in
/// the cache while 300k's cannot.
fn cold_small(rounds: usize) -> f64 {
    let n = SIZES[0];
    let inputs: Vec<ReconcileInput> = (0..COLD_INPUTS).map(|_| rolling_update(n)).collect();
    let mut next = inputs.iter().cycle();
    time(rounds.max(COLD_INPUTS), || {
        if let Some(input) = next.next() {
            drop(black_box(core::reconcile(input)));
        }
    })
    .per(n)
}

/// Reads, in order, what classifying an allocation reads of its record and
/// of its node, and nothing else.
fn read_records(input: &ReconcileInput) -> u64 {
    let mut sum = 0u64;
    for group in &input.allocations {
        for a in &group.allocations {
            let (spec, observed) = (&a.spec, &a.observed);
            let node = input.nodes.get(spec.node as usize);
            sum = sum
                .wrapping_add(spec.id.len() as u64)
                .wrapping_add(spec.create_index ^ spec.job_version)
                .wrapping_add(u64::from(spec.name_index))
                .wrapping_add(spec.deployment.as_ref().map_or(0, |d| d.len() as u64))
                .wrapping_add(observed.client_status as u64)
                .wrapping_add(observed.modify_time as u64)
                .wrapping_add(observed.tasks.as_ref().map_or(0, |t| t.len() as u64))
                .wrapping_add(node.map_or(0, |n| u64::from(n.draining)));
        }
    }
    sum
}
