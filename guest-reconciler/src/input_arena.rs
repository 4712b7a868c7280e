//! The component allocator's input arena: a decoded input's blocks carved in order from chunks that are given back whole once its reconcile is done.
//!
//! An encoded reconcile decodes its input into owned records (the
//! contract's types), plans from them, and drops them. Dropping walked every
//! record again and freed each block: with the arena, an encoded reconcile
//! in a warm instance took about 5% less at 10,000 allocations and 12% less
//! at 100,000, measured side by side in a harness (docs/performance.md, "the
//! input arena"). While the arena
//! is open, every block the allocator gives comes from it; a block freed
//! then is taken back only if it was the last one given. Once the input is
//! no longer needed, its chunks are given back whole and the input is never
//! dropped: see `wire/held.rs`, whose caller vouches that decoding keeps
//! nothing else it allocated.

use crate::chunk_rest::ChunkRest;
use std::alloc::Layout;
use std::ptr::null_mut;

/// Room at the start of each chunk for the address and size of the chunk
/// taken before it.
const HEADER: usize = 16;

/// The first chunk's size; each further one is twice the last. A first
/// chunk sized to the input (half its buffer, about what its strings take)
/// was no faster, and left a warm instance needing a fifth more memory for
/// its next reconcile of 100,000 allocations (47.9 MiB against 40.1): the
/// next input's buffer took the front of the space the chunk had left, and
/// the large list no longer fitted behind it.
const SMALLEST: usize = 64 << 10;

/// Chunks grow to at most this before a block needs more.
const LARGEST_CHUNK: usize = 64 << 20;

/// Chunks are aligned to this, and so is the header's end.
pub(crate) const CHUNK_ALIGN: usize = 16;

/// The arena's state: where the next block goes, and the chunks taken.
pub(crate) struct InputArena {
    open: bool,
    rest: ChunkRest,
    /// The chunk taken last, or null; each chunk's header names the one
    /// before.
    last: *mut u8,
    /// The size of the next chunk, unless a block needs more.
    chunk_size: usize,
}

impl InputArena {
    pub(crate) const fn new() -> Self {
        Self {
            open: false,
            rest: ChunkRest::empty(),
            last: null_mut(),
            chunk_size: SMALLEST,
        }
    }

    pub(crate) fn is_open(&self) -> bool {
        self.open
    }

    /// Opens the arena; false when it holds blocks not yet released,
    /// which stay as they are.
    pub(crate) fn open(&mut self) -> bool {
        if !self.last.is_null() || self.open {
            return false;
        }
        self.open = true;
        true
    }

    /// Closes the arena: blocks come from elsewhere again; the ones it gave
    /// stay until [`Self::release`].
    pub(crate) fn close(&mut self) {
        self.open = false;
    }

    /// A block of `layout` carved from the arena; null when `chunk` gives
    /// no memory.
    ///
    /// # Safety
    /// `chunk` must return null or a block of the size it is asked for,
    /// aligned to [`CHUNK_ALIGN`], that stays the arena's until `release`
    /// gives it back.
    ///
    /// Out of line: the global allocator is inlined wherever a block is
    /// allocated, and the arena serves only decoding; inlined, it made the
    /// component 5% larger.
    #[inline(never)]
    pub(crate) unsafe fn alloc(
        &mut self,
        layout: Layout,
        chunk: impl FnMut(usize) -> *mut u8,
    ) -> *mut u8 {
        match self.rest.carve(layout.size(), layout.align()) {
            Some(block) => block,
            // SAFETY: the caller's contract for `chunk`.
            None => unsafe { self.refill(layout, chunk) },
        }
    }

    /// Takes a new chunk and gives a block of `layout` from it. The chunk
    /// is the next size, which doubles each time, and the arena carves
    /// on from it; a block that needs more than that, or that is
    /// refused a chunk of that size, gets a chunk of its own size,
    /// and the arena goes on carving the chunk it had. Null when `chunk`
    /// gives no memory.
    ///
    /// # Safety
    /// As for [`Self::alloc`].
    #[cold]
    #[inline(never)]
    unsafe fn refill(
        &mut self,
        layout: Layout,
        mut chunk: impl FnMut(usize) -> *mut u8,
    ) -> *mut u8 {
        let Some(needed) = layout
            .size()
            .checked_add(layout.align().max(CHUNK_ALIGN) + HEADER)
        else {
            return null_mut();
        };
        let mut bytes = self.chunk_size.max(needed);
        let mut fresh = chunk(bytes);
        if fresh.is_null() && bytes > needed {
            bytes = needed;
            fresh = chunk(bytes);
        }
        if fresh.is_null() {
            return null_mut();
        }
        // SAFETY: the chunk holds at least `HEADER` bytes, aligned.
        unsafe {
            fresh.cast::<usize>().write(self.last as usize);
            fresh.cast::<usize>().add(1).write(bytes);
        }
        self.last = fresh;
        // SAFETY: `bytes` > `HEADER`.
        let start = unsafe { fresh.add(HEADER) };
        if bytes == needed {
            // The block's own chunk: at the first multiple of its alignment
            // after the header, which `needed` has room for.
            let offset = (start as usize).next_multiple_of(layout.align()) - start as usize;
            return unsafe { start.add(offset) };
        }
        self.chunk_size = self.chunk_size.saturating_mul(2).min(LARGEST_CHUNK);
        // SAFETY: the chunk holds `bytes` bytes, the arena's until released.
        unsafe { self.rest.start(start, bytes - HEADER) };
        self.rest
            .carve(layout.size(), layout.align())
            .unwrap_or(null_mut())
    }

