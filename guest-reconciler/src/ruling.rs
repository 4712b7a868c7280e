//! Rulings: what the plugins decided at a hook point, composed and checked, in the pipeline's own terms, for the pipeline to apply.
//!
//! The pipeline pauses at a hook point and is resumed with rulings. It knows
//! nothing of plugins, batches or answers: whoever resumes it (the session)
//! turns those into rulings, and the pipeline applies them under its own
//! invariants.

use crate::candidate::Standing;
use crate::{PolicyAction, Timestamp, UpdateKind};

/// The hook points a run pauses at, because someone wants a say there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Wants {
    pub(crate) promotion: bool,
    pub(crate) pre_slot: bool,
    pub(crate) post_slot: bool,
    pub(crate) review: bool,
}

/// A decision and who it is by.
#[derive(Clone, Debug)]
pub(crate) struct Ruled<T> {
    pub(crate) by: String,
    pub(crate) decision: T,
}

/// The ruling on one item (a slot, a deployment group): the applied
/// decision, if any, and what monitoring plugins would have done, reported
/// after it.
#[derive(Clone, Debug)]
pub(crate) struct Ruling<T> {
    pub(crate) ruled: Option<Ruled<T>>,
    pub(crate) monitored: Vec<PolicyAction>,
}

impl<T> Default for Ruling<T> {
    fn default() -> Self {
        Self {
            ruled: None,
            monitored: Vec::new(),
        }
    }
}

/// Before a slot is decided.
#[derive(Clone, Debug)]
pub(crate) enum PreSlot {
    /// Keep the slot as it is, for this reason.
    Hold(String),
    /// Change candidates of the slot, for this reason.
    Adjust {
        reason: String,
        candidates: Vec<Adjusted>,
    },
}

/// One candidate's adjustment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Adjusted {
    /// The candidate's position in its group's candidates.
    pub(crate) candidate: usize,
    pub(crate) standing: Option<Standing>,
    pub(crate) update: Option<UpdateKind>,
}

/// After a slot's changes are proposed.
#[derive(Clone, Debug)]
pub(crate) enum PostSlot {
    /// Apply none of them, for this reason.
    Veto(String),
    /// Apply none of them now; evaluate again at `until`.
    Defer { until: Timestamp, reason: String },
}

/// On a deployment group's canaries.
#[derive(Clone, Debug)]
pub(crate) enum Promotion {
    Promote(String),
    Wait(String),
    Fail(String),
}

/// A veto of a slot's changes at review.
#[derive(Clone, Debug)]
pub(crate) struct ReviewVeto {
    /// The group's position among the groups reviewed.
    pub(crate) group: usize,
    /// The slot, as its group names it (see `slot_hooks`).
    pub(crate) slot: u32,
    pub(crate) by: String,
    pub(crate) reason: String,
    /// Whether it applies: false for a monitoring plugin's.
    pub(crate) applied: bool,
}

/// Rulings for the hook point a run paused at, one per item in the order
/// the items were shown.
pub(crate) enum Rulings {
    Promotion(Vec<Ruling<Promotion>>),
    PreSlot(Vec<Ruling<PreSlot>>),
    PostSlot(Vec<Ruling<PostSlot>>),
    Review(Vec<ReviewVeto>),
}

/// A hook point a run can pause at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Point {
    Promotion,
    PreSlot,
    PostSlot,
    Review,
}

impl Point {
    /// The hook point of the step named `step`, if it is one.
    pub(crate) fn of_step(step: &str) -> Option<Self> {
        match step {
            "promotion" => Some(Point::Promotion),
            "pre-slot" => Some(Point::PreSlot),
            "post-slot" => Some(Point::PostSlot),
            "review" => Some(Point::Review),
            _ => None,
        }
    }
}
