//! The scenario file format: what a file may say, with every default documented.
//!
//! The defaults follow Nomad's test fixtures (`mock.Job()`, `mock.Alloc()`),
//! so that a conformance case reads in a few lines.

mod allocation;
mod deployment;
mod evaluation;
mod expect;
mod ext;
mod job;
mod node;
mod presence;
mod scenario;
mod system;

pub(crate) use allocation::span;
pub use allocation::{AllocFile, Indexes, Outdated, TaskStateFile, Transition};
pub use deployment::DeploymentFile;
pub use expect::{
    CountersExpect, DeploymentExpect, Entries, EntryDetail, EntryExpect, EvalExpect, ExpectFile,
    GroupExpect,
};
pub use job::{
    FingerprintFile, GroupFile, JobFile, JobKind, RescheduleFile, UpdateFile, UpdatePreset,
    UpdateStrategyFile,
};
pub use scenario::ScenarioFile;
pub use system::{NodePick, SystemFile};
