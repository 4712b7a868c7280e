//! The component's allocator: small blocks from per-size free lists, larger ones from dlmalloc, and every block from the input arena while an input is decoded.
//!
//! A reconcile makes and frees hundreds of thousands of small blocks (ids,
//! names, step sentences, map nodes); dlmalloc's bins, headers and
//! coalescing were about a tenth of an encoded reconcile of 10k allocations.
//! Blocks of up to [`LARGEST`] bytes are carved from chunks that are never
//! given back: a freed block goes onto the list of its size, the next block
//! of that size is taken from it, and neither needs a header. Sizes round up to
//! eight bytes, so a 36-byte id takes 40 as it did in dlmalloc, without
//! dlmalloc's four-byte header. Larger blocks (the lists of allocations,
//! buffers) stay with dlmalloc, which grows the last one in place and
//! gives freed ones back to other sizes.
//!
//! Each chunk is twice the size of the last, up to 64 MiB, because an
//! instance the host keeps warm reconciles again in the memory the last
//! reconcile left. Chunks are never given back, and dlmalloc cannot merge
//! free space across one, so many small chunks among its large blocks cut
//! its free space into pieces too small for the next reconcile's lists.
//! With 16 KiB chunks throughout, a second reconcile of the same 10,000
//! allocations in the same instance needed 7.4 MiB of memory where a fresh
//! one needed 4.4; at 100,000, 61 against 39 MiB, close to the 64 MiB
//! beyond which the host keeps no instance. With doubling chunks, and
//! smaller ones again near a memory limit, a fresh reconcile of 10,000
//! needs 4.3 MiB and a second one 4.8; at 100,000, 40 MiB both (a chunk
//! not yet used up costs address space, not resident memory), at the same
//! speed. Blocks freed
//! onto the list of a size the next reconcile hardly asks for still hold
//! their memory; a reconcile that fails for want of it in a warm instance
//! is run again by the host in a fresh one (`host/src/warm.rs`).
//!
//! That dlmalloc is the crate's, not the one bundled with the runtime: the
//! bundled one takes every byte of heap by growing the memory, and each
//! growth costs the host two `mprotect` calls (one to grow, one to shrink the
//! pooled memory back when the instance is dropped), about a fifth of a
//! count-10 reconcile. The crate's first hands out the memory between the
//! heap base and the end of the initial memory, which the build sets to
//! 512 KiB (`build.rs`): a small reconcile never grows the memory, and
//! pages it never touches are never faulted in. They are not quite free:
//! the host's reset of a pooled instance scans the whole initial memory for
//! dirtied pages. With 2 MiB that scan was about 2.3 µs of a count-10
//! reconcile, and about 1.4 µs with 512 KiB, which still holds the heap of
//! a rolling update of 1,000 allocations (the stack and data below the heap
//! take about 90 KiB).

use crate::chunk_rest::ChunkRest;
use std::alloc::Layout;
use std::ptr::null_mut;

/// The largest block served from the free lists.
pub(crate) const LARGEST: usize = 256;

/// Sizes are multiples of this; so are every block's address and alignment.
const GRAIN: usize = 8;

/// How much is taken from dlmalloc at once to carve small blocks from, at
/// first: small, as a pooled instance's dirtied pages are reset before its
/// reuse, and a count-10 reconcile needs only a few kilobytes.
const CHUNK: usize = 16 << 10;

/// Each further chunk is twice the last, up to `CHUNK << MAX_DOUBLINGS`
/// (64 MiB). With a cap of 1 MiB, a second reconcile of 100,000
/// allocations in a warm instance still needed half as much memory again
/// as the first.
const MAX_DOUBLINGS: u32 = 12;

const CLASSES: usize = LARGEST / GRAIN;

/// The free lists and the chunk being carved.
pub(crate) struct SmallBlocks {
    /// Per size class, the first free block; each free block holds the
    /// address of the next.
    free: [*mut u8; CLASSES],
    /// The unused rest of the current chunk.
    rest: ChunkRest,
    /// How many chunks have been taken.
    chunks: u32,
}

impl SmallBlocks {
    pub(crate) const fn new() -> Self {
        Self {
            free: [null_mut(); CLASSES],
            rest: ChunkRest::empty(),
            chunks: 0,
        }
    }

    /// The class of a block of `layout`, when the free lists serve it.
    #[inline(always)]
    fn class(layout: Layout) -> Option<usize> {
        (layout.size() <= LARGEST && layout.align() <= GRAIN)
            .then(|| layout.size().max(1).div_ceil(GRAIN) - 1)
    }

