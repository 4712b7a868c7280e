//! Reads the parts of an allocation's observed state that few allocations set (its reschedule tracker, follow-up evaluation, client history, tasks and meta), for both layouts of the input: inline in content 1, as a record's rest in content 3.

use super::cursor::Cursor;
use crate::{ClientStateChange, RescheduleEvent, RescheduleTracker, TaskLifecycle, TaskState};

/// The rest of a record's observed state: `reschedule`, `followup-eval`,
/// `client-states`, `tasks` and `meta`.
pub(crate) type Rest = (
    Option<RescheduleTracker>,
    Option<String>,
    Option<Vec<ClientStateChange>>,
    Option<Vec<TaskState>>,
    Option<Vec<(String, String)>>,
);

/// The rest of a record's observed state from its bytes, which must hold
/// exactly it; `None` when they do not.
pub(crate) fn rest(bytes: &[u8]) -> Option<Rest> {
    let mut at = Cursor::new(bytes);
    let (reschedule, followup_eval, client_states) = head(&mut at);
    let rest = (
        reschedule,
        followup_eval,
        client_states,
        tasks(&mut at),
        meta(&mut at),
    );
    (at.ok() && at.remaining() == 0).then_some(rest)
}

/// The client history of a rest whose bytes were checked (see [`rest`]),
/// without its tasks and meta: what every candidate's classification reads.
/// Decoding the whole rest here, tasks and their names allocated and
/// dropped for every failed allocation, cost 1.4–4.2% of the component's
/// call at 10,000 allocations (docs/performance.md).
pub(crate) fn client_history(bytes: &[u8]) -> Vec<ClientStateChange> {
    let mut at = Cursor::new(bytes);
    let (_, _, history) = head(&mut at);
    history.filter(|_| at.ok()).unwrap_or_default()
}

/// What a rest holds before its tasks: the reschedule tracker, the
/// follow-up evaluation and the client history, in that order.
type Head = (
    Option<RescheduleTracker>,
    Option<String>,
    Option<Vec<ClientStateChange>>,
);

fn head(at: &mut Cursor) -> Head {
    (reschedule(at), at.option(Cursor::string), client_states(at))
}

pub(super) fn reschedule(at: &mut Cursor) -> Option<RescheduleTracker> {
    at.option(|at| RescheduleTracker {
        events: at.list(2, |at| RescheduleEvent {
            at: at.s64(),
            delay: at.s64(),
        }),
        last_failed: at.bool(),
    })
}

pub(super) fn client_states(at: &mut Cursor) -> Option<Vec<ClientStateChange>> {
    at.option(|at| {
        at.list(2, |at| ClientStateChange {
            status: at.option(Cursor::client_status),
            at: at.s64(),
        })
    })
}

pub(super) fn tasks(at: &mut Cursor) -> Option<Vec<TaskState>> {
    at.option(|at| at.list(7, task))
}

pub(super) fn meta(at: &mut Cursor) -> Option<Vec<(String, String)>> {
    at.option(|at| at.list(2, pair))
}

pub(super) fn pair(at: &mut Cursor) -> (String, String) {
    (at.string(), at.string())
}

fn task(at: &mut Cursor) -> TaskState {
    TaskState {
        name: at.string(),
        state: match at.case(3) {
            0 => TaskLifecycle::Pending,
            1 => TaskLifecycle::Running,
            _ => TaskLifecycle::Dead,
        },
        failed: at.bool(),
        started_at: at.option(Cursor::s64),
        finished_at: at.option(Cursor::s64),
        restarts: at.u32(),
        last_restart: at.option(Cursor::s64),
    }
}
