//! A read position in an encoded buffer that takes postcard's primitives one at a time, for the reader of the large lists.
//!
//! Every method accepts exactly what postcard's own deserializer accepts
//! and gives the same value. Anything else marks the cursor failed and
//! gives a placeholder (zero, false, empty, none), so that reads chain
//! without a branch each; whoever started the read checks [`Cursor::ok`]
//! at the end and, on failure, falls back to postcard, which then names the
//! error. Being stricter than postcard only costs that fallback; being
//! looser would be a defect (the `encoded_input` fuzz target compares the
//! two).

use crate::cases::client_status;
use crate::ClientStatus;
use serde::de::DeserializeOwned;

/// Where reading a buffer has got to.
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    failed: bool,
    /// Where the first failed read started.
    failed_at: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            at: 0,
            failed: false,
            failed_at: 0,
        }
    }

    /// Where reading is: the bytes read so far.
    pub(super) fn position(&self) -> usize {
        self.at
    }

    /// Where the first failed read started, once one has.
    pub(super) fn failed_at(&self) -> usize {
        self.failed_at
    }

    /// Stops reading: what is read after is placeholders.
    pub(super) fn give_up(&mut self) {
        self.fail::<()>();
    }

    /// The next `n` bytes, as they are; empty, and the cursor failed, when
    /// fewer are left.
    pub(super) fn take(&mut self, n: usize) -> &'a [u8] {
        match self.bytes.get(self.at..).and_then(|rest| rest.get(..n)) {
            Some(taken) => {
                self.at += n;
                taken
            }
            None => {
                self.fail::<()>();
                &[]
            }
        }
    }

    /// Whether everything read so far was valid.
    pub(super) fn ok(&self) -> bool {
        !self.failed
    }

    /// How many bytes are left to read.
    pub(super) fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// Marks the read failed; the placeholder `T` stands in for the value.
    #[cold]
    fn fail<T: Default>(&mut self) -> T {
        if !self.failed {
            self.failed_at = self.at;
        }
        self.failed = true;
        self.at = self.bytes.len();
        T::default()
    }

    #[inline(always)]
    fn byte(&mut self) -> u8 {
        match self.bytes.get(self.at) {
            Some(&b) => {
                self.at += 1;
                b
            }
            None => self.fail(),
        }
    }

    /// A varint of at most `BYTES` bytes whose last byte may carry at most
    /// `LAST` (the bits that fit the integer): postcard's rule, which also
    /// takes non-canonical encodings such as `0x80 0x00`.
    #[inline(always)]
    fn varint<const BYTES: u32, const LAST: u8>(&mut self) -> u64 {
        let first = self.byte();
        if first & 0x80 == 0 {
            return u64::from(first);
        }
        // Two bytes (indexes from 128 on) are common enough to stay out
        // of the call, which the component pays a frame for.
        if let Some(&second) = self.bytes.get(self.at) {
            if second & 0x80 == 0 {
                self.at += 1;
                return u64::from(first & 0x7f) | u64::from(second) << 7;
            }
        }
        self.varint_tail::<BYTES, LAST>(first)
    }

    #[inline(never)]
    fn varint_tail<const BYTES: u32, const LAST: u8>(&mut self, first: u8) -> u64 {
        if let Some(value) = self.varint_by_word::<BYTES, LAST>() {
            return value;
        }
        let mut value = u64::from(first & 0x7f);
        for i in 1..BYTES {
            let byte = self.byte();
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                if i + 1 == BYTES && byte > LAST {
                    return self.fail();
                }
                return value;
            }
        }
        self.fail()
    }

    /// The varint whose first byte was just read, taken from the eight
    /// bytes that start with it (and the one or two after them for a varint
    /// of nine or ten), when the buffer holds them: a timestamp in
    /// nanoseconds takes nine bytes, and every allocation has at least one,
    /// which byte by byte was about 4% of an encoded reconcile in the
    /// component. `None` leaves the cursor as it was, for the byte loop.
    #[inline(always)]
    fn varint_by_word<const BYTES: u32, const LAST: u8>(&mut self) -> Option<u64> {
        let start = self.at.checked_sub(1)?;
        let word = u64::from_le_bytes(self.bytes.get(start..start + 8)?.try_into().ok()?);
        let stops = !word & 0x8080_8080_8080_8080;
        let (len, value) = if stops != 0 {
            let len = stops.trailing_zeros() / 8 + 1;
            let kept = match len {
                8 => word,
                _ => word & ((1 << (8 * len)) - 1),
            };
            (len, seven_bit_groups(kept))
        } else {
            let ninth = *self.bytes.get(start + 8)?;
            let low = seven_bit_groups(word) | u64::from(ninth & 0x7f) << 56;
            if ninth & 0x80 == 0 {
                (9, low)
            } else {
                let tenth = *self.bytes.get(start + 9)?;
                (10, low | u64::from(tenth) << 63)
            }
        };
        let last = *self.bytes.get(start + len as usize - 1)?;
        if len > BYTES || (len == BYTES && last > LAST) {
            // Not a varint of this width: the byte loop fails it.
            return None;
        }
        self.at = start + len as usize;
        Some(value)
    }

    #[inline(always)]
    pub(super) fn u32(&mut self) -> u32 {
        self.varint::<5, 0x0f>() as u32
    }

    #[inline(always)]
    pub(super) fn u64(&mut self) -> u64 {
        self.varint::<10, 0x01>()
    }

    /// A zigzagged signed integer.
    #[inline(always)]
    pub(super) fn s64(&mut self) -> i64 {
        let n = self.u64();
        (n >> 1) as i64 ^ -((n & 1) as i64)
    }

    /// A length: a varint as wide as the reader's `usize`, as postcard reads it.
    #[inline(always)]
    fn len(&mut self) -> usize {
        #[cfg(target_pointer_width = "32")]
        let n = self.u32() as usize;
        #[cfg(target_pointer_width = "64")]
        let n = self.u64() as usize;
        n
    }

    #[inline(always)]
    pub(super) fn bool(&mut self) -> bool {
        match self.byte() {
            0 => false,
            1 => true,
            _ => self.fail(),
        }
    }

    pub(super) fn f64(&mut self) -> f64 {
        match self.bytes.get(self.at..self.at + 8) {
            Some(&[a, b, c, d, e, f, g, h]) => {
                self.at += 8;
                f64::from_le_bytes([a, b, c, d, e, f, g, h])
            }
            _ => self.fail(),
        }
    }

    pub(super) fn string(&mut self) -> String {
        let n = self.len();
        if n > self.remaining() {
            return self.fail();
        }
        let bytes = &self.bytes[self.at..self.at + n];
        self.at += n;
        match text(bytes) {
            Some(s) => s.to_owned(),
            None => self.fail(),
        }
    }

    /// An enum's case index, below `cases`.
    #[inline(always)]
    pub(super) fn case(&mut self, cases: u32) -> u32 {
        let case = self.u32();
        if case < cases {
            case
        } else {
            self.fail()
        }
    }

    /// An option whose value `read` takes.
    #[inline(always)]
    pub(super) fn option<T>(&mut self, read: impl FnOnce(&mut Self) -> T) -> Option<T> {
        match self.byte() {
            0 => None,
            1 => Some(read(self)),
            _ => self.fail(),
        }
    }

    /// A list whose items `read` takes. Each item takes at least
    /// `min_bytes`, so a list declared longer than the bytes left could hold
    /// fails at once, and the items are written straight into a list of
    /// exactly their number (natively, copying each allocation into the
    /// list after building it was a sixth of decoding). Once a read fails
    /// the cursor is at the end, so the items still to come are
    /// placeholders that cost a check each.
    pub(super) fn list<T>(&mut self, min_bytes: usize, read: impl FnMut(&mut Self) -> T) -> Vec<T> {
        self.list_counted(min_bytes, |_| read)
    }

    /// As [`Cursor::list`], with the reader of its items made by `reader`
    /// from the list's length, once it is known to fit in what is left.
    pub(super) fn list_counted<T, R: FnMut(&mut Self) -> T>(
        &mut self,
        min_bytes: usize,
        reader: impl FnOnce(usize) -> R,
    ) -> Vec<T> {
        let n = self.len();
        if n > self.remaining() / min_bytes.max(1) {
            return self.fail();
        }
        let mut read = reader(n);
        (0..n).map(|_| read(self)).collect()
    }

    /// A value of a type read by postcard itself: the parts of an input
    /// that do not grow with the group.
    pub(super) fn postcard<T: DeserializeOwned>(&mut self) -> Option<T> {
        if self.failed {
            return None;
        }
        match postcard::take_from_bytes::<T>(&self.bytes[self.at..]) {
            Ok((value, rest)) => {
                self.at = self.bytes.len() - rest.len();
                Some(value)
            }
            Err(_) => {
                self.fail::<()>();
                None
            }
        }
    }

    /// A client status, as the input's allocations and the plan's stops
    /// carry it.
    pub(super) fn client_status(&mut self) -> ClientStatus {
        client_status(self.case(6) as u8)
    }
}

