//! Real cluster state in: reads a Nomad cluster's HTTP API, or responses saved from it, and builds the reconciler's input.
//!
//! [`snapshot::JobSnapshot::fetch`] gathers one job's objects from a
//! [`source::Source`] (HTTP through [`http::Http`], or a directory through
//! [`source::Directory`]); [`input::build`] turns them into a
//! `ReconcileInput`, with fingerprints from [`fingerprint`];
//! [`compare::compare`] sets a plan beside Nomad's own dry run. The
//! `stand-in` feature adds a stand-in API server for tests and benchmarks.

pub mod api;
pub mod compare;
pub mod endpoint;
pub mod fingerprint;
pub mod http;
pub mod input;
pub mod saved;
pub mod snapshot;
pub mod source;
#[cfg(feature = "stand-in")]
pub mod stand_in;
