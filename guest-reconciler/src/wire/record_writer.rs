//! Writes a group's allocations as the wire's fixed records followed by their tail: the layout of `allocation_record`, for inputs of content 3.
//!
//! A group is its allocation count (varint), the length of its tail (four
//! bytes, little-endian, so that it is written once the tail is), its
//! records, then the tail: each allocation's id, deployment, previous and
//! next allocation and rest, in record order. A record whose deployment is
//! the last one written places that one, as most allocations of a rollout
//! share it.
//!
//! The tail is laid out by [`Tail::of`], record by record, and the record
//! written at the places it gives; so the same bytes come out whether the
//! records are written in order as they are laid out, or, to release the
//! caller's allocations as they go, laid out first and written last first.

use super::growing;
use super::writer::Writer;
use crate::allocation_record::{at, health, present, rest_is_empty, transition, LEN};
use crate::{Allocation, ObservedState};

/// How many records a releasing write writes before it gives the list's
/// spare room back to the allocator.
const RELEASE_EVERY: usize = 1 << 16;

/// Appends `allocations` to `w`, or gives `false`, having written nothing,
/// when their records and tail would not fit the layout's four-byte
/// offsets (some 35 million allocations in one group).
pub(super) fn allocations(w: &mut Writer, allocations: &[Allocation]) -> bool {
    let out = &mut *w.0;
    let group = Group::open(out, allocations.len());
    let (mut shared, mut rest, mut end) = (None, Vec::new(), 0);
    for (i, a) in allocations.iter().enumerate() {
        let tail = Tail::of(a, end, &mut shared, &mut rest);
        end = tail.end(a, rest.len());
        group.reach(out, end);
        group.write(out, i, a, tail, &rest);
    }
    group.close(out, end)
}

/// A group's tail, laid out before its records are written.
pub(super) struct Layout {
    tails: Vec<Tail>,
    /// The rests of the allocations that have one, in order.
    rests: Vec<Vec<u8>>,
    end: usize,
}

/// Lays out the tail of `allocations`; `None` when the group would not fit
/// the layout's four-byte offsets.
pub(super) fn layout(allocations: &[Allocation]) -> Option<Layout> {
    let (mut shared, mut rest, mut end) = (None, Vec::new(), 0);
    let mut rests = Vec::new();
    let tails = (allocations.iter())
        .map(|a| {
            let tail = Tail::of(a, end, &mut shared, &mut rest);
            end = tail.end(a, rest.len());
            if !rest.is_empty() {
                rests.push(rest.clone());
            }
            tail
        })
        .collect();
    fits(allocations.len(), end).then_some(Layout { tails, rests, end })
}

/// Appends `allocations`, laid out by `layout`, to `w`, emptying the list
/// as each is written, last first, and giving its memory back as it goes:
/// the caller's allocations and their records are never both whole.
pub(super) fn allocations_releasing(
    w: &mut Writer,
    allocations: &mut Vec<Allocation>,
    layout: Layout,
) {
    let count = allocations.len();
    let mut prefix = Vec::new();
    Writer(&mut prefix).u64(count as u64);
    prefix.extend_from_slice(&[0; 4]);
    // Zeroed memory comes from the allocator untouched: its pages are taken
    // only as records are written into them, while the allocations they
    // stand for are given back. Appended to the buffer once the group is
    // written, when little else is held.
    let mut region = vec![0u8; prefix.len() + count * LEN + layout.end];
    region[..prefix.len()].copy_from_slice(&prefix);
    let group = Group {
        before: 0,
        records: prefix.len(),
        count,
    };
    let Layout {
        tails,
        mut rests,
        end,
    } = layout;
    for (i, tail) in tails.into_iter().enumerate().rev() {
        let Some(a) = allocations.pop() else {
            break;
        };
        let rest = match rest_is_empty(&a.observed) {
            true => Vec::new(),
            false => rests.pop().unwrap_or_default(),
        };
        group.write(&mut region, i, &a, tail, &rest);
        drop(a);
        if i % RELEASE_EVERY == 0 {
            allocations.shrink_to_fit();
        }
    }
    // The layout fitted, so the group closes.
    group.close(&mut region, end);
    w.0.extend_from_slice(&region);
}