/// The low seven bits of each of `word`'s bytes, packed: a varint's value
/// from its bytes, the first lowest.
#[inline(always)]
fn seven_bit_groups(word: u64) -> u64 {
    let v = word & 0x7f7f_7f7f_7f7f_7f7f;
    let v = (v & 0x007f_007f_007f_007f) | ((v & 0x7f00_7f00_7f00_7f00) >> 1);
    let v = (v & 0x0000_3fff_0000_3fff) | ((v & 0x3fff_0000_3fff_0000) >> 2);
    (v & 0x0000_0000_0fff_ffff) | ((v & 0x0fff_ffff_0000_0000) >> 4)
}

/// `bytes` as text, if they are UTF-8: ids, the common case, are ASCII and
/// checked eight bytes at a time first.
#[inline(always)]
fn text(bytes: &[u8]) -> Option<&str> {
    if ascii(bytes) {
        // SAFETY: every byte is below 0x80, and ASCII is UTF-8.
        return Some(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).ok()
}

/// Whether every byte is ASCII, taken eight at a time: core's own check
/// goes by `usize`, four bytes in the component, where it was about 3% of an
/// encoded reconcile of 10,000 allocations (138–140 against 135–136 ns per
/// allocation with this; ids are ASCII).
#[inline(always)]
fn ascii(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    let mut high = 0u64;
    for word in &mut words {
        // Every chunk has eight bytes; were one not to, it would count as
        // not ASCII and go to the full check.
        high |= <[u8; 8]>::try_from(word).map_or(0x80, u64::from_le_bytes);
    }
    for &byte in words.remainder() {
        high |= u64::from(byte);
    }
    high & 0x8080_8080_8080_8080 == 0
}

#[cfg(test)]
mod tests {
    use super::Cursor;

    /// Varints of every length, canonical or padded with `0x80` bytes, cut
    /// short, or too long; each followed by 0 to 11 bytes of other data, so
    /// that both the word-wise read and the byte loop take every one.
    fn varints() -> Vec<Vec<u8>> {
        let mut values: Vec<u64> = (0..64).flat_map(|b| [1u64 << b, (1u64 << b) - 1]).collect();
        values.extend([
            u64::MAX,
            u64::from(u32::MAX),
            1_767_225_600_000_000_000 << 1,
        ]);
        let mut encodings = Vec::new();
        for v in values {
            let canonical = postcard::to_allocvec(&v).expect("a u64 encodes");
            let mut padded = canonical.clone();
            if let Some(last) = padded.last_mut() {
                *last |= 0x80;
            }
            padded.push(0);
            encodings.push(canonical.clone());
            encodings.push(padded);
            encodings.push(canonical[..canonical.len() - 1].to_vec());
        }
        for len in 1..=12 {
            let mut long = vec![0xff; len];
            long.push(0x01);
            encodings.push(long);
            encodings.push([vec![0x80; len], vec![0x7f]].concat());
            encodings.push([vec![0x80; len], vec![0x02]].concat());
        }
        let mut buffers = Vec::new();
        for e in encodings {
            for trailing in 0..12 {
                buffers.push([e.clone(), vec![0x85; trailing]].concat());
            }
        }
        buffers
    }

    #[test]
    fn every_varint_reads_as_postcard_reads_it_whether_or_not_a_word_follows() {
        for bytes in varints() {
            let mut at = Cursor::new(&bytes);
            let ours = (at.u64(), at.ok(), at.remaining());
            let theirs = postcard::take_from_bytes::<u64>(&bytes);
            match theirs {
                Ok((v, rest)) => assert_eq!(ours, (v, true, rest.len()), "{bytes:02x?}"),
                Err(_) => assert!(!ours.1, "{bytes:02x?} read as {}", ours.0),
            }
            let mut at = Cursor::new(&bytes);
            let ours = (at.u32(), at.ok(), at.remaining());
            match postcard::take_from_bytes::<u32>(&bytes) {
                Ok((v, rest)) => assert_eq!(ours, (v, true, rest.len()), "{bytes:02x?}"),
                Err(_) => assert!(!ours.1, "{bytes:02x?} read as {}", ours.0),
            }
        }
    }
}
