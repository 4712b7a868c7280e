//! Safety rules of system and sysbatch jobs, checked on generated clusters: nodes in every state, allocations of several versions, deployments at every stage.

#[path = "clusters/system.rs"]
mod system_cluster;

#[path = "clusters/plans.rs"]
#[allow(dead_code)] // shared with the plugin properties, which read more of it
mod plans;

use proptest::prelude::*;
use system_cluster::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

    /// After the plan, a node runs at most one live allocation of a group
    /// per slot (one in all for a system job, whose count is at most 1).
    #[test]
    fn never_two_live_allocations_of_one_group_on_one_node(input in input()) {
        let plan = plan(&input);
        at_most_one_live_per_slot(&input, &plan)?;
    }

    /// Asking for explanations changes nothing but the explanation.
    #[test]
    fn explaining_a_plan_adds_only_its_explanations(input in prop_oneof![input(), rollout_input()]) {
        plans::explaining_adds_only_explanations(&input)?;
    }

    /// Each counter counts the plan's entries, rollouts with canaries
    /// included.
    #[test]
    fn every_counter_counts_the_entries_of_the_plan(input in prop_oneof![input(), rollout_input()]) {
        plans::counters_count_their_entries(&plan(&input))?;
    }

    /// Placements go only to eligible nodes that are neither down,
    /// disconnected, gone nor draining.
    #[test]
    fn never_a_placement_on_a_tainted_or_ineligible_node(input in input()) {
        let plan = plan(&input);
        for p in plan.groups.iter().flat_map(|g| &g.placements) {
            let node = p.node.expect("a system placement names its node");
            prop_assert!(eligible(&input).contains(&node), "placement on {}, not eligible", node);
            prop_assert!(!tainted(&input.nodes[node as usize]), "placement on tainted {}", node);
        }
    }

    /// A stopped or purged job stops every live allocation and places,
    /// updates and replaces nothing.
    #[test]
    fn a_stopped_job_stops_everything_live(input in stopped_input()) {
        let plan = plan(&input);
        prop_assert!(plan.deployment.is_none());
        for (group, g) in input.allocations.iter().zip(&plan.groups) {
            prop_assert!(g.placements.is_empty() && g.destructive_updates.is_empty());
            prop_assert!(g.in_place_updates.is_empty());
            for a in group.allocations.iter().filter(|a| is_live(a)) {
                prop_assert!(g.stops.iter().any(|s| s.allocation == a.spec.id), "{} still runs", a.spec.id);
            }
        }
    }

    /// Canaries placed, with the canaries already running, never exceed the
    /// canary percentage of the group's eligible slots and of the canaries
    /// left alone elsewhere, rounded up, nor max-parallel; a deployment never
    /// wants more.
    #[test]
    fn canaries_never_exceed_the_rounded_up_percentage(input in prop_oneof![input(), rollout_input()]) {
        let plan = plan(&input);
        let Some(job) = &input.job else { return Ok(()) };
        for (spec, g) in job.groups.iter().zip(&plan.groups) {
            // Nomad's base also counts the canaries it leaves alone off the
            // eligible nodes: one on a node no longer eligible whose job is
            // unchanged, or a sysbatch canary that finished on a node since
            // gone down.
            let kept_elsewhere = input
                .allocations
                .iter()
                .filter(|a| a.group == g.group)
                .flat_map(|a| &a.allocations)
                .filter(|a| a.observed.health.as_ref().is_some_and(|h| h.canary))
                .filter(|a| !eligible(&input).contains(&a.spec.node))
                .filter(|a| !g.stops.iter().any(|s| s.allocation == a.spec.id))
                .count();
            let slots = eligible(&input).len() * spec.count as usize + kept_elsewhere;
            let bound = spec.update.as_ref().map_or(0, |u| canary_bound(u, slots));
            let placed = g.placements.iter().filter(|p| p.canary).count() as u32;
            prop_assert_eq!(placed, g.counters.canary);
            if placed > 0 {
                let running = input
                    .allocations
                    .iter()
                    .filter(|a| a.group == g.group)
                    .flat_map(|a| &a.allocations)
                    .filter(|a| is_live(a) && a.observed.health.as_ref().is_some_and(|h| h.canary))
                    .filter(|a| !g.stops.iter().any(|s| s.allocation == a.spec.id))
                    .filter(|a| eligible(&input).contains(&a.spec.node) && a.spec.fingerprint == spec.fingerprint)
                    .count() as u32;
                prop_assert!(placed + running <= bound, "{} placed and {} running, bound {}", placed, running, bound);
            }
            let wanted = plan
                .deployment
                .iter()
                .flat_map(|d| &d.groups)
                .find(|d| d.group == g.group)
                .map_or(0, |d| d.desired_canaries);
            let before = input.deployment.iter().flat_map(|d| &d.groups).find(|d| d.group == g.group).map_or(0, |d| d.desired_canaries);
            prop_assert!(wanted <= bound.max(before), "deployment wants {} canaries, bound {}", wanted, bound);
        }
    }

    /// Nomad's own bounds: placements never exceed the count times the
    /// eligible nodes, and no counter of decisions about existing
    /// allocations exceeds how many the group has.
    #[test]
    fn counters_stay_within_the_nodes_and_the_allocations(input in input()) {
        let plan = plan(&input);
        for (group, g) in input.allocations.iter().zip(&plan.groups) {
            let count = input
                .job
                .iter()
                .flat_map(|j| &j.groups)
                .find(|s| s.name == g.group)
                .map_or(0, |s| s.count);
            let existing = group.allocations.len() as u32;
            let c = &g.counters;
            prop_assert!(c.place + c.canary <= count * eligible(&input).len() as u32);
            for (name, n) in [("migrate", c.migrate), ("ignore", c.ignore), ("stop", c.stop), ("update", c.in_place + c.destructive)] {
                prop_assert!(n <= existing, "{} {} of {} allocations", name, n, existing);
            }
        }
    }

    /// The plan does not depend on the order nodes and allocations are listed in.
    #[test]
    fn the_same_cluster_gives_the_same_plan_whatever_the_order(input in input(), seed in any::<u64>()) {
        let first = plan(&input);
        let mut shuffled = input.clone();
        for g in &mut shuffled.allocations {
            let turn = seed as usize % g.allocations.len().max(1);
            g.allocations.rotate_left(turn);
            g.allocations.reverse();
        }
        if let Some(system) = &mut shuffled.system {
            system.eligible.reverse();
            system.not_ready.reverse();
        }
        prop_assert_eq!(first, plan(&shuffled));
    }

    /// No allocation is stopped twice, and every allocation the plan names
    /// is one of the input's.
    #[test]
    fn every_allocation_is_decided_at_most_once(input in input()) {
        let plan = plan(&input);
        let known: Vec<&str> = input.allocations.iter().flat_map(|g| &g.allocations).map(|a| a.spec.id.as_str()).collect();
        for g in &plan.groups {
            let mut stopped: Vec<&str> = g.stops.iter().map(|s| s.allocation.as_str()).collect();
            let all = stopped.len();
            stopped.sort_unstable();
            stopped.dedup();
            prop_assert_eq!(all, stopped.len());
            for id in stopped {
                prop_assert!(known.contains(&id));
            }
        }
    }
}
