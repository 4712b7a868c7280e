//! Retiring: every allocation of a stopped job, a removed group or a group scaled to zero is stopped.

use crate::candidate::{Candidate, Marks};
use crate::group::empty_plan;
use crate::sentence::say;
use crate::{
    Classification, ClientStatus, GroupPlan, Reason, ReconcileInput, StepReport, StepStatus,
    TaskGroup,
};

/// Why a group's allocations all go.
#[derive(Clone, Copy)]
pub(crate) enum Retirement {
    JobStopped,
    GroupRemoved,
    ScaledToZero,
}

impl Retirement {
    fn reason(self) -> Reason {
        match self {
            Retirement::JobStopped => Reason::JobStopped,
            Retirement::GroupRemoved => Reason::GroupRemoved,
            Retirement::ScaledToZero => Reason::GroupScaledToZero,
        }
    }

    fn because(self, group: &str) -> String {
        match self {
            Retirement::JobStopped => "the job is stopped".to_string(),
            Retirement::GroupRemoved => say!("group ", group, " no longer exists in the job"),
            Retirement::ScaledToZero => say!("group ", group, " is scaled to zero"),
        }
    }
}

/// Retires group `name`, which the job no longer has (`spec` none) or scales
/// to zero: stops every candidate still in view and reports it as a step.
pub(crate) fn retire_group(
    name: &str,
    spec: Option<&TaskGroup>,
    candidates: &mut [Candidate],
    input: &ReconcileInput,
    reports: &mut Vec<StepReport>,
) -> GroupPlan {
    let why = match spec {
        Some(_) => Retirement::ScaledToZero,
        None => Retirement::GroupRemoved,
    };
    let plan = retire(name, candidates, why, input.explain);
    reports.push(StepReport {
        step: "retire".into(),
        group: Some(name.to_string()),
        status: StepStatus::Done,
        message: say!(plan.stops.len(), " allocations stopped"),
    });
    plan
}

/// Stops every candidate still in view. The stop counter counts all of them,
/// as Nomad does, even those it leaves alone because they already finished.
pub(crate) fn retire(
    group: &str,
    candidates: &mut [Candidate],
    why: Retirement,
    explain: bool,
) -> GroupPlan {
    let mut plan = empty_plan(group);
    let because = why.because(group);
    for c in candidates.iter_mut().filter(|c| c.has(Marks::TRACKED)) {
        let rule = c.classify();
        plan.counters.stop += 1;
        let entry = match rule.class {
            Classification::Lost => {
                let message = say!(because, "; node ", c.node.id, " is lost");
                c.stop(Reason::Lost, Some(ClientStatus::Lost), message)
            }
            Classification::Ignore | Classification::Expiring
                if c.client_status() != ClientStatus::Unknown =>
            {
                c.settle(|| say!(because, "; nothing left to stop"));
                continue;
            }
            _ => c.stop(why.reason(), None, because.clone()),
        };
        plan.stops.push(entry);
    }
    if explain {
        let slots = crate::slot::Slots::new(candidates);
        plan.slots = crate::explain::slots(0, &slots, candidates, &plan, &[]);
    }
    plan
}
