//! The wire format: a reconcile's input and outcome each as one buffer, so that they cross a component boundary in a single copy.
//!
//! A buffer is a four-byte header — `S`, `W`, the format version, and what
//! the buffer holds — followed by the value in postcard's encoding
//! (<https://postcard.jamesmunns.com/wire-format>): records as their fields
//! in WIT order, enums and variants as a varint case index in WIT order,
//! options as a 0/1 byte, lists and strings as a varint length then their
//! items, unsigned integers as varints, signed ones zigzagged, `f64` as eight
//! little-endian bytes. A host in any language can produce and read it from
//! the WIT alone; `docs/wire.md` says the same for those who write one.
//!
//! Decoding never trusts a length: postcard reads from the buffer itself,
//! so a list claiming more items than the buffer holds ends in an error, not
//! an allocation of that size.

mod cursor;
mod growing;
mod held;
mod list_reader;
mod list_writer;
mod plan_reader;
mod plan_writer;
#[cfg(test)]
mod sample_outcomes;
mod writer;

use crate::sentence::say;
use crate::validation::{Noted, Noting, Screen};
use crate::{InputError, Plan, ReconcileInput};
use held::Held;
use serde::{de::DeserializeOwned, Serialize};

/// The first two bytes of every buffer.
pub const MAGIC: [u8; 2] = *b"SW";

/// The format version, bumped whenever a type of the contract changes.
pub const VERSION: u8 = 1;

/// The length of the header before the encoded value.
pub const HEADER_LEN: usize = 4;

/// What a buffer holds: its fourth byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Content {
    /// A `reconcile-input`.
    Input = 1,
    /// A `result<plan, input-error>`.
    Outcome = 2,
}

/// Why a buffer could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Too short to hold a header, or not a slotwise buffer at all.
    #[error("not a slotwise buffer: it does not start with the header `SW`")]
    NotSlotwise,
    /// Written in another version of the format.
    #[error("wire format version {found}; this reconciler reads version {VERSION}")]
    Version { found: u8 },
    /// Holds something else than what was expected.
    #[error("the buffer holds {found}, not {expected}")]
    Content {
        found: &'static str,
        expected: &'static str,
    },
    /// The value is malformed. `at` is where: the positions of the fields
    /// and items being read, outermost first, in WIT order (`[2][0][1]` is
    /// the second field of the first item of the third field).
    #[error("{message} (at {at}, reading stopped at byte {offset} of the value)")]
    Malformed {
        at: String,
        offset: usize,
        message: String,
    },
    /// The value ends before the buffer does.
    #[error("{0} bytes follow the encoded value")]
    Trailing(usize),
}

impl From<WireError> for InputError {
    fn from(e: WireError) -> Self {
        let field = match &e {
            WireError::Malformed { at, .. } => say!("encoded-input", at),
            _ => "encoded-input".into(),
        };
        InputError {
            field,
            message: e.to_string(),
        }
    }
}

/// Encodes `input` as a buffer.
pub fn encode_input(input: &ReconcileInput) -> Vec<u8> {
    // An allocation takes about a hundred bytes, most of them its id.
    let allocations: usize = input.allocations.iter().map(|g| g.allocations.len()).sum();
    let mut out = Vec::with_capacity(4096 + 128 * allocations);
    out.extend_from_slice(&[MAGIC[0], MAGIC[1], VERSION, Content::Input as u8]);
    list_writer::input(&mut out, input);
    out
}

/// Reads an input buffer.
///
/// # Errors
/// When the buffer is not an encoded input of this format version.
pub fn decode_input(bytes: &[u8]) -> Result<ReconcileInput, WireError> {
    decode_noting::<()>(bytes).map(|decoded| decoded.input)
}

/// An input as read, with what its reader noted of its allocations.
struct Decoded<N> {
    input: ReconcileInput,
    /// `None` when postcard read the input, not the hand-written reader.
    notes: Option<N>,
}

/// Reads an input buffer, noting its allocations with `N`.
fn decode_noting<N: Noting>(bytes: &[u8]) -> Result<Decoded<N>, WireError> {
    // The large lists are read by hand (10,000 allocations: 0.72 ms natively
    // against serde's 1.21); postcard reads again whatever that reader does
    // not take whole, and says what is wrong with it.
    if let Some((input, notes)) = body(Content::Input, bytes)
        .ok()
        .and_then(list_reader::input::<N>)
    {
        return Ok(Decoded {
            input,
            notes: Some(notes),
        });
    }
    reference::decode_input(bytes).map(|input| Decoded { input, notes: None })
}

