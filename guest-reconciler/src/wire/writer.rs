//! A buffer being written with postcard's primitives, by the hand-written writers of the input's large lists and of the plan's.
//!
//! The items of a large list (an allocation, a node, a placement, a step
//! report) are each written into room reserved beforehand, where a byte is
//! a store and a count rather than a push that checks and updates the
//! buffer's length: natively, encoding an input of 10,000 allocations took
//! 28 ns per allocation with pushes and takes 19 so.

use serde::Serialize;
use std::mem::MaybeUninit;

/// Where a writer's bytes go.
pub(super) trait Sink {
    fn byte(&mut self, byte: u8);
    fn bytes(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    #[inline(always)]
    fn byte(&mut self, byte: u8) {
        self.push(byte);
    }

    #[inline(always)]
    fn bytes(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Room reserved at the end of a buffer, and how many bytes were written
/// into it. Bytes beyond the room are counted and not stored, so that
/// writing never fails: when the count ends beyond the room, the item is
/// written again in room of that size (see [`Writer::items`]).
pub(super) struct Room<'a> {
    spare: &'a mut [MaybeUninit<u8>],
    at: usize,
}

impl Sink for Room<'_> {
    #[inline(always)]
    fn byte(&mut self, byte: u8) {
        if let Some(slot) = self.spare.get_mut(self.at) {
            slot.write(byte);
        }
        self.at += 1;
    }

    #[inline(always)]
    fn bytes(&mut self, bytes: &[u8]) {
        let end = self.at.saturating_add(bytes.len());
        if let Some(slots) = self.spare.get_mut(self.at..end) {
            slots.write_copy_of_slice(bytes);
        }
        self.at = end;
    }
}

/// The room first reserved for an item: more than any item of a generated
/// 10,000-allocation input or of its plan takes. A larger item costs one
/// attempt more.
const ROOM: usize = 512;

/// The buffer being written, with postcard's primitives.
pub(super) struct Writer<'a, S: Sink = Vec<u8>>(pub(super) &'a mut S);

impl<S: Sink> Writer<'_, S> {
    #[inline(always)]
    pub(super) fn u64(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.byte(n as u8 | 0x80);
            n >>= 7;
        }
        self.0.byte(n as u8);
    }

    #[inline(always)]
    pub(super) fn u32(&mut self, n: u32) {
        self.u64(u64::from(n));
    }

    #[inline(always)]
    pub(super) fn s64(&mut self, n: i64) {
        self.u64(((n << 1) ^ (n >> 63)) as u64);
    }

    #[inline(always)]
    pub(super) fn bool(&mut self, b: bool) {
        self.0.byte(u8::from(b));
    }

    #[inline(always)]
    pub(super) fn f64(&mut self, v: f64) {
        self.0.bytes(&v.to_le_bytes());
    }

    #[inline(always)]
    pub(super) fn string(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.bytes(s.as_bytes());
    }

    #[inline(always)]
    pub(super) fn option<T>(&mut self, value: &Option<T>, write: impl FnOnce(&mut Self, &T)) {
        match value {
            None => self.0.byte(0),
            Some(v) => {
                self.0.byte(1);
                write(self, v);
            }
        }
    }

    /// A list written in place: the small lists inside an item.
    #[inline(always)]
    pub(super) fn list<T>(&mut self, items: &[T], mut write: impl FnMut(&mut Self, &T)) {
        self.u64(items.len() as u64);
        for item in items {
            write(self, item);
        }
    }
}

impl Writer<'_, Vec<u8>> {
    /// A large list, each item written into room reserved for it.
    pub(super) fn items<T>(&mut self, items: &[T], write: impl Fn(&mut Writer<Room>, &T)) {
        self.u64(items.len() as u64);
        for item in items {
            self.in_room(|w| write(w, item));
        }
    }

    fn in_room(&mut self, write: impl Fn(&mut Writer<Room>)) {
        let out = &mut *self.0;
        let mut room = ROOM;
        loop {
            out.reserve(room);
            let len = out.len();
            let mut written = Room {
                spare: out.spare_capacity_mut(),
                at: 0,
            };
            write(&mut Writer(&mut written));
            let (at, fits) = (written.at, written.at <= written.spare.len());
            if fits {
                // SAFETY: the room's first `at` bytes were all written, as
                // every write below the room's end stores its byte, and
                // `at` is within the capacity the room was taken from.
                unsafe { out.set_len(len + at) };
                return;
            }
            // The item's size is now known, and the same item writes the
            // same bytes: the next attempt fits.
            room = at;
        }
    }

    /// A part that does not grow with the group, by postcard.
    pub(super) fn postcard<T: Serialize>(&mut self, value: &T) {
        *self.0 = super::growing::append(std::mem::take(self.0), value);
    }
}

#[cfg(test)]
mod tests {
    use super::Writer;

    #[test]
    fn an_item_larger_than_the_first_room_is_written_whole_in_a_second() {
        let long = "x".repeat(3 * super::ROOM);
        let items = [long.clone(), String::new(), long.clone()];
        let mut ours = Vec::new();
        Writer(&mut ours).items(&items, |w, s| {
            w.string(s);
            w.u64(u64::MAX);
        });
        let mut pushed = Vec::new();
        let mut w = Writer(&mut pushed);
        w.list(&items, |w, s| {
            w.string(s);
            w.u64(u64::MAX);
        });
        assert_eq!(ours, pushed);
    }
}
