//! Reads an encoded outcome with the plan's lists of changes and of step reports taken field by field rather than through serde: what a host decodes after every reconcile.
//!
//! The step reports are most of a small plan (26 of them, 2.2 of 2.6 µs
//! through serde for a count-10 group), the stops and placements most of a
//! large one. Everything else (follow-up evaluations, slot
//! reports, the deployment and what plugins did) is read by postcard in
//! between. Field order is WIT order, as in every other reader of the format.

use super::cursor::Cursor;
use crate::{
    AllocationUpdate, DesiredUpdates, DestructiveUpdate, GroupPlan, InputError, Placement, Plan,
    Reason, StepReport, StepStatus, Stop,
};

/// Fewer bytes than any encoded change takes: an empty id or flags, a name
/// index, a reason and an empty message.
const MIN_CHANGE_BYTES: usize = 4;

/// Fewer bytes than any encoded step report takes.
const MIN_STEP_BYTES: usize = 4;

/// The outcome in `body`, or `None` when anything in it is not as
/// expected: the caller then reads it with postcard alone, which says what
/// is wrong.
pub(super) fn outcome(body: &[u8]) -> Option<Result<Plan, InputError>> {
    let mut at = Cursor::new(body);
    let outcome = match at.case(2) {
        0 => Ok(plan(&mut at)?),
        _ => Err(at.postcard()?),
    };
    (at.ok() && at.remaining() == 0).then_some(outcome)
}

fn plan(at: &mut Cursor) -> Option<Plan> {
    let groups = at.list(2, group);
    Some(Plan {
        groups,
        deployment: at.postcard()?,
        deployment_updates: at.postcard()?,
        promotions: at.postcard()?,
        policy_actions: at.postcard()?,
        plugin_failures: at.postcard()?,
        steps: at.list(MIN_STEP_BYTES, step),
        ext: at.postcard()?,
        plugin_logs: at.postcard()?,
    })
}

/// A group's plan; a part that could not be read leaves a placeholder,
/// with the cursor failed, so that the whole outcome is read again.
fn group(at: &mut Cursor) -> GroupPlan {
    GroupPlan {
        group: at.string(),
        counters: counters(at),
        placements: at.list(MIN_CHANGE_BYTES, placement),
        stops: at.list(MIN_CHANGE_BYTES, stop),
        in_place_updates: at.list(MIN_CHANGE_BYTES, update),
        destructive_updates: at.list(MIN_CHANGE_BYTES, destructive),
        attribute_updates: at.list(MIN_CHANGE_BYTES, update),
        disconnect_updates: at.list(MIN_CHANGE_BYTES, update),
        reconnect_updates: at.list(MIN_CHANGE_BYTES, update),
        followup_evals: at.postcard().unwrap_or_default(),
        slots: at.postcard().unwrap_or_default(),
    }
}

fn counters(at: &mut Cursor) -> DesiredUpdates {
    DesiredUpdates {
        ignore: at.u32(),
        place: at.u32(),
        migrate: at.u32(),
        stop: at.u32(),
        in_place: at.u32(),
        destructive: at.u32(),
        canary: at.u32(),
        reschedule_now: at.u32(),
        reschedule_later: at.u32(),
        disconnect: at.u32(),
        reconnect: at.u32(),
    }
}

fn placement(at: &mut Cursor) -> Placement {
    Placement {
        name_index: at.u32(),
        canary: at.bool(),
        previous_allocation: at.option(Cursor::string),
        reschedule: at.bool(),
        previous_lost: at.bool(),
        downgrade_non_canary: at.bool(),
        min_job_version: at.u64(),
        reason: reason(at),
        message: at.string(),
        node: at.option(Cursor::u32),
    }
}

fn stop(at: &mut Cursor) -> Stop {
    Stop {
        allocation: at.string(),
        name_index: at.u32(),
        client_status: at.option(Cursor::client_status),
        followup_eval: at.option(Cursor::string),
        reason: reason(at),
        message: at.string(),
    }
}

fn update(at: &mut Cursor) -> AllocationUpdate {
    AllocationUpdate {
        allocation: at.string(),
        name_index: at.u32(),
        followup_eval: at.option(Cursor::string),
        reason: reason(at),
        message: at.string(),
    }
}

fn destructive(at: &mut Cursor) -> DestructiveUpdate {
    DestructiveUpdate {
        allocation: at.string(),
        name_index: at.u32(),
        reason: reason(at),
        message: at.string(),
    }
}

fn step(at: &mut Cursor) -> StepReport {
    StepReport {
        step: at.string(),
        group: at.option(Cursor::string),
        status: match at.case(3) {
            0 => StepStatus::Done,
            1 => StepStatus::Skipped,
            _ => StepStatus::Waiting,
        },
        message: at.string(),
    }
}

/// A reason, read by postcard: its cases are many, and a table of them here
/// would be a second list to keep in the WIT's order.
fn reason(at: &mut Cursor) -> Reason {
    at.postcard().unwrap_or(Reason::FillSlot)
}

#[cfg(test)]
mod tests {
    use super::super::sample_outcomes::{outcomes, Outcome};
    use super::outcome;

    /// The encoded value alone, as the reader gets it after the header.
    fn body(outcome: &Outcome) -> Vec<u8> {
        postcard::to_allocvec(outcome).expect("a plan encodes")
    }

    /// What the reader takes, serde takes whole and alike (compared as
    /// bytes: a score may be NaN). It may refuse more, which only costs
    /// reading again with serde; it may not accept more.
    fn no_looser_than_serde(bytes: &[u8]) {
        if let Some(ours) = outcome(bytes) {
            let serde = postcard::from_bytes::<Outcome>(bytes);
            assert_eq!(serde.as_ref().map(body), Ok(body(&ours)), "{bytes:?}");
        }
    }

    #[test]
    fn the_plan_reader_reads_every_outcome_as_serde_wrote_it() {
        for written in outcomes() {
            assert_eq!(outcome(&body(&written)), Some(written));
        }
    }

    #[test]
    fn every_cut_and_every_changed_byte_of_an_outcome_is_read_as_serde_reads_it_or_left_to_serde() {
        for written in outcomes() {
            let bytes = body(&written);
            for cut in 0..bytes.len() {
                assert_eq!(outcome(&bytes[..cut]), None, "a cut at {cut} was taken");
            }
            for at in 0..bytes.len() {
                for value in [0x00, 0x01, 0x02, 0x03, 0x0f, 0x10, 0x7f, 0x80, 0xff] {
                    let mut changed = bytes.clone();
                    changed[at] = value;
                    no_looser_than_serde(&changed);
                }
            }
        }
    }
}
