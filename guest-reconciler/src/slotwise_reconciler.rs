//! The slotwise reconciler: given a job, its allocations and their nodes, decides what must change.
//!
//! Each task group is a set of slots, one per name index. Existing
//! allocations are candidates of their slot; every candidate is classified by
//! one ordered rule table; then an ordered pipeline of named steps decides,
//! slot by slot, what to place, stop, update, migrate or reschedule. The
//! semantics are those of HashiCorp Nomad's cluster reconciler; see
//! `docs/nomad-differences.md` for the few deliberate deviations.
//!
//! The same crate is a plain Rust library and, built for
//! `wasm32-unknown-unknown`, a WebAssembly component with no imports.
//!
//! ---
#![doc = include_str!("../README.md")]

mod allocation;
mod allocation_list;
mod allocation_record;
mod allocation_ref;
mod answers;
mod candidate;
mod cases;
#[cfg(any(target_arch = "wasm32", test))]
mod chunk_rest;
mod classification;
mod component;
mod composition;
mod deciding;
mod deployment;
mod explain;
mod followup;
mod group;
mod ids;
#[cfg(any(target_arch = "wasm32", test))]
mod input_arena;
mod job;
mod memcmp;
mod named_groups;
mod names;
mod occupancy;
pub mod phrasing;
mod pipeline;
mod policy;
mod post_slot;
mod pre_slot;
mod promotion;
mod reconcile;
mod reconnect_strategy;
mod relay;
mod reschedule;
mod retire;
mod review;
mod rule_table;
mod ruling;
mod run;
mod sentence;
mod session;
mod slot;
mod slot_hooks;
#[cfg(any(target_arch = "wasm32", test))]
mod small_blocks;
mod system;
#[cfg(test)]
mod unit_cases;
mod validation;
mod views;
pub mod wire;
mod wit;

/// Each instance serves one reconcile: see `small_blocks.rs`.
#[cfg(all(target_arch = "wasm32", not(test)))]
#[global_allocator]
static ALLOCATOR: small_blocks::Allocator = small_blocks::Allocator::new();

pub use reconcile::reconcile;
pub use relay::{reconcile_with, Refusal, Relay};
pub use session::{Session, MAX_KEPT_LOG_LINES, MAX_LOG_LINE, MAX_LOG_LINES};
pub use validation::{MAX_COUNT, MAX_NAME_INDEX};
pub use wit::exports::slotwise::reconciler::session::{
    Consulted, Failure, FailureKind, LogLine, Mode, Progress, Question, Reply, SessionError, Usage,
};
pub use wit::exports::slotwise::reconciler::types::*;

/// What plugins see and answer: the types of the `slotwise:plugin` package.
pub mod plugin {
    pub use crate::answers::neutral as neutral_answers;
    pub use crate::views::{READS_EVERY_PART, READS_NOTHING};
    pub use crate::wit::exports::slotwise::plugin::types::*;
}
