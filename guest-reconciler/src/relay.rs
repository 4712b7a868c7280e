//! The convenience driver of a session for Rust hosts: a relay answers each question, and the driver hands the replies back until the plan.

use crate::plugin::Batch;
use crate::{
    Consulted, InputError, Plan, Progress, Question, ReconcileInput, Reply, Session, SessionError,
};

/// A host's side of a session: it calls the plugins a session names. It
/// decides nothing: what a reply means is the session's business, and it
/// never looks inside a batch, so a new hook changes no relay.
pub trait Relay {
    /// The reply of the plugin `question` names to `batch`: the question's
    /// own, or the one before's when the question carries none.
    fn answer(&mut self, question: &Question, batch: &Batch) -> Reply;
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
            Progress::Ask(mut question) => {
                if let Some(batch) = question.batch.take() {
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
                reply = Some(relay.answer(&question, batch));
            }
        }
    }
}
