//! Checks on a plan that hold for any job type, for the property tests with and without plugins.

use proptest::prelude::*;
use slotwise_reconciler::*;
use std::collections::BTreeSet;

/// Checks that every allocation the plan stops, updates or replaces is one
/// of the input's.
pub fn names_only_input_allocations(
    input: &ReconcileInput,
    plan: &Plan,
) -> Result<(), TestCaseError> {
    let known: BTreeSet<&str> = (input.allocations.iter())
        .flat_map(|g| &g.allocations)
        .map(|a| a.spec.id.as_str())
        .collect();
    for g in &plan.groups {
        let updates = [
            &g.in_place_updates,
            &g.attribute_updates,
            &g.disconnect_updates,
            &g.reconnect_updates,
        ];
        let named = (g.stops.iter().map(|s| &s.allocation))
            .chain(g.destructive_updates.iter().map(|d| &d.allocation))
            .chain(updates.into_iter().flatten().map(|u| &u.allocation))
            .chain(
                g.placements
                    .iter()
                    .filter_map(|p| p.previous_allocation.as_ref()),
            );
        for id in named {
            prop_assert!(known.contains(id.as_str()), "{} is not in the input", id);
        }
    }
    Ok(())
}

/// Checks that no allocation is stopped twice, by a stop or a destructive
/// update.
pub fn nothing_stopped_twice(plan: &Plan) -> Result<(), TestCaseError> {
    for g in &plan.groups {
        let mut seen = BTreeSet::new();
        let stopped = (g.stops.iter().map(|s| &s.allocation))
            .chain(g.destructive_updates.iter().map(|d| &d.allocation));
        for id in stopped {
            prop_assert!(
                seen.insert(id),
                "{} is stopped twice in group {}",
                id,
                g.group
            );
        }
    }
    Ok(())
}

