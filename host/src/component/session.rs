//! Driving the component's sessions: reconciles that consult plugins, each question relayed to the plugin it names, the input and the plan crossing encoded or typed.

use super::{call_error, ComponentReconciler, HostError};
use crate::relay::Relay;
use crate::transcode::transcode;
use crate::wit;
use slotwise_reconciler as core;
use std::ops::ControlFlow;

impl ComponentReconciler {
    /// Runs one reconcile in a fresh instance, driving its session: each
    /// question goes to `relay`, which calls the plugin it names. The plan
    /// is the session's, whole, or absent: a failure of a plugin that fails
    /// closed ends the reconcile without one.
    ///
    /// # Errors
    /// When the component traps or fails, or the session ends on a plugin's
    /// failure; the next reconcile is unaffected.
    pub fn reconcile_with(
        &self,
        input: &wit::ReconcileInput,
        relay: &mut dyn Relay,
    ) -> Result<Result<wit::Plan, wit::InputError>, HostError> {
        relay.begin();
        let outcome = self.session(input, relay);
        relay.end();
        outcome
    }

    fn session(
        &self,
        input: &wit::ReconcileInput,
        relay: &mut dyn Relay,
    ) -> Result<Result<wit::Plan, wit::InputError>, HostError> {
        let mut store = self.store();
        let bindings = self.bindings.instantiate(&mut store).map_err(call_error)?;
        let session = bindings.slotwise_reconciler_session().session();
        let handle = match session
            .call_open(&mut store, input, &relay.consulted())
            .map_err(call_error)?
        {
            Ok(handle) => handle,
            Err(e) => return Ok(Err(e)),
        };
        let plan = relay_questions(relay, |reply| {
            Ok(
                match session
                    .call_next(&mut store, handle, reply)
                    .map_err(call_error)?
                    .map_err(|e| HostError::Session(Box::new(e)))?
                {
                    wit::Progress::Done(plan) => ControlFlow::Break(plan),
                    wit::Progress::Ask(question) => ControlFlow::Continue(question),
                },
            )
        })?;
        Ok(Ok(plan))
    }

    /// Runs one reconcile in a fresh instance, driving its session through
    /// `relay` as [`ComponentReconciler::reconcile_with`] does, on an
    /// encoded input (see [`core::wire`]), returning the encoded outcome:
    /// the input and the plan each cross the boundary as one copy. The
    /// input is dropped once the session has it, before any plugin is asked.
    ///
    /// # Errors
    /// As [`ComponentReconciler::reconcile_with`]; an unreadable input is an
    /// encoded input error, not an `Err`.
    pub fn reconcile_encoded_with(
        &self,
        input: Vec<u8>,
        relay: &mut dyn Relay,
    ) -> Result<Vec<u8>, HostError> {
        relay.begin();
        let outcome = self.session_encoded(input, relay);
        relay.end();
        outcome
    }

    fn session_encoded(&self, input: Vec<u8>, relay: &mut dyn Relay) -> Result<Vec<u8>, HostError> {
        let mut store = self.store();
        let bindings = self.bindings.instantiate(&mut store).map_err(call_error)?;
        let session = bindings.slotwise_reconciler_session().session();
        let opened = session
            .call_open_encoded(&mut store, &input, &relay.consulted())
            .map_err(call_error)?;
        drop(input);
        let handle = match opened {
            Ok(handle) => handle,
            Err(e) => {
                let refused: core::InputError = transcode(&e)?;
                return Ok(core::wire::encode_outcome(&Err(refused)));
            }
        };
        relay_questions(relay, |reply| {
            Ok(
                match session
                    .call_next_encoded(&mut store, handle, reply)
                    .map_err(call_error)?
                    .map_err(|e| HostError::Session(Box::new(e)))?
                {
                    wit::ProgressEncoded::Done(outcome) => ControlFlow::Break(outcome),
                    wit::ProgressEncoded::Ask(question) => ControlFlow::Continue(question),
                },
            )
        })
    }

    /// Runs one reconcile driving its session through `relay`, on the
    /// library's types: what hosts use by default. The input and the plan
    /// cross as one buffer each (`open-encoded`, `next-encoded`); batches
    /// and answers cross as the session's questions and replies, as in
    /// [`ComponentReconciler::reconcile_with`].
    ///
    /// # Errors
    /// As [`ComponentReconciler::reconcile_with`].
    pub fn reconcile_core_with(
        &self,
        input: &core::ReconcileInput,
        relay: &mut dyn Relay,
    ) -> Result<Result<core::Plan, core::InputError>, HostError> {
        let outcome = self.reconcile_encoded_with(core::wire::encode_input(input), relay)?;
        Ok(core::wire::decode_outcome(&outcome)?)
    }

    /// As [`ComponentReconciler::reconcile_core_with`], through the typed
    /// `open` and `next`, moving each value across field by field.
    ///
    /// # Errors
    /// As [`ComponentReconciler::reconcile_with`].
    pub fn reconcile_core_with_typed(
        &self,
        input: &core::ReconcileInput,
        relay: &mut dyn Relay,
    ) -> Result<Result<core::Plan, core::InputError>, HostError> {
        let input: wit::ReconcileInput = transcode(input)?;
        Ok(match self.reconcile_with(&input, relay)? {
            Ok(plan) => Ok(transcode(&plan)?),
            Err(error) => Err(transcode(&error)?),
        })
    }
}

/// Relays the questions `next` returns, each with the reply to the one
/// before, until it breaks with the session's plan. A question about the
/// batch of the one before carries none: the last is kept here.
fn relay_questions<D>(
    relay: &mut dyn Relay,
    mut next: impl FnMut(Option<&wit::Reply>) -> Result<ControlFlow<D, wit::Question>, HostError>,
) -> Result<D, HostError> {
    let mut batch = None;
    let mut reply = None;
    loop {
        let mut question = match next(reply.as_ref())? {
            ControlFlow::Continue(question) => question,
            ControlFlow::Break(done) => return Ok(done),
        };
        if question.batch.is_some() {
            batch = question.batch.take();
        }
        let Some(asked) = batch.as_ref() else {
            return Err(HostError::Call(
                "the first question carried no batch".into(),
            ));
        };
        reply = Some(relay.answer(&question, asked));
    }
}
