//! The contract's enums from the case indexes the wire stores them as: a case beyond the last reads as the last, as the readers have checked the range before.

use crate::{ClientStatus, DesiredStatus, UpdateKind};

pub(crate) fn desired_status(case: u8) -> DesiredStatus {
    match case {
        0 => DesiredStatus::Run,
        1 => DesiredStatus::Stop,
        _ => DesiredStatus::Evict,
    }
}

pub(crate) fn client_status(case: u8) -> ClientStatus {
    match case {
        0 => ClientStatus::Pending,
        1 => ClientStatus::Running,
        2 => ClientStatus::Complete,
        3 => ClientStatus::Failed,
        4 => ClientStatus::Lost,
        _ => ClientStatus::Unknown,
    }
}

/// An option of `update-kind` as a record's byte holds it: zero when
/// absent, else one more than the case.
pub(crate) fn update_kind(byte: u8) -> Option<UpdateKind> {
    match byte {
        0 => None,
        1 => Some(UpdateKind::Ignore),
        2 => Some(UpdateKind::InPlace),
        _ => Some(UpdateKind::Destructive),
    }
}
