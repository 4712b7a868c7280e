//! The contract types as the host sees them, generated from `wit/reconciler` by wasmtime.

wasmtime::component::bindgen!({
    world: "reconciler",
    path: "../wit/reconciler",
    additional_derives: [serde::Serialize, serde::Deserialize],
});

pub use exports::slotwise::reconciler::types::*;