    /// Takes back `block` of `layout` if it was the last one given;
    /// otherwise its room stays used until the arena is released. Out of
    /// line, as `alloc` is.
    #[inline(never)]
    pub(crate) fn dealloc(&mut self, block: *mut u8, layout: Layout) {
        self.rest.take_back(block, layout.size());
    }

    /// Gives every chunk back through `free` (its address and size), and
    /// leaves the arena empty and closed.
    ///
    /// # Safety
    /// Nothing may use a block the arena gave after this.
    pub(crate) unsafe fn release(&mut self, mut free: impl FnMut(*mut u8, usize)) {
        let mut chunk = self.last;
        while !chunk.is_null() {
            // SAFETY: each chunk starts with the header `refill` wrote.
            let (before, bytes) = unsafe {
                (
                    chunk.cast::<usize>().read() as *mut u8,
                    chunk.cast::<usize>().add(1).read(),
                )
            };
            free(chunk, bytes);
            chunk = before;
        }
        *self = Self::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks handed out and given back, by address. Each is kept as the
    /// raw pointer the arena was given: moving its `Box` into the list
    /// would assert unique access to memory the arena goes on writing
    /// through that pointer (Miri's Stacked Borrows refuses it).
    #[derive(Default)]
    struct Chunks {
        live: Vec<*mut [u128]>,
        asked: Vec<usize>,
        freed: Vec<usize>,
        largest: Option<usize>,
    }

    impl Chunks {
        /// Chunks of at most `largest` bytes: null for a larger one.
        fn up_to(largest: Option<usize>) -> Self {
            Self {
                live: Vec::new(),
                asked: Vec::new(),
                freed: Vec::new(),
                largest,
            }
        }

        fn take(&mut self, bytes: usize) -> *mut u8 {
            self.asked.push(bytes);
            if self.largest.is_some_and(|l| bytes > l) {
                return null_mut();
            }
            let memory = Box::into_raw(vec![0u128; bytes.div_ceil(16)].into_boxed_slice());
            self.live.push(memory);
            memory.cast::<u8>()
        }

        fn give_back(&mut self, at: *mut u8, bytes: usize) {
            let position = self.live.iter().position(|&m| m.cast::<u8>() == at);
            let memory = self.live.remove(position.expect("a chunk the arena took"));
            // SAFETY: `take` made `memory` with `Box::into_raw`, and the
            // list held it only once.
            let memory = unsafe { Box::from_raw(memory) };
            assert!(memory.len() * 16 >= bytes);
            self.freed.push(bytes);
        }

        /// A block of `size` and `align` from `arena`, its chunks taken here.
        fn carve(&mut self, arena: &mut InputArena, size: usize, align: usize) -> *mut u8 {
            // SAFETY: `take` gives zeroed chunks of the size asked, aligned
            // to 16, kept until `give_back`.
            unsafe { arena.alloc(layout(size, align), |b| self.take(b)) }
        }

        fn give_all_back(&mut self, arena: &mut InputArena) {
            // SAFETY: the test uses no block after this.
            unsafe { arena.release(|at, bytes| self.give_back(at, bytes)) };
            assert!(self.live.is_empty(), "every chunk is given back");
        }

        fn refused(&self) -> usize {
            let largest = self.largest.unwrap_or(usize::MAX);
            self.asked.iter().filter(|&&b| b > largest).count()
        }
    }

    impl Drop for Chunks {
        fn drop(&mut self) {
            for memory in self.live.drain(..) {
                // SAFETY: as in `give_back`; a test that failed left it.
                drop(unsafe { Box::from_raw(memory) });
            }
        }
    }

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    fn opened() -> InputArena {
        let mut arena = InputArena::new();
        assert!(arena.open());
        arena
    }

    #[test]
    fn blocks_are_carved_in_order_aligned_and_never_overlap() {
        let mut chunks = Chunks::default();
        let mut arena = opened();
        let mut seen = Vec::new();
        for (size, align) in [(3, 1), (40, 8), (1, 1), (24, 8), (7, 4), (100, 16)] {
            let block = chunks.carve(&mut arena, size, align);
            assert_eq!(block as usize % align, 0, "aligned to {align}");
            seen.push((block as usize, size));
        }
        assert_eq!(chunks.asked, [SMALLEST], "one chunk serves them all");
        seen.sort_unstable();
        assert!(seen.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0));
        chunks.give_all_back(&mut arena);
    }

