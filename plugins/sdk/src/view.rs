//! Reading a batch: a slot with its group, candidates, nodes, rules and changes, found through the batch's spans and tables.

use crate::{Candidate, Change, Node, SlotBatch, SlotKey};

/// One slot of a batch, by position.
#[derive(Clone, Copy)]
pub struct SlotRef<'b> {
    pub batch: &'b SlotBatch,
    /// Its position in the batch's slots.
    pub at: usize,
}

impl<'b> SlotRef<'b> {
    /// Slot `at` of `batch`.
    pub fn new(batch: &'b SlotBatch, at: usize) -> Self {
        Self { batch, at }
    }

    /// Its name index; for a node slot of a system job, none.
    pub fn index(&self) -> Option<u32> {
        match self.batch.slots[self.at].key {
            SlotKey::Index(i) => Some(i),
            SlotKey::Node(_) => None,
        }
    }

    /// Its node, for a node slot of a system or sysbatch job; none for a
    /// slot keyed by name index.
    pub fn slot_node(&self) -> Option<&'b Node> {
        match self.batch.slots[self.at].key {
            SlotKey::Node(n) => self.batch.nodes.get(n as usize),
            SlotKey::Index(_) => None,
        }
    }

    /// The name of its group.
    pub fn group(&self) -> &'b str {
        let at = self.at as u32;
        self.batch
            .groups
            .iter()
            .find(|g| at >= g.slots.first && at - g.slots.first < g.slots.count)
            .map_or("", |g| g.name.as_str())
    }

    /// `group/index`, as messages name a slot.
    pub fn name(&self) -> String {
        match self.index() {
            Some(i) => format!("{}/{i}", self.group()),
            None => format!("{}/node", self.group()),
        }
    }

    /// Its candidates, with their positions in the batch.
    pub fn candidates(&self) -> impl Iterator<Item = (u32, &'b Candidate)> + 'b {
        let span = self.batch.slots[self.at].candidates;
        let batch = self.batch;
        (span.first..span.first + span.count).map(move |p| (p, &batch.candidates[p as usize]))
    }

    /// The changes proposed for it.
    pub fn changes(&self) -> impl Iterator<Item = &'b Change> + 'b {
        let span = self.batch.slots[self.at].changes;
        self.batch.changes[span.first as usize..(span.first + span.count) as usize].iter()
    }

    /// The node hosting `candidate`.
    pub fn node(&self, candidate: &Candidate) -> &'b Node {
        &self.batch.nodes[candidate.node as usize]
    }

    /// The candidate a change concerns, if any.
    pub fn candidate_of(&self, change: &Change) -> Option<&'b Candidate> {
        change
            .candidate
            .and_then(|p| self.batch.candidates.get(p as usize))
    }

    /// The reason code of a change, in kebab-case.
    pub fn reason(&self, change: &Change) -> &'b str {
        self.batch
            .reasons
            .get(change.reason as usize)
            .map_or("", String::as_str)
    }
}

/// Every slot of `batch`.
pub fn slots(batch: &SlotBatch) -> impl Iterator<Item = SlotRef<'_>> {
    (0..batch.slots.len()).map(move |at| SlotRef::new(batch, at))
}
