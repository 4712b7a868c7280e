//! The points where a policy may have a say in a reconcile, and the questions asked at each.
//!
//! A reconcile asks one batch per hook point: the promotion question once per
//! job, then for each group the pre-slot question (every slot, before it is
//! decided) and the post-slot question (every slot with changes proposed).
//! Policies propose; the reconciler applies a ruling only when it keeps the
//! reconciler's own invariants, and reports what it refused.

use crate::plugin::{
    Hook, PostSlotDecision, PreSlotDecision, PromotionRequest, SlotProposal, SlotView,
};
use crate::{PostSlotRuling, PreSlotRuling, PromotionRuling};

/// The policy a reconcile consults. A hook is consulted only when
/// [`Hooks::asks`] says so; its answer is `None` when not known yet, which
/// suspends the reconcile (see [`crate::reconcile_step`]).
pub trait Hooks {
    /// Whether the policy wants a say at `hook`.
    fn asks(&self, hook: Hook) -> bool;

    /// One ruling per request, in order.
    fn promotion(&mut self, requests: &[PromotionRequest]) -> Option<Vec<PromotionRuling>> {
        Some(requests.iter().map(|_| no_promotion_ruling()).collect())
    }

    /// One ruling per slot, in order.
    fn pre_slot(&mut self, slots: &[SlotView]) -> Option<Vec<PreSlotRuling>> {
        Some(slots.iter().map(|_| proceed()).collect())
    }

    /// One ruling per proposal, in order.
    fn post_slot(&mut self, proposals: &[SlotProposal]) -> Option<Vec<PostSlotRuling>> {
        Some(proposals.iter().map(|_| accept()).collect())
    }
}

/// No policy: the reconciler decides alone, as Nomad's does.
pub struct NoHooks;

impl Hooks for NoHooks {
    fn asks(&self, _: Hook) -> bool {
        false
    }
}

/// A pre-slot ruling that lets the reconciler decide.
pub fn proceed() -> PreSlotRuling {
    PreSlotRuling {
        decision: PreSlotDecision::Proceed,
        by: String::new(),
        ext: Vec::new(),
    }
}

/// A post-slot ruling that accepts what is proposed.
pub fn accept() -> PostSlotRuling {
    PostSlotRuling {
        decision: PostSlotDecision::Accept,
        by: String::new(),
        ext: Vec::new(),
    }
}

/// A promotion ruling that leaves the deployment as it is.
pub fn no_promotion_ruling() -> PromotionRuling {
    PromotionRuling {
        decision: None,
        by: String::new(),
    }
}
