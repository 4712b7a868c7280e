//! Content 3, allocations as records read in place: read back as written, planned as the same input decoded, and refused by name when damaged.

use super::record_reader::Placed;
use super::tests::{cut_and_changed, full, minimal, pair};
use super::*;
use crate::allocation_record::{at, LEN};

/// Where the first group's records start in `bytes`, a buffer of content 3.
fn placed(bytes: &[u8]) -> Placed {
    let read = list_reader::input_with_records::<()>(&bytes[HEADER_LEN..]);
    read.map(|(_, (), placed)| placed[0])
        .expect("the buffer reads")
}

#[test]
fn records_read_back_as_the_input_they_were_written_from() {
    for input in [minimal(), full(), pair()] {
        let bytes = encode_input_records(&input);
        assert_eq!(bytes[3], Content::InputRecords as u8);
        assert_eq!(decode_input(&bytes), Ok(input));
    }
}

#[test]
fn allocations_of_one_deployment_share_its_string() {
    let bytes = encode_input_records(&pair());
    let first = HEADER_LEN + placed(&bytes).start;
    let deployment = |r: usize| {
        let from = first + r * LEN + at::DEPLOYMENT;
        let offset = u32::from_le_bytes(bytes[from..from + 4].try_into().expect("four bytes"));
        r * LEN + offset as usize
    };
    assert_eq!(deployment(0), deployment(1));
}

/// What the reconciler answers `bytes`: an input error naming the buffer
/// when they cannot be read, else the plan of what they read.
fn answered_as_read(bytes: &[u8]) {
    let answer = reconcile_encoded(bytes.to_vec());
    match decode_input(bytes) {
        Ok(input) => {
            let decoded = reconcile_encoded(encode_input(&input));
            assert!(answer == decoded, "{bytes:?}");
        }
        Err(e) => {
            let refused = decode_outcome(&answer).expect("an outcome").unwrap_err();
            assert!(refused.field.starts_with("encoded-input"), "{refused:?}");
            assert_eq!(refused, InputError::from(e));
        }
    }
}

#[test]
fn every_cut_and_every_changed_byte_of_records_is_refused_by_name_or_planned_as_read() {
    let bytes = encode_input_records(&pair());
    for cut in 0..bytes.len() {
        assert!(decode_input(&bytes[..cut]).is_err());
    }
    cut_and_changed(&bytes, 0, answered_as_read);
}

#[test]
fn a_damaged_record_names_its_allocation_and_field() {
    let bytes = encode_input_records(&pair());
    let second = HEADER_LEN + placed(&bytes).start + LEN;
    let mut changed = bytes.clone();
    changed[second + at::CLIENT_STATUS] = 6;
    let error = InputError::from(decode_input(&changed).unwrap_err());
    assert_eq!(error.field, "encoded-input[3][0][1][1][1][1]");
    assert!(error.message.contains("case index"), "{}", error.message);
    let mut changed = bytes;
    changed[second + at::ID] = 0xff;
    let error = InputError::from(decode_input(&changed).unwrap_err());
    assert_eq!(error.field, "encoded-input[3][0][1][1][0][0]");
    assert!(error.message.contains("outside"), "{}", error.message);
}

#[test]
fn a_record_count_beyond_the_buffer_is_refused_without_reserving_it() {
    let mut bytes = encode_input_records(&minimal());
    // minimal() has no group: make it one group, named "", claiming a
    // billion records.
    let groups = HEADER_LEN + 4;
    assert_eq!(bytes[groups], 0);
    bytes.splice(
        groups..=groups,
        [1, 0, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0, 0, 0, 0],
    );
    let error = InputError::from(decode_input(&bytes).unwrap_err());
    assert_eq!(error.field, "encoded-input[3][0][1]");
    assert!(
        error.message.contains("claims more records"),
        "{}",
        error.message
    );
}

#[test]
fn records_written_while_releasing_the_allocations_are_the_same_bytes() {
    let mut many = pair();
    let group = many.allocations[0].clone();
    for g in 0..3 {
        let mut more = group.clone();
        more.group = format!("web-{g}");
        for i in 0..500 {
            let mut a = group.allocations[i % 2].clone();
            a.spec.id = format!("{g}-{i}");
            if i % 7 == 0 {
                a.spec.deployment = Some(format!("d-{}", i / 70));
            }
            more.allocations.push(a);
        }
        many.allocations.push(more);
    }
    for input in [minimal(), full(), pair(), many] {
        let expected = encode_input_records(&input);
        let mut released = input.clone();
        let bytes = encode_input_records_releasing(&mut released);
        assert!(bytes == expected, "the releasing writer wrote otherwise");
        assert!(released
            .allocations
            .iter()
            .all(|g| g.allocations.is_empty()));
        assert_eq!(released.allocations.len(), input.allocations.len());
    }
}

/// Calls `check` with each record of the first group of `full()` and of
/// `pair()`, written as content 3 and read back in place, and the
/// allocation it was written from.
fn each_record_of_the_samples(
    mut check: impl FnMut(crate::allocation_record::Record, &crate::Allocation),
) {
    for input in [full(), pair()] {
        let bytes = encode_input_records(&input);
        let placed = placed(&bytes);
        // SAFETY: `placed` read and checked these records in this buffer.
        let records = unsafe { Records::checked(&bytes[HEADER_LEN..], placed.start, placed.len) };
        let written = &input.allocations[0].allocations;
        assert_eq!(records.len(), written.len());
        for (record, a) in records.iter().zip(written) {
            check(record, a);
        }
    }
}

#[test]
fn a_records_client_history_read_alone_is_the_one_its_whole_rest_holds() {
    let mut histories = 0;
    each_record_of_the_samples(|record, a| {
        let history = a.observed.client_states.clone().unwrap_or_default();
        let read = match record.has_rest() {
            true => record.client_history(),
            false => Vec::new(),
        };
        assert_eq!(read, history);
        histories += usize::from(!history.is_empty());
    });
    assert!(histories > 0, "no allocation had a history to read");
}

#[test]
fn a_records_health_and_client_status_read_alone_are_those_its_typed_allocation_holds() {
    use crate::allocation_ref::AllocationRef;
    let mut with_health = 0;
    each_record_of_the_samples(|record, a| {
        for read in [AllocationRef::Record(record), AllocationRef::Typed(a)] {
            assert_eq!(read.health(), a.observed.health);
            let glance = read.glance();
            assert_eq!(glance.client_status, a.observed.client_status);
            // A plugin's view of a candidate takes these from its glance.
            assert_eq!(glance.healthy, a.observed.health.and_then(|h| h.healthy));
            assert_eq!(glance.canary, a.observed.health.is_some_and(|h| h.canary));
        }
        with_health += usize::from(a.observed.health.is_some());
    });
    assert!(with_health > 0, "no allocation had a health to read");
}
