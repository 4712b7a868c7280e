//! The contract types as the host sees them, generated from `wit/` by wasmtime: the reconciler's, and the plugins' that it shares.

wasmtime::component::bindgen!({
    world: "reconciler",
    path: "wit/reconciler",
    additional_derives: [serde::Serialize, serde::Deserialize],
    // The plugin types the session asks and answers with are the very types
    // plugins are called with, so a question's items go to plugins as they are.
    with: { "slotwise:plugin/types@0.1.0": crate::plugin_wit::types },
});

pub use exports::slotwise::reconciler::session::{
    Consulted, PostSlotReply, PreSlotReply, Progress, PromotionReply, Question, Replies,
    SessionError,
};
pub use exports::slotwise::reconciler::types::*;
