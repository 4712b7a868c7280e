//! Checking a plugin's answer against the item it is about, before it is composed with others.

use crate::plugin::{PostSlotDecision, PreSlotDecision, SlotProposal, SlotView};

/// Whether `decision` is one the reconciler can apply to `slot`.
///
/// # Errors
/// What is wrong: it names an allocation that is not a candidate of the
/// slot, adjusts one twice, or reclassifies into a class only the
/// reconciler can give.
pub(crate) fn check_pre_slot(slot: &SlotView, decision: &PreSlotDecision) -> Result<(), String> {
    let PreSlotDecision::Adjust(adjustment) = decision else {
        return Ok(());
    };
    let mut seen: Vec<&str> = Vec::new();
    for a in &adjustment.candidates {
        if !slot.candidates.iter().any(|c| c.allocation == a.allocation) {
            return Err(format!(
                "adjusts allocation `{}`, which is not a candidate of slot {} of group {}",
                a.allocation, slot.index, slot.group
            ));
        }
        if seen.contains(&a.allocation.as_str()) {
            return Err(format!("adjusts allocation `{}` twice", a.allocation));
        }
        seen.push(&a.allocation);
        if let Some(class) = a.reclassify {
            if crate::views::standing(class).is_none() {
                return Err(format!(
                    "reclassifies `{}` as {}, which only the reconciler can decide",
                    a.allocation,
                    crate::views::class_name(class)
                ));
            }
        }
    }
    Ok(())
}

/// Whether `decision` is one the reconciler can apply to `proposal`.
///
/// # Errors
/// What is wrong: a deferral to a time that is not after the reconcile's
/// `now`.
pub(crate) fn check_post_slot(
    proposal: &SlotProposal,
    decision: &PostSlotDecision,
) -> Result<(), String> {
    match decision {
        PostSlotDecision::Defer(d) if d.until <= proposal.slot.now => Err(format!(
            "defers slot {} of group {} to {}, which is not after now ({})",
            proposal.slot.index, proposal.slot.group, d.until, proposal.slot.now
        )),
        _ => Ok(()),
    }
}
