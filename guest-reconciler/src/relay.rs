//! The convenience driver of a session for Rust hosts: a relay answers each question, and the driver hands the replies back until the plan.

use crate::plugin::{Batch, Hook, Kept};
use crate::{Consulted, InputError, Plan, Progress, ReconcileInput, Reply, Session, SessionError};

/// A question as a relay gets it: the session's question, its batch found
/// (the question's own, or the one before's that the driver kept).
#[derive(Clone, Copy, Debug)]
pub struct Asked<'q> {
    /// The plugin: its position among those consulted.
    pub plugin: u32,
    /// The hook; a relay needs it only to keep accounts per hook.
    pub hook: Hook,
    /// How many items the batch asks about: slots, or deployment groups.
    pub items: u32,
    pub batch: &'q Batch,
    /// The bytes the plugin kept for the batch's slots.
    pub kept: &'q [Kept],
}

/// A host's side of a session: it calls the plugins a session names. It
/// decides nothing: what a reply means is the session's business, and it
/// knows no hook by name, so a new hook changes no relay.
pub trait Relay {
    /// The reply of the plugin `asked` names to its batch.
    fn answer(&mut self, asked: Asked) -> Reply;
}

/// Why a reconcile that consults plugins ended without a plan.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// The input is inconsistent.
    Input(InputError),
    /// A plugin that fails closed failed, or the session was driven wrongly.
    Session(SessionError),
}

/// Reconciles `input`, consulting `plugins` through `relay`.
///
/// # Errors
/// As [`Session::open`] and [`Session::next`].
pub fn reconcile_with(
    input: ReconcileInput,
    plugins: Vec<Consulted>,
    relay: &mut dyn Relay,
) -> Result<Plan, Refusal> {
    let mut session = Session::open(input, plugins).map_err(Refusal::Input)?;
    let mut last: Option<Batch> = None;
    let mut reply = None;
    loop {
        match session.next(reply.take()).map_err(Refusal::Session)? {
            Progress::Done(plan) => return Ok(plan),
            Progress::Ask(question) => {
                if let Some(batch) = question.batch {
                    last = Some(batch);
                }
                let Some(batch) = last.as_ref() else {
                    return Err(Refusal::Session(SessionError {
                        plugin: String::new(),
                        group: String::new(),
                        slot: None,
                        message: "the first question carried no batch".into(),
                    }));
                };
                reply = Some(relay.answer(Asked {
                    plugin: question.plugin,
                    hook: question.hook,
                    items: question.items,
                    batch,
                    kept: &question.kept,
                }));
            }
        }
    }
}
