//! The slotwise host library: runs the reconciler component with wasmtime, and relays its sessions' questions to policy plugins in their sandboxes.
//!
//! [`ComponentReconciler`] loads the component once (from `.wasm`, caching
//! its compiled form, or from a precompiled `.cwasm`) and runs each
//! reconcile in an instance of its own: one kept warm from a reconcile that
//! succeeded, or a fresh one. A trap never affects the next reconcile.
//! [`plugins::PluginSet`] loads plugins and is a [`Relay`]: it
//! calls the plugin a question names, and decides nothing.
//!
//! ---
#![doc = include_str!("../README.md")]

pub mod component;
pub mod plugin_wit;
pub mod plugins;
pub mod relay;
pub mod transcode;
mod warm;
pub mod wit;

pub use component::{ComponentReconciler, HostError};
pub use relay::Relay;
