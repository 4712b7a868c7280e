//! Checks a group's allocations written as the wire's fixed records (content 3) where they lie, noting what validation asks of each: nothing is decoded.
//!
//! Every record is checked before the core reads any: each string and rest
//! it places lies in its group's tail, strings are UTF-8, cases and flags
//! are in range, absent fields and unused bits are zero, and its rest
//! decodes. The core then reads fields as loads (`allocation_record`).

use super::cursor::Cursor;
use super::rest_reader;
use crate::allocation_record::{at, health, present, transition, LEN, REST, STRING};
use crate::validation::Noting;

/// Where a group's checked records start in the buffer's value, and how
/// many there are.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placed {
    pub(crate) start: usize,
    pub(crate) len: usize,
}

/// Why a group's allocations were refused.
#[derive(Debug)]
pub(super) struct Fault {
    /// The field, from the group's allocation list (`[12][0][0]` is the id
    /// of its thirteenth allocation); empty for the list itself.
    pub(super) path: String,
    /// The byte of the value where the faulty part starts.
    pub(super) offset: usize,
    pub(super) message: &'static str,
}

/// A field of a record that failed its check, with the WIT path of the
/// field within an allocation.
type Refusal = (&'static str, &'static str);

/// Reads a group's allocation list at `cursor`, checks its records and
/// notes each with `notes`.
pub(super) fn group<N: Noting>(cursor: &mut Cursor, notes: &mut N) -> Result<Placed, Fault> {
    let list_at = cursor.position();
    let fault = |offset: usize, message| Fault {
        path: String::new(),
        offset,
        message,
    };
    let count = cursor.u64();
    let tail = cursor.take(4);
    if !cursor.ok() {
        return Err(fault(cursor.failed_at(), TRUNCATED));
    }
    let tail_len = <[u8; 4]>::try_from(tail).map_or(0, u32::from_le_bytes) as usize;
    let start = cursor.position();
    let records_len = usize::try_from(count).ok().and_then(|n| n.checked_mul(LEN));
    let Some(records_len) = records_len.filter(|&r| r <= cursor.remaining()) else {
        return Err(fault(
            list_at,
            "the allocation count claims more records than the buffer holds (truncated, or a wrong count)",
        ));
    };
    if tail_len > cursor.remaining() - records_len {
        return Err(fault(
            start,
            "the tail's length runs past the end of the buffer (truncated, or a wrong length)",
        ));
    }
    let region = cursor.take(records_len + tail_len);
    let len = records_len / LEN;
    let check = Check {
        region,
        tail_from: records_len,
    };
    notes.reserve(len);
    let mut deployment = None;
    for (i, record) in region[..records_len].chunks_exact(LEN).enumerate() {
        let Ok(record) = <&[u8; LEN]>::try_from(record) else {
            break;
        };
        match check.record(i, record, &mut deployment) {
            Ok(id) => notes.note(id, u32_at(record, at::NODE), u32_at(record, at::NAME_INDEX)),
            Err((field, message)) => {
                return Err(Fault {
                    path: format!("[{i}]{field}"),
                    offset: start + i * LEN,
                    message,
                })
            }
        }
    }
    Ok(Placed { start, len })
}

const TRUNCATED: &str =
    "the buffer ends inside a value: it is truncated, or a length claims more than it holds";

/// The records and tail of one group.
struct Check<'a> {
    /// The records, then the tail.
    region: &'a [u8],
    /// Where the tail starts in `region`.
    tail_from: usize,
}

