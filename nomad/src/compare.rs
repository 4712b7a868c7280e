//! slotwise's counters beside Nomad's own dry run (`DesiredTGUpdates` of the job plan endpoint), group by group.

use crate::api;
use crate::endpoint::{Endpoint, Request};
use crate::snapshot::JobSnapshot;
use crate::source::{fetch_json, FetchError, Source};
use slotwise_reconciler as core;

/// One counter of one group on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counter {
    /// Nomad's name of the counter, like `InPlaceUpdate`.
    pub name: &'static str,
    /// slotwise's count.
    pub slotwise: u64,
    /// Nomad's count.
    pub nomad: u64,
}

impl Counter {
    /// Whether the two sides disagree.
    pub fn differs(&self) -> bool {
        self.slotwise != self.nomad
    }
}

/// The counters of one group.
#[derive(Debug, Clone)]
pub struct GroupComparison {
    /// The group.
    pub group: String,
    /// Each counter both sides have, in Nomad's order.
    pub counters: Vec<Counter>,
    /// Placements Nomad would preempt for, which slotwise does not model.
    pub nomad_preemptions: u64,
}

impl GroupComparison {
    /// Whether any counter differs.
    pub fn differs(&self) -> bool {
        self.counters.iter().any(Counter::differs)
    }
}

/// Asks Nomad for its dry run of the job as registered.
///
/// # Errors
/// When the call fails or its answer is not a plan response.
pub fn nomad_plan(
    source: &dyn Source,
    snapshot: &JobSnapshot,
) -> Result<api::JobPlanResponse, FetchError> {
    let mut request = Request::new(Endpoint::Plan(snapshot.job.id.clone()), &snapshot.namespace);
    let body = serde_json::json!({
        "Job": snapshot.job_json,
        "Diff": false,
        "PolicyOverride": false,
    });
    request.body = Some(body.to_string().into_bytes());
    fetch_json(source, &request)
}

/// Pairs the counters of slotwise's `plan` with Nomad's `answer`: the
/// plan's groups in its order, then groups only Nomad counted.
pub fn compare(plan: &core::Plan, answer: &api::JobPlanResponse) -> Vec<GroupComparison> {
    let nomad = answer
        .annotations
        .as_ref()
        .map(|a| a.desired_tg_updates.clone())
        .unwrap_or_default();
    let mut out: Vec<GroupComparison> = plan
        .groups
        .iter()
        .map(|g| pair(&g.group, Some(&g.counters), nomad.get(&g.group)))
        .collect();
    for (group, counters) in &nomad {
        if !plan.groups.iter().any(|g| g.group == *group) {
            out.push(pair(group, None, Some(counters)));
        }
    }
    out
}

/// Nomad's names of the counters, in its order.
pub const NAMES: [&str; 11] = [
    "Ignore",
    "Place",
    "Migrate",
    "Stop",
    "InPlaceUpdate",
    "DestructiveUpdate",
    "Canary",
    "RescheduleNow",
    "RescheduleLater",
    "Disconnect",
    "Reconnect",
];

/// slotwise's counters in the order of [`NAMES`].
pub fn counters(c: &core::DesiredUpdates) -> [u32; 11] {
    [
        c.ignore,
        c.place,
        c.migrate,
        c.stop,
        c.in_place,
        c.destructive,
        c.canary,
        c.reschedule_now,
        c.reschedule_later,
        c.disconnect,
        c.reconnect,
    ]
}

fn pair(
    group: &str,
    ours: Option<&core::DesiredUpdates>,
    theirs: Option<&api::DesiredUpdates>,
) -> GroupComparison {
    let b = theirs.cloned().unwrap_or_default();
    let nomad = [
        b.ignore,
        b.place,
        b.migrate,
        b.stop,
        b.in_place_update,
        b.destructive_update,
        b.canary,
        b.reschedule_now,
        b.reschedule_later,
        b.disconnect,
        b.reconnect,
    ];
    // A group slotwise did not plan counts nothing on its side.
    let slotwise = ours.map_or([0; 11], counters);
    GroupComparison {
        group: group.to_string(),
        counters: NAMES
            .into_iter()
            .zip(slotwise.into_iter().zip(nomad))
            .map(|(name, (slotwise, nomad))| Counter {
                name,
                slotwise: u64::from(slotwise),
                nomad,
            })
            .collect(),
        nomad_preemptions: b.preemptions,
    }
}
