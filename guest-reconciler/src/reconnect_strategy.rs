//! The reconnect strategies: which of an original allocation and its replacement to keep when a client comes back.

use crate::candidate::Candidate;
use crate::{ClientStatus, ReconnectStrategy, Timestamp};

/// The allocation a strategy keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    Original,
    Replacement,
}

/// Picks between a reconnecting `original` and one of its `replacement`s.
/// A replacement running a newer job version always wins; otherwise the
/// group's strategy decides, preferring the original on ties.
pub(crate) fn pick(
    strategy: ReconnectStrategy,
    original: &Candidate,
    replacement: &Candidate,
    now: Timestamp,
) -> Keep {
    let (o, r) = (original.alloc(), replacement.alloc());
    if r.job_version() > o.job_version() || r.job_create_index() > o.job_create_index() {
        return Keep::Replacement;
    }
    match strategy {
        ReconnectStrategy::BestScore => best_score(original, replacement),
        ReconnectStrategy::KeepOriginal => Keep::Original,
        ReconnectStrategy::KeepReplacement => Keep::Replacement,
        ReconnectStrategy::LongestRunning => longest_running(original, replacement, now),
    }
}

/// The replacement wins with a better placement score (or a score where the
/// original has none), unless that would trade a running allocation for one
/// that is not.
fn best_score(original: &Candidate, replacement: &Candidate) -> Keep {
    let better = match (
        original.alloc().placement_score(),
        replacement.alloc().placement_score(),
    ) {
        (None, Some(_)) => true,
        (Some(o), Some(r)) => r > o,
        _ => false,
    };
    let replacement_running = replacement.client_status() == ClientStatus::Running;
    let original_running = original.client_status() == ClientStatus::Running;
    if better && (replacement_running || !original_running) {
        Keep::Replacement
    } else {
        Keep::Original
    }
}

/// The one whose leader task (or oldest task) started first wins; one that
/// never started loses; when neither started, the better score wins.
fn longest_running(original: &Candidate, replacement: &Candidate, now: Timestamp) -> Keep {
    match (
        running_since(original, original, now),
        running_since(replacement, original, now),
    ) {
        (None, Some(_)) => Keep::Replacement,
        (Some(_), None) => Keep::Original,
        (None, None) => best_score(original, replacement),
        (Some(o), Some(r)) if o < r => Keep::Original,
        (Some(_), Some(_)) => Keep::Replacement,
    }
}

/// When `c` last started its leader task, or else its oldest task, as the
/// tasks of `definer`'s group define them.
fn running_since(c: &Candidate, definer: &Candidate, now: Timestamp) -> Option<Timestamp> {
    let tasks = &definer.policy.group()?.tasks;
    let mut oldest = None;
    for task in tasks {
        let start = c.observed().last_start_of_task(&task.name);
        if task.leader {
            return start;
        }
        if let Some(t) = start.filter(|&t| t < now) {
            oldest = Some(oldest.map_or(t, |o: Timestamp| o.min(t)));
        }
    }
    oldest
}
