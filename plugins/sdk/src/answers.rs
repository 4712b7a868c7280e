//! Short ways to write a plugin's answers, one per slot, in the batch's order.

use crate::{
    Deferral, PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision, SlotBatch,
    Timestamp,
};

/// One pre-slot answer per slot of `batch`, each `decide` gives for the
/// slot's position; no slot data.
pub fn each_pre_slot(
    batch: &SlotBatch,
    mut decide: impl FnMut(usize) -> PreSlotDecision,
) -> Vec<PreSlotAnswer> {
    (0..batch.slots.len())
        .map(|at| PreSlotAnswer {
            slot: at as u32,
            decision: decide(at),
            ext: None,
        })
        .collect()
}

/// One post-slot answer per slot of `batch`, each `decide` gives for the
/// slot's position; no slot data.
pub fn each_post_slot(
    batch: &SlotBatch,
    mut decide: impl FnMut(usize) -> PostSlotDecision,
) -> Vec<PostSlotAnswer> {
    (0..batch.slots.len())
        .map(|at| PostSlotAnswer {
            slot: at as u32,
            decision: decide(at),
            ext: None,
        })
        .collect()
}

/// Apply none of the proposed changes now; look again at `until`, which
/// must be after the reconcile's `now`.
pub fn defer(until: Timestamp, reason: impl Into<String>) -> PostSlotDecision {
    PostSlotDecision::Defer(Deferral {
        until,
        reason: reason.into(),
    })
}

/// Nanoseconds in a second, for arithmetic on timestamps.
pub const SECOND: i64 = 1_000_000_000;

/// Nanoseconds in a minute.
pub const MINUTE: i64 = 60 * SECOND;
