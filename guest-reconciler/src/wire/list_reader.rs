//! Reads an encoded input with its two large lists, nodes and allocations, taken field by field rather than through serde: the part of decoding that grows with the group.
//!
//! Everything else of the input (the job, the deployment, the evaluation,
//! slot extensions, system nodes) is read by postcard between the lists.
//! Field order is WIT order, as in every other reader of the format.

use super::cursor::Cursor;
use super::record_reader::{self, Fault, Placed};
use super::rest_reader;
use crate::cases::desired_status;
use crate::sentence::say;
use crate::validation::Noting;
use crate::{
    Allocation, AllocationSpec, DeploymentHealth, DesiredTransition, Fingerprint, GroupAllocations,
    Node, NodeStatus, ObservedState, ReconcileInput, UpdateKind,
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
    let (input, notes) = read(&mut at, group).0?;
    (at.ok() && at.remaining() == 0).then_some((input, notes))
}

/// The input in `body`, of content 3: its groups' allocations as checked
/// records, where they lie in `body`, rather than in the input.
pub(super) fn input_with_records<N: Noting>(
    body: &[u8],
) -> Result<(ReconcileInput, N, Vec<Placed>), Fault> {
    let mut at = Cursor::new(body);
    let mut placed = Vec::new();
    let mut fault = None;
    let (read, starts) = read(&mut at, |at, notes| {
        let group = at.string();
        match record_reader::group(at, notes) {
            Ok(p) => placed.push(p),
            Err(f) => {
                let g = placed.len();
                fault.get_or_insert(Fault {
                    path: say!("[3][", g, "][1]", f.path),
                    ..f
                });
                at.give_up();
            }
        }
        GroupAllocations {
            group,
            allocations: Vec::new(),
        }
    });
    if let Some(fault) = fault {
        return Err(fault);
    }
    match read {
        Some((input, notes)) if at.ok() && at.remaining() == 0 => Ok((input, notes, placed)),
        Some(_) if at.ok() => Err(Fault {
            path: String::new(),
            offset: at.position(),
            message: "bytes follow the encoded value",
        }),
        _ => {
            let offset = at.failed_at();
            // The last field reached while reading was sound is the one
            // that failed.
            let field = starts.iter().rposition(|&s| s > 0).unwrap_or(0);
            Err(Fault {
                path: say!("[", field, "]"),
                offset,
                message: "a malformed value: truncated, a length beyond the buffer, a case or \
                          tag out of range, or text that is not UTF-8",
            })
        }
    }
}

/// The fields of a `reconcile-input`.
const FIELDS: usize = 10;

/// Reads an input, its groups' allocations by `group`; with it, where each
/// field started, zero for those not reached while reading was sound.
#[allow(clippy::type_complexity, reason = "a private reader's two results")]
fn read<N: Noting>(
    at: &mut Cursor,
    mut group: impl FnMut(&mut Cursor, &mut N) -> GroupAllocations,
) -> (Option<(ReconcileInput, N)>, [usize; FIELDS]) {
    let mut starts = [0; FIELDS];
    let mut start = |at: &Cursor, field: usize| {
        if at.ok() {
            starts[field] = at.position();
        }
    };
    let job_id = at.string();
    start(at, 1);
    let job = at.postcard();
    start(at, 2);
    let nodes = at.list(MIN_NODE_BYTES, node);
    let mut notes = N::for_nodes(nodes.len());
    start(at, 3);
    let allocations = at.list(2, |at| group(at, &mut notes));
    start(at, 4);
    let deployment = at.postcard();
    start(at, 5);
    let eval = at.postcard();
    start(at, 6);
    let now = at.s64();
    start(at, 7);
    let explain = at.bool();
    start(at, 8);
    let ext = at.postcard();
    start(at, 9);
    let system = at.postcard();
    let input = match (job, deployment, eval, ext, system) {
        (Some(job), Some(deployment), Some(eval), Some(ext), Some(system)) => {
            Some(ReconcileInput {
                job_id,
                job,
                nodes,
                allocations,
                deployment,
                eval,
                now,
                explain,
                ext,
                system,
            })
        }
        _ => None,
    };
    (input.map(|input| (input, notes)), starts)
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
        meta: at.list(2, rest_reader::pair),
    }
}

fn group<N: Noting>(at: &mut Cursor, notes: &mut N) -> GroupAllocations {
    let group = at.string();
    let allocations = at.list_counted(MIN_ALLOCATION_BYTES, |n| {
        notes.reserve(n);
        |at: &mut Cursor| {
            let allocation = allocation(at);
            let spec = &allocation.spec;
            notes.note(&spec.id, spec.node, spec.name_index);
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
        desired_status: desired_status(at.case(3) as u8),
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
        reschedule: rest_reader::reschedule(at),
        followup_eval: at.option(Cursor::string),
        client_states: rest_reader::client_states(at),
        tasks: rest_reader::tasks(at),
        modify_time: at.s64(),
        meta: rest_reader::meta(at),
    }
}