    #[test]
    fn only_the_last_block_given_is_taken_back_when_freed() {
        let mut chunks = Chunks::default();
        let mut arena = opened();
        let a = chunks.carve(&mut arena, 16, 8);
        let b = chunks.carve(&mut arena, 16, 8);
        arena.dealloc(a, layout(16, 8));
        let c = chunks.carve(&mut arena, 16, 8);
        assert_eq!(
            c as usize,
            b as usize + 16,
            "a freed block before the last stays used"
        );
        arena.dealloc(c, layout(16, 8));
        let d = chunks.carve(&mut arena, 16, 8);
        assert_eq!(d, c, "the last block freed is given again");
        chunks.give_all_back(&mut arena);
    }

    #[test]
    fn a_block_larger_than_the_next_chunk_gets_a_chunk_of_its_own_and_further_chunks_double() {
        let mut chunks = Chunks::default();
        let mut arena = opened();
        chunks.carve(&mut arena, 8, 8);
        chunks.carve(&mut arena, SMALLEST * 3, 8);
        chunks.carve(&mut arena, SMALLEST, 8);
        // The small block's chunk is carved on after the large one.
        assert_eq!(
            chunks.asked,
            [SMALLEST, SMALLEST * 3 + CHUNK_ALIGN + HEADER, 2 * SMALLEST]
        );
        chunks.give_all_back(&mut arena);
        assert_eq!(chunks.freed.len(), 3);
    }

    #[test]
    fn refused_a_chunk_of_the_next_size_it_asks_for_the_block_alone_then_gives_null() {
        let mut chunks = Chunks::up_to(Some(SMALLEST / 2));
        let mut arena = opened();
        let block = chunks.carve(&mut arena, 100, 8);
        assert!(!block.is_null());
        assert_eq!(chunks.asked, [SMALLEST, 100 + CHUNK_ALIGN + HEADER]);
        let none = chunks.carve(&mut arena, SMALLEST * 2, 8);
        assert!(none.is_null());
        chunks.give_all_back(&mut arena);
    }

    #[test]
    fn an_arena_holding_blocks_does_not_open_again_until_released() {
        let mut chunks = Chunks::default();
        let mut arena = opened();
        chunks.carve(&mut arena, 8, 8);
        arena.close();
        assert!(!arena.is_open());
        assert!(!arena.open(), "its blocks are still in use");
        chunks.give_all_back(&mut arena);
        assert!(arena.open());
    }

    #[test]
    fn absurd_sizes_give_null_not_an_overflow() {
        let mut chunks = Chunks::up_to(Some(1 << 30));
        let mut arena = opened();
        let none = chunks.carve(&mut arena, isize::MAX as usize - 64, 8);
        assert!(none.is_null());
        assert!(chunks.asked.iter().all(|&b| b < usize::MAX));
    }

    /// One step of a decoding as the arena sees it.
    #[derive(Debug, Clone)]
    enum Step {
        Alloc { size: usize, align: usize },
        FreeLast,
        FreeAny(usize),
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        prop_oneof![
            6 => (0usize..300, 0u32..5).prop_map(|(size, a)| Step::Alloc { size, align: 1 << a }),
            1 => (SMALLEST / 2..SMALLEST * 3).prop_map(|size| Step::Alloc { size, align: 8 }),
            2 => Just(Step::FreeLast),
            2 => any::<usize>().prop_map(Step::FreeAny),
        ]
    }

    proptest::proptest! {
        #[test]
        fn live_blocks_are_aligned_within_a_chunk_and_never_overlap_and_release_gives_every_chunk_back(
            steps in proptest::collection::vec(step(), 1..400),
            refuse_above in proptest::option::of(SMALLEST / 2..SMALLEST * 4),
        ) {
            let mut chunks = Chunks::up_to(refuse_above);
            let mut arena = opened();
            let mut live: Vec<(usize, Layout)> = Vec::new();
            for step in steps {
                let freed = match step {
                    Step::Alloc { size, align } => {
                        let wanted = layout(size, align);
                        let block = chunks.carve(&mut arena, size, align) as usize;
                        if block == 0 {
                            continue;
                        }
                        proptest::prop_assert_eq!(block % align, 0);
                        let inside = chunks.live.iter().any(|&memory| {
                            let at = memory.cast::<u8>() as usize;
                            block >= at + HEADER && block + size <= at + memory.len() * 16
                        });
                        proptest::prop_assert!(inside, "the block lies in a chunk, past its header");
                        for &(other, other_layout) in &live {
                            let apart = block + size <= other || other + other_layout.size() <= block;
                            proptest::prop_assert!(apart || size == 0 || other_layout.size() == 0);
                        }
                        live.push((block, wanted));
                        None
                    }
                    Step::FreeLast => live.pop(),
                    Step::FreeAny(i) if !live.is_empty() => Some(live.remove(i % live.len())),
                    Step::FreeAny(_) => None,
                };
                if let Some((block, freed_layout)) = freed {
                    arena.dealloc(block as *mut u8, freed_layout);
                }
            }
            arena.close();
            chunks.give_all_back(&mut arena);
            proptest::prop_assert_eq!(chunks.freed.len(), chunks.asked.len() - chunks.refused());
        }
    }
}
