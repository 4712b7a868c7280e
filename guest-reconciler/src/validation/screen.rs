//! What validation asks of every allocation, noted by the wire's reader while the allocation is at hand, so that validation need not go back over every record.
//!
//! Validation reads each allocation's id, node and slot, and hashes the id.
//! In the component that pass went back to records the decoder had written
//! moments before: at 100,000 allocations they no longer sat in the cache,
//! and the pass took about 50 ns per allocation of an encoded call of 340
//! (`perf`), against about 20 at 10,000. The reader notes the same facts
//! while each record is still in the first-level cache.

use super::distinct_ids;
use super::limits::MAX_NAME_INDEX;
use crate::{AllocationSpec, ReconcileInput};
use std::ops::Deref;

/// What a reader notes of each allocation as it reads it.
pub(crate) trait Noting {
    /// Starts the notes of an input that lists `nodes` nodes.
    fn for_nodes(nodes: usize) -> Self;
    /// Makes room for `n` more allocations.
    fn reserve(&mut self, n: usize);
    /// Notes one allocation, in input order.
    fn note(&mut self, spec: &AllocationSpec);
}

/// Noting nothing: a reader whose caller validates in its own pass.
impl Noting for () {
    fn for_nodes(_: usize) -> Self {}
    fn reserve(&mut self, _: usize) {}
    fn note(&mut self, _: &AllocationSpec) {}
}

/// An input, with its reader's notes of its allocations when it has them.
pub(crate) trait Noted: Deref<Target = ReconcileInput> {
    /// The notes of every allocation of the input, if its reader took them.
    fn screen(&self) -> Option<&Screen>;
}

/// An input of the caller's, which no reader noted.
pub(crate) struct Unnoted(pub(crate) ReconcileInput);

impl Deref for Unnoted {
    type Target = ReconcileInput;

    fn deref(&self) -> &ReconcileInput {
        &self.0
    }
}

impl Noted for Unnoted {
    fn screen(&self) -> Option<&Screen> {
        None
    }
}

/// Every allocation's id hash, in input order, and whether every id is
/// non-empty, every node listed and every slot within bounds.
pub(crate) struct Screen {
    hashes: Vec<u64>,
    sound: bool,
    nodes: usize,
}

impl Noting for Screen {
    fn for_nodes(nodes: usize) -> Self {
        Self {
            hashes: Vec::new(),
            sound: true,
            nodes,
        }
    }

    fn reserve(&mut self, n: usize) {
        self.hashes.reserve(n);
    }

    #[inline(always)]
    fn note(&mut self, spec: &AllocationSpec) {
        self.sound &= !spec.id.is_empty()
            && (spec.node as usize) < self.nodes
            && spec.name_index <= MAX_NAME_INDEX;
        self.hashes.push(distinct_ids::hash(&spec.id));
    }
}

impl Screen {
    /// The notes of `input`'s allocations, taken in a pass over them.
    pub(super) fn of(input: &ReconcileInput) -> Self {
        let mut screen = Self::for_nodes(input.nodes.len());
        screen.reserve(input.allocations.iter().map(|g| g.allocations.len()).sum());
        for a in input.allocations.iter().flat_map(|g| &g.allocations) {
            screen.note(&a.spec);
        }
        screen
    }

    /// Whether every allocation of `input` is sound and no two ids are
    /// equal, as far as the notes prove it; `None` when the notes are not of
    /// `input`'s allocations (another count of allocations or of nodes).
    /// `Some(false)` proves nothing: the caller looks for the first
    /// inconsistency itself.
    pub(super) fn clears(&self, input: &ReconcileInput) -> Option<bool> {
        let total: usize = input.allocations.iter().map(|g| g.allocations.len()).sum();
        if self.hashes.len() != total || self.nodes != input.nodes.len() {
            return None;
        }
        Some(self.sound && distinct_ids::surely_distinct(&self.hashes))
    }
}

#[cfg(test)]
mod tests {
    use super::Screen;
    use crate::{AllocationSpec, ReconcileInput};

    /// The bundled example, its group grown to `n` allocations with ids of
    /// their own.
    fn input_with(n: usize) -> ReconcileInput {
        let mut input: ReconcileInput =
            serde_json::from_str(include_str!("../../examples/node-down.json"))
                .unwrap_or_else(|e| panic!("the bundled example reads: {e}"));
        let group = &mut input.allocations[0].allocations;
        let first = group[0].clone();
        group.clear();
        for i in 0..n {
            let mut a = first.clone();
            a.spec.id = format!("a-{i}");
            a.spec.name_index = i as u32;
            group.push(a);
        }
        input
    }

    #[test]
    fn a_sound_input_is_cleared_by_its_notes() {
        let input = input_with(50);
        assert_eq!(Screen::of(&input).clears(&input), Some(true));
    }

    #[test]
    fn a_repeated_id_a_missing_node_an_empty_id_or_a_slot_past_the_limit_is_not_cleared() {
        let breaks: [fn(&mut AllocationSpec); 4] = [
            |s| s.id = "a-7".into(),
            |s| s.node = 99,
            |s| s.id.clear(),
            |s| s.name_index = crate::MAX_NAME_INDEX + 1,
        ];
        for broken in breaks {
            let mut input = input_with(50);
            broken(&mut input.allocations[0].allocations[30].spec);
            assert_eq!(Screen::of(&input).clears(&input), Some(false));
        }
    }

    #[test]
    fn notes_of_another_input_clear_nothing() {
        let input = input_with(50);
        let notes = Screen::of(&input);
        let mut longer = input.clone();
        let extra = input.allocations[0].allocations[0].clone();
        longer.allocations[0].allocations.push(extra);
        assert_eq!(notes.clears(&longer), None);
        let mut more_nodes = input.clone();
        more_nodes.nodes.push(input.nodes[0].clone());
        assert_eq!(notes.clears(&more_nodes), None);
    }
}
