//! Writes an input with its two large lists, nodes and allocations, field by field rather than through serde: the mirror of `list_reader`, byte for byte what postcard writes.

use super::record_writer;
use super::writer::{Room, Writer};
use crate::{
    Allocation, AllocationSpec, ClientStateChange, GroupAllocations, Node, ObservedState,
    ReconcileInput, TaskState,
};

/// Appends `input`, encoded, to `out`.
pub(super) fn input(out: &mut Vec<u8>, input: &ReconcileInput) {
    let mut w = Writer(out);
    w.string(&input.job_id);
    w.postcard(&input.job);
    w.items(&input.nodes, node);
    w.list(&input.allocations, group);
    rest(&mut w, input);
}

/// Appends `input`, its allocations as records (content 3), to `out`; or
/// gives `false` when a group does not fit them.
pub(super) fn input_records(out: &mut Vec<u8>, input: &ReconcileInput) -> bool {
    let mut w = Writer(out);
    head(&mut w, input);
    for group in &input.allocations {
        w.string(&group.group);
        if !record_writer::allocations(&mut w, &group.allocations) {
            return false;
        }
    }
    rest(&mut w, input);
    true
}

/// As [`input_records`], emptying `input`'s allocation lists as their
/// records are written; when a group does not fit, `false`, with nothing
/// taken from `input`.
pub(super) fn input_records_releasing(out: &mut Vec<u8>, input: &mut ReconcileInput) -> bool {
    let layouts: Option<Vec<_>> = (input.allocations.iter())
        .map(|g| record_writer::layout(&g.allocations))
        .collect();
    let Some(layouts) = layouts else {
        return false;
    };
    let mut w = Writer(out);
    head(&mut w, input);
    for (group, layout) in input.allocations.iter_mut().zip(layouts) {
        w.string(&group.group);
        record_writer::allocations_releasing(&mut w, &mut group.allocations, layout);
    }
    rest(&mut w, input);
    true
}

/// The fields before the allocations, then the count of groups.
fn head(w: &mut Writer, input: &ReconcileInput) {
    w.string(&input.job_id);
    w.postcard(&input.job);
    w.items(&input.nodes, node);
    w.u64(input.allocations.len() as u64);
}

/// The fields after the allocations.
fn rest(w: &mut Writer, input: &ReconcileInput) {
    w.postcard(&input.deployment);
    w.postcard(&input.eval);
    w.s64(input.now);
    w.bool(input.explain);
    w.postcard(&input.ext);
    w.postcard(&input.system);
}

fn node(w: &mut Writer<Room>, node: &Node) {
    w.string(&node.id);
    w.u32(node.status as u32);
    w.bool(node.draining);
    w.list(&node.meta, pair);
}

fn pair(w: &mut Writer<Room>, (key, value): &(String, String)) {
    w.string(key);
    w.string(value);
}

fn group(w: &mut Writer, group: &GroupAllocations) {
    w.string(&group.group);
    w.items(&group.allocations, allocation);
}

fn allocation(w: &mut Writer<Room>, a: &Allocation) {
    spec(w, &a.spec);
    observed(w, &a.observed);
    w.option(&a.update, |w, u| w.u32(*u as u32));
}

fn spec(w: &mut Writer<Room>, s: &AllocationSpec) {
    w.string(&s.id);
    w.u32(s.name_index);
    w.u64(s.job_version);
    w.u64(s.job_create_index);
    w.u32(s.node);
    w.option(&s.deployment, |w, v| w.string(v));
    w.option(&s.previous_allocation, |w, v| w.string(v));
    w.option(&s.next_allocation, |w, v| w.string(v));
    w.u64(s.create_index);
    w.u64(s.fingerprint.destructive);
    w.u64(s.fingerprint.in_place);
    w.option(&s.placement_score, |w, v| w.f64(*v));
}

fn observed(w: &mut Writer<Room>, o: &ObservedState) {
    w.u32(o.desired_status as u32);
    w.u32(o.client_status as u32);
    w.option(&o.desired_transition, |w, t| {
        w.bool(t.migrate);
        w.bool(t.reschedule);
        w.bool(t.force_reschedule);
        w.bool(t.migrate_disable_placement);
    });
    w.option(&o.health, |w, h| {
        w.option(&h.healthy, |w, v| w.bool(*v));
        w.bool(h.canary);
        w.option(&h.changed_at, |w, v| w.s64(*v));
    });
    w.option(&o.reschedule, |w, r| {
        w.list(&r.events, |w, e| {
            w.s64(e.at);
            w.s64(e.delay);
        });
        w.bool(r.last_failed);
    });
    w.option(&o.followup_eval, |w, v| w.string(v));
    w.option(&o.client_states, |w, list| w.list(list, state_change));
    w.option(&o.tasks, |w, list| w.list(list, task));
    w.s64(o.modify_time);
    w.option(&o.meta, |w, list| w.list(list, pair));
}

fn state_change(w: &mut Writer<Room>, c: &ClientStateChange) {
    w.option(&c.status, |w, s| w.u32(*s as u32));
    w.s64(c.at);
}

fn task(w: &mut Writer<Room>, t: &TaskState) {
    w.string(&t.name);
    w.u32(t.state as u32);
    w.bool(t.failed);
    w.option(&t.started_at, |w, v| w.s64(*v));
    w.option(&t.finished_at, |w, v| w.s64(*v));
    w.u32(t.restarts);
    w.option(&t.last_restart, |w, v| w.s64(*v));
}
