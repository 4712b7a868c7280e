//! The points where a policy may have a say in a reconcile, and the questions asked at each.
//!
//! Policies propose; the reconciler applies a proposal only when its own
//! guards allow it, and reports the proposals it refused.

use crate::{ClientStatus, Timestamp};

/// A canary of a deployment group awaiting promotion.
#[derive(Clone, Debug, PartialEq)]
pub struct Canary {
    /// The allocation.
    pub allocation: String,
    /// Healthy, unhealthy, or not yet decided.
    pub healthy: Option<bool>,
    /// When its health was last decided.
    pub healthy_since: Option<Timestamp>,
    /// What its client reports.
    pub client_status: ClientStatus,
}

/// A deployment group whose canaries await promotion.
#[derive(Clone, Debug, PartialEq)]
pub struct PromotionRequest {
    /// The deployment.
    pub deployment: String,
    /// The group.
    pub group: String,
    /// How many canaries the group wants.
    pub desired_canaries: u32,
    /// The canaries placed so far that are still running or starting.
    pub canaries: Vec<Canary>,
    /// The time of the reconcile.
    pub now: Timestamp,
}

/// What a policy proposes for canaries awaiting promotion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromotionVerdict {
    /// Promote them, for the given reason.
    Promote(String),
    /// Keep waiting, for the given reason.
    Wait(String),
    /// Fail the deployment, for the given reason.
    Fail(String),
}

/// The policy a reconcile consults. Every hook has a default that leaves the
/// decision to the reconciler, which is what [`crate::reconcile`] uses.
pub trait Hooks {
    /// Asked once per deployment group whose canaries await promotion.
    /// `None` leaves the group as the deployment says (Nomad's behaviour:
    /// only an operator or the deployment watcher promotes).
    fn promotion(&mut self, request: &PromotionRequest) -> Option<PromotionVerdict> {
        let _ = request;
        None
    }
}

/// No policy: the reconciler decides alone.
pub struct NoHooks;

impl Hooks for NoHooks {}
