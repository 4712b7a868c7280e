//! A reconcile driven question by question: the replies given so far are replayed on every step, so the reconciler keeps no suspended state.

use crate::hooks::Hooks;
use crate::plugin::{Hook, PromotionRequest, SlotProposal, SlotView};
use crate::reconcile::{reconcile_step, StepError};
use crate::{
    Consulted, InputError, PostSlotReply, PreSlotReply, Progress, PromotionReply, Question,
    ReconcileInput, Replies, SessionError,
};

/// One reconcile, asked and answered one question at a time.
pub struct Session {
    input: ReconcileInput,
    consulted: Vec<Consulted>,
    replied: Vec<Replies>,
    /// The kind of the question last asked and not yet replied to.
    asked: Option<Hook>,
}

impl Session {
    /// Starts a reconcile of `input`, consulting `consulted` in this order.
    ///
    /// # Errors
    /// When the input is inconsistent, or two plugins share a name; the
    /// error names the offending field.
    pub fn open(input: ReconcileInput, consulted: Vec<Consulted>) -> Result<Self, InputError> {
        crate::validation::check(&input)?;
        for (i, c) in consulted.iter().enumerate() {
            if consulted[..i].iter().any(|d| d.name == c.name) {
                return Err(InputError {
                    field: format!("plugins[{i}].name"),
                    message: format!("two consulted plugins are named `{}`", c.name),
                });
            }
        }
        Ok(Self {
            input,
            consulted,
            replied: Vec::new(),
            asked: None,
        })
    }

    /// Takes the replies to the last question (none the first time), and
    /// returns the next question or the plan.
    ///
    /// # Errors
    /// When the replies answer another kind of question than the one asked,
    /// none are given to a question, or a plugin that does not fail open
    /// failed or answered something invalid.
    pub fn next(&mut self, replies: Option<Replies>) -> Result<Progress, SessionError> {
        match (self.asked, replies) {
            (None, None) => {}
            (None, Some(_)) => return Err(driving("replies given, but nothing was asked")),
            (Some(hook), None) => {
                return Err(driving(&format!(
                    "the {} question awaits its replies",
                    hook_name(hook)
                )))
            }
            (Some(hook), Some(replies)) => {
                let given = replies_hook(&replies);
                if given != hook {
                    return Err(driving(&format!(
                        "{} replies given to the {} question",
                        hook_name(given),
                        hook_name(hook)
                    )));
                }
                self.replied.push(replies);
            }
        }
        let mut replay = Replay {
            consulted: &self.consulted,
            replied: &mut self.replied.iter(),
        };
        let progress = reconcile_step(&self.input, &mut replay).map_err(|e| match e {
            StepError::Session(e) => e,
            // The input was checked when the session opened.
            StepError::Input(e) => driving(&format!("{}: {}", e.field, e.message)),
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

/// Hooks that give back the replies already given, in order, and suspend at
/// the first question past them.
struct Replay<'s, I> {
    consulted: &'s [Consulted],
    replied: &'s mut I,
}

impl<'s, I: Iterator<Item = &'s Replies>> Hooks for Replay<'s, I> {
    fn consulted(&self) -> &[Consulted] {
        self.consulted
    }

    fn promotion(&mut self, _: &[PromotionRequest]) -> Option<Vec<Vec<PromotionReply>>> {
        match self.replied.next()? {
            Replies::Promotion(r) => Some(r.clone()),
            // The kind of every batch was checked against its question.
            _ => Some(Vec::new()),
        }
    }

    fn pre_slot(&mut self, _: &[SlotView]) -> Option<Vec<Vec<PreSlotReply>>> {
        match self.replied.next()? {
            Replies::PreSlot(r) => Some(r.clone()),
            _ => Some(Vec::new()),
        }
    }

    fn post_slot(&mut self, _: &[SlotProposal]) -> Option<Vec<Vec<PostSlotReply>>> {
        match self.replied.next()? {
            Replies::PostSlot(r) => Some(r.clone()),
            _ => Some(Vec::new()),
        }
    }
}

fn replies_hook(replies: &Replies) -> Hook {
    match replies {
        Replies::Promotion(_) => Hook::Promotion,
        Replies::PreSlot(_) => Hook::PreSlot,
        Replies::PostSlot(_) => Hook::PostSlot,
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

/// An error in how the session is driven, rather than in a plugin's answer.
fn driving(message: &str) -> SessionError {
    SessionError {
        plugin: String::new(),
        group: String::new(),
        slot: None,
        message: message.to_string(),
    }
}
