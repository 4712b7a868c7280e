//! A reconcile driven question by question: the rulings given so far are replayed on every step, so the reconciler keeps no suspended state.

use crate::hooks::Hooks;
use crate::plugin::{Hook, PromotionRequest, SlotProposal, SlotView};
use crate::reconcile::{reconcile_step, StepError};
use crate::{
    InputError, PostSlotRuling, PreSlotRuling, Progress, PromotionRuling, Question, ReconcileInput,
    RulingError, Rulings,
};

/// One reconcile, asked and answered one question at a time.
pub struct Session {
    input: ReconcileInput,
    hooks: Vec<Hook>,
    answered: Vec<Rulings>,
    /// The kind of the question last asked and not yet answered.
    asked: Option<Hook>,
}

impl Session {
    /// Starts a reconcile of `input` that asks only at `hooks`.
    ///
    /// # Errors
    /// When the input is inconsistent; the error names the offending field.
    pub fn open(input: ReconcileInput, hooks: Vec<Hook>) -> Result<Self, InputError> {
        crate::validation::check(&input)?;
        Ok(Self {
            input,
            hooks,
            answered: Vec::new(),
            asked: None,
        })
    }

    /// Takes the rulings on the last question (none the first time), and
    /// returns the next question or the plan.
    ///
    /// # Errors
    /// When the rulings answer another kind of question than the one asked,
    /// when none are given to a question, or when a ruling cannot be applied.
    pub fn next(&mut self, rulings: Option<Rulings>) -> Result<Progress, RulingError> {
        match (self.asked, rulings) {
            (None, None) => {}
            (None, Some(_)) => return Err(session_error("rulings given, but nothing was asked")),
            (Some(hook), None) => {
                return Err(session_error(&format!(
                    "the {} question awaits its rulings",
                    hook_name(hook)
                )))
            }
            (Some(hook), Some(rulings)) => {
                if rulings_hook(&rulings) != hook {
                    return Err(session_error(&format!(
                        "{} rulings given to the {} question",
                        hook_name(rulings_hook(&rulings)),
                        hook_name(hook)
                    )));
                }
                self.answered.push(rulings);
            }
        }
        let mut replay = Replay {
            hooks: &self.hooks,
            answered: &mut self.answered.iter(),
        };
        let progress = reconcile_step(&self.input, &mut replay).map_err(|e| match e {
            StepError::Ruling(e) => e,
            // The input was checked when the session opened.
            StepError::Input(e) => session_error(&format!("{}: {}", e.field, e.message)),
        })?;
        self.asked = match &progress {
            Progress::Ask(Question::Promotion(_)) => Some(Hook::Promotion),
            Progress::Ask(Question::PreSlot(_)) => Some(Hook::PreSlot),
            Progress::Ask(Question::PostSlot(_)) => Some(Hook::PostSlot),
            Progress::Done(_) => None,
        };
        Ok(progress)
    }
}

/// Hooks that give back the rulings already given, in order, and suspend at
/// the first question past them.
struct Replay<'s, I> {
    hooks: &'s [Hook],
    answered: &'s mut I,
}

impl<'s, I: Iterator<Item = &'s Rulings>> Hooks for Replay<'s, I> {
    fn asks(&self, hook: Hook) -> bool {
        self.hooks.contains(&hook)
    }

    fn promotion(&mut self, _: &[PromotionRequest]) -> Option<Vec<PromotionRuling>> {
        match self.answered.next()? {
            Rulings::Promotion(r) => Some(r.clone()),
            // The kind of every ruling was checked against its question.
            _ => Some(Vec::new()),
        }
    }

    fn pre_slot(&mut self, _: &[SlotView]) -> Option<Vec<PreSlotRuling>> {
        match self.answered.next()? {
            Rulings::PreSlot(r) => Some(r.clone()),
            _ => Some(Vec::new()),
        }
    }

    fn post_slot(&mut self, _: &[SlotProposal]) -> Option<Vec<PostSlotRuling>> {
        match self.answered.next()? {
            Rulings::PostSlot(r) => Some(r.clone()),
            _ => Some(Vec::new()),
        }
    }
}

fn rulings_hook(rulings: &Rulings) -> Hook {
    match rulings {
        Rulings::Promotion(_) => Hook::Promotion,
        Rulings::PreSlot(_) => Hook::PreSlot,
        Rulings::PostSlot(_) => Hook::PostSlot,
    }
}

/// A hook's name, as in the WIT.
pub(crate) fn hook_name(hook: Hook) -> &'static str {
    match hook {
        Hook::PreSlot => "pre-slot",
        Hook::PostSlot => "post-slot",
        Hook::Promotion => "promotion",
    }
}

/// An error in how the session is driven, rather than in one ruling.
fn session_error(message: &str) -> RulingError {
    RulingError {
        by: String::new(),
        group: String::new(),
        slot: None,
        message: message.to_string(),
    }
}
