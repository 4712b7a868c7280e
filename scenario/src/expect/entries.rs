//! A group's expected changes of one kind against the plan's, entry by entry: ranges of slots measured before they are expanded, then paired with what the plan holds.

use crate::file::span;
use crate::file::{Entries, EntryDetail, EntryExpect};
use crate::limits::MAX_ALLOCATIONS;
use crate::wit_name::wit_name;
use slotwise_reconciler::ClientStatus;

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
    let (missing, extra) = pair_up(&details, got);
    if missing.is_empty() && extra.is_empty() {
        return;
    }
    let simple = listed.iter().all(|e| matches!(e, EntryExpect::Slots(_)));
    if simple {
        let mut want: Vec<u32> = details.iter().filter_map(|d| d.index).collect();
        want.sort_unstable();
        return out.push(format!(
            "{what}: expected slots {want:?}, got {:?}",
            indexes()
        ));
    }
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
fn pair_up(want: &[EntryDetail], got: &[Actual]) -> (Vec<usize>, Vec<usize>) {
    let mut owner: Vec<Option<usize>> = vec![None; got.len()];
    fn augment(
        w: usize,
        want: &[EntryDetail],
        got: &[Actual],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for g in 0..got.len() {
            if seen[g] || !got[g].satisfies(&want[w]) {
                continue;
            }
            seen[g] = true;
            if owner[g].is_none_or(|other| augment(other, want, got, seen, owner)) {
                owner[g] = Some(w);
                return true;
            }
        }
        false
    }
    let mut missing = Vec::new();
    for w in 0..want.len() {
        let mut seen = vec![false; got.len()];
        if !augment(w, want, got, &mut seen, &mut owner) {
            missing.push(w);
        }
    }
    let extra = (0..got.len()).filter(|&g| owner[g].is_none()).collect();
    (missing, extra)
}
