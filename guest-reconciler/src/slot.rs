//! The slots of a group: one per name index, each holding the candidates that claim it.

use crate::candidate::Candidate;
use std::ops::Range;

/// Where each slot's candidates sit in the group's candidate list, which is
/// sorted by slot so that a slot's candidates are contiguous.
pub(crate) struct Slots {
    claimed: Vec<(u32, Range<usize>)>,
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
        Self { claimed }
    }

    /// The positions of the candidates claiming slot `index`, oldest first.
    pub(crate) fn claimants(&self, index: u32) -> Range<usize> {
        match self.claimed.binary_search_by_key(&index, |(i, _)| *i) {
            Ok(at) => self.claimed[at].1.clone(),
            Err(_) => 0..0,
        }
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
