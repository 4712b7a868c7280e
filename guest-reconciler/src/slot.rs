//! The slots of a group: one per name index, each holding the candidates that claim it.

use crate::candidate::Candidate;
use std::ops::Range;

/// Where each slot's candidates sit in the group's candidate list, which is
/// sorted by slot so that a slot's candidates are contiguous.
pub(crate) struct Slots {
    claimed: Vec<(u32, Range<usize>)>,
    /// Per name index, the position of its entry in `claimed`, or
    /// `u32::MAX`: hooks look slots up one by one, and a lookup by position
    /// beats a binary search. Left empty when the indexes are too sparse for
    /// a table of them to stay proportional to the candidates.
    by_index: Vec<u32>,
}

impl Slots {
    /// Indexes the slots of `candidates`, which must be sorted by name index.
    pub(crate) fn new(candidates: &[Candidate]) -> Self {
        // As many slots as candidates at most: one allocation, no regrowth.
        let mut claimed: Vec<(u32, Range<usize>)> = Vec::with_capacity(candidates.len());
        for (i, c) in candidates.iter().enumerate() {
            match claimed.last_mut() {
                Some((index, range)) if *index == c.index() => range.end = i + 1,
                _ => claimed.push((c.index(), i..i + 1)),
            }
        }
        let table = claimed.last().map_or(0, |(last, _)| *last as usize + 1);
        let by_index = if table <= 2 * claimed.len() + 64 {
            let mut by_index = vec![u32::MAX; table];
            for (at, (index, _)) in claimed.iter().enumerate() {
                by_index[*index as usize] = at as u32;
            }
            by_index
        } else {
            Vec::new()
        };
        Self { claimed, by_index }
    }

    /// The positions of the candidates claiming slot `index`, oldest first.
    pub(crate) fn claimants(&self, index: u32) -> Range<usize> {
        let at = if self.by_index.is_empty() {
            self.claimed.binary_search_by_key(&index, |(i, _)| *i).ok()
        } else {
            (self.by_index.get(index as usize))
                .filter(|&&at| at != u32::MAX)
                .map(|&at| at as usize)
        };
        at.and_then(|at| self.claimed.get(at))
            .map_or(0..0, |(_, range)| range.clone())
    }

    /// Every slot of a group of `count`: those below the count, and any
    /// beyond it that a candidate claims, ascending.
    pub(crate) fn all(&self, count: u32) -> Vec<u32> {
        let mut beyond = self.claimed.iter().map(|(i, _)| *i).filter(|&i| i >= count);
        let mut all: Vec<u32> = (0..count).collect();
        all.extend(&mut beyond);
        all
    }
}
