//! The slots of a system job's group: one per node and name index, each holding the allocations that claim it.

use super::nodes::NodeSet;
use crate::candidate::Candidate;
use std::ops::Range;

/// A node and a name index of one group.
pub(crate) struct NodeSlot {
    pub(crate) node: u32,
    pub(crate) index: u32,
    /// Where the slot's candidates sit in the group's candidate list.
    pub(crate) claimants: Range<usize>,
    /// The slot's newest finished allocation, once screened: the one a
    /// placement replaces, or the finished work of a sysbatch job.
    pub(crate) finished: Option<usize>,
}

/// Sorts `candidates` by node (in node id order), then name index, creation
/// and id: the order every later tie is broken in.
pub(crate) fn sort(candidates: &mut [Candidate], nodes: &NodeSet) {
    candidates.sort_by(|a, b| {
        let key = |c: &Candidate| (nodes.rank(c.alloc().node()), c.index());
        key(a)
            .cmp(&key(b))
            .then(a.alloc().create_index().cmp(&b.alloc().create_index()))
            .then(a.id().cmp(b.id()))
    });
}

/// The slots of a group of `count`: one per eligible node and index below
/// the count, and one for every other node and index some candidate claims,
/// in node id order, then index order. `candidates` must be sorted by
/// [`sort`].
pub(crate) fn build(candidates: &[Candidate], nodes: &NodeSet, count: u32) -> Vec<NodeSlot> {
    let mut claimed: Vec<NodeSlot> = Vec::new();
    for (i, c) in candidates.iter().enumerate() {
        match claimed.last_mut() {
            Some(s) if s.node == c.alloc().node() && s.index == c.index() => {
                s.claimants.end = i + 1
            }
            _ => claimed.push(NodeSlot {
                node: c.alloc().node(),
                index: c.index(),
                claimants: i..i + 1,
                finished: None,
            }),
        }
    }
    let wanted = nodes
        .eligible()
        .iter()
        .flat_map(|&node| (0..count).map(move |index| (node, index)));
    let key = |node: u32, index: u32| (nodes.rank(node), index);
    let mut slots = Vec::with_capacity(claimed.len().max(nodes.eligible().len()));
    let mut claimed = claimed.into_iter().peekable();
    for (node, index) in wanted {
        while let Some(c) = claimed.next_if(|c| key(c.node, c.index) < key(node, index)) {
            slots.push(c);
        }
        match claimed.peek() {
            Some(c) if key(c.node, c.index) == key(node, index) => {
                slots.extend(claimed.next());
            }
            _ => slots.push(NodeSlot {
                node,
                index,
                claimants: 0..0,
                finished: None,
            }),
        }
    }
    slots.extend(claimed);
    slots
}
