//! The slotwise host library: runs the reconciler component with wasmtime, and policy plugins in their sandboxes.
//!
//! [`ComponentReconciler`] loads the component once (from `.wasm`, caching
//! its compiled form, or from a precompiled `.cwasm`) and gives every
//! reconcile a fresh instance, so a trap never affects the next one.
//!
//! ---
#![doc = include_str!("../README.md")]

pub mod component;
pub mod crossing;
pub mod plugin_wit;
pub mod plugins;
pub mod policy;
pub mod transcode;
pub mod wit;

pub use component::{ComponentReconciler, HostError};
