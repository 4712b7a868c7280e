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
use crate::allocation_ref::AllocationList;
use crate::ReconcileInput;
use std::ops::Deref;

/// What a reader notes of each allocation as it reads it.
pub(crate) trait Noting {
    /// Starts the notes of an input that lists `nodes` nodes.
    fn for_nodes(nodes: usize) -> Self;
    /// Makes room for `n` more allocations.
    fn reserve(&mut self, n: usize);
    /// Notes one allocation, in input order, by its id, node and slot.
    fn note(&mut self, id: &str, node: u32, name_index: u32);
}

/// Noting nothing: a reader whose caller validates in its own pass.
impl Noting for () {
    fn for_nodes(_: usize) -> Self {}
    fn reserve(&mut self, _: usize) {}
    fn note(&mut self, _: &str, _: u32, _: u32) {}
}

/// An input, with its reader's notes of its allocations when it has them.
pub(crate) trait Noted: Deref<Target = ReconcileInput> {
    /// The notes of every allocation of the input, if its reader took them.
    fn screen(&self) -> Option<&Screen>;

    /// Each group's allocations, in input order: the typed lists, unless
    /// the reader left them as the wire's records.
    fn lists(&self) -> Vec<AllocationList<'_>> {
        AllocationList::of_input(self)
    }
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
    fn note(&mut self, id: &str, node: u32, name_index: u32) {
        self.sound &=
            !id.is_empty() && (node as usize) < self.nodes && name_index <= MAX_NAME_INDEX;
        self.hashes.push(distinct_ids::hash(id));
    }
}

impl Screen {
    /// The notes of the allocations `lists` hold, in an input of `nodes`
    /// nodes, taken in a pass over them.
    pub(super) fn of(lists: &[AllocationList], nodes: usize) -> Self {
        let mut screen = Self::for_nodes(nodes);
        screen.reserve(lists.iter().map(|list| list.len()).sum());
        for a in lists.iter().flat_map(|list| list.iter()) {
            screen.note(a.id(), a.node(), a.name_index());
        }
        screen
    }

    /// Whether every allocation of `lists` (of an input of `nodes` nodes)
    /// is sound and no two ids are equal, as far as the notes prove it;
    /// `None` when the notes are not of those allocations (another count of
    /// allocations or of nodes). `Some(false)` proves nothing: the caller
    /// looks for the first inconsistency itself.
    pub(super) fn clears(&self, lists: &[AllocationList], nodes: usize) -> Option<bool> {
        let total: usize = lists.iter().map(|list| list.len()).sum();
        if self.hashes.len() != total || self.nodes != nodes {
            return None;
        }
        Some(self.sound && distinct_ids::surely_distinct(&self.hashes))
    }
}

#[cfg(test)]
mod tests {
    use super::Screen;
    use crate::allocation_ref::AllocationList;
    use crate::{AllocationSpec, ReconcileInput};

    /// The notes of `input`, taken in a pass.
    fn screen(input: &ReconcileInput) -> Screen {
        Screen::of(&AllocationList::of_input(input), input.nodes.len())
    }

    /// What the notes clear of `input`.
    fn clears(notes: &Screen, input: &ReconcileInput) -> Option<bool> {
        notes.clears(&AllocationList::of_input(input), input.nodes.len())
    }

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
        assert_eq!(clears(&screen(&input), &input), Some(true));
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
            assert_eq!(clears(&screen(&input), &input), Some(false));
        }
    }

    #[test]
    fn notes_of_another_input_clear_nothing() {
        let input = input_with(50);
        let notes = screen(&input);
        let mut longer = input.clone();
        let extra = input.allocations[0].allocations[0].clone();
        longer.allocations[0].allocations.push(extra);
        assert_eq!(clears(&notes, &longer), None);
        let mut more_nodes = input.clone();
        more_nodes.nodes.push(input.nodes[0].clone());
        assert_eq!(clears(&notes, &more_nodes), None);
    }
}
