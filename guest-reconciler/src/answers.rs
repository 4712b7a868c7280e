//! Checking a plugin's raw answers against the batch they answer, before they are composed with others: their hook, count, order, what they name, and their size.

use crate::plugin::{
    Answers, Batch, Hook, PostSlotAnswer, PostSlotDecision, PreSlotAnswer, PreSlotDecision,
    PromotionAnswer, PromotionDecision, Span,
};
use crate::sentence::say;
use crate::views::{standing, Shown};

/// Text one answer on one item may hold; over it the answer is refused, so
/// that a plan stays readable and bounded.
pub(crate) const MAX_TEXT: usize = 16 << 10;

/// Slot data one answer may attach; it is carried in every plan after.
pub(crate) const MAX_EXT: usize = 4 << 10;

/// Why answers cannot be taken in.
pub(crate) struct Invalid {
    /// The slot at fault, by its position in the batch, when one is.
    pub(crate) slot: Option<usize>,
    pub(crate) message: String,
}

impl Invalid {
    fn of(message: String) -> Self {
        Self {
            slot: None,
            message,
        }
    }

    fn at(slot: usize, message: String) -> Self {
        Self {
            slot: Some(slot),
            message,
        }
    }
}

/// Answers that passed the checks, per item in the batch's order.
pub(crate) enum Checked {
    PreSlot(Vec<(PreSlotDecision, Option<Vec<u8>>)>),
    PostSlot(Vec<(PostSlotDecision, Option<Vec<u8>>)>),
    Promotion(Vec<PromotionDecision>),
    /// Vetoes: the position of the vetoed change's slot, and why.
    Review(Vec<(usize, String)>),
}

/// Checks `answers` against the batch `shown` describes.
///
/// # Errors
/// What is wrong, and the slot at fault when one is: answers of another
/// hook, of the wrong count, out of order, naming what the batch does not
/// hold, asking what only the reconciler may decide, or too large.
pub(crate) fn check(shown: &Shown, answers: Answers) -> Result<Checked, Invalid> {
    match (shown.hook, answers) {
        (Hook::PreSlot, Answers::PreSlot(list)) => {
            count(list.len(), shown.slots.len(), "slots")?;
            let mut out = Vec::with_capacity(list.len());
            for (at, a) in list.into_iter().enumerate() {
                order(a.slot, at, "slot")?;
                pre_slot(shown, at, &a.decision)?;
                size(at, pre_slot_text(&a.decision), a.ext.as_deref())?;
                out.push((a.decision, a.ext));
            }
            Ok(Checked::PreSlot(out))
        }
        (Hook::PostSlot, Answers::PostSlot(list)) => {
            count(list.len(), shown.slots.len(), "slots")?;
            let mut out = Vec::with_capacity(list.len());
            for (at, a) in list.into_iter().enumerate() {
                order(a.slot, at, "slot")?;
                let text = match &a.decision {
                    PostSlotDecision::Accept => 0,
                    PostSlotDecision::Veto(why) => why.len(),
                    PostSlotDecision::Defer(d) => {
                        if d.until <= shown.now {
                            return Err(Invalid::at(
                                at,
                                say!(
                                    "defers slot ",
                                    shown.slots[at].index,
                                    " of group ",
                                    shown.groups[shown.slots[at].group],
                                    " to ",
                                    d.until,
                                    ", which is not after now (",
                                    shown.now,
                                    ")"
                                ),
                            ));
                        }
                        d.reason.len()
                    }
                };
                size(at, text, a.ext.as_deref())?;
                out.push((a.decision, a.ext));
            }
            Ok(Checked::PostSlot(out))
        }
        (Hook::Promotion, Answers::Promotion(list)) => {
            count(list.len(), shown.groups.len(), "deployment groups")?;
            let mut out = Vec::with_capacity(list.len());
            for (at, a) in list.into_iter().enumerate() {
                order(a.group, at, "deployment group")?;
                let text = match &a.decision {
                    PromotionDecision::Promote(why)
                    | PromotionDecision::Wait(why)
                    | PromotionDecision::Fail(why) => why.len(),
                    PromotionDecision::Abstain => 0,
                };
                if text > MAX_TEXT {
                    return Err(Invalid::of(too_much_text(text)));
                }
                out.push(a.decision);
            }
            Ok(Checked::Promotion(out))
        }
        (Hook::Review, Answers::Review(vetoes)) => {
            let changes = shown.change_slots.len();
            if vetoes.len() > changes {
                return Err(Invalid::of(say!(
                    "vetoes ",
                    vetoes.len(),
                    " changes, but the plan proposes ",
                    changes
                )));
            }
            let mut out = Vec::with_capacity(vetoes.len());
            for v in vetoes {
                let Some(&slot) = shown.change_slots.get(v.change as usize) else {
                    return Err(Invalid::of(say!(
                        "vetoes change ",
                        v.change,
                        ", but the plan proposes ",
                        changes
                    )));
                };
                if v.reason.len() > MAX_TEXT {
                    return Err(Invalid::at(slot as usize, too_much_text(v.reason.len())));
                }
                out.push((slot as usize, v.reason));
            }
            Ok(Checked::Review(out))
        }
        (hook, other) => Err(Invalid::of(say!(
            "answered a ",
            hook_name(hook),
            " batch with ",
            hook_name(answers_hook(&other)),
            " answers"
        ))),
    }
}