/// Whether `count` records and a tail of `end` bytes fit four-byte offsets.
fn fits(count: usize, end: usize) -> bool {
    count
        .checked_mul(LEN)
        .and_then(|records| records.checked_add(end))
        .is_some_and(|total| total <= u32::MAX as usize)
}

/// Where one allocation's strings and rest go, in bytes from the tail's start.
#[derive(Clone, Copy)]
struct Tail {
    /// Its id's first byte; the rest of what it writes follows.
    start: u32,
    /// Its deployment's first byte: right after its id, or where the one it
    /// shares was written.
    deployment: u32,
}

impl Tail {
    /// The places of `a`'s tail, which starts at `start`. `shared` is the
    /// last deployment written, with its place; `rest` is given the bytes of
    /// `a`'s rest, if it has one.
    fn of<'a>(
        a: &'a Allocation,
        start: usize,
        shared: &mut Option<(&'a str, usize)>,
        rest: &mut Vec<u8>,
    ) -> Self {
        let s = &a.spec;
        let after_id = start + s.id.len();
        let deployment = match (s.deployment.as_deref(), *shared) {
            (Some(text), Some((last, at))) if text == last => at,
            (Some(text), _) => {
                *shared = Some((text, after_id));
                after_id
            }
            (None, _) => after_id,
        };
        rest.clear();
        let o = &a.observed;
        if !rest_is_empty(o) {
            let fields = (
                &o.reschedule,
                &o.followup_eval,
                &o.client_states,
                &o.tasks,
                &o.meta,
            );
            *rest = growing::append(std::mem::take(rest), &fields);
        }
        // Offsets past four bytes fail the group's `fits`, which discards
        // whatever was placed with them.
        Self {
            start: start as u32,
            deployment: deployment as u32,
        }
    }

    /// Where the tail goes on after `a`'s part, which has `rest` bytes of rest.
    fn end(self, a: &Allocation, rest: usize) -> usize {
        let s = &a.spec;
        let len = |text: &Option<String>| text.as_deref().map_or(0, str::len);
        let own = self.owns_deployment(a) as usize * len(&s.deployment);
        self.start as usize
            + s.id.len()
            + own
            + len(&s.previous_allocation)
            + len(&s.next_allocation)
            + rest
    }

    fn owns_deployment(self, a: &Allocation) -> bool {
        a.spec.deployment.is_some()
            && self.deployment as usize == self.start as usize + a.spec.id.len()
    }
}

/// A group's records and tail in the buffer being written.
struct Group {
    /// The buffer's length before the group.
    before: usize,
    records: usize,
    count: usize,
}

impl Group {
    /// Writes the group's count and room for its tail's length and records.
    fn open(out: &mut Vec<u8>, count: usize) -> Self {
        let before = out.len();
        Writer(out).u64(count as u64);
        out.extend_from_slice(&[0; 4]);
        let records = out.len();
        out.resize(records + count * LEN, 0);
        Self {
            before,
            records,
            count,
        }
    }

    fn tail(&self) -> usize {
        self.records + self.count * LEN
    }

    /// Makes room for the tail up to `end`.
    fn reach(&self, out: &mut Vec<u8>, end: usize) {
        let want = self.tail() + end;
        if out.len() < want {
            out.resize(want, 0);
        }
    }

    fn write(&self, out: &mut Vec<u8>, i: usize, a: &Allocation, tail: Tail, rest: &[u8]) {
        let record = Placing {
            out,
            first: self.records + i * LEN,
            tail: self.tail(),
            next: self.tail() + tail.start as usize,
        };
        record.write(a, tail, rest);
    }

    /// Writes the tail's length; or, when the group does not fit, takes it
    /// all back and gives `false`.
    fn close(&self, out: &mut Vec<u8>, end: usize) -> bool {
        if !fits(self.count, end) {
            out.truncate(self.before);
            return false;
        }
        let length_at = self.records - 4;
        out[length_at..self.records].copy_from_slice(&(end as u32).to_le_bytes());
        true
    }
}

/// One record being written at byte `first` of `out`, its tail's bytes at
/// `next` on, in the tail that starts at `tail`.
struct Placing<'o> {
    out: &'o mut Vec<u8>,
    first: usize,
    tail: usize,
    next: usize,
}

