//! A plugin on every hook that leaves every decision to the reconciler: what remains is the cost of asking.

use slotwise_plugin::{Plugin, PromotionDecision, PromotionRequest};

#[derive(Default)]
struct Probe;

impl Plugin for Probe {
    const NAME: &'static str = "probe";
    const VERSION: &'static str = "0.1.0";
    const DESCRIPTION: &'static str = "Changes nothing; measures what a hook call costs.";

    fn promotion(&mut self, request: &PromotionRequest) -> PromotionDecision {
        PromotionDecision::Wait(format!("probe has no opinion on {}", request.group))
    }
}

slotwise_plugin::export!(Probe);
