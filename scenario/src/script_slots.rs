//! Scripted answers by slot: per group, node slots by node id and name indexes as ranges, a later entry overriding an earlier one where they overlap, no range ever expanded into its slots.
//!
//! A script names slots by range (`web/0-999999`). Expanding each range into
//! one entry per slot, with its answer copied into each, let a three-line
//! script take any amount of memory: a few ranges of a million slots, or one
//! with a long text to attach to every slot. Ranges are kept as written
//! instead, trimmed where a later one covers them, and answers are shared.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::rc::Rc;

/// How a script names a slot: `web/3` (or a range, `web/0-4`) by name
/// index; `web@node-2`, a node slot of a system job, by the node's id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SlotName {
    Index(u32),
    Node(String),
}

/// Answers keyed by group and slot.
pub(crate) struct BySlot<T> {
    groups: BTreeMap<String, GroupSlots<T>>,
}

/// One group's answers.
struct GroupSlots<T> {
    nodes: BTreeMap<String, Rc<T>>,
    /// Disjoint ranges of name indexes by their first index: the last index
    /// and the answer.
    indexes: BTreeMap<u32, (u32, Rc<T>)>,
}

impl<T> Default for BySlot<T> {
    fn default() -> Self {
        Self {
            groups: BTreeMap::new(),
        }
    }
}

impl<T> BySlot<T> {
    pub(crate) fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The answer for slot `name` of `group`.
    pub(crate) fn get(&self, (group, name): &(String, SlotName)) -> Option<&T> {
        let slots = self.groups.get(group)?;
        let found = match name {
            SlotName::Node(node) => slots.nodes.get(node),
            SlotName::Index(index) => {
                let (_, (last, answer)) = slots.indexes.range(..=index).next_back()?;
                (index <= last).then_some(answer)
            }
        };
        found.map(Rc::as_ref)
    }

    /// Answers `answer` for node slot `node` of `group`, over any earlier answer.
    pub(crate) fn insert_node(&mut self, group: &str, node: &str, answer: Rc<T>) {
        self.group(group).nodes.insert(node.to_string(), answer);
    }

    /// Answers `answer` for the name indexes `range` of `group`, over any
    /// earlier answer for them: ranges it covers go, ranges it overlaps
    /// keep what it does not cover.
    pub(crate) fn insert_range(&mut self, group: &str, range: RangeInclusive<u32>, answer: Rc<T>) {
        let (first, last) = (*range.start(), *range.end());
        let indexes = &mut self.group(group).indexes;
        // One range at most starts before `first` and reaches into it.
        if let Some((&start, (end, earlier))) = indexes.range(..first).next_back() {
            if *end >= first {
                let (end, earlier) = (*end, Rc::clone(earlier));
                // `start < first`, so `first - 1` does not wrap.
                indexes.insert(start, (first - 1, Rc::clone(&earlier)));
                if end > last {
                    indexes.insert(last + 1, (end, earlier));
                }
            }
        }
        let covered: Vec<u32> = indexes.range(first..=last).map(|(&s, _)| s).collect();
        for start in covered {
            if let Some((end, earlier)) = indexes.remove(&start) {
                if end > last {
                    indexes.insert(last + 1, (end, earlier));
                }
            }
        }
        indexes.insert(first, (last, answer));
    }

    /// Adds `later`'s answers over these.
    pub(crate) fn extend(&mut self, later: BySlot<T>) {
        for (group, slots) in later.groups {
            for (node, answer) in slots.nodes {
                self.insert_node(&group, &node, answer);
            }
            for (first, (last, answer)) in slots.indexes {
                self.insert_range(&group, first..=last, answer);
            }
        }
    }

