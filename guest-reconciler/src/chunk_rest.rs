//! The unused rest of a chunk of memory, from which the component's allocator carves blocks in order.
//!
//! Both the small blocks' free lists and the input arena take memory from
//! dlmalloc in chunks and hand it out front to back; they differ only in
//! how they size chunks and what they do with a freed block.

use std::ptr::null_mut;

/// Where the next block goes and where the chunk ends; empty (both null)
/// before the first chunk.
pub(crate) struct ChunkRest {
    next: *mut u8,
    end: *mut u8,
}

impl ChunkRest {
    pub(crate) const fn empty() -> Self {
        Self {
            next: null_mut(),
            end: null_mut(),
        }
    }

    /// Carves on from `bytes` bytes at `at`, leaving the old rest unused:
    /// it was too small for the block that asked.
    ///
    /// # Safety
    /// `at` must point to `bytes` bytes that are the carver's until it is
    /// emptied or the chunk is given back.
    pub(crate) unsafe fn start(&mut self, at: *mut u8, bytes: usize) {
        self.next = at;
        // SAFETY: the caller's contract.
        self.end = unsafe { at.add(bytes) };
    }

    /// The next block of `size` bytes at a multiple of `align` (a power of
    /// two), if the rest holds it.
    #[inline(always)]
    pub(crate) fn carve(&mut self, size: usize, align: usize) -> Option<*mut u8> {
        if self.next.is_null() {
            return None;
        }
        let at = (self.next as usize).checked_next_multiple_of(align)?;
        if at.checked_add(size)? > self.end as usize {
            return None;
        }
        // SAFETY: the block lies within the chunk; offsets from `next` keep
        // the chunk's provenance.
        let block = unsafe { self.next.add(at - self.next as usize) };
        self.next = unsafe { block.add(size) };
        Some(block)
    }

    /// Takes back `block` of `size` bytes if it was the last one carved;
    /// otherwise its room stays used.
    pub(crate) fn take_back(&mut self, block: *mut u8, size: usize) {
        if (block as usize).wrapping_add(size) == self.next as usize {
            self.next = block;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_carved_front_to_back_aligned_until_the_rest_is_too_small() {
        let mut memory = vec![0u64; 8];
        let mut rest = ChunkRest::empty();
        assert_eq!(rest.carve(1, 1), None, "no chunk yet");
        let at = memory.as_mut_ptr().cast::<u8>();
        unsafe { rest.start(at, 64) };
        assert_eq!(rest.carve(3, 1), Some(at));
        assert_eq!(rest.carve(8, 8), Some(at.wrapping_add(8)), "aligned up");
        assert_eq!(rest.carve(48, 8), Some(at.wrapping_add(16)));
        assert_eq!(rest.carve(1, 1), None, "the chunk is used up");
    }
}
