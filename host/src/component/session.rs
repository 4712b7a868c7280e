//! Driving the component's sessions: reconciles that consult plugins, each question relayed to the plugin it names, the input and the plan crossing encoded or typed, in a warm instance when one waits.
//!
//! A session in a warm instance keeps the replies it was given. If the
//! instance fails (a trap, or a memory limit reached only because of blocks
//! earlier reconciles left in its free lists), the session runs again in a
//! fresh one and is given those replies again, not the plugins' new ones: the
//! reconciler asks the same questions in the same order, so each plugin
//! answers each question once, and the plan is the one a fresh instance
//! would have made from the first.

use super::{call_error, ComponentReconciler, HostError};
use crate::plugin_wit::types::Hook;
use crate::relay::Relay;
use crate::transcode::transcode;
use crate::warm::{Budget, Warm};
use crate::wit;
use crate::wit::exports::slotwise::reconciler::session::GuestSession;
use slotwise_reconciler as core;
use std::ops::ControlFlow;
use wasmtime::component::ResourceAny;
use wasmtime::Store;

/// An encoded input at least this long runs its session in a fresh instance
/// and is dropped as soon as the session has it: keeping it for a second
/// run would hold it while every plugin answers. About 26,000 allocations
/// as records (40,000 in content 1); their reconcile needs more memory than
/// a warm instance may keep.
const LONGEST_WARM_INPUT: usize = 4 << 20;

impl ComponentReconciler {
    /// Runs one reconcile, driving its session: each question goes to
    /// `relay`, which calls the plugin it names. The plan is the session's,
    /// whole, or absent: a failure of a plugin that fails closed ends the
    /// reconcile without one.
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
        let calls = Calls {
            open: &mut |session, store, consulted, _| session.call_open(store, input, consulted),
            next: &|session, store, handle, reply| {
                Ok(session
                    .call_next(store, handle, reply)?
                    .map(|progress| match progress {
                        wit::Progress::Done(plan) => ControlFlow::Break(plan),
                        wit::Progress::Ask(question) => ControlFlow::Continue(question),
                    }))
            },
            // Borrowed: keeping it costs nothing.
            may_open_twice: true,
        };
        let outcome = self.session(calls, relay);
        relay.end();
        outcome
    }

    /// Runs one reconcile driving its session through `relay`, as
    /// [`ComponentReconciler::reconcile_with`] does, on an encoded input
    /// (see [`core::wire`]), returning the encoded outcome: the input and
    /// the plan each cross the boundary as one copy. A large input is
    /// dropped once the session has it, before any plugin is asked.
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
        let may_open_twice = input.len() < LONGEST_WARM_INPUT;
        let mut input = input;
        let calls = Calls {
            open: &mut |session, store, consulted, last| {
                let opened = session.call_open_encoded(store, &input, consulted);
                if last {
                    input = Vec::new();
                }
                opened
            },
            next: &|session, store, handle, reply| {
                Ok(session.call_next_encoded(store, handle, reply)?.map(
                    |progress| match progress {
                        wit::ProgressEncoded::Done(outcome) => ControlFlow::Break(outcome),
                        wit::ProgressEncoded::Ask(question) => ControlFlow::Continue(question),
                    },
                ))
            },
            may_open_twice,
        };
        let outcome = self.session(calls, relay).and_then(|o| match o {
            Ok(outcome) => Ok(outcome),
            Err(e) => {
                let refused: core::InputError = transcode(&e)?;
                Ok(core::wire::encode_outcome(&Err(refused)))
            }
        });
        relay.end();
        outcome
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
        let outcome =
            self.reconcile_encoded_with(core::wire::encode_input_records(input), relay)?;
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

    /// Runs the session in a warm instance if one waits and the input may
    /// be kept for a second run, else in a fresh one; a warm instance that
    /// fails is dropped and the session runs again in a fresh one, given
    /// the replies the first run got.
    fn session<D>(
        &self,
        mut calls: Calls<'_, D>,
        relay: &mut dyn Relay,
    ) -> Result<Result<D, wit::InputError>, HostError> {
        let mut replies = Replies::Live;
        if calls.may_open_twice {
            if let Some(warm) = self.warm.take() {
                replies = Replies::Kept(Vec::new());
                match self.run_in(warm, &mut calls, false, relay, &mut replies) {
                    Err(Stop::Failed(_)) => self.warm.note_retry(),
                    other => return other.map_err(Stop::into_error),
                }
                replies = replies.replayed();
            }
        }
        let fresh = self.fresh()?;
        self.run_in(fresh, &mut calls, true, relay, &mut replies)
            .map_err(Stop::into_error)
    }

    /// Runs the session in `instance`, the `last` run if so, and keeps the
    /// instance warm if the session was done and freed its state there.
    fn run_in<D>(
        &self,
        mut instance: Warm,
        calls: &mut Calls<'_, D>,
        last: bool,
        relay: &mut dyn Relay,
        replies: &mut Replies,
    ) -> Result<Result<D, wit::InputError>, Stop> {
        let (outcome, freed) = self.drive(&mut instance, calls, last, relay, replies)?;
        if freed {
            self.warm.give_back(instance);
        }
        Ok(outcome)
    }

    /// Opens the session in `instance` and answers its questions until it
    /// is done: with the replies `replies` holds first, if any, then with
    /// `relay`'s. Also says whether the session's state in the instance
    /// was freed, so that the instance may be kept.
    fn drive<D>(
        &self,
        instance: &mut Warm,
        calls: &mut Calls<'_, D>,
        last: bool,
        relay: &mut dyn Relay,
        replies: &mut Replies,
    ) -> Result<(Result<D, wit::InputError>, bool), Stop> {
        let exports = self
            .sessions
            .load(&mut instance.store, &instance.instance)
            .map_err(Stop::Failed)?;
        let session = exports.slotwise_reconciler_session().session();
        let store = &mut instance.store;
        let handle =
            match (calls.open)(&session, store, &relay.consulted(), last).map_err(Stop::Failed)? {
                Ok(handle) => handle,
                // No session was made: nothing is left in the instance.
                Err(refused) => return Ok((Err(refused), true)),
            };
        let mut batch = None;
        let mut reply: Option<wit::Reply> = None;
        loop {
            let progress = (calls.next)(&session, store, handle, reply.as_ref());
            // Kept even when the instance failed on it: the second run
            // gives it again rather than asking its plugin twice.
            replies.keep(reply.take());
            let progress = progress
                .map_err(Stop::Failed)?
                .map_err(|e| Stop::Refused(HostError::Session(Box::new(e))))?;
            let mut question = match progress {
                ControlFlow::Continue(question) => question,
                ControlFlow::Break(done) => {
                    // Frees the session's state, so that the instance
                    // holds nothing of this reconcile when it is kept.
                    let freed = handle.resource_drop(&mut *store).is_ok();
                    return Ok((Ok(done), freed));
                }
            };
            if question.batch.is_some() {
                batch = question.batch.take();
            }
            let Some(asked) = batch.as_ref() else {
                return Err(Stop::Refused(HostError::Call(
                    "the first question carried no batch".into(),
                )));
            };
            reply = Some(replies.reply(&question, asked, relay)?);
        }
    }
}

