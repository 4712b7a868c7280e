//! The wire format's readers and writers against postcard's, on every cut and changed byte, and the outcome of bad buffers.

use super::*;

pub(super) fn minimal() -> ReconcileInput {
    ReconcileInput {
        job_id: "j".into(),
        job: None,
        nodes: Vec::new(),
        allocations: Vec::new(),
        deployment: None,
        eval: crate::Evaluation {
            id: "e".into(),
            priority: 50,
        },
        now: 0,
        explain: false,
        ext: Vec::new(),
        system: None,
    }
}

/// An input whose node and allocation set every optional field, with
/// integers that take multi-byte varints and negative timestamps.
pub(super) fn full() -> ReconcileInput {
    use crate::*;
    let mut input = minimal();
    input.now = -7;
    input.explain = true;
    input.nodes = vec![Node {
        id: "n-é".into(),
        status: NodeStatus::Disconnected,
        draining: true,
        meta: vec![("k".into(), "v".into())],
    }];
    input.allocations = vec![GroupAllocations {
        group: "web".into(),
        allocations: vec![Allocation {
            spec: AllocationSpec {
                id: "a".into(),
                name_index: u32::MAX,
                job_version: u64::MAX,
                job_create_index: 300,
                node: 0,
                deployment: Some("d".into()),
                previous_allocation: Some("p".into()),
                next_allocation: Some(String::new()),
                create_index: 1 << 40,
                fingerprint: Fingerprint {
                    destructive: 1,
                    in_place: 128,
                },
                placement_score: Some(-0.25),
            },
            observed: ObservedState {
                desired_status: DesiredStatus::Evict,
                client_status: ClientStatus::Unknown,
                desired_transition: Some(DesiredTransition {
                    migrate: true,
                    reschedule: false,
                    force_reschedule: true,
                    migrate_disable_placement: false,
                }),
                health: Some(DeploymentHealth {
                    healthy: Some(false),
                    canary: true,
                    changed_at: Some(i64::MIN),
                }),
                reschedule: Some(RescheduleTracker {
                    events: vec![RescheduleEvent {
                        at: i64::MAX,
                        delay: -1,
                    }],
                    last_failed: true,
                }),
                followup_eval: Some("f".into()),
                client_states: Some(vec![
                    ClientStateChange {
                        status: None,
                        at: 5,
                    },
                    ClientStateChange {
                        status: Some(ClientStatus::Lost),
                        at: 6,
                    },
                ]),
                tasks: Some(vec![TaskState {
                    name: "t".into(),
                    state: TaskLifecycle::Running,
                    failed: true,
                    started_at: Some(1),
                    finished_at: None,
                    restarts: 70_000,
                    last_restart: Some(2),
                }]),
                modify_time: 1_700_000_000_000_000_000,
                meta: Some(vec![("m".into(), "x".into())]),
            },
            update: Some(UpdateKind::InPlace),
        }],
    }];
    input
}

/// `full()` with a second allocation that shares its deployment and sets
/// no option, so that records share a string and one has no rest.
pub(super) fn pair() -> ReconcileInput {
    let mut input = full();
    input.job = None;
    let allocations = &mut input.allocations[0].allocations;
    allocations[0].spec.name_index = 0;
    let mut second = allocations[0].clone();
    second.spec.id = "b".into();
    second.spec.name_index = 3;
    second.spec.previous_allocation = None;
    second.spec.next_allocation = None;
    second.spec.placement_score = None;
    second.update = None;
    let o = &mut second.observed;
    (
        o.desired_transition,
        o.health,
        o.reschedule,
        o.followup_eval,
    ) = (None, None, None, None);
    (o.client_states, o.tasks, o.meta) = (None, None, None);
    allocations.push(second);
    input
}

#[test]
fn the_hand_written_lists_write_and_read_what_serde_does() {
    for input in [minimal(), full()] {
        let bytes = encode_input(&input);
        assert_eq!(bytes, reference::encode_input(&input));
        let read = list_reader::input::<()>(&bytes[HEADER_LEN..]);
        assert_eq!(read.map(|(input, ())| input), Some(input));
    }
}

