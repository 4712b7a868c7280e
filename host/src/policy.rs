//! What a reconcile consults at its hook points, as the host sees it, and how it fails.

use crate::plugin_wit::types::{Hook, PromotionRequest, SlotProposal, SlotView};
use crate::wit::{Plan, PostSlotRuling, PreSlotRuling, PromotionRuling, ReconcileInput};

/// A policy the host consults while the reconciler decides: the plugins of a
/// plugins file, or a scenario's scripted policy. Each method answers one
/// question of the session, one ruling per item, in order.
pub trait Policy {
    /// The hooks at which the policy has a say.
    fn hooks(&self) -> Vec<Hook>;

    /// Starts a reconcile of `input`.
    fn begin(&mut self, input: &ReconcileInput);

    /// Rules on canaries awaiting promotion.
    ///
    /// # Errors
    /// When a plugin fails and its failure must stop the reconcile.
    fn promotion(
        &mut self,
        requests: &mut [PromotionRequest],
    ) -> Result<Vec<PromotionRuling>, PolicyError>;

    /// Rules on slots before they are decided.
    ///
    /// # Errors
    /// As [`Policy::promotion`].
    fn pre_slot(&mut self, slots: &mut [SlotView]) -> Result<Vec<PreSlotRuling>, PolicyError>;

    /// Rules on the changes proposed for slots.
    ///
    /// # Errors
    /// As [`Policy::promotion`].
    fn post_slot(
        &mut self,
        proposals: &mut [SlotProposal],
    ) -> Result<Vec<PostSlotRuling>, PolicyError>;

    /// Ends the reconcile; adds to `plan`, when there is one, what the policy
    /// reports (actions it only monitored, plugin usage, skipped failures).
    fn finish(&mut self, plan: Option<&mut Plan>);
}

/// A plugin failure that stops a reconcile: which plugin, where, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plugin {plugin} {version} failed at {hook}{}: {cause}", place(group.as_deref(), *slot))]
pub struct PolicyError {
    /// The plugin's name.
    pub plugin: String,
    /// Its version.
    pub version: String,
    /// The hook it was called at.
    pub hook: &'static str,
    /// The group it was asked about.
    pub group: Option<String>,
    /// The slot it was asked about.
    pub slot: Option<u32>,
    /// What went wrong.
    pub cause: String,
}

fn place(group: Option<&str>, slot: Option<u32>) -> String {
    match (group, slot) {
        (Some(g), Some(s)) => format!(" (group {g}, slot {s})"),
        (Some(g), None) => format!(" (group {g})"),
        _ => String::new(),
    }
}

/// A hook's name, as in the WIT.
pub fn hook_name(hook: Hook) -> &'static str {
    match hook {
        Hook::PreSlot => "pre-slot",
        Hook::PostSlot => "post-slot",
        Hook::Promotion => "promotion",
    }
}
