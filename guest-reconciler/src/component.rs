//! The component: the library exported through the WIT world `slotwise:reconciler/reconciler`.

use crate::wit::exports::slotwise::reconciler::reconcile::Guest;
use crate::wit::exports::slotwise::reconciler::session::{
    Guest as SessionGuest, GuestSession, ProgressEncoded, Session as SessionHandle,
};
use crate::{Consulted, InputError, Plan, Progress, ReconcileInput, Reply, Session, SessionError};
use std::cell::RefCell;

struct Component;

impl Guest for Component {
    fn reconcile(input: ReconcileInput) -> Result<Plan, InputError> {
        crate::reconcile(&input)
    }

    fn reconcile_encoded(input: Vec<u8>) -> Vec<u8> {
        crate::wire::reconcile_encoded(input)
    }
}

impl SessionGuest for Component {
    type Session = SessionResource;
}

/// A session as the component exports it: methods take `&self`.
struct SessionResource(RefCell<Session>);

impl SessionResource {
    /// The handle the host holds for `session`.
    fn handle(session: Session) -> SessionHandle {
        SessionHandle::new(Self(RefCell::new(session)))
    }
}

impl GuestSession for SessionResource {
    fn open(input: ReconcileInput, plugins: Vec<Consulted>) -> Result<SessionHandle, InputError> {
        Session::open(input, plugins).map(SessionResource::handle)
    }

    fn next(&self, reply: Option<Reply>) -> Result<Progress, SessionError> {
        self.0.borrow_mut().next(reply)
    }

    fn open_encoded(input: Vec<u8>, plugins: Vec<Consulted>) -> Result<SessionHandle, InputError> {
        // Decoded into the input arena, as `reconcile-encoded` does: the
        // buffer freed before planning, or kept for records read in place;
        // the arena's memory goes back whole when the session ends.
        let decoded = crate::wire::decode_held(input);
        Session::open_held(Box::new(decoded?), plugins).map(SessionResource::handle)
    }

    fn next_encoded(&self, reply: Option<Reply>) -> Result<ProgressEncoded, SessionError> {
        Ok(match self.next(reply)? {
            Progress::Ask(question) => ProgressEncoded::Ask(question),
            Progress::Done(plan) => ProgressEncoded::Done(crate::wire::encode_outcome(&Ok(plan))),
        })
    }
}

#[cfg(target_arch = "wasm32")]
crate::wit::export!(Component with_types_in crate::wit);
