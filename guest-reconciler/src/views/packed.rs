//! The packed form of a slot batch: its slots, candidates and changes as fixed-size little-endian records in one byte list, laid out as docs/wit.md documents byte by byte.
//!
//! A plugin that asks for it gets one `list<u8>`, which crosses each
//! component boundary as one copy and which it reads lazily, instead of a
//! record per item that its runtime would convert field by field.

use crate::plugin::{self, SlotKey};

/// The layout's version, the header's first field: a reader refuses one it
/// does not know rather than misread it.
pub(crate) const LAYOUT: u32 = 1;
/// Bytes of the header: layout, then the counts of slots, candidates,
/// changes and meta pairs, then the length of the string area.
pub(crate) const HEADER: usize = 24;
pub(crate) const SLOT: usize = 24;
pub(crate) const CANDIDATE: usize = 48;
pub(crate) const CHANGE: usize = 20;
pub(crate) const META_PAIR: usize = 16;
/// An absent string, candidate or meta list.
pub(crate) const ABSENT: u32 = u32::MAX;

/// The records of a batch being built, one area per kind, joined at the end.
#[derive(Default)]
pub(crate) struct Packer {
    slots: Vec<u8>,
    candidates: Vec<u8>,
    changes: Vec<u8>,
    meta: Vec<u8>,
    strings: Vec<u8>,
}

fn u32_at(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

impl Packer {
    /// Appends `slot`'s record.
    pub(crate) fn slot(&mut self, slot: &plugin::Slot) {
        let out = &mut self.slots;
        let (tag, key) = match slot.key {
            SlotKey::Index(i) => (0u8, i),
            SlotKey::Node(n) => (1u8, n),
        };
        out.extend_from_slice(&[tag, 0, 0, 0]);
        u32_at(out, key);
        u32_at(out, slot.candidates.first);
        u32_at(out, slot.candidates.count);
        u32_at(out, slot.changes.first);
        u32_at(out, slot.changes.count);
    }

    /// Appends `c`'s record, its allocation id and meta in the string area.
    pub(crate) fn candidate(&mut self, c: &plugin::Candidate) {
        let allocation = self.string(c.allocation.as_deref());
        let meta = match &c.meta {
            Some(pairs) => {
                let first = (self.meta.len() / META_PAIR) as u32;
                for (key, value) in pairs {
                    let (ko, kl) = self.string(Some(key));
                    let (vo, vl) = self.string(Some(value));
                    for v in [ko, kl, vo, vl] {
                        u32_at(&mut self.meta, v);
                    }
                }
                (first, pairs.len() as u32)
            }
            None => (ABSENT, 0),
        };
        let out = &mut self.candidates;
        out.extend_from_slice(&[
            c.client_status as u8,
            c.classification as u8,
            match c.healthy {
                None => 0,
                Some(false) => 1,
                Some(true) => 2,
            },
            c.update.map_or(0, |u| u as u8 + 1),
            u8::from(c.canary),
            u8::from(c.healthy_since.is_some()),
            0,
            0,
        ]);
        out.extend_from_slice(&c.job_version.to_le_bytes());
        out.extend_from_slice(&c.healthy_since.unwrap_or(0).to_le_bytes());
        for v in [c.node, c.rule, allocation.0, allocation.1, meta.0, meta.1] {
            u32_at(out, v);
        }
    }

    /// Appends `c`'s record, its message in the string area.
    pub(crate) fn change(&mut self, c: &plugin::Change) {
        let message = self.string(c.message.as_deref());
        let out = &mut self.changes;
        out.extend_from_slice(&[c.kind as u8, u8::from(c.candidate.is_some()), 0, 0]);
        for v in [c.candidate.unwrap_or(0), c.reason, message.0, message.1] {
            u32_at(out, v);
        }
    }

    /// The offset and length of `s` in the string area, `ABSENT` and 0 for
    /// none.
    fn string(&mut self, s: Option<&str>) -> (u32, u32) {
        match s {
            Some(s) => {
                let at = self.strings.len() as u32;
                self.strings.extend_from_slice(s.as_bytes());
                (at, s.len() as u32)
            }
            None => (ABSENT, 0),
        }
    }

    /// The bytes: header, slots, candidates, changes, meta pairs, strings.
    pub(crate) fn finish(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER
                + self.slots.len()
                + self.candidates.len()
                + self.changes.len()
                + self.meta.len()
                + self.strings.len(),
        );
        for v in [
            LAYOUT,
            (self.slots.len() / SLOT) as u32,
            (self.candidates.len() / CANDIDATE) as u32,
            (self.changes.len() / CHANGE) as u32,
            (self.meta.len() / META_PAIR) as u32,
            self.strings.len() as u32,
        ] {
            u32_at(&mut out, v);
        }
        for area in [
            self.slots,
            self.candidates,
            self.changes,
            self.meta,
            self.strings,
        ] {
            out.extend_from_slice(&area);
        }
        out
    }
}
