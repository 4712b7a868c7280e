//! Which nodes a system job runs on: eligible, not ready, or no longer targeted, and the order nodes are taken in.

use crate::allocation_ref::AllocationList;
use crate::{Job, ReconcileInput};

/// How a node stands for a system job, as the scheduler computed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Eligibility {
    /// Targeted and ready: every group gets an allocation there.
    Eligible,
    /// Not ready: what runs there is kept while the job is unchanged.
    NotReady,
    /// In neither list: the job no longer targets the node.
    NotTargeted,
}

/// The nodes of a reconcile, as a system job sees them.
pub(crate) struct NodeSet {
    eligibility: Vec<Eligibility>,
    /// Per node position, its place in the order of node ids.
    rank: Vec<u32>,
    /// The eligible nodes' positions, in the order of their ids.
    eligible: Vec<u32>,
}

impl NodeSet {
    /// The nodes of `input`. Validation guarantees that the positions its
    /// `system` lists exist and that no node is in both lists.
    pub(crate) fn new(input: &ReconcileInput) -> Self {
        let n = input.nodes.len();
        let mut eligibility = vec![Eligibility::NotTargeted; n];
        let mut eligible: Vec<u32> = Vec::new();
        if let Some(system) = &input.system {
            for &node in &system.not_ready {
                eligibility[node as usize] = Eligibility::NotReady;
            }
            for &node in &system.eligible {
                eligibility[node as usize] = Eligibility::Eligible;
            }
            eligible.extend_from_slice(&system.eligible);
        }
        // Node ids, not positions, order the nodes: the same cluster gives the
        // same plan however the caller lists it, and Nomad's map order, which
        // decides for it where only some nodes get a change, is replaced by
        // one a reader can predict.
        let mut by_id: Vec<u32> = (0..n as u32).collect();
        // Callers often list nodes in id order already; checking is cheaper
        // than sorting ten thousand ids.
        let listed_in_order = input.nodes.windows(2).all(|w| w[0].id < w[1].id);
        if !listed_in_order {
            by_id.sort_by(|&a, &b| input.nodes[a as usize].id.cmp(&input.nodes[b as usize].id));
        }
        let mut rank = vec![0; n];
        for (r, &node) in by_id.iter().enumerate() {
            rank[node as usize] = r as u32;
        }
        eligible.sort_by_key(|&node| rank[node as usize]);
        Self {
            eligibility,
            rank,
            eligible,
        }
    }

    /// How node `node` stands.
    pub(crate) fn of(&self, node: u32) -> Eligibility {
        self.eligibility[node as usize]
    }

    /// The place of node `node` in the order of node ids.
    pub(crate) fn rank(&self, node: u32) -> u32 {
        self.rank[node as usize]
    }

    /// The eligible nodes, in the order of their ids.
    pub(crate) fn eligible(&self) -> &[u32] {
        &self.eligible
    }
}

/// What every group of a system job reads of the cluster, the same for all:
/// computed once per reconcile, as each group computing it again made a
/// job of many groups on many nodes quadratic (20,000 groups on 20,000
/// nodes took 1.9 s).
pub(crate) struct Cluster {
    pub(crate) nodes: NodeSet,
    /// The job had no deployment and some allocation already runs its
    /// current version: a rollout under way without a deployment gets none,
    /// as it could never be told complete.
    pub(crate) untracked_rollout: bool,
    /// Per node position: whether the node holds an allocation of the job's
    /// current version, running or finished, in any group.
    pub(crate) has_version: Vec<bool>,
}

impl Cluster {
    /// `lists` are the allocations of `input`'s groups.
    pub(crate) fn new(input: &ReconcileInput, lists: &[AllocationList], job: &Job) -> Self {
        let current = |version: u64, create_index: u64| {
            version == job.version && create_index == job.create_index
        };
        let mut has_version = vec![false; input.nodes.len()];
        let mut runs_version = false;
        for a in lists.iter().flat_map(|list| list.iter()) {
            if current(a.job_version(), a.job_create_index()) {
                has_version[a.node() as usize] = true;
                runs_version |= !a.glance().is_terminal();
            }
        }
        Self {
            nodes: NodeSet::new(input),
            untracked_rollout: input.deployment.is_none() && runs_version,
            has_version,
        }
    }
}
