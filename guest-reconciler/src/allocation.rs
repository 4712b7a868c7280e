//! What an allocation's observed state says about it: the predicates the rules read.

use crate::{
    ClientStateChange, ClientStatus, DeploymentHealth, DesiredStatus, DesiredTransition,
    ObservedState, TaskLifecycle, Timestamp,
};

/// The transition flags of an allocation that has none requested.
const NO_TRANSITION: DesiredTransition = DesiredTransition {
    migrate: false,
    reschedule: false,
    force_reschedule: false,
    migrate_disable_placement: false,
};

/// What nearly every pass over a group asks of an allocation's observed
/// state, in eight bytes: its statuses, the transitions requested and its
/// deployment health. A candidate carries one, because the observed state
/// spans several cache lines of a record far from its neighbours', and in a
/// group larger than the cache each pass that went back to it missed.
#[derive(Clone, Copy)]
pub(crate) struct Glance {
    pub(crate) desired_status: DesiredStatus,
    pub(crate) client_status: ClientStatus,
    /// The requested transitions, all false when none was requested.
    pub(crate) transition: DesiredTransition,
    /// Placed as a canary of a deployment.
    pub(crate) canary: bool,
    /// The deployment's verdict on its health, if any.
    pub(crate) healthy: Option<bool>,
}

impl Glance {
    pub(crate) fn of(observed: &ObservedState) -> Self {
        Self::from_parts(
            observed.desired_status,
            observed.client_status,
            observed.desired_transition,
            observed.health.as_ref(),
        )
    }

    /// From the fields of an observed state it reads.
    pub(crate) fn from_parts(
        desired_status: DesiredStatus,
        client_status: ClientStatus,
        transition: Option<DesiredTransition>,
        health: Option<&DeploymentHealth>,
    ) -> Self {
        Self {
            desired_status,
            client_status,
            transition: transition.unwrap_or(NO_TRANSITION),
            canary: health.is_some_and(|h| h.canary),
            healthy: health.and_then(|h| h.healthy),
        }
    }

    /// The server wants it gone: stopped or evicted.
    pub(crate) fn is_server_terminal(&self) -> bool {
        matches!(
            self.desired_status,
            DesiredStatus::Stop | DesiredStatus::Evict
        )
    }

    /// The client will not run it again: complete, failed or lost.
    pub(crate) fn is_client_terminal(&self) -> bool {
        matches!(
            self.client_status,
            ClientStatus::Complete | ClientStatus::Failed | ClientStatus::Lost
        )
    }

    /// Terminal on either side.
    pub(crate) fn is_terminal(&self) -> bool {
        self.is_server_terminal() || self.is_client_terminal()
    }

    /// Explicitly healthy.
    pub(crate) fn is_healthy(&self) -> bool {
        self.healthy == Some(true)
    }

    /// Explicitly unhealthy.
    pub(crate) fn is_unhealthy(&self) -> bool {
        self.healthy == Some(false)
    }
}

impl ObservedState {
    /// The few facts most passes read; see [`Glance`].
    pub(crate) fn glance(&self) -> Glance {
        Glance::of(self)
    }

    /// The requested transitions, all false when none was requested.
    pub(crate) fn transition(&self) -> &DesiredTransition {
        self.desired_transition.as_ref().unwrap_or(&NO_TRANSITION)
    }

    /// Its client history, oldest first.
    pub(crate) fn history(&self) -> History<'_> {
        History(self.client_states.as_deref().unwrap_or_default())
    }

    /// Every task ran to completion without failing. Meaningful for batch work.
    pub(crate) fn ran_successfully(&self) -> bool {
        match self.tasks.as_deref() {
            None | Some([]) => false,
            Some(tasks) => tasks
                .iter()
                .all(|t| t.state == TaskLifecycle::Dead && !t.failed),
        }
    }

    /// When the allocation last did something: its latest task finish, or
    /// its modify time when no task finished. The Unix epoch, not "no time",
    /// is what an allocation without either reports, so a failed allocation
    /// with no history is always past its reschedule delay.
    pub(crate) fn last_event_time(&self) -> Timestamp {
        self.tasks
            .as_deref()
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t.finished_at)
            .max()
            .unwrap_or(self.modify_time)
    }

    /// The scheduler tried to replace it and could not place the replacement.
    pub(crate) fn last_reschedule_failed(&self) -> bool {
        self.reschedule.as_ref().is_some_and(|t| t.last_failed)
    }

    /// When the named task last started: its last restart if it restarted,
    /// else its first start.
    pub(crate) fn last_start_of_task(&self, task: &str) -> Option<Timestamp> {
        let state = self
            .tasks
            .as_deref()
            .unwrap_or_default()
            .iter()
            .find(|t| t.name == task)?;
        if state.restarts > 0 {
            state.last_restart
        } else {
            state.started_at
        }
    }
}

/// An allocation's client history, oldest first: what reconnection and
/// expiry read of its observed state. Apart from the rest of the state, as
/// a wire record leaves the history undecoded until asked (most have none).
#[derive(Clone, Copy)]
pub(crate) struct History<'a>(pub(crate) &'a [ClientStateChange]);

impl History<'_> {
    /// The last recorded client status is `unknown`: the allocation's client
    /// disconnected and has not been seen back since. Entries recorded with an
    /// empty status say nothing about the client and are passed over, as Nomad
    /// does since its issue #28445.
    pub(crate) fn needs_to_reconnect(&self) -> bool {
        self.0.iter().rev().find_map(|s| s.status) == Some(ClientStatus::Unknown)
    }

    /// When the latest run of `unknown` states began: the start of the current
    /// (or last) disconnection. Any other entry ends the run, an empty one too:
    /// Nomad compares the recorded value with `unknown` here without skipping
    /// empty ones.
    pub(crate) fn last_unknown(&self) -> Option<Timestamp> {
        let mut start = None;
        for state in self.0.iter().rev() {
            if state.status == Some(ClientStatus::Unknown) {
                start = Some(state.at);
            } else if start.is_some() {
                break;
            }
        }
        start
    }

    /// When the allocation was first marked lost, if ever.
    pub(crate) fn first_lost(&self) -> Option<Timestamp> {
        self.0
            .iter()
            .find(|s| s.status == Some(ClientStatus::Lost))
            .map(|s| s.at)
    }
}
