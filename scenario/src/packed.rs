//! Reading the packed form of a slot batch back into its typed lists, checking every count, offset, enum byte and string on the way, so that a bad buffer is an error and never a panic.
//!
//! The layout is the one docs/wit.md documents byte by byte. This file is
//! compiled twice: in the Rust SDK, over the plugin bindings' types, and in
//! the scenario crate (scripted relays, fuzzing), over the reconciler's: the
//! two sets of types are generated from the same WIT and share their names,
//! which each crate brings in as `crate::plugin_types`.

use crate::plugin_types::{
    Candidate, Change, ChangeKind, Classification, ClientStatus, Node, NodeStatus, Slot, SlotBatch,
    SlotKey, Span, UpdateKind,
};

/// The layout version this reader knows.
pub const LAYOUT: u32 = 2;
const HEADER: usize = 28;
const SLOT: usize = 24;
const CANDIDATE: usize = 48;
const CHANGE: usize = 20;
const NODE: usize = 20;
const META_PAIR: usize = 16;
const ABSENT: u32 = u32::MAX;

/// What is wrong with a packed buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackedError {
    /// Shorter than its header, or not the length its counts give.
    Length { expected: u64, found: usize },
    /// A layout version this reader does not know.
    Layout(u32),
    /// A byte that names no value of an enum, or a flag that is not 0 or 1.
    Byte {
        record: &'static str,
        at: usize,
        value: u8,
    },
    /// A string or meta list out of its area, or a string not UTF-8.
    Reference { record: &'static str, at: usize },
}

impl std::fmt::Display for PackedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Length { expected, found } => write!(
                f,
                "packed batch: {found} bytes where its header gives {expected}"
            ),
            Self::Layout(v) => write!(f, "packed batch: layout {v}, this reader knows {LAYOUT}"),
            Self::Byte { record, at, value } => {
                write!(f, "packed batch: {record} {at}: byte {value} names nothing")
            }
            Self::Reference { record, at } => write!(
                f,
                "packed batch: {record} {at}: a string or meta list out of its area, or not UTF-8"
            ),
        }
    }
}

impl std::error::Error for PackedError {}

/// Moves `batch.packed` into its typed `slots`, `candidates`, `changes` and
/// `nodes`;
/// a batch with no packed bytes is left as it is.
///
/// # Errors
/// What is wrong with the bytes; `batch` is then left as it was.
pub fn unpack(batch: &mut SlotBatch) -> Result<(), PackedError> {
    if batch.packed.is_empty() {
        return Ok(());
    }
    let lists = Lists::read(&batch.packed)?;
    batch.slots = lists.slots;
    batch.candidates = lists.candidates;
    batch.changes = lists.changes;
    batch.nodes = lists.nodes;
    batch.packed = Vec::new();
    Ok(())
}

struct Lists {
    slots: Vec<Slot>,
    candidates: Vec<Candidate>,
    changes: Vec<Change>,
    nodes: Vec<Node>,
}

/// The areas of a buffer whose length matches its header.
struct Areas<'b> {
    slots: &'b [u8],
    candidates: &'b [u8],
    changes: &'b [u8],
    nodes: &'b [u8],
    meta: &'b [u8],
    strings: &'b [u8],
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    if let Some(b) = bytes.get(at..at + 4) {
        word.copy_from_slice(b);
    }
    u32::from_le_bytes(word)
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    if let Some(b) = bytes.get(at..at + 8) {
        word.copy_from_slice(b);
    }
    u64::from_le_bytes(word)
}

fn byte(bytes: &[u8], at: usize) -> u8 {
    bytes.get(at).copied().unwrap_or(0)
}

