//! Writes a group's allocations as the wire's fixed records followed by their tail: the layout of `allocation_record`, for inputs of content 3.
//!
//! A group is its allocation count (varint), the length of its tail (four
//! bytes, little-endian, so that it is written once the tail is), its
//! records, then the tail: the strings and the rarely set rest of each
//! allocation, in the order written. Records that name the same deployment
//! share its string, as most allocations of a rollout do.

use super::growing;
use super::writer::Writer;
use crate::allocation_record::{at, health, present, rest_is_empty, transition, LEN};
use crate::{Allocation, ObservedState};

/// Appends `allocations` to `w`, or gives `false`, having written nothing,
/// when their records and tail would not fit the layout's four-byte
/// offsets (some 35 million allocations in one group).
pub(super) fn allocations(w: &mut Writer, allocations: &[Allocation]) -> bool {
    let out = &mut *w.0;
    let before = out.len();
    Writer(out).u64(allocations.len() as u64);
    let tail_len_at = out.len();
    out.extend_from_slice(&[0; 4]);
    let records_at = out.len();
    let tail_at = records_at + allocations.len() * LEN;
    out.resize(tail_at, 0);
    let mut shared: Option<(&str, u32)> = None;
    for (i, a) in allocations.iter().enumerate() {
        let record = Placing {
            out,
            first: records_at + i * LEN,
            tail: tail_at,
        };
        if !record.write(a, &mut shared) {
            out.truncate(before);
            return false;
        }
    }
    let Ok(tail_len) = u32::try_from(out.len() - tail_at) else {
        out.truncate(before);
        return false;
    };
    out[tail_len_at..records_at].copy_from_slice(&tail_len.to_le_bytes());
    true
}

/// One record being written at byte `first` of `out`, its strings appended
/// to the tail that starts at `tail`.
struct Placing<'o> {
    out: &'o mut Vec<u8>,
    first: usize,
    tail: usize,
}

impl Placing<'_> {
    /// Writes `a`; `false` when an offset would not fit four bytes.
    /// `shared` is the last deployment written, with its offset in the tail.
    fn write<'a>(mut self, a: &'a Allocation, shared: &mut Option<(&'a str, u32)>) -> bool {
        let s = &a.spec;
        let mut ok = self.string(at::ID, &s.id);
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
            ok &= match *shared {
                Some((text, offset)) if text == deployment => {
                    self.placed(at::DEPLOYMENT, offset, text.len())
                }
                _ => {
                    let offset = self.out.len() - self.tail;
                    *shared = u32::try_from(offset).ok().map(|o| (deployment.as_str(), o));
                    self.string(at::DEPLOYMENT, deployment)
                }
            };
        }
        if let Some(previous) = &s.previous_allocation {
            present |= present::PREVIOUS;
            ok &= self.string(at::PREVIOUS, previous);
        }
        if let Some(next) = &s.next_allocation {
            present |= present::NEXT;
            ok &= self.string(at::NEXT, next);
        }
        self.put(at::PRESENT, &[present]);
        self.put(at::UPDATE, &[a.update.map_or(0, |u| u as u8 + 1)]);
        ok && self.observed(&a.observed)
    }

    fn observed(&mut self, o: &ObservedState) -> bool {
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
        if rest_is_empty(o) {
            return true;
        }
        let Ok(offset) = u32::try_from(self.out.len() - self.tail) else {
            return false;
        };
        let start = self.out.len();
        let rest = (
            &o.reschedule,
            &o.followup_eval,
            &o.client_states,
            &o.tasks,
            &o.meta,
        );
        *self.out = growing::append(std::mem::take(self.out), &rest);
        let len = self.out.len() - start;
        self.placed(at::REST, offset, len)
    }

    fn put(&mut self, at: usize, bytes: &[u8]) {
        let from = self.first + at;
        self.out[from..from + bytes.len()].copy_from_slice(bytes);
    }

    /// Appends `text` to the tail and places it at `at`.
    fn string(&mut self, at: usize, text: &str) -> bool {
        let Ok(offset) = u32::try_from(self.out.len() - self.tail) else {
            return false;
        };
        self.out.extend_from_slice(text.as_bytes());
        self.placed(at, offset, text.len())
    }

    /// Places at `at` the `len` bytes at `offset` in the tail, as an offset
    /// from the record's first byte.
    fn placed(&mut self, at: usize, offset: u32, len: usize) -> bool {
        let from_record = (self.tail - self.first) as u64 + u64::from(offset);
        let (Ok(from_record), Ok(len)) = (u32::try_from(from_record), u32::try_from(len)) else {
            return false;
        };
        self.put(at, &from_record.to_le_bytes());
        self.put(at + 4, &len.to_le_bytes());
        true
    }
}
