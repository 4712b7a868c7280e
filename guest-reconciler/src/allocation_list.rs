//! A group's allocation list, read from a buffer at its declared length in one allocation, within what the buffer can hold.
//!
//! Read item by item, a list of a million allocations grows by doubling and
//! leaves its outgrown copies behind; in the component they stay resident,
//! since a guest's memory never shrinks. An encoded list declares its length
//! up front, so it is reserved once. The length is trusted only as far as
//! the buffer being decoded could hold that many allocations: a short buffer
//! that claims a billion reserves nothing large.

use crate::Allocation;
use serde::de::{Deserializer, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;

/// Fewer bytes than any encoded allocation takes (the smallest, every
/// option absent and every string empty, takes 23).
const MIN_ENCODED_BYTES: usize = 16;

thread_local! {
    /// How many allocations the buffer being decoded could still hold.
    /// Zero outside [`within`]: text formats give no lengths to trust.
    static ROOM: Cell<usize> = const { Cell::new(0) };
}

/// Runs `decode` on a buffer of `len` bytes, letting the allocation lists in
/// it be reserved at their declared lengths, up to what `len` bytes hold.
pub(crate) fn within<T>(len: usize, decode: impl FnOnce() -> T) -> T {
    let outer = ROOM.replace(len / MIN_ENCODED_BYTES);
    let value = decode();
    ROOM.set(outer);
    value
}

/// Deserializes `group-allocations.allocations` (named in `wit.rs`).
pub(crate) fn allocations<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Allocation>, D::Error> {
    d.deserialize_seq(Reserved)
}

struct Reserved;

impl<'de> Visitor<'de> for Reserved {
    type Value = Vec<Allocation>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        // The words of serde's own list visitor, which users' messages quote.
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let declared = seq.size_hint().unwrap_or(0);
        let reserved = ROOM.with(|room| {
            let n = declared.min(room.get());
            room.set(room.get() - n);
            n
        });
        let mut list = Vec::with_capacity(reserved);
        while let Some(allocation) = seq.next_element()? {
            list.push(allocation);
        }
        Ok(list)
    }
}
