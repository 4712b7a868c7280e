//! What a reconcile consults at its hook points, as the host sees it: plugins that reply per item, for the reconciler to compose.

use crate::component::HostError;
use crate::plugin_wit::types::{Hook, PromotionRequest, SlotProposal, SlotView};
use crate::wit::{Consulted, Plan, PostSlotReply, PreSlotReply, PromotionReply, ReconcileInput};

/// The plugins a host consults while the reconciler decides: those of a
/// plugins file, or a scenario's scripted policy. Each question method
/// returns, per item in order, the replies of the plugins it asked; a plugin
/// that failed replies with what went wrong, and the reconciler decides,
/// from how the plugin fails, whether the reconcile goes on.
pub trait Policy {
    /// The plugins consulted, in order.
    fn consulted(&self) -> Vec<Consulted>;

    /// Starts a reconcile of `input`.
    fn begin(&mut self, input: &ReconcileInput);

    /// Replies on canaries awaiting promotion.
    ///
    /// # Errors
    /// When the host itself fails, not a plugin.
    fn promotion(
        &mut self,
        requests: &mut [PromotionRequest],
    ) -> Result<Vec<Vec<PromotionReply>>, HostError>;

    /// Replies on slots before they are decided.
    ///
    /// # Errors
    /// As [`Policy::promotion`].
    fn pre_slot(&mut self, slots: &mut [SlotView]) -> Result<Vec<Vec<PreSlotReply>>, HostError>;

    /// Replies on the changes proposed for slots.
    ///
    /// # Errors
    /// As [`Policy::promotion`].
    fn post_slot(
        &mut self,
        proposals: &mut [SlotProposal],
    ) -> Result<Vec<Vec<PostSlotReply>>, HostError>;

    /// Ends the reconcile; adds to `plan`, when there is one, what the host
    /// reports (plugin usage, plugins it could not load).
    fn finish(&mut self, plan: Option<&mut Plan>);
}

/// A hook's name, as in the WIT.
pub fn hook_name(hook: Hook) -> &'static str {
    match hook {
        Hook::PreSlot => "pre-slot",
        Hook::PostSlot => "post-slot",
        Hook::Promotion => "promotion",
    }
}