    fn group(&mut self, group: &str) -> &mut GroupSlots<T> {
        self.groups
            .entry(group.to_string())
            .or_insert_with(|| GroupSlots {
                nodes: BTreeMap::new(),
                indexes: BTreeMap::new(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::{BySlot, SlotName};
    use proptest::prelude::*;
    use std::collections::BTreeMap;
    use std::rc::Rc;

    proptest! {
        /// Kept as ranges, the answers are those of every range expanded
        /// into its slots, later entries over earlier ones, and of a later
        /// map over the first.
        #[test]
        fn ranges_answer_as_their_expansion_does(
            first in prop::collection::vec((0u32..40, 0u32..12, 0u8..4), 0..12),
            later in prop::collection::vec((0u32..40, 0u32..12, 0u8..4), 0..6),
        ) {
            let mut slots = BySlot::default();
            let mut expanded = BTreeMap::new();
            for (start, len, answer) in &first {
                slots.insert_range("web", *start..=start + len, Rc::new(*answer));
                for i in *start..=start + len {
                    expanded.insert(i, *answer);
                }
            }
            let mut over = BySlot::default();
            for (start, len, answer) in &later {
                over.insert_range("web", *start..=start + len, Rc::new(*answer + 10));
                for i in *start..=start + len {
                    expanded.insert(i, *answer + 10);
                }
            }
            slots.extend(over);
            for i in 0..60 {
                let got = slots.get(&("web".to_string(), SlotName::Index(i))).copied();
                prop_assert_eq!(got, expanded.get(&i).copied(), "slot {}", i);
            }
        }
    }

    fn answers(slots: &BySlot<&'static str>, group: &str, n: u32) -> Vec<Option<&'static str>> {
        (0..n)
            .map(|i| slots.get(&(group.to_string(), SlotName::Index(i))).copied())
            .collect()
    }

    #[test]
    fn a_later_range_overrides_the_slots_it_covers_and_no_other() {
        let mut slots = BySlot::default();
        slots.insert_range("web", 1..=8, Rc::new("a"));
        slots.insert_range("web", 3..=4, Rc::new("b"));
        slots.insert_range("web", 0..=1, Rc::new("c"));
        slots.insert_range("web", 8..=9, Rc::new("d"));
        slots.insert_range("web", 4..=6, Rc::new("e"));
        let (a, b, c, d, e) = (Some("a"), Some("b"), Some("c"), Some("d"), Some("e"));
        assert_eq!(
            answers(&slots, "web", 11),
            [c, c, a, b, e, e, e, a, d, d, None]
        );
        assert_eq!(answers(&slots, "api", 2), [None, None]);
    }

    #[test]
    fn a_range_covering_several_earlier_ones_replaces_them_all() {
        let mut slots = BySlot::default();
        for i in 0..5 {
            slots.insert_range("web", 2 * i..=2 * i, Rc::new("old"));
        }
        slots.insert_range("web", 1..=7, Rc::new("new"));
        let (old, new) = (Some("old"), Some("new"));
        assert_eq!(
            answers(&slots, "web", 10),
            [old, new, new, new, new, new, new, new, old, None]
        );
    }

    #[test]
    fn ranges_reach_the_ends_of_the_index_space() {
        let mut slots = BySlot::default();
        slots.insert_range("web", 0..=u32::MAX, Rc::new("all"));
        slots.insert_range("web", u32::MAX..=u32::MAX, Rc::new("last"));
        slots.insert_range("web", 0..=0, Rc::new("first"));
        let at = |i| slots.get(&("web".to_string(), SlotName::Index(i))).copied();
        assert_eq!(at(0), Some("first"));
        assert_eq!(at(1), Some("all"));
        assert_eq!(at(u32::MAX - 1), Some("all"));
        assert_eq!(at(u32::MAX), Some("last"));
    }

    #[test]
    fn extending_puts_the_later_answers_over_the_earlier_ones() {
        let mut slots = BySlot::default();
        slots.insert_range("web", 0..=5, Rc::new("script"));
        slots.insert_node("web", "node-1", Rc::new("script"));
        let mut failing = BySlot::default();
        failing.insert_range("web", 2..=3, Rc::new("fail"));
        failing.insert_node("web", "node-1", Rc::new("fail"));
        slots.extend(failing);
        let (s, f) = (Some("script"), Some("fail"));
        assert_eq!(answers(&slots, "web", 6), [s, s, f, f, s, s]);
        let node = ("web".to_string(), SlotName::Node("node-1".into()));
        assert_eq!(slots.get(&node).copied(), f);
    }
}
