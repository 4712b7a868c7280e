//! The classification rules: one ordered table that puts every allocation in one set, first match wins.

use crate::allocation::{Glance, History};
use crate::policy::Policy;
use crate::rule_table::rule_table;
use crate::{Classification, ClientStatus, DesiredStatus, Node, NodeStatus, Timestamp};

/// How the node hosting an allocation stands.
#[derive(Clone, Copy)]
pub(crate) enum Taint<'a> {
    /// Ready (or initializing) and not draining: nothing to react to.
    None,
    /// Down, disconnected, or draining.
    Node(&'a Node),
    /// No longer known to the cluster.
    Gone,
}

impl<'a> Taint<'a> {
    /// How `node` stands for the allocations it hosts.
    pub(crate) fn of(node: &'a Node) -> Self {
        match node.status {
            NodeStatus::Unknown => Taint::Gone,
            NodeStatus::Down | NodeStatus::Disconnected => Taint::Node(node),
            NodeStatus::Ready | NodeStatus::Initializing if node.draining => Taint::Node(node),
            NodeStatus::Ready | NodeStatus::Initializing => Taint::None,
        }
    }

    fn status(&self) -> Option<NodeStatus> {
        match self {
            Taint::Node(node) => Some(node.status),
            Taint::None | Taint::Gone => None,
        }
    }

    fn is(&self, status: NodeStatus) -> bool {
        self.status() == Some(status)
    }

    /// Untainted, or tainted only by a drain of a ready node.
    fn is_usable(&self) -> bool {
        matches!(self, Taint::None) || self.is(NodeStatus::Ready)
    }
}

/// What the rules look at for one allocation.
pub(crate) struct Facts<'a> {
    history: History<'a>,
    glance: Glance,
    policy: Policy<'a>,
    taint: Taint<'a>,
    now: Timestamp,
    /// Whether it should reconnect: half the rules ask, and the answer
    /// reads the allocation's client history, so it is worked out once.
    reconnects: bool,
}

impl<'a> Facts<'a> {
    /// The facts of an allocation with client `history` and whose observed
    /// state `glance` glances at, following `policy`, on a node with
    /// `taint`, as of `now`.
    pub(crate) fn new(
        history: History<'a>,
        glance: Glance,
        policy: Policy<'a>,
        taint: Taint<'a>,
        now: Timestamp,
    ) -> Self {
        let reconnects = matches!(
            glance.client_status,
            ClientStatus::Unknown | ClientStatus::Running | ClientStatus::Failed
        ) && history.needs_to_reconnect();
        Self {
            history,
            glance,
            policy,
            taint,
            now,
            reconnects,
        }
    }

    /// Running, unknown or failed, and last seen disconnected: its client is
    /// coming back, or its disconnection is still being handled.
    fn should_reconnect(&self) -> bool {
        self.reconnects
    }

    fn client(&self, status: ClientStatus) -> bool {
        self.glance.client_status == status
    }

    fn desired(&self, status: DesiredStatus) -> bool {
        self.glance.desired_status == status
    }

    /// Unknown for longer than its group's `lost-after`.
    fn expired(&self) -> bool {
        if self.policy.group().is_none() || !self.client(ClientStatus::Unknown) {
            return false;
        }
        self.history
            .last_unknown()
            .is_some_and(|since| since.saturating_add(self.policy.lost_after()) <= self.now)
    }

    /// Its group gives disconnected allocations no grace period.
    fn lost_on_disconnect(&self) -> bool {
        self.policy.group().is_none() || self.policy.lost_after() == 0
    }
}

/// One classification rule.
pub(crate) struct Rule {
    /// A short name, recorded as the reason of the allocation's classification.
    pub(crate) name: &'static str,
    /// The set the rule puts an allocation in.
    pub(crate) class: Classification,
}

use Classification::{Disconnecting, Expiring, Ignore, Lost, Migrate, Reconnecting, Untainted};

