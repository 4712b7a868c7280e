//! Short ways to write a plugin's answers.

use crate::{
    Deferral, PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision, Timestamp,
};

/// Decide the slot as the reconciler would; keep the slot's data as it is.
pub fn proceed() -> PreSlotAnswer {
    PreSlotAnswer {
        decision: PreSlotDecision::Proceed,
        ext: None,
    }
}

/// Leave the slot untouched this round.
pub fn hold(reason: impl Into<String>) -> PreSlotAnswer {
    PreSlotAnswer {
        decision: PreSlotDecision::Hold(reason.into()),
        ext: None,
    }
}

/// Apply the proposed changes; keep the slot's data as it is.
pub fn accept() -> PostSlotAnswer {
    PostSlotAnswer {
        decision: PostSlotDecision::Accept,
        ext: None,
    }
}

/// Apply none of the proposed changes.
pub fn veto(reason: impl Into<String>) -> PostSlotAnswer {
    PostSlotAnswer {
        decision: PostSlotDecision::Veto(reason.into()),
        ext: None,
    }
}

/// Apply none of the proposed changes now; look again at `until`, which
/// must be after the reconcile's `now`.
pub fn defer(until: Timestamp, reason: impl Into<String>) -> PostSlotAnswer {
    PostSlotAnswer {
        decision: PostSlotDecision::Defer(Deferral {
            until,
            reason: reason.into(),
        }),
        ext: None,
    }
}

/// Nanoseconds in a second, for arithmetic on timestamps.
pub const SECOND: i64 = 1_000_000_000;

/// Nanoseconds in a minute.
pub const MINUTE: i64 = 60 * SECOND;
