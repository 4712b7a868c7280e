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
mod answers;
mod candidate;
mod classification;
mod component;
mod composition;
mod deployment;
mod explain;
mod followup;
mod group;
mod hooks;
mod ids;
mod names;
mod occupancy;
pub mod phrasing;
mod pipeline;
mod policy;
mod promotion;
mod reconcile;
mod reconnect_strategy;
mod reschedule;
mod retire;
mod session;
mod slot;
mod system;
#[cfg(test)]
mod unit_cases;
mod validation;
mod views;
pub mod wire;
mod wit;

pub use hooks::{Hooks, NoHooks};
pub use reconcile::{reconcile, reconcile_step, StepError};
pub use session::Session;
pub use validation::{MAX_COUNT, MAX_NAME_INDEX};
pub use wit::exports::slotwise::reconciler::session::{
    Consulted, PostSlotReply, PreSlotReply, Progress, PromotionReply, Question, Replies,
    SessionError,
};
/// Bytes a plugin attached to a slot, as the reconciler keeps them.
pub(crate) struct PluginExt {
    pub(crate) plugin: String,
    pub(crate) data: Vec<u8>,
}
pub use wit::exports::slotwise::reconciler::types::*;

/// What plugins see and answer: the types of the `slotwise:plugin` package.
pub mod plugin {
    pub use crate::wit::exports::slotwise::plugin::types::*;
}