    /// A block of `layout`, or `None` when the free lists do not serve it;
    /// null when `chunk` gives no memory.
    ///
    /// # Safety
    /// `chunk` must return null or a block of the size it is asked for,
    /// aligned to `GRAIN`, which it never reclaims; it may be asked again
    /// for half the size after giving null.
    #[inline(always)]
    pub(crate) unsafe fn alloc(
        &mut self,
        layout: Layout,
        chunk: impl FnMut(usize) -> *mut u8,
    ) -> Option<*mut u8> {
        let class = Self::class(layout)?;
        let head = self.free[class];
        if !head.is_null() {
            // SAFETY: a free block starts with the address of the next one.
            self.free[class] = unsafe { head.cast::<*mut u8>().read() };
            return Some(head);
        }
        let size = (class + 1) * GRAIN;
        if let Some(block) = self.rest.carve(size, GRAIN) {
            return Some(block);
        }
        // SAFETY: the caller's contract for `chunk` is the one `refill` needs.
        if !unsafe { self.refill(chunk) } {
            return Some(null_mut());
        }
        // A fresh chunk holds at least `LARGEST` bytes.
        Some(self.rest.carve(size, GRAIN).unwrap_or(null_mut()))
    }

    /// Starts carving a new chunk, twice the size of the last; false when
    /// `chunk` gives no memory. Out of line, as it runs once per chunk and
    /// `alloc` is inlined wherever a block is allocated.
    ///
    /// # Safety
    /// As for [`Self::alloc`].
    #[cold]
    #[inline(never)]
    unsafe fn refill(&mut self, mut chunk: impl FnMut(usize) -> *mut u8) -> bool {
        let mut bytes = CHUNK << self.chunks.min(MAX_DOUBLINGS);
        let fresh = loop {
            let fresh = chunk(bytes);
            if !fresh.is_null() || bytes == CHUNK {
                break fresh;
            }
            // Near a memory limit a smaller chunk may still fit: a reconcile
            // runs out of memory only when not even the first size does,
            // as it did before chunks grew.
            bytes /= 2;
        };
        if fresh.is_null() {
            return false;
        }
        self.chunks += 1;
        // SAFETY: `chunk` gave `bytes` bytes, never reclaimed.
        unsafe { self.rest.start(fresh, bytes) };
        true
    }

    /// Takes back `block` of `layout`; false when the free lists do not
    /// serve that layout.
    ///
    /// # Safety
    /// `block` must have come from [`Self::alloc`] with the same layout.
    #[inline(always)]
    pub(crate) unsafe fn dealloc(&mut self, block: *mut u8, layout: Layout) -> bool {
        let Some(class) = Self::class(layout) else {
            return false;
        };
        // SAFETY: the block holds at least `GRAIN` bytes, aligned to them.
        unsafe { block.cast::<*mut u8>().write(self.free[class]) };
        self.free[class] = block;
        true
    }
}

#[cfg(target_arch = "wasm32")]
pub(crate) use global::Allocator;

#[cfg(target_arch = "wasm32")]
mod global {
    use super::*;
    use crate::input_arena::{InputArena, CHUNK_ALIGN};
    use dlmalloc::GlobalDlmalloc;
    use std::alloc::GlobalAlloc;
    use std::cell::UnsafeCell;
    use std::ptr::NonNull;

    /// The global allocator of the component: [`SmallBlocks`] in front of
    /// dlmalloc, and the input arena, which serves every block while it is
    /// open (see `input_arena.rs`).
    pub(crate) struct Allocator {
        small: UnsafeCell<SmallBlocks>,
        input: UnsafeCell<InputArena>,
    }

    // SAFETY: the component runs on one thread (`wasm32-unknown-unknown`
    // without the atomics feature has no threads), so the cells are never
    // shared.
    unsafe impl Sync for Allocator {}

    impl Allocator {
        pub(crate) const fn new() -> Self {
            Self {
                small: UnsafeCell::new(SmallBlocks::new()),
                input: UnsafeCell::new(InputArena::new()),
            }
        }

        /// Opens the input arena; false when it is open or holds blocks
        /// already.
        pub(crate) fn open_input(&self) -> bool {
            // SAFETY: one thread, and no reference to the cell outlives this.
            unsafe { (*self.input.get()).open() }
        }

        /// Closes the input arena; its blocks stay.
        pub(crate) fn close_input(&self) {
            // SAFETY: as above.
            unsafe { (*self.input.get()).close() }
        }

        /// Gives the input arena's chunks back to dlmalloc.
        ///
        /// # Safety
        /// Nothing may use a block the arena gave after this.
        pub(crate) unsafe fn release_input(&self) {
            // SAFETY: one thread; each chunk came from `arena_chunk` with
            // its size and alignment.
            unsafe {
                (*self.input.get()).release(|at, bytes| {
                    GlobalDlmalloc
                        .dealloc(at, Layout::from_size_align_unchecked(bytes, CHUNK_ALIGN))
                })
            }
        }
    }

