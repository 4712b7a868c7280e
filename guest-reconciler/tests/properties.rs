//! Safety rules that hold for any job, nodes, allocations and deployment, checked on generated inputs.

use proptest::prelude::*;
use slotwise_reconciler::*;
use std::collections::{BTreeMap, BTreeSet};

#[path = "clusters/service.rs"]
mod service_cluster;

#[path = "clusters/plans.rs"]
#[allow(dead_code)] // shared with the plugin properties, which read more of it
mod plans;

use service_cluster::{held_back_input, input, stopped_input};

// ---------------------------------------------------------------------------
// Reading plans
// ---------------------------------------------------------------------------

fn allocations(input: &ReconcileInput) -> BTreeMap<&str, &Allocation> {
    input
        .allocations
        .iter()
        .flat_map(|g| &g.allocations)
        .map(|a| (a.spec.id.as_str(), a))
        .collect()
}

fn plan(input: &ReconcileInput) -> Plan {
    match reconcile(input) {
        Ok(plan) => plan,
        Err(e) => panic!("generated input refused: {}: {}", e.field, e.message),
    }
}

fn stopped(group: &GroupPlan) -> BTreeSet<&str> {
    group.stops.iter().map(|s| s.allocation.as_str()).collect()
}

/// Every candidate report of the plan, with its group.
fn candidates(plan: &Plan) -> impl Iterator<Item = (&GroupPlan, &CandidateReport)> {
    plan.groups.iter().flat_map(|g| {
        g.slots
            .iter()
            .flat_map(move |s| s.candidates.iter().map(move |c| (g, c)))
    })
}