/// What a group's plan holds of each kind of change a counter counts.
fn entries(g: &GroupPlan) -> [(&'static str, u32, usize); 8] {
    let placed = |keep: fn(&Placement) -> bool| g.placements.iter().filter(|p| keep(p)).count();
    let stopped = |keep: fn(Reason) -> bool| g.stops.iter().filter(|s| keep(s.reason)).count();
    let c = &g.counters;
    [
        ("canary", c.canary, placed(|p| p.reason == Reason::Canary)),
        (
            "place",
            c.place,
            placed(|p| {
                !matches!(
                    p.reason,
                    Reason::Canary | Reason::Migrate | Reason::DestructiveUpdate
                )
            }),
        ),
        (
            "destructive",
            c.destructive,
            g.destructive_updates.len() + placed(|p| p.reason == Reason::DestructiveUpdate),
        ),
        ("migrate", c.migrate, stopped(|r| r == Reason::Migrate)),
        ("in-place", c.in_place, g.in_place_updates.len()),
        ("disconnect", c.disconnect, g.disconnect_updates.len()),
        ("reconnect", c.reconnect, g.reconnect_updates.len()),
        (
            "stop",
            c.stop,
            stopped(|r| !matches!(r, Reason::Migrate | Reason::ReplacedByCanary)),
        ),
    ]
}

/// Checks that every counter counts exactly its entries, as a system plan's
/// do: a stop counts unless it is a migration (counted as one) or the
/// transient stop of an allocation a canary replaces on its node; finished
/// sysbatch work placed again counts as a destructive update. (A service
/// plan's need not: Nomad caps placements, and counts some stops apart.)
pub fn counters_count_their_entries(plan: &Plan) -> Result<(), TestCaseError> {
    for g in &plan.groups {
        for (name, counter, entries) in entries(g) {
            prop_assert_eq!(counter as usize, entries, "{}: counter {}", g.group, name);
        }
    }
    Ok(())
}

/// Checks that the changes withdrawn between `before` (no plugin) and
/// `after` (a plugin that only withdraws, at post-slot or review) took off
/// their own counts and no other: each counter falls by as many entries as
/// its kind lost, and nothing is added. The stop and migration counters
/// fall by at most as many: the plan does not say which stops were counted
/// (a canary's migration is not, nor are transient stops).
pub fn withdrawals_take_off_their_own_counts(
    before: &Plan,
    after: &Plan,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(before.groups.len(), after.groups.len());
    for (b, a) in before.groups.iter().zip(&after.groups) {
        for ((name, was, had), (_, is, has)) in entries(b).into_iter().zip(entries(a)) {
            prop_assert!(
                has <= had,
                "{}: {} {} entries after withdrawing, {} before",
                b.group,
                has,
                name,
                had
            );
            let fell = i64::from(was) - i64::from(is);
            let withdrawn = (had - has) as i64;
            if name == "stop" || name == "migrate" {
                prop_assert!(
                    (0..=withdrawn).contains(&fell),
                    "{}: counter {} fell by {} for {} stops withdrawn",
                    b.group,
                    name,
                    fell,
                    withdrawn
                );
            } else {
                prop_assert_eq!(
                    fell,
                    withdrawn,
                    "{}: counter {} fell by {} for {} entries withdrawn",
                    b.group,
                    name,
                    fell,
                    withdrawn
                );
            }
        }
    }
    Ok(())
}

/// Checks that no change of the plan concerns a slot a plugin held, vetoed
/// or deferred, where the plan applied it: nothing placed in the slot (at
/// its name index, and on its node for a system job's), and no allocation
/// of the slot stopped or updated, but for the stops `bound` names, which a
/// safety rule keeps whatever a plugin says.
pub fn kept_slots_are_left_alone(
    input: &ReconcileInput,
    plan: &Plan,
    bound: impl Fn(&str) -> bool,
) -> Result<(), TestCaseError> {
    let slot_of: std::collections::BTreeMap<&str, (u32, u32)> = (input.allocations.iter())
        .flat_map(|g| &g.allocations)
        .map(|a| (a.spec.id.as_str(), (a.spec.name_index, a.spec.node)))
        .collect();
    for action in plan.policy_actions.iter().filter(|a| a.applied) {
        let kept = matches!(
            action.verdict,
            PolicyVerdict::Held | PolicyVerdict::Vetoed | PolicyVerdict::Deferred
        );
        let (true, Some(slot)) = (kept, action.slot) else {
            continue;
        };
        let Some(g) = plan.groups.iter().find(|g| g.group == action.group) else {
            continue;
        };
        let within = |index: u32, node: Option<u32>| {
            index == slot && (action.node.is_none() || node == action.node)
        };
        let updates = [
            &g.in_place_updates,
            &g.disconnect_updates,
            &g.reconnect_updates,
        ];
        let changed = (g.stops.iter())
            .map(|s| &s.allocation)
            .filter(|id| !bound(id))
            .chain(g.destructive_updates.iter().map(|d| &d.allocation))
            .chain(updates.into_iter().flatten().map(|u| &u.allocation));
        for id in changed {
            let Some(&(index, node)) = slot_of.get(id.as_str()) else {
                continue;
            };
            prop_assert!(
                !within(index, Some(node)),
                "{}: {} of kept slot {} changed",
                g.group,
                id,
                slot
            );
        }
        for p in &g.placements {
            prop_assert!(
                !within(p.name_index, p.node),
                "{}: a placement in kept slot {}",
                g.group,
                slot
            );
        }
    }
    Ok(())
}

/// Asking for explanations changes nothing but the explanation: the plan
/// of `input` with `explain` is the plain one with its slots explained and
/// the reports of steps that had nothing to do among its step reports, in
/// their place; the plain plan reports no such step.
pub fn explaining_adds_only_explanations(input: &ReconcileInput) -> Result<(), TestCaseError> {
    let mut asked = input.clone();
    asked.explain = false;
    let plain = reconcile(&asked).map_err(|e| TestCaseError::fail(e.message))?;
    asked.explain = true;
    let mut explained = reconcile(&asked).map_err(|e| TestCaseError::fail(e.message))?;
    prop_assert!(
        plain.steps.iter().all(|s| s.status != StepStatus::Skipped),
        "a plain plan reports a step that had nothing to do"
    );
    explained.steps.retain(|s| s.status != StepStatus::Skipped);
    for g in &mut explained.groups {
        g.slots.clear();
    }
    prop_assert_eq!(plain, explained);
    Ok(())
}
