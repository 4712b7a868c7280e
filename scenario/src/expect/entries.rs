//! A group's expected changes of one kind against the plan's, entry by entry: ranges of slots measured before they are expanded, then paired with what the plan holds.

use crate::file::span;
use crate::file::{Entries, EntryDetail, EntryExpect};
use crate::limits::MAX_ALLOCATIONS;
use crate::wit_name::wit_name;
use slotwise_reconciler::ClientStatus;
use std::collections::BTreeMap;

/// Expected entries naming no slot a list may hold: each is tried against
/// every actual entry, and they are written one by one, by hand.
const MAX_UNPLACED: usize = 10_000;

/// An entry of the plan, reduced to what expectations can name.
#[derive(Default)]
pub(super) struct Actual {
    pub(super) index: u32,
    pub(super) alloc: Option<String>,
    pub(super) canary: bool,
    pub(super) reschedule: bool,
    pub(super) lost: bool,
    pub(super) downgrade: bool,
    pub(super) client_status: Option<ClientStatus>,
    pub(super) eval: Option<usize>,
    pub(super) node: Option<String>,
}

impl Actual {
    /// The entry as a scenario would write it.
    fn describe(&self) -> String {
        let mut parts = vec![format!("index: {}", self.index)];
        if let Some(a) = &self.alloc {
            parts.push(format!("alloc: {a}"));
        }
        for (name, set) in [
            ("canary", self.canary),
            ("reschedule", self.reschedule),
            ("lost", self.lost),
            ("downgrade", self.downgrade),
        ] {
            if set {
                parts.push(format!("{name}: true"));
            }
        }
        if let Some(s) = &self.client_status {
            parts.push(format!("client-status: {}", wit_name(s)));
        }
        if let Some(e) = self.eval {
            parts.push(format!("eval: {e}"));
        }
        if let Some(n) = &self.node {
            parts.push(format!("node: {n}"));
        }
        format!("{{{}}}", parts.join(", "))
    }

    fn satisfies(&self, want: &EntryDetail) -> bool {
        want.index.is_none_or(|i| i == self.index)
            && want
                .alloc
                .as_ref()
                .is_none_or(|a| Some(a) == self.alloc.as_ref())
            && want.canary.is_none_or(|c| c == self.canary)
            && want.reschedule.is_none_or(|r| r == self.reschedule)
            && want.replaces.is_none_or(|r| r == self.alloc.is_some())
            && want.lost.is_none_or(|l| l == self.lost)
            && want.downgrade.is_none_or(|d| d == self.downgrade)
            && want
                .client_status
                .is_none_or(|s| Some(s) == self.client_status)
            && want.eval.is_none_or(|e| Some(e) == self.eval)
            && want
                .node
                .as_ref()
                .is_none_or(|n| Some(n) == self.node.as_ref())
    }
}

/// An expected entry as the scenario wrote it.
fn describe_expected(d: &EntryDetail) -> String {
    let mut parts = Vec::new();
    let mut add = |name: &str, value: Option<String>| {
        if let Some(v) = value {
            parts.push(format!("{name}: {v}"));
        }
    };
    add("index", d.index.map(|i| i.to_string()));
    add("alloc", d.alloc.clone());
    add("canary", d.canary.map(|b| b.to_string()));
    add("reschedule", d.reschedule.map(|b| b.to_string()));
    add("replaces", d.replaces.map(|b| b.to_string()));
    add("lost", d.lost.map(|b| b.to_string()));
    add("downgrade", d.downgrade.map(|b| b.to_string()));
    add("client-status", d.client_status.as_ref().map(wit_name));
    add("eval", d.eval.map(|e| e.to_string()));
    add("node", d.node.clone());
    format!("{{{}}}", parts.join(", "))
}

pub(super) fn check_entries(
    what: &str,
    want: Option<&Entries>,
    got: &[Actual],
    out: &mut Vec<String>,
) {
    let indexes = || {
        let mut i: Vec<u32> = got.iter().map(|a| a.index).collect();
        i.sort_unstable();
        i
    };
    let listed = match want {
        None if got.is_empty() => return,
        None => {
            return out.push(format!(
                "{what}: expected none, got {} at slots {:?}",
                got.len(),
                indexes()
            ))
        }
        Some(Entries::Count(n)) if *n == got.len() => return,
        Some(Entries::Count(n)) => {
            return out.push(format!(
                "{what}: expected {n}, got {} at slots {:?}",
                got.len(),
                indexes()
            ))
        }
        Some(Entries::Listed(list)) => list,
    };
    // Ranges are measured, all of them, before any is expanded: each may name
    // a million slots, and a list of them any multiple of that.
    let mut spans = Vec::new();
    let mut named: u64 = 0;
    for entry in listed {
        match entry {
            EntryExpect::Slots(slots) => match span(slots, what) {
                Ok(span) => {
                    named += u64::from(span.end() - span.start()) + 1;
                    spans.push(Ok(span));
                }
                Err(e) => return out.push(e.to_string()),
            },
            EntryExpect::Detail(d) => {
                named += 1;
                spans.push(Err(d));
            }
        }
    }
    if named > MAX_ALLOCATIONS {
        return out.push(format!(
            "{what}: the list names {named} entries in all; the limit is {MAX_ALLOCATIONS}"
        ));
    }
    let mut details = Vec::new();
    for span in spans {
        match span {
            Ok(slots) => details.extend(slots.map(|i| EntryDetail {
                index: Some(i),
                ..EntryDetail::default()
            })),
            Err(d) => details.push(d.clone()),
        }
    }
    // Slots alone pair up exactly when they are the same multiset.
    let simple = listed.iter().all(|e| matches!(e, EntryExpect::Slots(_)));
    if simple {
        let mut want: Vec<u32> = details.iter().filter_map(|d| d.index).collect();
        want.sort_unstable();
        let got = indexes();
        if want != got {
            out.push(format!("{what}: expected slots {want:?}, got {got:?}"));
        }
        return;
    }
    let unplaced = details.iter().filter(|d| d.index.is_none()).count();
    if unplaced > MAX_UNPLACED {
        return out.push(format!(
            "{what}: {unplaced} entries name no slot; the limit is {MAX_UNPLACED}"
        ));
    }
    let (missing, extra) = pair_up(&details, got);
    for m in missing {
        out.push(format!(
            "{what}: no entry matches {}",
            describe_expected(&details[m])
        ));
    }
    for e in extra {
        out.push(format!("{what}: unexpected entry {}", got[e].describe()));
    }
}

