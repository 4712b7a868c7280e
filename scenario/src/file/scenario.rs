//! The scenario file's top level: the job, its cluster, its allocations and what is expected.

use super::allocation::AllocFile;
use super::deployment::DeploymentFile;
use super::evaluation::EvalFile;
use super::expect::ExpectFile;
use super::ext::ExtFile;
use super::job::JobFile;
use super::node::NodeFile;
use super::presence::present;
use super::system::SystemFile;
use crate::time::Time;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

/// A scenario: the state of one job at one instant, and optionally the plan
/// expected of it.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a scenario: a map with fields such as `job`, `allocations` and `expect`"
)]
pub struct ScenarioFile {
    /// What the scenario shows.
    pub description: Option<String>,
    /// The Nomad test (and case) the scenario reproduces.
    pub nomad: Option<String>,
    /// The job. Absent: a service job `mock-job` with one group `web` of 10.
    /// Null: the job was purged.
    #[serde(default, deserialize_with = "present")]
    pub job: Option<Option<JobFile>>,
    /// The job's identifier when the job is null; else taken from the job.
    pub job_id: Option<String>,
    /// Nodes that allocations name. An allocation naming none gets a ready
    /// node of its own.
    #[serde(default, deserialize_with = "crate::limits::nodes")]
    pub nodes: Vec<NodeFile>,
    /// The existing allocations, by group.
    #[serde(default)]
    pub allocations: IndexMap<String, Vec<AllocFile>>,
    /// The job's latest deployment.
    pub deployment: Option<DeploymentFile>,
    /// The evaluation. Absent: id `""` and priority 50, as in Nomad's tests.
    pub eval: Option<EvalFile>,
    /// The current time. Absent: 2026-01-01T00:00:00Z.
    pub now: Option<Time>,
    /// Ask for the per-slot explanation, and for the reports of steps that
    /// had nothing to do.
    #[serde(default)]
    pub explain: bool,
    /// Plugin data carried over from the previous plan.
    #[serde(default)]
    pub ext: Vec<ExtFile>,
    /// A scripted policy: fixed rulings at the hook points, to show what the
    /// reconciler does with them. Not together with `plugins`.
    pub policy: Option<crate::policy::PolicyFile>,
    /// Policy plugins to consult, in order, as a plugins file lists them.
    #[serde(default)]
    pub plugins: Vec<crate::plugins::PluginEntry>,
    /// The plan expected; absent when the scenario only runs.
    pub expect: Option<ExpectFile>,
    /// For system and sysbatch jobs: the cluster, compactly (node counts and
    /// states, where the job already runs, which nodes are eligible).
    pub system: Option<SystemFile>,
    /// The reconciler's input in full, as `slotwise input` prints it, instead
    /// of the compact fields (`job`, `job-id`, `nodes`, `allocations`,
    /// `deployment`, `eval`, `now`, `explain`, `ext`).
    pub input: Option<Box<slotwise_reconciler::ReconcileInput>>,
}
