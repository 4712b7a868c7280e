//! Which proposed changes disrupt: those that take down an allocation that is still serving.

use slotwise_plugin::{Candidate, Change, ChangeKind, Classification, ClientStatus, SlotRef};

/// The changes proposed for `slot` that take down a serving allocation, in
/// proposal order.
///
/// Only stops, migrations and destructive updates end an allocation.
/// Placements add capacity, in-place updates keep the allocation running,
/// and disconnect, reconnect and follow-ups record what the cluster already
/// did. Ending an allocation that no longer serves (failed, complete, or
/// lost with its node) is clean-up: holding it back would only hold up its
/// replacement.
pub fn disruptive<'b>(slot: SlotRef<'b>) -> Vec<&'b Change> {
    slot.changes()
        .filter(|change| ends_an_allocation(change.kind))
        // A change about an allocation the slot does not list cannot be
        // judged; counting it errs on the side of caution.
        .filter(|change| slot.candidate_of(change).is_none_or(serving))
        .collect()
}

fn ends_an_allocation(kind: ChangeKind) -> bool {
    matches!(
        kind,
        ChangeKind::Stop | ChangeKind::Migrate | ChangeKind::DestructiveUpdate
    )
}

fn serving(candidate: &Candidate) -> bool {
    matches!(
        candidate.client_status,
        ClientStatus::Running | ClientStatus::Pending
    ) && !matches!(
        candidate.classification,
        Classification::Lost | Classification::Expiring
    )
}

/// How a change of `slot` reads in a reason: `destructive update of web-3`.
pub fn describe(slot: SlotRef, change: &Change) -> String {
    let kind = match change.kind {
        ChangeKind::Stop => "stop",
        ChangeKind::Migrate => "migration",
        ChangeKind::DestructiveUpdate => "destructive update",
        ChangeKind::Place => "placement",
        ChangeKind::InPlaceUpdate => "in-place update",
        ChangeKind::Disconnect => "disconnect",
        ChangeKind::Reconnect => "reconnect",
        ChangeKind::AttachFollowup => "follow-up",
    };
    match slot
        .candidate_of(change)
        .and_then(|c| c.allocation.as_deref())
    {
        Some(id) => format!("{kind} of {id}"),
        None => kind.to_string(),
    }
}