/// The current deployment, if it stays current and holds new work back.
fn holding_back(input: &ReconcileInput) -> bool {
    let (Some(job), Some(d)) = (&input.job, &input.deployment) else {
        return false;
    };
    d.job_version == job.version
        && d.job_create_index == job.create_index
        && matches!(
            d.status,
            DeploymentStatus::Paused | DeploymentStatus::Failed | DeploymentStatus::Pending
        )
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn the_same_input_gives_the_same_plan_whatever_the_order_of_allocations(input in input(), seed in any::<u64>()) {
        let first = plan(&input);
        prop_assert_eq!(&first, &plan(&input));
        let mut shuffled = input.clone();
        for g in &mut shuffled.allocations {
            let n = g.allocations.len();
            for i in 0..n {
                let j = (seed as usize).wrapping_mul(i + 7) % n;
                g.allocations.swap(i, j);
            }
        }
        prop_assert_eq!(&first, &plan(&shuffled));
    }

    #[test]
    fn explaining_a_plan_adds_only_its_explanations(input in prop_oneof![input(), stopped_input(), held_back_input()]) {
        plans::explaining_adds_only_explanations(&input)?;
    }

    #[test]
    fn the_plan_names_only_allocations_of_the_input(input in input()) {
        plans::names_only_input_allocations(&input, &plan(&input))?;
    }

    #[test]
    fn no_allocation_is_stopped_twice(input in input()) {
        plans::nothing_stopped_twice(&plan(&input))?;
    }

    #[test]
    fn nothing_is_placed_or_updated_for_a_stopped_or_absent_job(input in stopped_input()) {
        let plan = plan(&input);
        for g in &plan.groups {
            prop_assert!(g.placements.is_empty() && g.destructive_updates.is_empty() && g.in_place_updates.is_empty());
        }
        prop_assert!(plan.deployment.is_none());
    }

    #[test]
    fn placements_never_exceed_the_count(input in input()) {
        let plan = plan(&input);
        let counts: BTreeMap<&str, u32> = input.job.iter().flat_map(|j| &j.groups).map(|g| (g.name.as_str(), g.count)).collect();
        for g in &plan.groups {
            let count = counts.get(g.group.as_str()).copied().unwrap_or(0);
            prop_assert!(g.placements.len() as u32 <= count, "{}: {} placements for a count of {}", g.group, g.placements.len(), count);
            prop_assert!(g.counters.place <= count);
        }
    }

    #[test]
    fn every_replacement_links_the_allocation_it_replaces_in_its_slot(input in input()) {
        let known = allocations(&input);
        let plan = plan(&input);
        for p in plan.groups.iter().flat_map(|g| &g.placements) {
            if matches!(p.reason, Reason::Lost | Reason::RescheduleNow | Reason::Migrate) {
                let previous = p.previous_allocation.as_deref();
                prop_assert!(previous.is_some(), "a {:?} placement without a previous allocation", p.reason);
                let previous = known[previous.unwrap_or_default()];
                prop_assert_eq!(previous.spec.name_index, p.name_index);
            }
        }
    }

    #[test]
    fn a_lost_or_migrating_allocation_that_still_runs_is_stopped(input in input()) {
        let known = allocations(&input);
        let plan = plan(&input);
        for (g, c) in candidates(&plan) {
            let class = c.classification;
            let moving = matches!(class, Some(Classification::Lost | Classification::Migrate | Classification::Expiring));
            let observed = &known[c.allocation.as_str()].observed;
            let runs = observed.desired_status == DesiredStatus::Run
                && !matches!(observed.client_status, ClientStatus::Complete | ClientStatus::Failed | ClientStatus::Lost);
            if moving && runs {
                prop_assert!(stopped(g).contains(c.allocation.as_str()), "{} ({:?} by {}) is not stopped: {}", c.allocation, class, c.rule, c.outcome);
            }
        }
    }

    #[test]
    fn canaries_placed_never_exceed_the_canary_setting(input in input()) {
        let plan = plan(&input);
        for g in &plan.groups {
            let setting = input.job.iter().flat_map(|j| &j.groups).find(|s| s.name == g.group)
                .and_then(|s| s.update.as_ref()).map_or(0, |u| u.canary);
            prop_assert!(g.counters.canary <= setting, "{}: {} canaries for a setting of {}", g.group, g.counters.canary, setting);
            let new_canaries = g.placements.iter().filter(|p| p.reason == Reason::Canary).count() as u32;
            prop_assert!(new_canaries <= setting);
        }
    }

    #[test]
    fn nothing_destructive_happens_while_the_deployment_is_paused_or_failed(input in held_back_input()) {
        prop_assume!(holding_back(&input));
        let plan = plan(&input);
        for g in &plan.groups {
            prop_assert!(g.destructive_updates.is_empty(), "{}: destructive updates while held back", g.group);
            prop_assert!(g.placements.iter().all(|p| p.reason != Reason::Canary));
        }
    }

    #[test]
    fn destructive_updates_never_exceed_max_parallel(input in input()) {
        let plan = plan(&input);
        for g in &plan.groups {
            let limit = input.job.iter().flat_map(|j| &j.groups).find(|s| s.name == g.group)
                .and_then(|s| s.update.as_ref()).filter(|u| u.max_parallel > 0).map(|u| u.max_parallel);
            if let Some(limit) = limit {
                prop_assert!(g.destructive_updates.len() as u32 <= limit, "{}: {} destructive updates for max-parallel {}", g.group, g.destructive_updates.len(), limit);
            }
        }
    }

    #[test]
    fn a_reconnecting_allocation_ends_as_exactly_one_of_reconnect_or_stop(input in input()) {
        let known = allocations(&input);
        let plan = plan(&input);
        for (g, c) in candidates(&plan) {
            if c.classification != Some(Classification::Reconnecting) {
                continue;
            }
            let observed = &known[c.allocation.as_str()].observed;
            let is_stopped = stopped(g).contains(c.allocation.as_str());
            let resumed = g.reconnect_updates.iter().any(|u| u.allocation == c.allocation);
            prop_assert!(!(is_stopped && resumed), "{} is both resumed and stopped", c.allocation);
            if observed.desired_status == DesiredStatus::Run && observed.client_status == ClientStatus::Running {
                prop_assert!(is_stopped || resumed, "{} is neither resumed nor stopped: {}", c.allocation, c.outcome);
            }
        }
    }
}