fn count(given: usize, due: usize, items: &str) -> Result<(), Invalid> {
    if given == due {
        return Ok(());
    }
    Err(Invalid::of(say!(
        "gave ",
        given,
        " answers for ",
        due,
        " ",
        items,
        "; one per item, in order, is due"
    )))
}

fn order(named: u32, at: usize, item: &str) -> Result<(), Invalid> {
    if named as usize == at {
        return Ok(());
    }
    Err(Invalid::at(
        at,
        say!(
            "answers ",
            item,
            " ",
            named,
            " where ",
            item,
            " ",
            at,
            " is due; answers follow the batch's order"
        ),
    ))
}

fn pre_slot(shown: &Shown, at: usize, decision: &PreSlotDecision) -> Result<(), Invalid> {
    let PreSlotDecision::Adjust(adjustment) = decision else {
        return Ok(());
    };
    let slot = &shown.slots[at];
    // By position in the slot's span, which is checked first: a list of the
    // positions seen, scanned per adjustment, was quadratic in a slot of
    // many candidates (80,000 adjusted in one slot: 1.2 s).
    let mut seen = vec![false; slot.candidates.count as usize];
    for a in &adjustment.candidates {
        if !within(slot.candidates, a.candidate) {
            return Err(Invalid::at(
                at,
                say!(
                    "adjusts candidate ",
                    a.candidate,
                    ", which is not a candidate of slot ",
                    slot.index,
                    " of group ",
                    shown.groups[slot.group]
                ),
            ));
        }
        let first = &mut seen[(a.candidate - slot.candidates.first) as usize];
        if std::mem::replace(first, true) {
            return Err(Invalid::at(
                at,
                say!("adjusts candidate ", a.candidate, " twice"),
            ));
        }
        if let Some(class) = a.reclassify {
            if standing(class).is_none() {
                return Err(Invalid::at(
                    at,
                    say!(
                        "reclassifies candidate ",
                        a.candidate,
                        " as ",
                        crate::views::class_name(class),
                        ", which only the reconciler can decide"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn within(span: Span, position: u32) -> bool {
    position >= span.first && position - span.first < span.count
}

fn pre_slot_text(decision: &PreSlotDecision) -> usize {
    match decision {
        PreSlotDecision::Proceed => 0,
        PreSlotDecision::Hold(why) => why.len(),
        PreSlotDecision::Adjust(a) => a.reason.len(),
    }
}

fn size(at: usize, text: usize, ext: Option<&[u8]>) -> Result<(), Invalid> {
    if text > MAX_TEXT {
        return Err(Invalid::at(at, too_much_text(text)));
    }
    match ext.map(<[u8]>::len) {
        Some(n) if n > MAX_EXT => Err(Invalid::at(
            at,
            say!(
                "attached ",
                crate::phrasing::digits(n as u64),
                " bytes of slot data, more than the limit of ",
                crate::phrasing::bytes(MAX_EXT as u64),
                " per answer"
            ),
        )),
        _ => Ok(()),
    }
}

fn too_much_text(text: usize) -> String {
    say!(
        "answered ",
        crate::phrasing::digits(text as u64),
        " bytes of text, more than the limit of ",
        crate::phrasing::bytes(MAX_TEXT as u64),
        " per answer"
    )
}

fn answers_hook(answers: &Answers) -> Hook {
    match answers {
        Answers::PreSlot(_) => Hook::PreSlot,
        Answers::PostSlot(_) => Hook::PostSlot,
        Answers::Promotion(_) => Hook::Promotion,
        Answers::Review(_) => Hook::Review,
    }
}

/// The answers that leave every decision to the reconciler: proceed,
/// accept, abstain, no veto. What a plugin with nothing to say answers; a
/// baseline for hosts and tests.
pub fn neutral(batch: &Batch) -> Answers {
    let count = |n: usize| 0..n as u32;
    // The groups' spans cover every slot, typed or packed.
    let slots =
        |b: &crate::plugin::SlotBatch| 0..b.groups.iter().map(|g| g.slots.count).sum::<u32>();
    match batch {
        Batch::PreSlot(b) => Answers::PreSlot(
            slots(b)
                .map(|slot| PreSlotAnswer {
                    slot,
                    decision: PreSlotDecision::Proceed,
                    ext: None,
                })
                .collect(),
        ),
        Batch::PostSlot(b) => Answers::PostSlot(
            slots(b)
                .map(|slot| PostSlotAnswer {
                    slot,
                    decision: PostSlotDecision::Accept,
                    ext: None,
                })
                .collect(),
        ),
        Batch::Promotion(b) => Answers::Promotion(
            count(b.groups.len())
                .map(|group| PromotionAnswer {
                    group,
                    decision: PromotionDecision::Abstain,
                })
                .collect(),
        ),
        Batch::Review(_) => Answers::Review(Vec::new()),
    }
}

/// A hook's name, as the WIT spells it.
pub(crate) fn hook_name(hook: Hook) -> &'static str {
    match hook {
        Hook::PreSlot => "pre-slot",
        Hook::PostSlot => "post-slot",
        Hook::Promotion => "promotion",
        Hook::Review => "review",
    }
}