/// Pairs each expected entry with a distinct actual one that satisfies it,
/// by augmenting paths, so that a loose expectation never takes the entry a
/// stricter one needs. Returns the unmatched expected and actual positions.
///
/// An entry that names its slot is tried only against the actual entries of
/// that slot, and each search marks what it visited with its own number
/// instead of clearing a table: trying every actual entry, with a table
/// cleared per expected one, made a hundred thousand expected slots take
/// 17 s.
fn pair_up(want: &[EntryDetail], got: &[Actual]) -> (Vec<usize>, Vec<usize>) {
    let mut by_index: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (g, actual) in got.iter().enumerate() {
        by_index.entry(actual.index).or_default().push(g);
    }
    let pairing = Pairing {
        want,
        got,
        by_index,
        every: (0..got.len()).collect(),
    };
    let mut owner: Vec<Option<usize>> = vec![None; got.len()];
    let mut visited: Vec<usize> = vec![usize::MAX; got.len()];
    let mut missing = Vec::new();
    for w in 0..want.len() {
        if !pairing.augment(w, w, &mut visited, &mut owner) {
            missing.push(w);
        }
    }
    let extra = (0..got.len()).filter(|&g| owner[g].is_none()).collect();
    (missing, extra)
}

/// The expected and actual entries being paired.
struct Pairing<'a> {
    want: &'a [EntryDetail],
    got: &'a [Actual],
    /// The actual entries of each slot, in order.
    by_index: BTreeMap<u32, Vec<usize>>,
    /// Every actual entry, in order, for an expected one naming no slot.
    every: Vec<usize>,
}

impl Pairing<'_> {
    /// The actual entries expected entry `w` may pair with, in order.
    fn candidates(&self, w: usize) -> &[usize] {
        match self.want[w].index {
            Some(index) => self.by_index.get(&index).map_or(&[], Vec::as_slice),
            None => &self.every,
        }
    }

    /// Whether `w` can be paired, moving earlier pairs along a path if
    /// need be; `search` marks the actual entries this search visited.
    fn augment(
        &self,
        w: usize,
        search: usize,
        visited: &mut [usize],
        owner: &mut [Option<usize>],
    ) -> bool {
        for &g in self.candidates(w) {
            if visited[g] == search || !self.got[g].satisfies(&self.want[w]) {
                continue;
            }
            visited[g] = search;
            if owner[g].is_none_or(|other| self.augment(other, search, visited, owner)) {
                owner[g] = Some(w);
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::{check_entries, Actual, MAX_UNPLACED};
    use crate::file::{Entries, EntryDetail, EntryExpect, Indexes};

    fn actual(index: u32, canary: bool) -> Actual {
        Actual {
            index,
            canary,
            ..Actual::default()
        }
    }

    fn check(listed: Vec<EntryExpect>, got: &[Actual]) -> Vec<String> {
        let mut out = Vec::new();
        check_entries("web: place", Some(&Entries::Listed(listed)), got, &mut out);
        out
    }

    fn detail(index: Option<u32>, canary: Option<bool>) -> EntryExpect {
        EntryExpect::Detail(EntryDetail {
            index,
            canary,
            ..EntryDetail::default()
        })
    }

    #[test]
    fn what_cannot_be_paired_is_named_on_both_sides() {
        let got = [actual(0, false), actual(1, true)];
        let listed = vec![detail(Some(0), Some(true)), detail(None, Some(true))];
        assert_eq!(
            check(listed, &got),
            [
                "web: place: no entry matches {index: 0, canary: true}",
                "web: place: unexpected entry {index: 0}"
            ]
        );
    }

    #[test]
    fn slots_alone_compare_as_multisets() {
        let got = [actual(2, false), actual(0, false), actual(2, true)];
        let slots = |text: &str| EntryExpect::Slots(Indexes::Range(text.into()));
        assert_eq!(
            check(vec![slots("2"), slots("0"), slots("2")], &got),
            Vec::<String>::new()
        );
        assert_eq!(
            check(vec![slots("0-2")], &got),
            ["web: place: expected slots [0, 1, 2], got [0, 2, 2]"]
        );
    }

    #[test]
    fn entries_naming_no_slot_are_refused_past_the_limit() {
        let listed = (0..=MAX_UNPLACED)
            .map(|_| detail(None, Some(false)))
            .collect();
        assert_eq!(
            check(listed, &[]),
            [format!(
                "web: place: {} entries name no slot; the limit is {MAX_UNPLACED}",
                MAX_UNPLACED + 1
            )]
        );
    }
}