/// The format as postcard writes and reads it through serde alone: the
/// reference the hand-written readers and writers are checked against, by
/// tests and by the `encoded_input` and `encoded_outcome` fuzz targets.
pub mod reference {
    use super::{decode, encode, encode_sized, Content, WireError};
    use crate::{InputError, Plan, ReconcileInput};

    /// Encodes `input` through serde.
    pub fn encode_input(input: &ReconcileInput) -> Vec<u8> {
        encode_sized(Content::Input, input, 4096)
    }

    /// Reads an input buffer through serde.
    ///
    /// # Errors
    /// As [`super::decode_input`], which gives the same errors.
    pub fn decode_input(bytes: &[u8]) -> Result<ReconcileInput, WireError> {
        decode(Content::Input, bytes)
    }

    /// Encodes `outcome` through serde.
    pub fn encode_outcome(outcome: &Result<Plan, InputError>) -> Vec<u8> {
        encode(Content::Outcome, outcome)
    }

    /// Reads an outcome buffer through serde.
    ///
    /// # Errors
    /// As [`super::decode_outcome`], which gives the same errors.
    pub fn decode_outcome(bytes: &[u8]) -> Result<Result<Plan, InputError>, WireError> {
        decode(Content::Outcome, bytes)
    }
}

/// Encodes the outcome of a reconcile as a buffer.
pub fn encode_outcome(outcome: &Result<Plan, InputError>) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    out.extend_from_slice(&[MAGIC[0], MAGIC[1], VERSION, Content::Outcome as u8]);
    plan_writer::outcome(&mut out, outcome);
    out
}

/// Reads an outcome buffer.
///
/// # Errors
/// When the buffer is not an encoded outcome of this format version.
pub fn decode_outcome(bytes: &[u8]) -> Result<Result<Plan, InputError>, WireError> {
    // As for the input: the lists by hand, postcard again for what that
    // reader does not take whole. Natively, a count-10 plan took 2.6 µs
    // through serde and takes 1.8; at 10,000 allocations, 13 -> 10 ns each.
    if let Some(outcome) = body(Content::Outcome, bytes)
        .ok()
        .and_then(plan_reader::outcome)
    {
        return Ok(outcome);
    }
    reference::decode_outcome(bytes)
}

/// Reconciles an encoded input into an encoded outcome: what the
/// component's `reconcile-encoded` export does. A buffer that cannot be read
/// gives an encoded input error. The buffer is freed once decoded, so that
/// its memory serves the reconcile rather than adding to its peak.
pub fn reconcile_encoded(input: Vec<u8>) -> Vec<u8> {
    let decoded = decode_held(&input);
    drop(input);
    let outcome = decoded.and_then(|input| {
        let plan = crate::reconcile::reconcile_noted(&input);
        // The decoded input goes before the plan is written, so that its
        // memory serves the plan's buffer.
        drop(input);
        plan
    });
    encode_outcome(&outcome)
}

/// Reads an input buffer into the component allocator's input arena, where
/// the build has one (see `held`), noting its allocations for validation:
/// once the input is dropped, its memory goes back whole rather than record
/// by record. A buffer that cannot be read gives an input error, which owns
/// its memory.
pub(crate) fn decode_held(bytes: &[u8]) -> Result<HeldInput, InputError> {
    // SAFETY: decoding keeps nothing it allocates beyond the input, its
    // notes or the error it returns, and all are plain data.
    let decoded = unsafe { Held::decode(|| decode_noting::<Screen>(bytes)) };
    decoded
        .or_else_own(|e| InputError::from(e.clone()))
        .map(HeldInput)
}

/// A decoded input held as `decode_held` holds it, with its reader's notes.
pub(crate) struct HeldInput(Held<Decoded<Screen>>);

impl std::ops::Deref for HeldInput {
    type Target = ReconcileInput;

    fn deref(&self) -> &ReconcileInput {
        &self.0.input
    }
}

impl Noted for HeldInput {
    fn screen(&self) -> Option<&Screen> {
        self.0.notes.as_ref()
    }
}

fn encode<T: Serialize + ?Sized>(content: Content, value: &T) -> Vec<u8> {
    encode_sized(content, value, 1024)
}

/// Encodes `value` into a buffer that starts with room for `capacity` bytes,
/// so that a good guess saves the copies of growing it.
fn encode_sized<T: Serialize + ?Sized>(content: Content, value: &T, capacity: usize) -> Vec<u8> {
    let mut header = Vec::with_capacity(capacity);
    header.extend_from_slice(&[MAGIC[0], MAGIC[1], VERSION, content as u8]);
    growing::append(header, value)
}

