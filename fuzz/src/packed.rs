//! The packed-batch target: the reader of packed slot batches (the Rust SDK's, which scripted relays share) on any bytes; it may refuse them, never panic, and what it reads has the counts the header gives.

use slotwise_reconciler::plugin::{Answers, Batch, Hook, SlotBatch, ViewParts, READS_EVERY_PART};
use slotwise_reconciler::{Consulted, Mode, Progress, Reply, Session};
use slotwise_scenario::packed::unpack;

/// Reads `data` as a slot batch's packed bytes.
pub fn packed_batch(data: &[u8]) {
    let mut batch = SlotBatch {
        now: 0,
        groups: Vec::new(),
        slots: Vec::new(),
        candidates: Vec::new(),
        changes: Vec::new(),
        nodes: Vec::new(),
        rules: Vec::new(),
        reasons: Vec::new(),
        packed: data.to_vec(),
    };
    if unpack(&mut batch).is_ok() && !data.is_empty() {
        let count = |at: usize| {
            data.get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map(|b| u32::from_le_bytes(b) as usize)
        };
        assert!(batch.packed.is_empty(), "a read buffer is taken");
        assert_eq!(count(4), Some(batch.slots.len()));
        assert_eq!(count(8), Some(batch.candidates.len()));
        assert_eq!(count(12), Some(batch.changes.len()));
    }
}

/// Packed batches a reconcile really sends, with every optional part, as
/// the starting corpus: the batches of the plugin-answer target's scenario.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let Some(input) = crate::answers::input() else {
        return Vec::new();
    };
    let plugin = Consulted {
        name: "packed".into(),
        version: "1".into(),
        hooks: vec![Hook::PreSlot, Hook::PostSlot, Hook::Review],
        reads: ViewParts {
            packed: true,
            ..READS_EVERY_PART
        },
        mode: Mode::Enforce,
        fail_open: false,
        unloaded: None,
    };
    let Ok(mut session) = Session::open(input, vec![plugin]) else {
        return Vec::new();
    };
    let mut seeds = Vec::new();
    let mut reply = None;
    for n in 0..64 {
        let Ok(Progress::Ask(question)) = session.next(reply.take()) else {
            break;
        };
        let Some(batch) = question.batch else {
            break;
        };
        if let Batch::PreSlot(b) | Batch::PostSlot(b) | Batch::Review(b) = &batch {
            seeds.push((format!("batch-{n}"), b.packed.clone()));
        }
        let answers: Answers = slotwise_reconciler::plugin::neutral_answers(&batch);
        reply = Some(Reply {
            outcome: Ok(answers),
            logs: Vec::new(),
            usage: None,
        });
    }
    seeds
}