impl Placing<'_> {
    fn write(mut self, a: &Allocation, tail: Tail, rest: &[u8]) {
        let s = &a.spec;
        self.string(at::ID, &s.id);
        self.put(at::NAME_INDEX, &s.name_index.to_le_bytes());
        self.put(at::NODE, &s.node.to_le_bytes());
        self.put(at::JOB_VERSION, &s.job_version.to_le_bytes());
        self.put(at::JOB_CREATE_INDEX, &s.job_create_index.to_le_bytes());
        self.put(at::CREATE_INDEX, &s.create_index.to_le_bytes());
        self.put(at::DESTRUCTIVE, &s.fingerprint.destructive.to_le_bytes());
        self.put(at::IN_PLACE, &s.fingerprint.in_place.to_le_bytes());
        let mut present = 0;
        if let Some(score) = s.placement_score {
            present |= present::PLACEMENT_SCORE;
            self.put(at::PLACEMENT_SCORE, &score.to_le_bytes());
        }
        if let Some(deployment) = &s.deployment {
            present |= present::DEPLOYMENT;
            if tail.owns_deployment(a) {
                self.string(at::DEPLOYMENT, deployment);
            } else {
                self.placed(
                    at::DEPLOYMENT,
                    self.tail + tail.deployment as usize,
                    deployment.len(),
                );
            }
        }
        if let Some(previous) = &s.previous_allocation {
            present |= present::PREVIOUS;
            self.string(at::PREVIOUS, previous);
        }
        if let Some(next) = &s.next_allocation {
            present |= present::NEXT;
            self.string(at::NEXT, next);
        }
        self.put(at::PRESENT, &[present]);
        self.put(at::UPDATE, &[a.update.map_or(0, |u| u as u8 + 1)]);
        self.observed(&a.observed);
        if !rest.is_empty() {
            self.bytes(at::REST, rest);
        }
    }

    fn observed(&mut self, o: &ObservedState) {
        self.put(at::DESIRED_STATUS, &[o.desired_status as u8]);
        self.put(at::CLIENT_STATUS, &[o.client_status as u8]);
        self.put(at::MODIFY_TIME, &o.modify_time.to_le_bytes());
        if let Some(t) = &o.desired_transition {
            let bit = |on: bool, bit: u8| if on { bit } else { 0 };
            let bits = transition::PRESENT
                | bit(t.migrate, transition::MIGRATE)
                | bit(t.reschedule, transition::RESCHEDULE)
                | bit(t.force_reschedule, transition::FORCE_RESCHEDULE)
                | bit(
                    t.migrate_disable_placement,
                    transition::MIGRATE_DISABLE_PLACEMENT,
                );
            self.put(at::TRANSITION, &[bits]);
        }
        if let Some(h) = &o.health {
            let mut bits = health::PRESENT;
            if let Some(healthy) = h.healthy {
                bits |= health::HEALTHY_KNOWN | if healthy { health::HEALTHY } else { 0 };
            }
            if h.canary {
                bits |= health::CANARY;
            }
            if let Some(changed) = h.changed_at {
                bits |= health::CHANGED_AT;
                self.put(at::CHANGED_AT, &changed.to_le_bytes());
            }
            self.put(at::HEALTH, &[bits]);
        }
    }

    fn put(&mut self, at: usize, bytes: &[u8]) {
        let from = self.first + at;
        self.out[from..from + bytes.len()].copy_from_slice(bytes);
    }

    fn string(&mut self, at: usize, text: &str) {
        self.bytes(at, text.as_bytes());
    }

    /// Writes `bytes` at the next place of the tail and places them at `at`.
    fn bytes(&mut self, at: usize, bytes: &[u8]) {
        let from = self.next;
        self.next += bytes.len();
        self.out[from..self.next].copy_from_slice(bytes);
        self.placed(at, from, bytes.len());
    }

    /// Places at `at` the `len` bytes at byte `from` of the buffer, as an
    /// offset from the record's first byte. The group's `fits` vouches for
    /// four bytes being enough.
    fn placed(&mut self, at: usize, from: usize, len: usize) {
        self.put(at, &((from - self.first) as u32).to_le_bytes());
        self.put(at + 4, &(len as u32).to_le_bytes());
    }
}