impl<'b> Areas<'b> {
    fn split(bytes: &'b [u8]) -> Result<Self, PackedError> {
        if bytes.len() < HEADER {
            return Err(PackedError::Length {
                expected: HEADER as u64,
                found: bytes.len(),
            });
        }
        let layout = u32_at(bytes, 0);
        if layout != LAYOUT {
            return Err(PackedError::Layout(layout));
        }
        let sizes = [
            u64::from(u32_at(bytes, 4)) * SLOT as u64,
            u64::from(u32_at(bytes, 8)) * CANDIDATE as u64,
            u64::from(u32_at(bytes, 12)) * CHANGE as u64,
            u64::from(u32_at(bytes, 16)) * NODE as u64,
            u64::from(u32_at(bytes, 20)) * META_PAIR as u64,
            u64::from(u32_at(bytes, 24)),
        ];
        let expected = HEADER as u64 + sizes.iter().sum::<u64>();
        if expected != bytes.len() as u64 {
            return Err(PackedError::Length {
                expected,
                found: bytes.len(),
            });
        }
        // Every size fits in the buffer's length now, so in a usize.
        let mut rest = &bytes[HEADER..];
        let mut take = |n: u64| {
            let (area, after) = rest.split_at(n as usize);
            rest = after;
            area
        };
        Ok(Self {
            slots: take(sizes[0]),
            candidates: take(sizes[1]),
            changes: take(sizes[2]),
            nodes: take(sizes[3]),
            meta: take(sizes[4]),
            strings: take(sizes[5]),
        })
    }

    /// The string at `offset`, `len` bytes, or none when `offset` is absent.
    fn string(
        &self,
        offset: u32,
        len: u32,
        record: &'static str,
        at: usize,
    ) -> Result<Option<String>, PackedError> {
        if offset == ABSENT {
            return Ok(None);
        }
        // Checked: on wasm32 a usize is as narrow as the offsets.
        let start = offset as usize;
        start
            .checked_add(len as usize)
            .and_then(|end| self.strings.get(start..end))
            .and_then(|b| std::str::from_utf8(b).ok())
            .map(|s| Some(s.to_string()))
            .ok_or(PackedError::Reference { record, at })
    }
}

impl Areas<'_> {
    /// The `count` meta pairs from pair `first` on, or none when `first` is
    /// absent.
    fn meta_list(
        &self,
        first: u32,
        count: u32,
        record: &'static str,
        at: usize,
    ) -> Result<Option<Vec<(String, String)>>, PackedError> {
        if first == ABSENT {
            return Ok(None);
        }
        let range = (first as usize)
            .checked_add(count as usize)
            .and_then(|end| end.checked_mul(META_PAIR))
            // `first` is at most the end, so its product fits too.
            .map(|end| first as usize * META_PAIR..end);
        let pairs = range
            .and_then(|r| self.meta.get(r))
            .ok_or(PackedError::Reference { record, at })?;
        let mut read = Vec::with_capacity(pairs.len() / META_PAIR);
        for p in pairs.chunks_exact(META_PAIR) {
            let key = self.string(u32_at(p, 0), u32_at(p, 4), record, at)?;
            let value = self.string(u32_at(p, 8), u32_at(p, 12), record, at)?;
            match (key, value) {
                (Some(k), Some(v)) => read.push((k, v)),
                _ => return Err(PackedError::Reference { record, at }),
            }
        }
        Ok(Some(read))
    }
}

impl Lists {
    fn read(bytes: &[u8]) -> Result<Self, PackedError> {
        let areas = Areas::split(bytes)?;
        let slots = areas
            .slots
            .chunks_exact(SLOT)
            .enumerate()
            .map(|(at, r)| slot(r, at))
            .collect::<Result<_, _>>()?;
        let candidates = areas
            .candidates
            .chunks_exact(CANDIDATE)
            .enumerate()
            .map(|(at, r)| candidate(&areas, r, at))
            .collect::<Result<_, _>>()?;
        let changes = areas
            .changes
            .chunks_exact(CHANGE)
            .enumerate()
            .map(|(at, r)| change(&areas, r, at))
            .collect::<Result<_, _>>()?;
        let nodes = areas
            .nodes
            .chunks_exact(NODE)
            .enumerate()
            .map(|(at, r)| node(&areas, r, at))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            slots,
            candidates,
            changes,
            nodes,
        })
    }
}

fn bad(record: &'static str, at: usize, value: u8) -> PackedError {
    PackedError::Byte { record, at, value }
}

fn flag(r: &[u8], offset: usize, record: &'static str, at: usize) -> Result<bool, PackedError> {
    match byte(r, offset) {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(bad(record, at, v)),
    }
}