#[test]
fn both_encoded_paths_validate_from_their_notes_as_the_plain_one_does() {
    let breaks: [fn(&mut crate::AllocationSpec); 5] = [
        |_| {},
        |s| s.id = "a".into(),
        |s| s.node = 1,
        |s| s.id.clear(),
        |s| s.name_index = crate::MAX_NAME_INDEX + 1,
    ];
    for (i, broken) in breaks.into_iter().enumerate() {
        let mut input = pair();
        broken(&mut input.allocations[0].allocations[1].spec);
        let plain = crate::reconcile(&input);
        assert_eq!(plain.is_ok(), i == 0, "{plain:?}");
        for encode in [encode_input, encode_input_records] {
            let encoded = decode_outcome(&reconcile_encoded(encode(&input)));
            assert_eq!(encoded.ok(), Some(plain.clone()));
        }
    }
}

/// Both readers on `bytes`: the same error, or values that encode alike
/// (compared as bytes, since a mutated score may be NaN).
fn read_alike(bytes: &[u8]) {
    let ours = decode_input(bytes).map(|input| reference::encode_input(&input));
    let serde = reference::decode_input(bytes).map(|input| reference::encode_input(&input));
    assert_eq!(ours, serde, "{bytes:?}");
}

/// Runs `check` on every cut of `bytes` from `first` on, and on every
/// byte after the header changed to a few telling values.
pub(super) fn cut_and_changed(bytes: &[u8], first: usize, check: impl Fn(&[u8])) {
    for cut in first..bytes.len() {
        check(&bytes[..cut]);
    }
    for at in HEADER_LEN..bytes.len() {
        for value in [0x00, 0x01, 0x02, 0x0f, 0x10, 0x7f, 0x80, 0xff] {
            let mut changed = bytes.to_vec();
            changed[at] = value;
            check(&changed);
        }
    }
}

#[test]
fn every_cut_and_every_changed_byte_reads_as_serde_reads_it() {
    cut_and_changed(&encode_input(&full()), HEADER_LEN, read_alike);
}

#[test]
fn an_input_survives_encoding() {
    let input = minimal();
    assert_eq!(decode_input(&encode_input(&input)), Ok(input));
}

#[test]
fn a_truncated_buffer_is_named_as_such() {
    let bytes = encode_input(&minimal());
    let error = decode_input(&bytes[..bytes.len() - 3]).unwrap_err();
    assert!(error.to_string().contains("truncated"), "{error}");
}

#[test]
fn another_version_is_refused_with_both_versions_named() {
    let mut bytes = encode_input(&minimal());
    bytes[2] = 9;
    let error = decode_input(&bytes).unwrap_err();
    assert_eq!(error, WireError::Version { found: 9 });
    assert_eq!(
        error.to_string(),
        "wire format version 9; this reconciler reads version 1"
    );
}

#[test]
fn an_outcome_is_not_read_as_an_input() {
    let bytes = encode_outcome(&Err(InputError {
        field: "f".into(),
        message: "m".into(),
    }));
    assert!(matches!(
        decode_input(&bytes),
        Err(WireError::Content { .. })
    ));
}

#[test]
fn a_length_beyond_the_buffer_fails_without_allocating_it() {
    let mut bytes = vec![b'S', b'W', VERSION, Content::Input as u8];
    // job-id: a string claiming 2^35 bytes.
    bytes.extend([0x80, 0x80, 0x80, 0x80, 0x7f]);
    let error = decode_input(&bytes).unwrap_err();
    assert!(
        matches!(&error, WireError::Malformed { at, offset: 5, .. } if at == "[0]"),
        "{error:?}"
    );
}

#[test]
fn trailing_bytes_are_refused() {
    let mut bytes = encode_input(&minimal());
    bytes.push(0);
    assert_eq!(decode_input(&bytes), Err(WireError::Trailing(1)));
}

#[test]
fn garbage_reconciles_into_an_input_error() {
    let outcome = decode_outcome(&reconcile_encoded(b"not a buffer at all".to_vec()));
    let error = outcome.expect("an outcome").unwrap_err();
    assert_eq!(error.field, "encoded-input");
}
