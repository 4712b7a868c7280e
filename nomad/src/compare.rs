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

/// slotwise's counters in Nomad's order, under Nomad's names.
pub fn counters(c: &core::DesiredUpdates) -> [(&'static str, u32); 11] {
    [
        ("Ignore", c.ignore),
        ("Place", c.place),
        ("Migrate", c.migrate),
        ("Stop", c.stop),
        ("InPlaceUpdate", c.in_place),
        ("DestructiveUpdate", c.destructive),
        ("Canary", c.canary),
        ("RescheduleNow", c.reschedule_now),
        ("RescheduleLater", c.reschedule_later),
        ("Disconnect", c.disconnect),
        ("Reconnect", c.reconnect),
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
    let names = counters(ours.unwrap_or(&ZERO));
    GroupComparison {
        group: group.to_string(),
        counters: names
            .into_iter()
            .zip(nomad)
            .map(|((name, slotwise), nomad)| Counter {
                name,
                slotwise: u64::from(slotwise),
                nomad,
            })
            .collect(),
        nomad_preemptions: b.preemptions,
    }
}

/// The counters of a group slotwise did not plan.
const ZERO: core::DesiredUpdates = core::DesiredUpdates {
    ignore: 0,
    place: 0,
    migrate: 0,
    stop: 0,
    in_place: 0,
    destructive: 0,
    canary: 0,
    reschedule_now: 0,
    reschedule_later: 0,
    disconnect: 0,
    reconnect: 0,
};
