//! The points where policy plugins have a say in a reconcile, and the questions asked at each.
//!
//! A reconcile asks one batch per hook point: the promotion question once per
//! job, then for each group the pre-slot question (every slot, before it is
//! decided) and the post-slot question (every slot with changes proposed).
//! Each consulted plugin that implements the hook replies per item; the
//! reconciler checks and composes the replies itself (see `composition`).

use crate::plugin::{Hook, PromotionRequest, SlotProposal, SlotView};
use crate::{Consulted, PostSlotReply, PreSlotReply, PromotionReply};

/// The plugins a reconcile consults, and their replies. A reply is `None`
/// while not known yet, which suspends the reconcile (see
/// [`crate::reconcile_step`]).
pub trait Hooks {
    /// The plugins consulted, in order.
    fn consulted(&self) -> &[Consulted];

    /// Whether some consulted plugin implements `hook`.
    fn asks(&self, hook: Hook) -> bool {
        self.consulted().iter().any(|c| c.hooks.contains(&hook))
    }

    /// Per request, in order, the replies of the plugins asked.
    fn promotion(&mut self, requests: &[PromotionRequest]) -> Option<Vec<Vec<PromotionReply>>> {
        Some(vec![Vec::new(); requests.len()])
    }

    /// Per slot, in order, the replies of the plugins asked.
    fn pre_slot(&mut self, slots: &[SlotView]) -> Option<Vec<Vec<PreSlotReply>>> {
        Some(vec![Vec::new(); slots.len()])
    }

    /// Per proposal, in order, the replies of the plugins asked.
    fn post_slot(&mut self, proposals: &[SlotProposal]) -> Option<Vec<Vec<PostSlotReply>>> {
        Some(vec![Vec::new(); proposals.len()])
    }
}

/// No plugin: the reconciler decides alone, as Nomad's does.
pub struct NoHooks;

impl Hooks for NoHooks {
    fn consulted(&self) -> &[Consulted] {
        &[]
    }
}
