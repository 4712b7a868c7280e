//! Views to test a plugin's decisions natively, without a host: a running candidate on a ready node, a slot, a proposal, a promotion request, each adjusted with plain field assignment.
//!
//! ```ignore
//! let mut c = slotwise_plugin::testing::candidate("web-0");
//! c.node.meta = Some(vec![("zone".into(), "eu-1a".into())]);
//! let slot = slotwise_plugin::testing::slot(0, vec![c]);
//! assert!(matches!(MyPlugin::default().pre_slot(&slot).decision, PreSlotDecision::Proceed));
//! ```

use crate::{
    CandidateView, ChangeKind, Classification, ClientStatus, NodeStatus, NodeView,
    PromotionRequest, ProposedChange, SlotProposal, SlotView, Timestamp,
};

/// 2026-01-01T00:00:00Z, the `now` scenario files default to.
pub const NOW: Timestamp = 1_767_225_600_000_000_000;

/// Allocation `id`: version 0, running, untainted, on a ready node `node-<id>`
/// with no metadata, health undecided, not a canary, no metadata.
pub fn candidate(id: &str) -> CandidateView {
    CandidateView {
        allocation: id.to_string(),
        job_version: 0,
        node: NodeView {
            id: format!("node-{id}"),
            status: NodeStatus::Ready,
            draining: false,
            meta: None,
        },
        client_status: ClientStatus::Running,
        healthy: None,
        healthy_since: None,
        canary: false,
        classification: Classification::Untainted,
        rule: "untainted".to_string(),
        update: None,
        meta: None,
    }
}

/// Slot `index` of group `web` (count 10) at [`NOW`], claimed by `candidates`.
pub fn slot(index: u32, candidates: Vec<CandidateView>) -> SlotView {
    SlotView {
        group: "web".to_string(),
        index,
        count: 10,
        candidates,
        now: NOW,
        ext: None,
    }
}

/// A change of `kind` concerning `allocation`.
pub fn change(kind: ChangeKind, allocation: Option<&str>) -> ProposedChange {
    ProposedChange {
        kind,
        allocation: allocation.map(str::to_string),
        reason: "test".to_string(),
        message: "proposed by a test".to_string(),
    }
}

/// `changes` proposed for `slot`.
pub fn proposal(slot: SlotView, changes: Vec<ProposedChange>) -> SlotProposal {
    SlotProposal { slot, changes }
}

/// Promotion of `canaries` in group `web` of `deployment-1` at [`NOW`], which
/// wants as many canaries as are given.
pub fn promotion(canaries: Vec<CandidateView>) -> PromotionRequest {
    PromotionRequest {
        deployment: "deployment-1".to_string(),
        group: "web".to_string(),
        desired_canaries: canaries.len() as u32,
        canaries,
        now: NOW,
    }
}