fn slot(r: &[u8], at: usize) -> Result<Slot, PackedError> {
    let value = u32_at(r, 4);
    let key = match byte(r, 0) {
        0 => SlotKey::Index(value),
        1 => SlotKey::Node(value),
        v => return Err(bad("slot", at, v)),
    };
    Ok(Slot {
        key,
        candidates: Span {
            first: u32_at(r, 8),
            count: u32_at(r, 12),
        },
        changes: Span {
            first: u32_at(r, 16),
            count: u32_at(r, 20),
        },
    })
}

fn candidate(areas: &Areas<'_>, r: &[u8], at: usize) -> Result<Candidate, PackedError> {
    const RECORD: &str = "candidate";
    let client_status = match byte(r, 0) {
        0 => ClientStatus::Pending,
        1 => ClientStatus::Running,
        2 => ClientStatus::Complete,
        3 => ClientStatus::Failed,
        4 => ClientStatus::Lost,
        5 => ClientStatus::Unknown,
        v => return Err(bad(RECORD, at, v)),
    };
    let classification = match byte(r, 1) {
        0 => Classification::Untainted,
        1 => Classification::Migrate,
        2 => Classification::Lost,
        3 => Classification::Disconnecting,
        4 => Classification::Reconnecting,
        5 => Classification::Ignore,
        6 => Classification::Expiring,
        v => return Err(bad(RECORD, at, v)),
    };
    let healthy = match byte(r, 2) {
        0 => None,
        1 => Some(false),
        2 => Some(true),
        v => return Err(bad(RECORD, at, v)),
    };
    let update = match byte(r, 3) {
        0 => None,
        1 => Some(UpdateKind::Ignore),
        2 => Some(UpdateKind::InPlace),
        3 => Some(UpdateKind::Destructive),
        v => return Err(bad(RECORD, at, v)),
    };
    let canary = flag(r, 4, RECORD, at)?;
    let healthy_since = flag(r, 5, RECORD, at)?.then(|| u64_at(r, 16) as i64);
    let allocation = areas.string(u32_at(r, 32), u32_at(r, 36), RECORD, at)?;
    let meta = areas.meta_list(u32_at(r, 40), u32_at(r, 44), RECORD, at)?;
    Ok(Candidate {
        allocation,
        job_version: u64_at(r, 8),
        node: u32_at(r, 24),
        client_status,
        healthy,
        healthy_since,
        canary,
        classification,
        rule: u32_at(r, 28),
        update,
        meta,
    })
}

fn change(areas: &Areas<'_>, r: &[u8], at: usize) -> Result<Change, PackedError> {
    const RECORD: &str = "change";
    let kind = match byte(r, 0) {
        0 => ChangeKind::Place,
        1 => ChangeKind::Stop,
        2 => ChangeKind::Migrate,
        3 => ChangeKind::InPlaceUpdate,
        4 => ChangeKind::DestructiveUpdate,
        5 => ChangeKind::Disconnect,
        6 => ChangeKind::Reconnect,
        7 => ChangeKind::AttachFollowup,
        v => return Err(bad(RECORD, at, v)),
    };
    let candidate = flag(r, 1, RECORD, at)?.then(|| u32_at(r, 4));
    Ok(Change {
        kind,
        candidate,
        reason: u32_at(r, 8),
        message: areas.string(u32_at(r, 12), u32_at(r, 16), RECORD, at)?,
    })
}

fn node(areas: &Areas<'_>, r: &[u8], at: usize) -> Result<Node, PackedError> {
    const RECORD: &str = "node";
    let status = match byte(r, 0) {
        0 => NodeStatus::Ready,
        1 => NodeStatus::Initializing,
        2 => NodeStatus::Down,
        3 => NodeStatus::Disconnected,
        4 => NodeStatus::Unknown,
        v => return Err(bad(RECORD, at, v)),
    };
    Ok(Node {
        id: areas.string(u32_at(r, 4), u32_at(r, 8), RECORD, at)?,
        status,
        draining: flag(r, 1, RECORD, at)?,
        meta: areas.meta_list(u32_at(r, 12), u32_at(r, 16), RECORD, at)?,
    })
}