impl<'a> Check<'a> {
    /// Checks record `i`, giving its id. `deployment` is where the last
    /// deployment checked lies, which the next record most likely shares.
    fn record(
        &self,
        i: usize,
        r: &[u8; LEN],
        deployment: &mut Option<(usize, usize)>,
    ) -> Result<&'a str, Refusal> {
        let present = r[at::PRESENT];
        if present & !present::ALL != 0 {
            return Err(("[0]", "unknown bits in the presence flags"));
        }
        let id = self.string(i, r, at::ID, "[0][0]")?;
        let optional = [
            (present::DEPLOYMENT, at::DEPLOYMENT, "[0][5]"),
            (present::PREVIOUS, at::PREVIOUS, "[0][6]"),
            (present::NEXT, at::NEXT, "[0][7]"),
        ];
        for (bit, field, path) in optional {
            if present & bit == 0 {
                zero(r, field, STRING, path)?;
            } else if field == at::DEPLOYMENT {
                let placed = self.placed(i, r, field).ok_or((path, OUTSIDE))?;
                if *deployment != Some(placed) {
                    self.string(i, r, field, path)?;
                    *deployment = Some(placed);
                }
            } else {
                self.string(i, r, field, path)?;
            }
        }
        if present & present::PLACEMENT_SCORE == 0 {
            zero(r, at::PLACEMENT_SCORE, 8, "[0][10]")?;
        }
        if r[at::DESIRED_STATUS] > 2 {
            return Err(("[1][0]", CASE));
        }
        if r[at::CLIENT_STATUS] > 5 {
            return Err(("[1][1]", CASE));
        }
        flags(
            r[at::TRANSITION],
            transition::PRESENT,
            transition::ALL,
            "[1][2]",
        )?;
        let h = r[at::HEALTH];
        flags(h, health::PRESENT, health::ALL, "[1][3]")?;
        if h & health::HEALTHY_KNOWN == 0 && h & health::HEALTHY != 0 {
            return Err(("[1][3][0]", "a health value without its presence flag"));
        }
        if h & health::CHANGED_AT == 0 {
            zero(r, at::CHANGED_AT, 8, "[1][3][2]")?;
        }
        if r[at::UPDATE] > 3 {
            return Err(("[2]", CASE));
        }
        zero(r, at::RESERVED, 2, "")?;
        if u32_at(r, at::REST + 4) == 0 {
            zero(r, at::REST, REST, "[1][4]")?;
        } else {
            let (from, len) = self.placed(i, r, at::REST).ok_or(("[1][4]", OUTSIDE))?;
            if rest_reader::rest(&self.region[from..from + len]).is_none() {
                return Err(("[1][4]", "the rest of the observed state does not decode"));
            }
        }
        Ok(id)
    }

    /// Where the bytes placed at `field` of record `i` lie in the region,
    /// if within its tail.
    fn placed(&self, i: usize, r: &[u8; LEN], field: usize) -> Option<(usize, usize)> {
        let offset = u32_at(r, field) as usize;
        let len = u32_at(r, field + 4) as usize;
        let from = (i * LEN).checked_add(offset)?;
        let to = from.checked_add(len)?;
        (from >= self.tail_from && to <= self.region.len()).then_some((from, len))
    }

    /// The string placed at `field` of record `i`, checked.
    fn string(
        &self,
        i: usize,
        r: &[u8; LEN],
        field: usize,
        path: &'static str,
    ) -> Result<&'a str, Refusal> {
        let (from, len) = self.placed(i, r, field).ok_or((path, OUTSIDE))?;
        std::str::from_utf8(&self.region[from..from + len])
            .map_err(|_| (path, "a string that is not UTF-8"))
    }
}

const OUTSIDE: &str = "placed outside its group's tail";
const CASE: &str = "a case index beyond the type's cases";

fn u32_at(r: &[u8; LEN], at: usize) -> u32 {
    u32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]])
}

/// The `len` bytes at `at` are zero, as an absent field's are.
fn zero(r: &[u8; LEN], at: usize, len: usize, path: &'static str) -> Result<(), Refusal> {
    if r[at..at + len].iter().all(|&b| b == 0) {
        Ok(())
    } else {
        Err((path, "an absent field or unused bytes that are not zero"))
    }
}

/// A byte of flags: no unknown bits, and none without the presence bit.
fn flags(bits: u8, present: u8, all: u8, path: &'static str) -> Result<(), Refusal> {
    if bits & !all != 0 || (bits & present == 0 && bits != 0) {
        Err((path, "flags out of range, or set on an absent field"))
    } else {
        Ok(())
    }
}
