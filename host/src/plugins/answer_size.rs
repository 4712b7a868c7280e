//! How much a plugin may say in one answer: its texts and slot data are bounded, so that the replies to thousands of slots fit in the host's memory and in the plan.

use super::sandbox::{bytes, group_digits};
use crate::plugin_wit::types::{
    PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision, PromotionDecision,
};

/// Text an answer may hold: its reason and the allocations it names. A
/// plugin's memory limit bounds one answer, not the sum over a group's
/// slots, which the host holds until the reconciler takes them.
pub const MAX_TEXT: usize = 16 << 10;

/// Slot data an answer may attach; it is carried in every plan after.
pub const MAX_EXT: usize = 4 << 10;

/// Whether a pre-slot answer is within bounds.
///
/// # Errors
/// What is too large.
pub fn pre_slot(answer: &PreSlotAnswer) -> Result<(), String> {
    let text = match &answer.decision {
        PreSlotDecision::Proceed => 0,
        PreSlotDecision::Hold(reason) => reason.len(),
        PreSlotDecision::Adjust(a) => {
            let names: usize = a.candidates.iter().map(|c| c.allocation.len()).sum();
            a.reason.len() + names
        }
    };
    within(text, answer.ext.as_deref())
}

/// Whether a post-slot answer is within bounds.
///
/// # Errors
/// What is too large.
pub fn post_slot(answer: &PostSlotAnswer) -> Result<(), String> {
    let text = match &answer.decision {
        PostSlotDecision::Accept => 0,
        PostSlotDecision::Veto(reason) => reason.len(),
        PostSlotDecision::Defer(d) => d.reason.len(),
    };
    within(text, answer.ext.as_deref())
}

/// Whether a promotion answer is within bounds.
///
/// # Errors
/// What is too large.
pub fn promotion(answer: &PromotionDecision) -> Result<(), String> {
    let (PromotionDecision::Promote(reason)
    | PromotionDecision::Wait(reason)
    | PromotionDecision::Fail(reason)) = answer;
    within(reason.len(), None)
}

fn within(text: usize, ext: Option<&[u8]>) -> Result<(), String> {
    if text > MAX_TEXT {
        return Err(format!(
            "answered {} bytes of text, more than the limit of {} per answer",
            group_digits(text as u64),
            bytes(MAX_TEXT as u64)
        ));
    }
    match ext.map(<[u8]>::len) {
        Some(n) if n > MAX_EXT => Err(format!(
            "attached {} bytes of slot data, more than the limit of {} per answer",
            group_digits(n as u64),
            bytes(MAX_EXT as u64)
        )),
        _ => Ok(()),
    }
}
