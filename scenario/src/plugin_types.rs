//! The plugin package's types, as the reconciler renders them, under the name the Rust SDK's reader of packed batches (compiled here too) reads them by.

pub use slotwise_reconciler::plugin::*;
