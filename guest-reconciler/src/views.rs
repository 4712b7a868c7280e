//! What plugins see: slots and candidates rendered in the plugin package's terms, and their answers brought back.

use crate::candidate::{Candidate, Standing};
use crate::plugin;
use crate::{Classification, ClientStatus, NodeStatus, Timestamp, UpdateKind};

/// A candidate as plugins see it.
pub(crate) fn candidate(c: &Candidate, now: Timestamp) -> plugin::CandidateView {
    let observed = c.observed();
    let rule = c.rule.unwrap_or_else(|| c.rule_for(now));
    let class = c.class().unwrap_or(rule.class);
    plugin::CandidateView {
        allocation: c.id().to_string(),
        job_version: c.alloc.spec.job_version,
        node: plugin::NodeView {
            id: c.node.id.clone(),
            status: node_status(c.node.status),
            draining: c.node.draining,
            meta: (!c.node.meta.is_empty()).then(|| c.node.meta.clone()),
        },
        client_status: client_status(observed.client_status),
        healthy: observed.health.as_ref().and_then(|h| h.healthy),
        healthy_since: observed.health.as_ref().and_then(|h| h.changed_at),
        canary: observed.is_canary(),
        classification: classification(class),
        rule: rule.name.to_string(),
        update: c.update.map(update_kind),
        meta: observed.meta.clone().filter(|m| !m.is_empty()),
    }
}

/// Slot `index` of `group`, with its candidates.
pub(crate) fn slot(
    group: &str,
    index: u32,
    count: u32,
    claimants: &[Candidate],
    now: Timestamp,
) -> plugin::SlotView {
    plugin::SlotView {
        group: group.to_string(),
        index,
        count,
        candidates: claimants.iter().map(|c| candidate(c, now)).collect(),
        now,
        ext: None,
    }
}

fn classification(class: Classification) -> plugin::Classification {
    match class {
        Classification::Untainted => plugin::Classification::Untainted,
        Classification::Migrate => plugin::Classification::Migrate,
        Classification::Lost => plugin::Classification::Lost,
        Classification::Disconnecting => plugin::Classification::Disconnecting,
        Classification::Reconnecting => plugin::Classification::Reconnecting,
        Classification::Ignore => plugin::Classification::Ignore,
        Classification::Expiring => plugin::Classification::Expiring,
    }
}

/// The standing a plugin's reclassification puts a candidate in, for the
/// classes a plugin may choose.
pub(crate) fn standing(class: plugin::Classification) -> Option<Standing> {
    match class {
        plugin::Classification::Untainted => Some(Standing::Untainted),
        plugin::Classification::Migrate => Some(Standing::Migrating),
        plugin::Classification::Lost => Some(Standing::Lost),
        plugin::Classification::Ignore
        | plugin::Classification::Disconnecting
        | plugin::Classification::Reconnecting
        | plugin::Classification::Expiring => None,
    }
}

/// A plugin classification's name, as the WIT spells it.
pub(crate) fn class_name(class: plugin::Classification) -> &'static str {
    match class {
        plugin::Classification::Untainted => "untainted",
        plugin::Classification::Migrate => "migrate",
        plugin::Classification::Lost => "lost",
        plugin::Classification::Disconnecting => "disconnecting",
        plugin::Classification::Reconnecting => "reconnecting",
        plugin::Classification::Ignore => "ignore",
        plugin::Classification::Expiring => "expiring",
    }
}

fn client_status(status: ClientStatus) -> plugin::ClientStatus {
    match status {
        ClientStatus::Pending => plugin::ClientStatus::Pending,
        ClientStatus::Running => plugin::ClientStatus::Running,
        ClientStatus::Complete => plugin::ClientStatus::Complete,
        ClientStatus::Failed => plugin::ClientStatus::Failed,
        ClientStatus::Lost => plugin::ClientStatus::Lost,
        ClientStatus::Unknown => plugin::ClientStatus::Unknown,
    }
}

fn node_status(status: NodeStatus) -> plugin::NodeStatus {
    match status {
        NodeStatus::Ready => plugin::NodeStatus::Ready,
        NodeStatus::Initializing => plugin::NodeStatus::Initializing,
        NodeStatus::Down => plugin::NodeStatus::Down,
        NodeStatus::Disconnected => plugin::NodeStatus::Disconnected,
        NodeStatus::Unknown => plugin::NodeStatus::Unknown,
    }
}

fn update_kind(kind: UpdateKind) -> plugin::UpdateKind {
    match kind {
        UpdateKind::Ignore => plugin::UpdateKind::Ignore,
        UpdateKind::InPlace => plugin::UpdateKind::InPlace,
        UpdateKind::Destructive => plugin::UpdateKind::Destructive,
    }
}

/// The update kind a plugin asks for, in the reconciler's terms.
pub(crate) fn reconciler_update(kind: plugin::UpdateKind) -> UpdateKind {
    match kind {
        plugin::UpdateKind::Ignore => UpdateKind::Ignore,
        plugin::UpdateKind::InPlace => UpdateKind::InPlace,
        plugin::UpdateKind::Destructive => UpdateKind::Destructive,
    }
}
