//! Whatever plugins answer on a system or sysbatch job (holds, adjustments, vetoes, deferrals, review vetoes, promotions), the system safety rules still hold.

#[path = "clusters/system.rs"]
#[allow(dead_code)] // shared with system_properties.rs, which reads more of it
mod system_cluster;

#[path = "clusters/drawn.rs"]
mod drawn;

#[path = "clusters/plans.rs"]
#[allow(dead_code)] // shared with the service properties, which read more of it
mod plans;

use drawn::plan_with_plugin;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use system_cluster::*;

/// The allocations of slots (a group's name index on a node) that more
/// than one live allocation claims.
fn crowded_slots(input: &slotwise_reconciler::ReconcileInput) -> BTreeSet<&str> {
    let mut claims: BTreeMap<(&str, u32, u32), Vec<&str>> = BTreeMap::new();
    for group in &input.allocations {
        for a in group.allocations.iter().filter(|a| is_live(a)) {
            let slot = (group.group.as_str(), a.spec.node, a.spec.name_index);
            claims.entry(slot).or_default().push(a.spec.id.as_str());
        }
    }
    (claims.into_values())
        .filter(|ids| ids.len() > 1)
        .flatten()
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Whatever the plugin answers, a node ends with at most one live
    /// allocation of a group per slot: no hold, veto or deferral keeps a
    /// duplicate, and no adjustment adds one.
    #[test]
    fn plugins_never_leave_two_live_allocations_of_one_group_on_one_node(
        input in prop_oneof![input(), rollout_input()],
        seed in any::<u64>(),
    ) {
        let plan = plan_with_plugin(&input, seed);
        at_most_one_live_per_slot(&input, &plan)?;
    }

    /// Whatever the plugin answers, nothing new goes to a tainted or
    /// ineligible node: neither a placement nor the replacement a
    /// destructive update makes.
    #[test]
    fn plugins_never_put_anything_on_a_tainted_or_ineligible_node(
        input in prop_oneof![input(), rollout_input()],
        seed in any::<u64>(),
    ) {
        let plan = plan_with_plugin(&input, seed);
        let node_of: BTreeMap<&str, u32> = input
            .allocations
            .iter()
            .flat_map(|g| &g.allocations)
            .map(|a| (a.spec.id.as_str(), a.spec.node))
            .collect();
        for g in &plan.groups {
            let placed = g.placements.iter().map(|p| p.node.expect("a system placement names its node"));
            let replaced = g.destructive_updates.iter().map(|d| node_of[d.allocation.as_str()]);
            for node in placed.chain(replaced) {
                prop_assert!(eligible(&input).contains(&node), "new allocation on {}, not eligible", node);
                prop_assert!(!tainted(&input.nodes[node as usize]), "new allocation on tainted {}", node);
            }
        }
    }

    /// Whatever the plugin answers, each counter counts the plan's entries:
    /// a withdrawn change takes off its own count and no other.
    #[test]
    fn plugins_leave_every_counter_counting_the_entries_of_the_plan(
        input in prop_oneof![input(), rollout_input()],
        seed in any::<u64>(),
    ) {
        plans::counters_count_their_entries(&plan_with_plugin(&input, seed))?;
    }

    /// Whatever else the plugin answers, a node slot it holds, vetoes or
    /// defers gets no change, but for the stops in a slot that more than one
    /// live allocation claims: those bind, so that no node is left running
    /// two.
    #[test]
    fn a_held_vetoed_or_deferred_node_slot_gets_no_change_but_binding_stops(
        input in prop_oneof![input(), rollout_input()],
        seed in any::<u64>(),
    ) {
        let crowded = crowded_slots(&input);
        let plan = plan_with_plugin(&input, seed);
        plans::kept_slots_are_left_alone(&input, &plan, |id| crowded.contains(id))?;
    }

    /// The plan is the same every time for the same input and answers.
    #[test]
    fn the_same_answers_give_the_same_plan(input in input(), seed in any::<u64>()) {
        prop_assert_eq!(plan_with_plugin(&input, seed), plan_with_plugin(&input, seed));
    }
}