rule_table! {
    /// The rules in the order they are tried. The order is the semantics: for
    /// example a terminal allocation never counts as lost, and an allocation on a
    /// disconnected node is never migrated.
    pub(crate) static RULES: [Rule; 18];
    /// The first rule that applies to `facts`.
    pub(crate) fn classify(&Facts) else DEFAULT_RULE;

    Rule { name: "failed-while-disconnected", class: Reconnecting }
        when |f| {
            f.should_reconnect() && f.desired(DesiredStatus::Run) && f.client(ClientStatus::Failed)
        },
    Rule { name: "drained-batch-keeps-slot", class: Untainted }
        when |f| {
            f.glance.is_server_terminal()
                && !f.should_reconnect()
                && f.glance.transition.migrate_disable_placement
        },
    Rule { name: "stopped-by-server", class: Ignore }
        when |f| {
            f.glance.is_terminal() && !f.should_reconnect() && f.glance.is_server_terminal()
        },
    Rule { name: "terminal-canary-migrating", class: Migrate }
        when |f| {
            f.glance.is_terminal()
                && !f.should_reconnect()
                && f.glance.canary
                && f.glance.transition.migrate
        },
    Rule { name: "terminal", class: Untainted }
        when |f| f.glance.is_terminal() && !f.should_reconnect(),
    Rule { name: "unknown-past-lost-after", class: Expiring }
        when |f| f.expired(),
    Rule { name: "failed-reconnect-already-stopped", class: Ignore }
        when |f| {
            f.should_reconnect() && f.client(ClientStatus::Failed) && f.desired(DesiredStatus::Stop)
        },
    Rule { name: "disconnected-already-unknown", class: Untainted }
        when |f| f.taint.is(NodeStatus::Disconnected) && f.client(ClientStatus::Unknown),
    Rule { name: "disconnected-while-pending", class: Lost }
        when |f| f.taint.is(NodeStatus::Disconnected) && f.client(ClientStatus::Pending),
    Rule { name: "disconnected-without-grace", class: Lost }
        when |f| f.taint.is(NodeStatus::Disconnected) && f.lost_on_disconnect(),
    Rule { name: "disconnected", class: Disconnecting }
        when |f| f.taint.is(NodeStatus::Disconnected),
    Rule { name: "marked-to-migrate", class: Migrate }
        when |f| f.glance.transition.migrate,
    Rule { name: "reconnected", class: Reconnecting }
        when |f| f.taint.is_usable() && f.should_reconnect(),
    Rule { name: "healthy-node", class: Untainted }
        when |f| f.taint.is_usable(),
    Rule { name: "node-gone", class: Lost }
        when |f| matches!(f.taint, Taint::Gone),
    Rule { name: "down-unknown-kept", class: Untainted }
        when |f| {
            f.taint.is(NodeStatus::Down)
                && !f.policy.replace_on_disconnect()
                && f.client(ClientStatus::Unknown)
        },
    Rule { name: "down-running-kept", class: Disconnecting }
        when |f| {
            f.taint.is(NodeStatus::Down)
                && !f.policy.replace_on_disconnect()
                && f.client(ClientStatus::Running)
        },
    Rule { name: "node-down", class: Lost }
        when |f| f.taint.is(NodeStatus::Down),
}

/// The rule for allocations no other rule matches, such as those on a node
/// that is initializing and draining.
pub(crate) static DEFAULT_RULE: Rule = Rule {
    name: "no-rule-matched",
    class: Untainted,
};

/// A rule by its place in [`RULES`]: one byte where a reference takes eight,
/// so that a candidate stays narrow.
#[derive(Clone, Copy)]
pub(crate) struct RuleId(u8);

impl RuleId {
    /// Where the default rule stands: past the table.
    const DEFAULT: u8 = RULES.len() as u8;

    /// `rule`'s place, found from its address: `classify` returns only rules
    /// of the table or the default.
    pub(crate) fn of(rule: &'static Rule) -> Self {
        let offset = (rule as *const Rule as usize).wrapping_sub(RULES.as_ptr() as usize);
        let at = offset / std::mem::size_of::<Rule>();
        match RULES.get(at) {
            Some(found) if std::ptr::eq(found, rule) => Self(at as u8),
            _ => Self(Self::DEFAULT),
        }
    }

    pub(crate) fn rule(self) -> &'static Rule {
        RULES.get(usize::from(self.0)).unwrap_or(&DEFAULT_RULE)
    }
}

#[cfg(test)]
mod tests {
    use super::{RuleId, DEFAULT_RULE, RULES};

    #[test]
    fn every_rule_and_the_default_are_found_again_from_their_place() {
        for rule in RULES.iter().chain([&DEFAULT_RULE]) {
            assert!(
                std::ptr::eq(RuleId::of(rule).rule(), rule),
                "rule {}",
                rule.name
            );
        }
    }
}
