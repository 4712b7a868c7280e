//! The packed form of a slot batch: its slots, candidates, changes and nodes as fixed-size little-endian records in one byte list, laid out as docs/wit.md documents byte by byte.
//!
//! A plugin that asks for it gets one `list<u8>`, which crosses each
//! component boundary as one copy and which it reads lazily, instead of a
//! record per item that its runtime would convert field by field.

use crate::plugin::{self, SlotKey};

/// The layout's version, the header's first field: a reader refuses one it
/// does not know rather than misread it.
pub(crate) const LAYOUT: u32 = 2;
/// Bytes of the header: layout, then the counts of slots, candidates,
/// changes, nodes and meta pairs, then the length of the string area.
pub(crate) const HEADER: usize = 28;
pub(crate) const SLOT: usize = 24;
pub(crate) const CANDIDATE: usize = 48;
pub(crate) const CHANGE: usize = 20;
pub(crate) const NODE: usize = 20;
pub(crate) const META_PAIR: usize = 16;
/// An absent string, candidate or meta list.
pub(crate) const ABSENT: u32 = u32::MAX;
/// Room taken in the string area per slot of a group, ahead of its records:
/// an allocation id as Nomad writes one (36 bytes), and a little more.
const STRING_BYTES_PER_SLOT: usize = 40;

/// The records of a batch being built, one area per kind, joined at the end.
#[derive(Default)]
pub(crate) struct Packer {
    slots: Vec<u8>,
    candidates: Vec<u8>,
    changes: Vec<u8>,
    nodes: Vec<u8>,
    meta: Vec<u8>,
    strings: Vec<u8>,
}

fn u32_at(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Writes `words` little-endian into `record` from byte `from` on: a record
/// is filled on the stack and appended whole, one capacity check per record
/// rather than per field.
fn put_words(record: &mut [u8], from: usize, words: &[u32]) {
    for (chunk, w) in record[from..].chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
}

impl Packer {
    /// Makes room for `slots` more slots with about as many candidates, their
    /// nodes and their ids: a group's records then grow its areas once, not
    /// by doubling (the growing was about a twentieth of a reconcile of 50
    /// groups of 200 slots with a plugin on every hook).
    pub(crate) fn reserve(&mut self, slots: usize) {
        self.slots.reserve(slots * SLOT);
        self.candidates.reserve(slots * CANDIDATE);
        self.nodes.reserve(slots * NODE);
        self.strings.reserve(slots * STRING_BYTES_PER_SLOT);
    }

    /// Appends `slot`'s record.
    pub(crate) fn slot(&mut self, slot: &plugin::Slot) {
        let (tag, key) = match slot.key {
            SlotKey::Index(i) => (0u8, i),
            SlotKey::Node(n) => (1u8, n),
        };
        let mut record = [0u8; SLOT];
        record[0] = tag;
        put_words(
            &mut record,
            4,
            &[
                key,
                slot.candidates.first,
                slot.candidates.count,
                slot.changes.first,
                slot.changes.count,
            ],
        );
        self.slots.extend_from_slice(&record);
    }

    /// Appends `c`'s record, its allocation id (`allocation`, which stands
    /// for `c.allocation`: the builder lends it rather than copy it into the
    /// view) and meta in the string area.
    pub(crate) fn candidate(&mut self, c: &plugin::Candidate, allocation: Option<&str>) {
        let allocation = self.string(allocation);
        let meta = self.meta(c.meta.as_deref());
        let mut record = [0u8; CANDIDATE];
        record[..6].copy_from_slice(&[
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
        ]);
        record[8..16].copy_from_slice(&c.job_version.to_le_bytes());
        record[16..24].copy_from_slice(&c.healthy_since.unwrap_or(0).to_le_bytes());
        put_words(
            &mut record,
            24,
            &[c.node, c.rule, allocation.0, allocation.1, meta.0, meta.1],
        );
        self.candidates.extend_from_slice(&record);
    }

    /// Appends `c`'s record, its message in the string area.
    pub(crate) fn change(&mut self, c: &plugin::Change) {
        let message = self.string(c.message.as_deref());
        let mut record = [0u8; CHANGE];
        record[..2].copy_from_slice(&[c.kind as u8, u8::from(c.candidate.is_some())]);
        put_words(
            &mut record,
            4,
            &[c.candidate.unwrap_or(0), c.reason, message.0, message.1],
        );
        self.changes.extend_from_slice(&record);
    }

    /// Appends `n`'s record, its id and meta in the string area.
    pub(crate) fn node(&mut self, n: &plugin::Node) {
        let id = self.string(n.id.as_deref());
        let meta = self.meta(n.meta.as_deref());
        let mut record = [0u8; NODE];
        record[..2].copy_from_slice(&[n.status as u8, u8::from(n.draining)]);
        put_words(&mut record, 4, &[id.0, id.1, meta.0, meta.1]);
        self.nodes.extend_from_slice(&record);
    }

    /// The first meta pair and the count of `pairs`, written to the meta
    /// area with their strings; `ABSENT` and 0 for none.
    fn meta(&mut self, pairs: Option<&[(String, String)]>) -> (u32, u32) {
        let Some(pairs) = pairs else {
            return (ABSENT, 0);
        };
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

    /// The bytes: header, slots, candidates, changes, nodes, meta pairs,
    /// strings.
    pub(crate) fn finish(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER
                + self.slots.len()
                + self.candidates.len()
                + self.changes.len()
                + self.nodes.len()
                + self.meta.len()
                + self.strings.len(),
        );
        for v in [
            LAYOUT,
            (self.slots.len() / SLOT) as u32,
            (self.candidates.len() / CANDIDATE) as u32,
            (self.changes.len() / CHANGE) as u32,
            (self.nodes.len() / NODE) as u32,
            (self.meta.len() / META_PAIR) as u32,
            self.strings.len() as u32,
        ] {
            u32_at(&mut out, v);
        }
        for area in [
            self.slots,
            self.candidates,
            self.changes,
            self.nodes,
            self.meta,
            self.strings,
        ] {
            out.extend_from_slice(&area);
        }
        out
    }
}