/// Why a session stopped short of an outcome.
enum Stop {
    /// The instance failed: a trap, or a memory limit. Another instance
    /// may do better.
    Failed(wasmtime::Error),
    /// The session was refused, or ended on a plugin's failure: any
    /// instance would do the same.
    Refused(HostError),
}

impl Stop {
    fn into_error(self) -> HostError {
        match self {
            Stop::Failed(e) => call_error(e),
            Stop::Refused(e) => e,
        }
    }
}

/// Where a session's replies come from, beyond the relay.
enum Replies {
    /// Every reply comes from the relay, and none is kept.
    Live,
    /// Every reply comes from the relay, and each is kept with the question
    /// it answered, for a second run.
    Kept(Vec<Given>),
    /// The replies of a run that failed, given again in order; then the
    /// relay's.
    Replayed(std::vec::IntoIter<Given>),
}

/// A reply a session was given, and which plugin and hook it answered.
struct Given {
    plugin: u32,
    hook: Hook,
    /// Absent until the reply has crossed into the instance.
    reply: Option<wit::Reply>,
}

impl Replies {
    /// The kept replies, to be given again; the relay's after them.
    fn replayed(self) -> Self {
        match self {
            Replies::Kept(given) => Replies::Replayed(given.into_iter()),
            other => other,
        }
    }

    /// Keeps `reply`, which has crossed into the instance, with the
    /// question it answered, when replies are kept.
    fn keep(&mut self, reply: Option<wit::Reply>) {
        if let (Replies::Kept(given), Some(reply)) = (self, reply) {
            if let Some(last) = given.last_mut() {
                last.reply = Some(reply);
            }
        }
    }

    /// The reply to `question`, about `batch`: a kept one while any is
    /// left to give again, else the relay's.
    fn reply(
        &mut self,
        question: &wit::Question,
        batch: &crate::plugin_wit::types::Batch,
        relay: &mut dyn Relay,
    ) -> Result<wit::Reply, Stop> {
        match self {
            Replies::Live => Ok(relay.answer(question, batch)),
            Replies::Kept(given) => {
                given.push(Given {
                    plugin: question.plugin,
                    hook: question.hook,
                    reply: None,
                });
                Ok(relay.answer(question, batch))
            }
            Replies::Replayed(given) => match given.next() {
                None => {
                    *self = Replies::Live;
                    Ok(relay.answer(question, batch))
                }
                Some(Given {
                    plugin,
                    hook,
                    reply: Some(reply),
                }) if plugin == question.plugin && hook == question.hook => Ok(reply),
                Some(g) => Err(Stop::Refused(HostError::Call(format!(
                    "run again in a fresh instance, the session asked plugin {} at {:?} \
                     where the first run had asked plugin {} at {:?}",
                    question.plugin, question.hook, g.plugin, g.hook
                )))),
            },
        }
    }
}

/// Opens a session in an instance, or has the input refused; told whether
/// this run is the last, so that what only opening needs may go once it is
/// open.
type Open<'a> =
    dyn FnMut(&GuestSession, &mut Store<Budget>, &[wit::Consulted], bool) -> Opened + 'a;

/// A session opened, or the input refused.
type Opened = wasmtime::Result<Result<ResourceAny, wit::InputError>>;

/// Takes a reply and gives a session's next question, or what it gives
/// when done.
type Next<'a, D> =
    dyn Fn(&GuestSession, &mut Store<Budget>, ResourceAny, Option<&wit::Reply>) -> Stepped<D> + 'a;

/// A session's next question, or what it gives when done.
type Stepped<D> = wasmtime::Result<Result<ControlFlow<D, wit::Question>, wit::SessionError>>;

/// How a session is opened and stepped: typed, or with the input and the
/// plan encoded.
struct Calls<'a, D> {
    open: &'a mut Open<'a>,
    next: &'a Next<'a, D>,
    /// Whether the input may be kept for a second run in a fresh instance.
    may_open_twice: bool,
}