fn decode<T: DeserializeOwned>(expected: Content, bytes: &[u8]) -> Result<T, WireError> {
    let body = body(expected, bytes)?;
    match crate::allocation_list::within(body.len(), || postcard::take_from_bytes::<T>(body)) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(WireError::Trailing(rest.len())),
        // Only a failed read pays for tracking the path of the field.
        Err(error) => Err(locate::<T>(body, error)),
    }
}

/// The encoded value of a buffer that holds `expected`.
fn body(expected: Content, bytes: &[u8]) -> Result<&[u8], WireError> {
    let Some((header, body)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        return Err(WireError::NotSlotwise);
    };
    if header[..2] != MAGIC {
        return Err(WireError::NotSlotwise);
    }
    if header[2] != VERSION {
        return Err(WireError::Version { found: header[2] });
    }
    if header[3] != expected as u8 {
        return Err(WireError::Content {
            found: content_name(header[3]),
            expected: content_name(expected as u8),
        });
    }
    Ok(body)
}

fn content_name(byte: u8) -> &'static str {
    match byte {
        1 => "a reconcile input",
        2 => "a reconcile outcome",
        _ => "an unknown kind of value",
    }
}

/// Reads `body` again, tracking the path of the field being read, to say
/// where `error` happened.
fn locate<T: DeserializeOwned>(body: &[u8], error: postcard::Error) -> WireError {
    let mut de = postcard::Deserializer::from_bytes(body);
    let (at, error) = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Err(e) => (e.path().to_string(), e.into_inner()),
        Ok(_) => (String::new(), error),
    };
    let offset = de
        .finalize()
        .map_or(body.len(), |rest| body.len() - rest.len());
    WireError::Malformed {
        at: if at == "." { String::new() } else { at },
        offset,
        message: describe(&error),
    }
}

/// What a postcard error means, in the format's terms.
fn describe(error: &postcard::Error) -> String {
    use postcard::Error as E;
    match error {
        E::DeserializeUnexpectedEnd => {
            "the buffer ends inside a value: it is truncated, or a length claims more than it holds"
                .into()
        }
        E::DeserializeBadVarint => "a malformed varint".into(),
        E::DeserializeBadBool => "a bool that is neither 0 nor 1".into(),
        E::DeserializeBadUtf8 => "a string that is not UTF-8".into(),
        E::DeserializeBadOption => "an option tag that is neither 0 nor 1".into(),
        E::DeserializeBadEnum => "a case index beyond the type's cases".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minimal() -> ReconcileInput {
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
    fn full() -> ReconcileInput {
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
    fn the_encoded_path_validates_from_its_notes_as_the_plain_one_does() {
        let breaks: [fn(&mut crate::AllocationSpec); 5] = [
            |_| {},
            |s| s.id = "a".into(),
            |s| s.node = 1,
            |s| s.id.clear(),
            |s| s.name_index = crate::MAX_NAME_INDEX + 1,
        ];
        for (i, broken) in breaks.into_iter().enumerate() {
            let mut input = full();
            input.job = None;
            let allocations = &mut input.allocations[0].allocations;
            allocations[0].spec.name_index = 0;
            let mut second = allocations[0].clone();
            second.spec.id = "b".into();
            second.spec.name_index = 3;
            broken(&mut second.spec);
            allocations.push(second);
            let plain = crate::reconcile(&input);
            assert_eq!(plain.is_ok(), i == 0, "{plain:?}");
            let encoded = decode_outcome(&reconcile_encoded(encode_input(&input)));
            assert_eq!(encoded.ok(), Some(plain));
        }
    }

    /// Both readers on `bytes`: the same error, or values that encode alike
    /// (compared as bytes, since a mutated score may be NaN).
    fn read_alike(bytes: &[u8]) {
        let ours = decode_input(bytes).map(|input| reference::encode_input(&input));
        let serde = reference::decode_input(bytes).map(|input| reference::encode_input(&input));
        assert_eq!(ours, serde, "{bytes:?}");
    }

    #[test]
    fn every_cut_and_every_changed_byte_reads_as_serde_reads_it() {
        let bytes = encode_input(&full());
        for cut in HEADER_LEN..bytes.len() {
            read_alike(&bytes[..cut]);
        }
        for at in HEADER_LEN..bytes.len() {
            for value in [0x00, 0x01, 0x02, 0x0f, 0x10, 0x7f, 0x80, 0xff] {
                let mut changed = bytes.clone();
                changed[at] = value;
                read_alike(&changed);
            }
        }
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
}
