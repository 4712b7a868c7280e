//! The classification rules of system jobs: one ordered table that says, for each live allocation, how its node and client stand; first match wins.
//!
//! Nomad's node reconciler decides these in one chain of conditions; the
//! order is kept because it is the semantics: a migration request wins over
//! everything, an expired disconnection is lost before it could be kept, and
//! a tainted node is looked at before whether the node is still targeted.

use super::nodes::Eligibility;
use crate::classification::Taint;
use crate::policy::Policy;
use crate::rule_table::rule_table;
use crate::{Classification, ClientStatus, NodeStatus, ObservedState, Timestamp};

/// What the rules look at for one live allocation.
pub(crate) struct NodeFacts<'a> {
    pub(crate) observed: &'a ObservedState,
    pub(crate) policy: Policy<'a>,
    pub(crate) taint: Taint<'a>,
    pub(crate) eligibility: Eligibility,
    pub(crate) sysbatch: bool,
    pub(crate) now: Timestamp,
}

impl NodeFacts<'_> {
    /// Running or unknown, and last recorded as unknown: its client
    /// disconnected and has not been seen back since.
    fn awaits_reconnect(&self) -> bool {
        matches!(
            self.observed.client_status,
            ClientStatus::Unknown | ClientStatus::Running
        ) && self.observed.history().needs_to_reconnect()
    }

    /// Unknown for at least its group's `lost-after`.
    fn expired(&self) -> bool {
        self.awaits_reconnect()
            && self.observed.client_status == ClientStatus::Unknown
            && self.policy.group().is_some()
            && self
                .observed
                .history()
                .last_unknown()
                .is_some_and(|since| since.saturating_add(self.policy.lost_after()) <= self.now)
    }

    fn tainted(&self) -> bool {
        !matches!(self.taint, Taint::None)
    }

    fn node_is(&self, status: NodeStatus) -> bool {
        matches!(self.taint, Taint::Node(node) if node.status == status)
    }
}

/// What a rule decides about the allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Stopped to move off its node; nothing replaces it on that node.
    Migrate,
    /// Stopped as lost with its node.
    Lost,
    /// Left as it is.
    Keep,
    /// Its client came back: resumed, then updated like any other.
    Reconnect,
    /// Its client just disconnected: marked unknown.
    Disconnect,
    /// On an untainted node: whether it stays depends on the node's
    /// eligibility and on the job's changes.
    Judge,
}

/// One rule of the table.
pub(crate) struct NodeRule {
    /// A short name, recorded as the reason of the classification.
    pub(crate) name: &'static str,
    /// The set the allocation is reported in.
    pub(crate) class: Classification,
    pub(crate) verdict: Verdict,
}

use Classification::{Disconnecting, Expiring, Ignore, Lost, Migrate, Reconnecting, Untainted};

rule_table! {
    /// The rules in the order they are tried.
    pub(crate) static NODE_RULES: [NodeRule; 10];
    /// The first rule that applies to `facts`.
    pub(crate) fn classify(&NodeFacts) else ELIGIBLE_NODE;

    NodeRule { name: "marked-to-migrate", class: Migrate, verdict: Verdict::Migrate }
        when |f| f.observed.transition().migrate,
    NodeRule { name: "unknown-past-lost-after", class: Expiring, verdict: Verdict::Lost }
        when |f| f.expired(),
    NodeRule { name: "unknown-awaiting-reconnect", class: Ignore, verdict: Verdict::Keep }
        when |f| f.observed.client_status == ClientStatus::Unknown,
    NodeRule { name: "reconnected", class: Reconnecting, verdict: Verdict::Reconnect }
        when |f| !f.tainted() && f.awaits_reconnect(),
    NodeRule { name: "finished-on-tainted-node", class: Ignore, verdict: Verdict::Keep }
        when |f| f.tainted() && f.sysbatch && f.observed.ran_successfully(),
    NodeRule {
        name: "disconnected-while-running",
        class: Disconnecting,
        verdict: Verdict::Disconnect,
    }
        when |f| {
            f.node_is(NodeStatus::Disconnected) && f.observed.client_status == ClientStatus::Running
        },
    NodeRule { name: "node-down", class: Lost, verdict: Verdict::Lost }
        when |f| matches!(f.taint, Taint::Gone) || f.node_is(NodeStatus::Down),
    NodeRule { name: "tainted-node-kept", class: Ignore, verdict: Verdict::Keep }
        when |f| f.tainted(),
    NodeRule { name: "node-not-ready", class: Untainted, verdict: Verdict::Judge }
        when |f| f.eligibility == Eligibility::NotReady,
    NodeRule { name: "node-not-targeted", class: Untainted, verdict: Verdict::Judge }
        when |f| f.eligibility == Eligibility::NotTargeted,
}

/// The rule for an allocation on an eligible, untainted node.
pub(crate) static ELIGIBLE_NODE: NodeRule = NodeRule {
    name: "eligible-node",
    class: Untainted,
    verdict: Verdict::Judge,
};
