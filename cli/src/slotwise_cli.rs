//! The `slotwise` command's library: scenario files run through the host, plans rendered for people, and the checks that compare them with expectations.
//!
//! It sits on top of `slotwise-host` (the wasmtime embedding and plugin
//! sandbox) and `slotwise-scenario` (the file format); nothing below it
//! imports from it.

pub mod conformance;
pub mod playground;
pub mod source;
pub mod workload;
