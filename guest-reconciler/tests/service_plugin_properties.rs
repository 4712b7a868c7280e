//! Whatever plugins answer on a service or batch job (holds, adjustments, vetoes, deferrals, review vetoes, promotions), the plan still names only the input's allocations, stops none twice and counts what it holds.

#[path = "clusters/service.rs"]
#[allow(dead_code)] // shared with properties.rs, which reads more of it
mod service_cluster;

#[path = "clusters/drawn.rs"]
mod drawn;

#[path = "clusters/plans.rs"]
#[allow(dead_code)] // shared with the system properties, which read more of it
mod plans;

use drawn::{plan_with_plugin, plan_with_plugin_at};
use plans::*;
use proptest::prelude::*;
use service_cluster::input;
use slotwise_reconciler::plugin::Hook;

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Whatever the plugin answers, the plan stops, updates and replaces
    /// only allocations of the input.
    #[test]
    fn plugins_never_make_the_plan_name_an_allocation_the_input_lacks(input in input(), seed in any::<u64>()) {
        names_only_input_allocations(&input, &plan_with_plugin(&input, seed))?;
    }

    /// Whatever the plugin answers, no allocation is stopped twice.
    #[test]
    fn plugins_never_make_the_plan_stop_an_allocation_twice(input in input(), seed in any::<u64>()) {
        nothing_stopped_twice(&plan_with_plugin(&input, seed))?;
    }

    /// Whatever changes vetoes and deferrals withdraw, at post-slot or in
    /// review, each takes off its own count and no other.
    #[test]
    fn a_withdrawn_change_takes_off_its_own_count_and_no_other(input in input(), seed in any::<u64>()) {
        let before = plan_with_plugin_at(&input, seed, &[]);
        let after = plan_with_plugin_at(&input, seed, &[Hook::PostSlot, Hook::Review]);
        withdrawals_take_off_their_own_counts(&before, &after)?;
    }

    /// Whatever else the plugin answers, a slot it holds, vetoes or defers
    /// gets no change: no safety rule binds a service or batch group's stops.
    #[test]
    fn a_held_vetoed_or_deferred_slot_gets_no_change(input in input(), seed in any::<u64>()) {
        kept_slots_are_left_alone(&input, &plan_with_plugin(&input, seed), |_| false)?;
    }

    /// The plan is the same every time for the same input and answers.
    #[test]
    fn the_same_answers_give_the_same_plan(input in input(), seed in any::<u64>()) {
        prop_assert_eq!(plan_with_plugin(&input, seed), plan_with_plugin(&input, seed));
    }
}
