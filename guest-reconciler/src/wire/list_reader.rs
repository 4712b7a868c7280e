//! Reads an encoded input with its two large lists, nodes and allocations, taken field by field rather than through serde: the part of decoding that grows with the group.
//!
//! Everything else of the input (the job, the deployment, the evaluation,
//! slot extensions, system nodes) is read by postcard between the lists.
//! Field order is WIT order, as in every other reader of the format.

use super::cursor::Cursor;
use crate::validation::Noting;
use crate::{
    Allocation, AllocationSpec, ClientStateChange, DeploymentHealth, DesiredStatus,
    DesiredTransition, Fingerprint, GroupAllocations, Node, NodeStatus, ObservedState,
    ReconcileInput, RescheduleEvent, RescheduleTracker, TaskLifecycle, TaskState, UpdateKind,
};

/// Fewer bytes than any encoded node takes (an empty id, a status, a flag,
/// an empty meta list).
const MIN_NODE_BYTES: usize = 4;

/// Fewer bytes than any encoded allocation takes (see `allocation_list`).
const MIN_ALLOCATION_BYTES: usize = 16;

/// The input in `body`, with what `N` notes of its allocations, or `None`
/// when anything in it is not as expected: the caller then reads it with
/// postcard alone, which says what is wrong.
pub(super) fn input<N: Noting>(body: &[u8]) -> Option<(ReconcileInput, N)> {
    let mut at = Cursor::new(body);
    let job_id = at.string();
    let job = at.postcard()?;
    let nodes = at.list(MIN_NODE_BYTES, node);
    let mut notes = N::for_nodes(nodes.len());
    let allocations = at.list(2, |at| group(at, &mut notes));
    let input = ReconcileInput {
        job_id,
        job,
        nodes,
        allocations,
        deployment: at.postcard()?,
        eval: at.postcard()?,
        now: at.s64(),
        explain: at.bool(),
        ext: at.postcard()?,
        system: at.postcard()?,
    };
    (at.ok() && at.remaining() == 0).then_some((input, notes))
}

fn node(at: &mut Cursor) -> Node {
    Node {
        id: at.string(),
        status: match at.case(5) {
            0 => NodeStatus::Ready,
            1 => NodeStatus::Initializing,
            2 => NodeStatus::Down,
            3 => NodeStatus::Disconnected,
            _ => NodeStatus::Unknown,
        },
        draining: at.bool(),
        meta: at.list(2, pair),
    }
}

fn pair(at: &mut Cursor) -> (String, String) {
    (at.string(), at.string())
}

fn group<N: Noting>(at: &mut Cursor, notes: &mut N) -> GroupAllocations {
    let group = at.string();
    let allocations = at.list_counted(MIN_ALLOCATION_BYTES, |n| {
        notes.reserve(n);
        |at: &mut Cursor| {
            let allocation = allocation(at);
            notes.note(&allocation.spec);
            allocation
        }
    });
    GroupAllocations { group, allocations }
}

#[inline(always)]
fn allocation(at: &mut Cursor) -> Allocation {
    Allocation {
        spec: spec(at),
        observed: observed(at),
        update: at.option(|at| match at.case(3) {
            0 => UpdateKind::Ignore,
            1 => UpdateKind::InPlace,
            _ => UpdateKind::Destructive,
        }),
    }
}

#[inline(always)]
fn spec(at: &mut Cursor) -> AllocationSpec {
    AllocationSpec {
        id: at.string(),
        name_index: at.u32(),
        job_version: at.u64(),
        job_create_index: at.u64(),
        node: at.u32(),
        deployment: at.option(Cursor::string),
        previous_allocation: at.option(Cursor::string),
        next_allocation: at.option(Cursor::string),
        create_index: at.u64(),
        fingerprint: Fingerprint {
            destructive: at.u64(),
            in_place: at.u64(),
        },
        placement_score: at.option(Cursor::f64),
    }
}

#[inline(always)]
fn observed(at: &mut Cursor) -> ObservedState {
    ObservedState {
        desired_status: match at.case(3) {
            0 => DesiredStatus::Run,
            1 => DesiredStatus::Stop,
            _ => DesiredStatus::Evict,
        },
        client_status: at.client_status(),
        desired_transition: at.option(|at| DesiredTransition {
            migrate: at.bool(),
            reschedule: at.bool(),
            force_reschedule: at.bool(),
            migrate_disable_placement: at.bool(),
        }),
        health: at.option(|at| DeploymentHealth {
            healthy: at.option(Cursor::bool),
            canary: at.bool(),
            changed_at: at.option(Cursor::s64),
        }),
        reschedule: at.option(|at| RescheduleTracker {
            events: at.list(2, |at| RescheduleEvent {
                at: at.s64(),
                delay: at.s64(),
            }),
            last_failed: at.bool(),
        }),
        followup_eval: at.option(Cursor::string),
        client_states: at.option(|at| {
            at.list(2, |at| ClientStateChange {
                status: at.option(Cursor::client_status),
                at: at.s64(),
            })
        }),
        tasks: at.option(|at| at.list(7, task)),
        modify_time: at.s64(),
        meta: at.option(|at| at.list(2, pair)),
    }
}

fn task(at: &mut Cursor) -> TaskState {
    TaskState {
        name: at.string(),
        state: match at.case(3) {
            0 => TaskLifecycle::Pending,
            1 => TaskLifecycle::Running,
            _ => TaskLifecycle::Dead,
        },
        failed: at.bool(),
        started_at: at.option(Cursor::s64),
        finished_at: at.option(Cursor::s64),
        restarts: at.u32(),
        last_restart: at.option(Cursor::s64),
    }
}
