//! The SDK's reader of packed batches, against bytes written from the layout docs/wit.md documents: it reads back every field, refuses every kind of bad buffer with an error rather than a panic, and a plugin given a bad buffer answers what the reconciler refuses.

use slotwise_plugin::packed::{unpack, PackedError};
use slotwise_plugin::testing::{propose, slots};
use slotwise_plugin::{
    answer, Answers, Batch, ChangeKind, Classification, ClientStatus, Node, NodeStatus, Plugin,
    SlotBatch, SlotKey, UpdateKind,
};

const ABSENT: u32 = u32::MAX;

/// `batch`'s slots, candidates, changes and nodes as layout 2.
fn pack(batch: &SlotBatch) -> Vec<u8> {
    let mut strings = Vec::new();
    let mut meta = Vec::new();
    let mut records = Vec::new();
    for s in &batch.slots {
        let (tag, key) = match s.key {
            SlotKey::Index(i) => (0u8, i),
            SlotKey::Node(n) => (1, n),
        };
        records.extend_from_slice(&[tag, 0, 0, 0]);
        for v in [
            key,
            s.candidates.first,
            s.candidates.count,
            s.changes.first,
            s.changes.count,
        ] {
            records.extend_from_slice(&v.to_le_bytes());
        }
    }
    for c in &batch.candidates {
        let allocation = string(c.allocation.as_deref(), &mut strings);
        let meta_ref = meta_of(c.meta.as_deref(), &mut meta, &mut strings);
        records.extend_from_slice(&[
            c.client_status as u8,
            c.classification as u8,
            c.healthy.map_or(0, |h| if h { 2 } else { 1 }),
            c.update.map_or(0, |u| u as u8 + 1),
            u8::from(c.canary),
            u8::from(c.healthy_since.is_some()),
            0,
            0,
        ]);
        records.extend_from_slice(&c.job_version.to_le_bytes());
        records.extend_from_slice(&c.healthy_since.unwrap_or(0).to_le_bytes());
        for v in [
            c.node,
            c.rule,
            allocation[0],
            allocation[1],
            meta_ref[0],
            meta_ref[1],
        ] {
            records.extend_from_slice(&v.to_le_bytes());
        }
    }
    for c in &batch.changes {
        let message = string(c.message.as_deref(), &mut strings);
        records.extend_from_slice(&[c.kind as u8, u8::from(c.candidate.is_some()), 0, 0]);
        for v in [c.candidate.unwrap_or(0), c.reason, message[0], message[1]] {
            records.extend_from_slice(&v.to_le_bytes());
        }
    }
    for n in &batch.nodes {
        let id = string(n.id.as_deref(), &mut strings);
        let meta_ref = meta_of(n.meta.as_deref(), &mut meta, &mut strings);
        records.extend_from_slice(&[n.status as u8, u8::from(n.draining), 0, 0]);
        for v in [id[0], id[1], meta_ref[0], meta_ref[1]] {
            records.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut out = Vec::new();
    for v in [
        2,
        batch.slots.len() as u32,
        batch.candidates.len() as u32,
        batch.changes.len() as u32,
        batch.nodes.len() as u32,
        (meta.len() / 16) as u32,
        strings.len() as u32,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend(records);
    out.extend(meta);
    out.extend(strings);
    out
}

/// The offset and length of `s` in `strings`, appended there.
fn string(s: Option<&str>, strings: &mut Vec<u8>) -> [u32; 2] {
    match s {
        Some(s) => {
            let at = strings.len() as u32;
            strings.extend_from_slice(s.as_bytes());
            [at, s.len() as u32]
        }
        None => [ABSENT, 0],
    }
}

/// The first pair and count of `pairs`, appended to `meta` with their
/// strings.
fn meta_of(
    pairs: Option<&[(String, String)]>,
    meta: &mut Vec<u8>,
    strings: &mut Vec<u8>,
) -> [u32; 2] {
    let Some(pairs) = pairs else {
        return [ABSENT, 0];
    };
    let first = (meta.len() / 16) as u32;
    for (k, v) in pairs {
        for w in string(Some(k), strings)
            .into_iter()
            .chain(string(Some(v), strings))
        {
            meta.extend_from_slice(&w.to_le_bytes());
        }
    }
    [first, pairs.len() as u32]
}

/// A batch with every field of every record set, and its packed form.
fn every_field() -> (SlotBatch, SlotBatch) {
    let mut batch = slots(&[1, 2, 0]);
    propose(&mut batch, 0, ChangeKind::DestructiveUpdate);
    propose(&mut batch, 1, ChangeKind::Stop);
    propose(&mut batch, 1, ChangeKind::Place);
    propose(&mut batch, 2, ChangeKind::Place);
    let c = &mut batch.candidates[1];
    c.healthy = Some(false);
    c.healthy_since = Some(-5);
    c.canary = true;
    c.classification = Classification::Expiring;
    c.client_status = ClientStatus::Unknown;
    c.update = Some(UpdateKind::Destructive);
    c.job_version = u64::MAX;
    c.meta = Some(vec![
        ("zone".into(), "eu-1".into()),
        ("rack".into(), "ré-7".into()),
    ]);
    batch.candidates[2].allocation = None;
    batch.candidates[2].meta = Some(Vec::new());
    batch.changes[0].message = Some("replace".into());
    batch.changes[1].message = None;
    batch.slots[2].key = SlotKey::Node(1);
    batch.nodes = vec![
        Node {
            id: Some("node-a".into()),
            status: NodeStatus::Disconnected,
            draining: true,
            meta: Some(vec![("zone".into(), "eu-2".into())]),
        },
        Node {
            id: None,
            status: NodeStatus::Unknown,
            draining: false,
            meta: None,
        },
    ];
    let mut packed = batch.clone();
    packed.packed = pack(&batch);
    packed.slots.clear();
    packed.candidates.clear();
    packed.changes.clear();
    packed.nodes.clear();
    (batch, packed)
}

#[test]
fn a_packed_batch_unpacks_into_the_typed_batch_it_stands_for() {
    let (typed, mut packed) = every_field();
    assert!(!packed.packed.is_empty());
    unpack(&mut packed).expect("a well-formed buffer");
    assert_eq!(format!("{packed:?}"), format!("{typed:?}"));
}

#[test]
fn a_typed_batch_is_left_as_it_is() {
    let mut typed = slots(&[1, 1]);
    let before = format!("{typed:?}");
    unpack(&mut typed).expect("nothing to read");
    assert_eq!(format!("{typed:?}"), before);
}

/// The error `unpack` gives for `bytes`, the batch left untouched.
fn refused(bytes: Vec<u8>) -> PackedError {
    let mut batch = slots(&[]);
    batch.packed = bytes.clone();
    let e = unpack(&mut batch).expect_err("a bad buffer");
    assert_eq!(batch.packed, bytes, "a refused buffer stays where it was");
    e
}

#[test]
fn a_buffer_of_the_wrong_length_or_layout_is_refused() {
    let (_, packed) = every_field();
    let bytes = packed.packed;
    assert!(matches!(
        refused(bytes[..10].to_vec()),
        PackedError::Length { expected: 28, .. }
    ));
    assert!(matches!(
        refused(bytes[..bytes.len() - 1].to_vec()),
        PackedError::Length { .. }
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(refused(longer), PackedError::Length { .. }));
    let mut other = bytes.clone();
    other[0] = 1;
    assert_eq!(refused(other), PackedError::Layout(1));
    // Counts whose product overflows 32 bits still give a length error.
    let mut huge = bytes;
    huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(refused(huge), PackedError::Length { .. }));
}

#[test]
fn an_enum_byte_out_of_range_or_a_flag_not_0_or_1_is_refused() {
    let (_, packed) = every_field();
    let candidates = 28 + 3 * 24;
    let nodes = candidates + 3 * 48 + 4 * 20;
    for (at, value) in [
        (28, 2),                  // slot key tag
        (candidates, 6),          // client status
        (candidates + 1, 7),      // classification
        (candidates + 2, 3),      // healthy
        (candidates + 3, 4),      // update
        (candidates + 4, 2),      // canary
        (candidates + 48 * 3, 8), // change kind
        (nodes, 5),               // node status
        (nodes + 1, 2),           // draining
    ] {
        let mut bytes = packed.packed.clone();
        bytes[at] = value;
        assert!(
            matches!(refused(bytes), PackedError::Byte { value: v, .. } if v == value),
            "byte {at}"
        );
    }
}

#[test]
fn a_string_or_meta_list_outside_its_area_or_not_utf8_is_refused() {
    let (_, packed) = every_field();
    let candidate = 28 + 3 * 24;
    let node = candidate + 3 * 48 + 4 * 20;
    let strings = u32::from_le_bytes([
        packed.packed[24],
        packed.packed[25],
        packed.packed[26],
        packed.packed[27],
    ]) as usize;
    let string_area = packed.packed.len() - strings;
    let cases: Vec<(usize, u32)> = vec![
        (candidate + 36, 1_000),         // allocation length past the area
        (candidate + 32, u32::MAX - 1),  // offset near the top: no overflow
        (candidate + 48 + 40, 99),       // meta pairs out of range
        (candidate + 48 + 44, u32::MAX), // meta count that overflows
        (node + 8, 1_000),               // node id past the area
        (node + 12, 99),                 // node meta out of range
    ];
    for (at, value) in cases {
        let mut bytes = packed.packed.clone();
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        assert!(
            matches!(refused(bytes), PackedError::Reference { .. }),
            "field at {at}"
        );
    }
    let mut bad_utf8 = packed.packed.clone();
    bad_utf8[string_area] = 0xff;
    assert!(matches!(refused(bad_utf8), PackedError::Reference { .. }));
}

#[derive(Default)]
struct Accepting;

impl Plugin for Accepting {
    const NAME: &'static str = "accepting";
    const VERSION: &'static str = "1";
    const DESCRIPTION: &'static str = "Accepts everything.";
    const HOOKS: &'static [slotwise_plugin::Hook] = &[];
}

#[test]
fn a_plugin_given_a_bad_buffer_logs_why_and_answers_what_the_reconciler_refuses() {
    let (_, packed) = every_field();
    let mut bad = packed.clone();
    bad.packed[0] = 9;
    let _ = slotwise_plugin::log::take();
    match answer(&mut Accepting, Batch::Review(bad.clone()), &[]) {
        Answers::Review(vetoes) => {
            assert_eq!(vetoes.len(), 1);
            assert_eq!(vetoes[0].change, u32::MAX);
        }
        other => panic!("a review batch answered {other:?}"),
    }
    assert_eq!(
        slotwise_plugin::log::take(),
        vec!["error: packed batch: layout 9, this reader knows 2".to_string()]
    );
    match answer(&mut Accepting, Batch::PostSlot(bad), &[]) {
        Answers::PostSlot(answers) => assert!(answers.is_empty()),
        other => panic!("a post-slot batch answered {other:?}"),
    }
    match answer(&mut Accepting, Batch::PostSlot(packed), &[]) {
        Answers::PostSlot(answers) => assert_eq!(answers.len(), 3),
        other => panic!("a post-slot batch answered {other:?}"),
    }
}
