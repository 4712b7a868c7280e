//! Writes an outcome with the plan's lists of changes and of step reports field by field rather than through serde: the mirror of `plan_reader`, byte for byte what postcard writes.

use super::writer::{Room, Writer};
use crate::{
    AllocationUpdate, DestructiveUpdate, GroupPlan, InputError, Placement, Plan, StepReport, Stop,
};

/// Appends `outcome`, encoded, to `out`.
pub(super) fn outcome(out: &mut Vec<u8>, outcome: &Result<Plan, InputError>) {
    let mut w = Writer(out);
    match outcome {
        Ok(plan) => {
            w.u32(0);
            self::plan(&mut w, plan);
        }
        Err(error) => {
            w.u32(1);
            w.postcard(error);
        }
    }
}

fn plan(w: &mut Writer, plan: &Plan) {
    w.list(&plan.groups, group);
    w.postcard(&plan.deployment);
    w.postcard(&plan.deployment_updates);
    w.postcard(&plan.promotions);
    w.postcard(&plan.policy_actions);
    w.postcard(&plan.plugin_failures);
    w.items(&plan.steps, step);
    w.postcard(&plan.ext);
    w.postcard(&plan.plugin_logs);
}

fn group(w: &mut Writer, group: &GroupPlan) {
    w.string(&group.group);
    // Once per group: postcard, as for the other parts that do not grow.
    w.postcard(&group.counters);
    w.items(&group.placements, placement);
    w.items(&group.stops, stop);
    w.items(&group.in_place_updates, update);
    w.items(&group.destructive_updates, destructive);
    w.items(&group.attribute_updates, update);
    w.items(&group.disconnect_updates, update);
    w.items(&group.reconnect_updates, update);
    w.postcard(&group.followup_evals);
    w.postcard(&group.slots);
}

fn placement(w: &mut Writer<Room>, p: &Placement) {
    w.u32(p.name_index);
    w.bool(p.canary);
    w.option(&p.previous_allocation, |w, v| w.string(v));
    w.bool(p.reschedule);
    w.bool(p.previous_lost);
    w.bool(p.downgrade_non_canary);
    w.u64(p.min_job_version);
    w.u32(p.reason as u32);
    w.string(&p.message);
    w.option(&p.node, |w, v| w.u32(*v));
}

fn stop(w: &mut Writer<Room>, s: &Stop) {
    w.string(&s.allocation);
    w.u32(s.name_index);
    w.option(&s.client_status, |w, v| w.u32(*v as u32));
    w.option(&s.followup_eval, |w, v| w.string(v));
    w.u32(s.reason as u32);
    w.string(&s.message);
}

fn update(w: &mut Writer<Room>, u: &AllocationUpdate) {
    w.string(&u.allocation);
    w.u32(u.name_index);
    w.option(&u.followup_eval, |w, v| w.string(v));
    w.u32(u.reason as u32);
    w.string(&u.message);
}

fn destructive(w: &mut Writer<Room>, d: &DestructiveUpdate) {
    w.string(&d.allocation);
    w.u32(d.name_index);
    w.u32(d.reason as u32);
    w.string(&d.message);
}

fn step(w: &mut Writer<Room>, s: &StepReport) {
    w.string(&s.step);
    w.option(&s.group, |w, v| w.string(v));
    w.u32(s.status as u32);
    w.string(&s.message);
}

#[cfg(test)]
mod tests {
    use super::super::sample_outcomes::outcomes;
    use super::outcome;

    #[test]
    fn the_plan_writer_writes_every_outcome_byte_for_byte_as_serde_does() {
        for written in outcomes() {
            let mut ours = Vec::new();
            outcome(&mut ours, &written);
            assert_eq!(
                ours,
                postcard::to_allocvec(&written).expect("a plan encodes")
            );
        }
    }
}
