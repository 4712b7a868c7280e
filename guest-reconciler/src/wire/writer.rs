//! A buffer being written with postcard's primitives, by the hand-written writers of the input's large lists and of the plan's.

use serde::Serialize;

/// The buffer being written, with postcard's primitives.
pub(super) struct Writer<'a>(pub(super) &'a mut Vec<u8>);

impl Writer<'_> {
    #[inline(always)]
    pub(super) fn u64(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.push(n as u8 | 0x80);
            n >>= 7;
        }
        self.0.push(n as u8);
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
        self.0.push(u8::from(b));
    }

    pub(super) fn string(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }

    #[inline(always)]
    pub(super) fn option<T>(&mut self, value: &Option<T>, write: impl FnOnce(&mut Self, &T)) {
        match value {
            None => self.0.push(0),
            Some(v) => {
                self.0.push(1);
                write(self, v);
            }
        }
    }

    pub(super) fn list<T>(&mut self, items: &[T], mut write: impl FnMut(&mut Self, &T)) {
        self.u64(items.len() as u64);
        for item in items {
            write(self, item);
        }
    }

    /// A part that does not grow with the group, by postcard.
    pub(super) fn postcard<T: Serialize>(&mut self, value: &T) {
        *self.0 = super::growing::append(std::mem::take(self.0), value);
    }
}
