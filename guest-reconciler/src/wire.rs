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
mod record_reader;
mod record_writer;
pub(crate) mod rest_reader;
#[cfg(test)]
mod sample_outcomes;
mod writer;

use crate::allocation_record::Records;
use crate::allocation_ref::AllocationList;
use crate::sentence::say;
use crate::validation::{Noted, Noting, Screen};
use crate::{InputError, Plan, ReconcileInput};
use held::Held;
use record_reader::Placed;
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
    /// A `reconcile-input` whose groups' allocations are fixed-size
    /// records, which the reconciler reads where they lie instead of
    /// decoding them (`docs/wire.md`).
    InputRecords = 3,
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

/// Encodes `input` as a buffer of content 1: every value in postcard's
/// encoding, about fifty bytes per allocation.
pub fn encode_input(input: &ReconcileInput) -> Vec<u8> {
    // An allocation takes about a hundred bytes, most of them its id.
    let mut out = Vec::with_capacity(4096 + 128 * allocations(input));
    out.extend_from_slice(&[MAGIC[0], MAGIC[1], VERSION, Content::Input as u8]);
    list_writer::input(&mut out, input);
    out
}

/// Encodes `input` as a buffer of content 3, its allocations as fixed-size
/// records that the reconciler reads in place: what hosts send, as it
/// saves the guest decoding every allocation. A group too large for the
/// records' four-byte offsets (tens of millions of allocations) is written
/// as content 1 instead.
pub fn encode_input_records(input: &ReconcileInput) -> Vec<u8> {
    // A record, its id and a share of the deployment ids.
    let mut out = Vec::with_capacity(4096 + 168 * allocations(input));
    out.extend_from_slice(&[MAGIC[0], MAGIC[1], VERSION, Content::InputRecords as u8]);
    if list_writer::input_records(&mut out, input) {
        out
    } else {
        encode_input(input)
    }
}

/// As [`encode_input_records`], emptying `input`'s allocation lists as
/// their records are written and giving their memory back as it goes, so
/// that a large input and its buffer are never both whole: for a caller
/// done with the allocations once they are encoded. When a group does not
/// fit records, the buffer is of content 1 and `input` is left whole.
pub fn encode_input_records_releasing(input: &mut ReconcileInput) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(&[MAGIC[0], MAGIC[1], VERSION, Content::InputRecords as u8]);
    if list_writer::input_records_releasing(&mut out, input) {
        out
    } else {
        encode_input(input)
    }
}

fn allocations(input: &ReconcileInput) -> usize {
    input.allocations.iter().map(|g| g.allocations.len()).sum()
}

/// Reads an input buffer, of content 1 or 3.
///
/// # Errors
/// When the buffer is not an encoded input of this format version.
pub fn decode_input(bytes: &[u8]) -> Result<ReconcileInput, WireError> {
    let decoded = decode_noting::<()>(bytes)?;
    let mut input = decoded.input;
    if !decoded.placed.is_empty() {
        let body = bytes.get(HEADER_LEN..).unwrap_or_default();
        for (group, placed) in input.allocations.iter_mut().zip(&decoded.placed) {
            // SAFETY: the reader checked these records in `body`.
            let records = unsafe { Records::checked(body, placed.start, placed.len) };
            group.allocations = records.iter().map(|r| r.to_allocation()).collect();
        }
    }
    Ok(input)
}

/// An input as read, with what its reader noted of its allocations.
struct Decoded<N> {
    input: ReconcileInput,
    /// `None` when postcard read the input, not the hand-written reader.
    notes: Option<N>,
    /// For content 3, where each group's records lie in the buffer's
    /// value; the input's allocation lists are then empty.
    placed: Vec<Placed>,
}

/// Reads an input buffer of either content, noting its allocations with `N`.
fn decode_noting<N: Noting>(bytes: &[u8]) -> Result<Decoded<N>, WireError> {
    if bytes.get(3) == Some(&(Content::InputRecords as u8)) {
        let body = body(Content::InputRecords, bytes)?;
        let (input, notes, placed) =
            list_reader::input_with_records::<N>(body).map_err(|f| WireError::Malformed {
                at: f.path,
                offset: f.offset,
                message: f.message.into(),
            })?;
        return Ok(Decoded {
            input,
            notes: Some(notes),
            placed,
        });
    }
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
            placed: Vec::new(),
        });
    }
    reference::decode_input(bytes).map(|input| Decoded {
        input,
        notes: None,
        placed: Vec::new(),
    })
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
    let decoded = decode_held(input);
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
/// by record. A buffer of content 1 is freed once decoded, so that its
/// memory serves the reconcile; one of content 3 is kept, as the
/// allocations are read where they lie in it. A buffer that cannot be read
/// gives an input error, which owns its memory.
pub(crate) fn decode_held(bytes: Vec<u8>) -> Result<HeldInput, InputError> {
    // SAFETY: decoding keeps nothing it allocates beyond the input, its
    // notes or the error it returns, and all are plain data.
    let decoded = unsafe { Held::decode(|| decode_noting::<Screen>(&bytes)) };
    let held = decoded.or_else_own(|e| InputError::from(e.clone()))?;
    let buffer = (!held.placed.is_empty()).then_some(bytes);
    Ok(HeldInput { held, buffer })
}

/// A decoded input held as `decode_held` holds it, with its reader's notes
/// and, for content 3, the buffer its records lie in.
pub(crate) struct HeldInput {
    held: Held<Decoded<Screen>>,
    /// Never changed while held: the records the reader checked in it are
    /// read in place.
    buffer: Option<Vec<u8>>,
}

impl std::ops::Deref for HeldInput {
    type Target = ReconcileInput;

    fn deref(&self) -> &ReconcileInput {
        &self.held.input
    }
}

impl Noted for HeldInput {
    fn screen(&self) -> Option<&Screen> {
        self.held.notes.as_ref()
    }

    fn lists(&self) -> Vec<AllocationList<'_>> {
        let Some(body) = self.buffer.as_deref().and_then(|b| b.get(HEADER_LEN..)) else {
            return AllocationList::of_input(self);
        };
        (self.held.placed.iter())
            // SAFETY: the reader checked these records in this buffer,
            // which is held unchanged with them.
            .map(|p| AllocationList::Records(unsafe { Records::checked(body, p.start, p.len) }))
            .collect()
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
        3 => "a reconcile input of records",
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
mod record_tests;
#[cfg(test)]
mod tests;
