//! The aims of the boundary work (issue 9), and how a figure is printed against its aim: met or missed.

/// Encoded path over native at 10k and 100k allocations.
pub const RATIO: f64 = 1.5;
/// 100k allocations through the component, best of the rounds.
pub const AT_100K_MS: f64 = 40.0;
/// Native time per allocation at 300k over that at 10k.
pub const LINEAR: f64 = 1.3;
/// Peak RSS of `slotwise reconcile --json` on 1M allocations, per allocation.
pub const BYTES_PER_ALLOCATION: f64 = 500.0;
/// Instantiation plus a count-10 reconcile.
pub const SMALL_US: f64 = 15.0;
/// Node (jco) over wasmtime on the encoded path at 10k.
pub const NODE_RATIO: f64 = 2.0;

/// `line`, marked met or missed.
pub fn verdict(met: bool, line: String) -> String {
    format!("{} {line}", if met { "met   " } else { "MISSED" })
}
