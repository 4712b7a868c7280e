//! Batches to test a plugin's decisions natively, without a host: running candidates on ready nodes, slots of group `web`, proposed changes, deployment groups awaiting promotion; each adjusted with plain field assignment.
//!
//! ```ignore
//! let mut batch = slotwise_plugin::testing::slots(&[1, 1]);
//! batch.nodes[0].meta = Some(vec![("zone".into(), "eu-1a".into())]);
//! let answers = MyPlugin::default().pre_slot(&batch, &[]);
//! assert!(matches!(answers[0].decision, PreSlotDecision::Proceed));
//! ```

use crate::{
    Candidate, Change, ChangeKind, Classification, ClientStatus, Group, Node, NodeStatus,
    PromotionBatch, PromotionGroup, Slot, SlotBatch, SlotKey, Span, Timestamp,
};

/// 2026-01-01T00:00:00Z, the `now` scenario files default to.
pub const NOW: Timestamp = 1_767_225_600_000_000_000;

/// A candidate running version 0 on batch node `node`, untainted, health
/// undecided, not a canary, no metadata; allocation id `web-<node>`.
pub fn candidate(node: u32) -> Candidate {
    Candidate {
        allocation: Some(format!("web-{node}")),
        job_version: 0,
        node,
        client_status: ClientStatus::Running,
        healthy: None,
        healthy_since: None,
        canary: false,
        classification: Classification::Untainted,
        rule: 0,
        update: None,
        meta: None,
    }
}

/// A ready node `node-<n>` with no metadata.
pub fn node(n: u32) -> Node {
    Node {
        id: Some(format!("node-{n}")),
        status: NodeStatus::Ready,
        draining: false,
        meta: None,
    }
}

/// Group `web` (count 10) at [`NOW`] with one slot per entry of
/// `candidates`, slot `i` holding that many candidates, each on its own node.
pub fn slots(candidates: &[u32]) -> SlotBatch {
    let mut batch = SlotBatch {
        now: NOW,
        groups: vec![Group {
            name: "web".into(),
            count: 10,
            slots: Span {
                first: 0,
                count: candidates.len() as u32,
            },
        }],
        slots: Vec::new(),
        candidates: Vec::new(),
        changes: Vec::new(),
        nodes: Vec::new(),
        rules: vec!["untainted".into()],
        reasons: vec!["test".into()],
        packed: Vec::new(),
    };
    for (index, &n) in candidates.iter().enumerate() {
        let first = batch.candidates.len() as u32;
        for _ in 0..n {
            let at = batch.nodes.len() as u32;
            batch.nodes.push(node(at));
            batch.candidates.push(candidate(at));
        }
        batch.slots.push(Slot {
            key: SlotKey::Index(index as u32),
            candidates: Span { first, count: n },
            changes: Span { first: 0, count: 0 },
        });
    }
    batch
}

/// Proposes a change of `kind` for slot `slot` of `batch`, concerning its
/// first candidate unless `kind` is a placement. Changes must be proposed
/// in slot order.
pub fn propose(batch: &mut SlotBatch, slot: usize, kind: ChangeKind) {
    let s = batch.slots[slot];
    let candidate =
        (kind != ChangeKind::Place && s.candidates.count > 0).then_some(s.candidates.first);
    let at = batch.changes.len() as u32;
    batch.changes.push(Change {
        kind,
        candidate,
        reason: 0,
        message: Some("proposed by a test".into()),
    });
    let changes = &mut batch.slots[slot].changes;
    if changes.count == 0 {
        changes.first = at;
    }
    changes.count += 1;
}

/// Deployment group `web` of `deployment-1` at [`NOW`], with `canaries`
/// (each on its own node), wanting as many canaries as are given.
pub fn promotion(canaries: Vec<Candidate>) -> PromotionBatch {
    let nodes = (0..canaries.len() as u32).map(node).collect();
    PromotionBatch {
        now: NOW,
        groups: vec![PromotionGroup {
            deployment: "deployment-1".into(),
            group: "web".into(),
            desired_canaries: canaries.len() as u32,
            canaries: Span {
                first: 0,
                count: canaries.len() as u32,
            },
        }],
        candidates: canaries,
        nodes,
        rules: vec!["untainted".into()],
    }
}