    fn arena_chunk(bytes: usize) -> *mut u8 {
        match Layout::from_size_align(bytes, CHUNK_ALIGN) {
            // SAFETY: the size is at least the arena's header.
            Ok(layout) => unsafe { GlobalDlmalloc.alloc(layout) },
            Err(_) => std::ptr::null_mut(),
        }
    }

    fn chunk(bytes: usize) -> *mut u8 {
        // SAFETY: the size is not zero, and a power of two times `CHUNK`
        // far below `isize::MAX`.
        unsafe { GlobalDlmalloc.alloc(Layout::from_size_align_unchecked(bytes, GRAIN)) }
    }

    unsafe impl GlobalAlloc for Allocator {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: one thread; `arena_chunk` gives chunks the arena
            // gives back only when released.
            let input = unsafe { &mut *self.input.get() };
            if input.is_open() {
                return unsafe { input.alloc(layout, arena_chunk) };
            }
            // SAFETY: one thread; `chunk` gives never-freed chunks.
            match unsafe { (*self.small.get()).alloc(layout, chunk) } {
                Some(block) => block,
                None => unsafe { GlobalDlmalloc.alloc(layout) },
            }
        }

        #[inline]
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // While the arena is open, only its blocks are freed: decoding
            // frees nothing it did not allocate.
            let input = unsafe { &mut *self.input.get() };
            if input.is_open() {
                input.dealloc(ptr, layout);
                return;
            }
            // SAFETY: one thread; `ptr` came from `alloc` with `layout`.
            if !unsafe { (*self.small.get()).dealloc(ptr, layout) } {
                unsafe { GlobalDlmalloc.dealloc(ptr, layout) }
            }
        }

        #[inline]
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: `layout`'s alignment is valid and the caller keeps
            // `new_size` within `isize::MAX` when rounded up to it.
            let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
            // The arena's blocks have no room beyond their size: always a
            // new one, and a copy.
            if !unsafe { (*self.input.get()).is_open() } {
                match (SmallBlocks::class(layout), SmallBlocks::class(new_layout)) {
                    // Both sides dlmalloc's: it may grow the block in place.
                    (None, None) => {
                        return unsafe { GlobalDlmalloc.realloc(ptr, layout, new_size) }
                    }
                    // The same class: the block already has room.
                    (Some(old), Some(new)) if old == new => return ptr,
                    _ => {}
                }
            }
            let new = unsafe { self.alloc(new_layout) };
            if let Some(new) = NonNull::new(new) {
                // SAFETY: both blocks hold at least the smaller size.
                unsafe {
                    std::ptr::copy_nonoverlapping(ptr, new.as_ptr(), layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
            }
            new
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks that the test frees at its end, the sizes asked for, and the
    /// largest size given (null above it).
    struct Chunks {
        memory: Vec<Box<[u64]>>,
        asked: Vec<usize>,
        largest: usize,
    }

    impl Chunks {
        fn new() -> Self {
            Self::up_to(usize::MAX)
        }

        fn up_to(largest: usize) -> Self {
            Self {
                memory: Vec::new(),
                asked: Vec::new(),
                largest,
            }
        }

        fn take(&mut self, bytes: usize) -> *mut u8 {
            self.asked.push(bytes);
            if bytes > self.largest {
                return null_mut();
            }
            self.memory.push(vec![0u64; bytes / 8].into_boxed_slice());
            self.memory
                .last_mut()
                .map_or(null_mut(), |c| c.as_mut_ptr().cast())
        }
    }

    #[test]
    fn a_freed_block_serves_the_next_block_of_its_size_and_not_another_size() {
        let mut chunks = Chunks::new();
        let mut blocks = SmallBlocks::new();
        let layout = Layout::from_size_align(36, 1).unwrap();
        let other = Layout::from_size_align(100, 8).unwrap();
        unsafe {
            let a = blocks.alloc(layout, |bytes| chunks.take(bytes)).unwrap();
            let b = blocks.alloc(layout, |bytes| chunks.take(bytes)).unwrap();
            assert_eq!(b as usize - a as usize, 40, "36 bytes round up to 40");
            assert!(blocks.dealloc(a, layout));
            let c = blocks.alloc(other, |bytes| chunks.take(bytes)).unwrap();
            assert_ne!(c, a);
            assert_eq!(blocks.alloc(layout, |bytes| chunks.take(bytes)), Some(a));
        }
        assert_eq!(chunks.memory.len(), 1);
    }

    #[test]
    fn large_or_overaligned_layouts_are_left_to_the_runtime() {
        let mut blocks = SmallBlocks::new();
        unsafe {
            let big = Layout::from_size_align(LARGEST + 1, 8).unwrap();
            let aligned = Layout::from_size_align(16, 16).unwrap();
            assert_eq!(blocks.alloc(big, |_| null_mut()), None);
            assert_eq!(blocks.alloc(aligned, |_| null_mut()), None);
            assert!(!blocks.dealloc(8 as *mut u8, big));
        }
    }

    #[test]
    fn a_new_chunk_is_taken_when_the_current_one_is_used_up_and_blocks_never_overlap() {
        let mut chunks = Chunks::new();
        let mut blocks = SmallBlocks::new();
        let layout = Layout::from_size_align(LARGEST, 8).unwrap();
        let mut seen = Vec::new();
        for _ in 0..(CHUNK / LARGEST + 1) {
            let block = unsafe { blocks.alloc(layout, |bytes| chunks.take(bytes)) }.unwrap();
            seen.push(block as usize);
        }
        assert_eq!(chunks.memory.len(), 2);
        seen.sort_unstable();
        assert!(seen.windows(2).all(|w| w[1] - w[0] >= LARGEST));
    }

    #[test]
    fn each_chunk_is_twice_the_last_up_to_the_cap() {
        let mut chunks = Chunks::new();
        let mut blocks = SmallBlocks::new();
        let layout = Layout::from_size_align(LARGEST, 8).unwrap();
        while chunks.asked.len() < MAX_DOUBLINGS as usize + 2 {
            let block = unsafe { blocks.alloc(layout, |bytes| chunks.take(bytes)) };
            assert!(block.is_some_and(|b| !b.is_null()));
        }
        let expected: Vec<usize> = (0..=MAX_DOUBLINGS)
            .chain([MAX_DOUBLINGS])
            .map(|doublings| CHUNK << doublings)
            .collect();
        assert_eq!(chunks.asked, expected);
        assert_eq!(chunks.asked.last(), Some(&(64 << 20)));
    }

    #[test]
    fn short_of_memory_for_a_large_chunk_a_smaller_one_is_taken_down_to_the_first_size() {
        let mut blocks = SmallBlocks::new();
        let layout = Layout::from_size_align(LARGEST, 8).unwrap();
        // Room for chunks of up to 32 KiB only.
        let mut room = Chunks::up_to(2 * CHUNK);
        for _ in 0..(3 * CHUNK / LARGEST + 1) {
            let block = unsafe { blocks.alloc(layout, |bytes| room.take(bytes)) };
            assert!(block.is_some_and(|b| !b.is_null()));
        }
        assert_eq!(room.asked, [CHUNK, 2 * CHUNK, 4 * CHUNK, 2 * CHUNK]);
        // Once not even the first size is given, the block is null.
        let mut none = Chunks::up_to(0);
        let last = loop {
            match unsafe { blocks.alloc(layout, |bytes| none.take(bytes)) } {
                Some(b) if !b.is_null() => continue,
                other => break other,
            }
        };
        assert_eq!(last, Some(null_mut()));
        let refused = none.asked;
        assert_eq!(refused, [8 * CHUNK, 4 * CHUNK, 2 * CHUNK, CHUNK]);
    }

    #[test]
    fn no_memory_is_reported_as_a_null_block() {
        let mut blocks = SmallBlocks::new();
        let layout = Layout::from_size_align(8, 8).unwrap();
        assert_eq!(
            unsafe { blocks.alloc(layout, |_| null_mut()) },
            Some(null_mut())
        );
    }

    proptest::proptest! {
        #[test]
        fn blocks_handed_out_never_overlap_a_block_still_in_use(
            steps in proptest::collection::vec((1usize..=LARGEST, proptest::bool::ANY, 0usize..64), 1..600),
        ) {
            let mut chunks = Chunks::new();
            let mut blocks = SmallBlocks::new();
            // Blocks in use by address, with the layout they were given for.
            let mut in_use = std::collections::BTreeMap::<usize, Layout>::new();
            for (size, free, pick) in steps {
                if free && !in_use.is_empty() {
                    let (&at, &layout) = in_use.iter().nth(pick % in_use.len()).unwrap();
                    in_use.remove(&at);
                    let served = unsafe { blocks.dealloc(at as *mut u8, layout) };
                    proptest::prop_assert!(served);
                    continue;
                }
                let layout = Layout::from_size_align(size, GRAIN).unwrap();
                let at = unsafe { blocks.alloc(layout, |bytes| chunks.take(bytes)) }.unwrap() as usize;
                proptest::prop_assert_eq!(at % GRAIN, 0);
                let before = in_use.range(..at).next_back().map(|(&a, l)| a + l.size());
                let after = in_use.range(at..).next().map(|(&a, _)| a);
                proptest::prop_assert!(before.is_none_or(|end| end <= at));
                proptest::prop_assert!(after.is_none_or(|next| at + size <= next));
                in_use.insert(at, layout);
            }
        }
    }
}
