//! An allocation as a scenario writes it: where it runs, how it is doing, what it came from.

use super::job::FingerprintFile;
use crate::error::ScenarioError;
use crate::limits::MAX_ALLOCATIONS;
use crate::time::{Duration, Time};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use slotwise_reconciler::{ClientStatus, DesiredStatus, TaskLifecycle, UpdateKind};
use std::collections::BTreeMap;
use std::ops::RangeInclusive;

/// Slot indexes: one (`3`) or an inclusive range (`"0-4"`).
#[derive(JsonSchema, Clone)]
#[serde(untagged)]
pub enum Indexes {
    One(u32),
    Range(String),
}

/// One allocation, or one per index of a range. Unset fields follow Nomad's
/// `mock.Alloc()`: desired `run`, client `pending`, on a ready node of its
/// own, of the job's current version and definition.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "an allocation: a map with `index` and optional fields such as `client` and `node`"
)]
pub struct AllocFile {
    /// The slot, or a range of slots for several alike allocations.
    pub index: Indexes,
    /// Default `<group>-<index>` (in a system or sysbatch job with a node,
    /// `<group>-<node>`, and `-<index>` after it when the index is not 0),
    /// suffixed `-2`, `-3`, ... for a slot's further allocations. Only for a
    /// single index.
    pub id: Option<String>,
    /// A node of `nodes`, by id.
    pub node: Option<String>,
    /// Default: the job's version.
    pub version: Option<u64>,
    /// Default: the job's create index.
    pub job_create_index: Option<u64>,
    /// Default: 100 plus the allocation's position in the file.
    pub create_index: Option<u64>,
    pub deployment: Option<String>,
    pub previous: Option<String>,
    pub next: Option<String>,
    /// Default: the fingerprint of the group as the job defines it now.
    pub fingerprint: Option<FingerprintFile>,
    /// The part of the allocation's definition that differs from the
    /// group's: its fingerprint is the group's with that part changed.
    pub outdated: Option<Outdated>,
    /// Forces the update decision.
    pub update: Option<UpdateKind>,
    pub score: Option<f64>,
    /// Default `run`.
    pub desired: Option<DesiredStatus>,
    /// Default `pending`.
    pub client: Option<ClientStatus>,
    /// Requested transitions, by name.
    #[serde(default)]
    pub transition: Vec<Transition>,
    pub healthy: Option<bool>,
    #[serde(default)]
    pub canary: bool,
    pub health_changed: Option<Time>,
    /// Past reschedules; giving any (even none) gives the allocation a tracker.
    pub reschedule_events: Option<Vec<RescheduleEventFile>>,
    /// The last attempt to place a replacement failed (gives a tracker).
    #[serde(default)]
    pub reschedule_failed: bool,
    pub followup_eval: Option<String>,
    pub client_states: Option<Vec<ClientStateFile>>,
    pub tasks: Option<Vec<TaskStateFile>>,
    /// Shorthand for one task `web` that finished then (failed when the
    /// client status is `failed`).
    pub finished: Option<Time>,
    /// Default: the Unix epoch.
    pub modify_time: Option<Time>,
    pub meta: Option<BTreeMap<String, String>>,
}

/// A part of a group definition.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "kebab-case", expecting = "`destructive` or `in-place`")]
pub enum Outdated {
    Destructive,
    InPlace,
}

/// A requested transition.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(
    rename_all = "kebab-case",
    expecting = "a transition: `migrate`, `reschedule`, `force-reschedule` or `migrate-disable-placement`"
)]
pub enum Transition {
    Migrate,
    Reschedule,
    ForceReschedule,
    MigrateDisablePlacement,
}

/// A past reschedule.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a past reschedule: a map with `at` and `delay`"
)]
pub struct RescheduleEventFile {
    pub at: Time,
    pub delay: Duration,
}

/// A recorded client status change.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a client status change: a map with `status` and `at`"
)]
pub struct ClientStateFile {
    /// A client status, or `""` for an entry Nomad recorded with an empty
    /// value.
    #[serde(deserialize_with = "status_or_empty")]
    #[schemars(schema_with = "status_or_empty_schema")]
    pub status: Option<ClientStatus>,
    /// Default: the Unix epoch.
    pub at: Option<Time>,
}

/// An empty string is the empty value Nomad can record; anything else must
/// be a client status.
fn status_or_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ClientStatus>, D::Error> {
    let text = String::deserialize(d)?;
    if text.is_empty() {
        return Ok(None);
    }
    ClientStatus::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(&text)).map(Some)
}

fn status_or_empty_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let status = generator.subschema_for::<ClientStatus>();
    schemars::json_schema!({"anyOf": [status, {"const": ""}]})
}

/// A task's state.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a task state: a map with `name` and optional fields such as `state` and `finished`"
)]
pub struct TaskStateFile {
    pub name: String,
    /// Default `running`.
    pub state: Option<TaskLifecycle>,
    #[serde(default)]
    pub failed: bool,
    pub started: Option<Time>,
    pub finished: Option<Time>,
    #[serde(default)]
    pub restarts: u32,
    pub last_restart: Option<Time>,
}

/// The slots an entry names, as a range, without listing them.
pub(crate) fn span(indexes: &Indexes, path: &str) -> Result<RangeInclusive<u32>, ScenarioError> {
    let text = match indexes {
        Indexes::One(i) => return Ok(*i..=*i),
        Indexes::Range(text) => text,
    };
    let bad = || {
        ScenarioError::invalid(
            path,
            format!("`{text}` is not an index or a range like 0-4"),
        )
    };
    let (from, to) = match text.split_once('-') {
        Some((from, to)) => (from.trim(), to.trim()),
        None => (text.trim(), text.trim()),
    };
    let from: u32 = from.parse().map_err(|_| bad())?;
    let to: u32 = to.parse().map_err(|_| bad())?;
    if from > to {
        return Err(ScenarioError::invalid(
            path,
            format!("`{text}` runs backwards"),
        ));
    }
    let size = u64::from(to - from) + 1;
    if size > MAX_ALLOCATIONS {
        return Err(ScenarioError::invalid(
            path,
            format!("`{text}` names {size} slots; the limit is {MAX_ALLOCATIONS}"),
        ));
    }
    Ok(from..=to)
}
