//! The contract types as the host sees them, generated from `wit/` by wasmtime: the reconciler's, and the plugins' that it shares.

wasmtime::component::bindgen!({
    world: "reconciler",
    path: "wit/reconciler",
    additional_derives: [serde::Serialize, serde::Deserialize],
    // The batches the session asks about and the answers it takes are the
    // very types plugins are called with: a host hands them on as they are.
    with: { "slotwise:plugin/types@0.2.0": crate::plugin_wit::types },
});

pub use exports::slotwise::reconciler::session::{
    Consulted, Failure, FailureKind, LogLine, Mode, Progress, ProgressEncoded, Question, Reply,
    SessionError, Usage,
};
pub use exports::slotwise::reconciler::types::*;
