//! A decoded input held in the component allocator's input arena, given back whole instead of dropped.

use std::mem::ManuallyDrop;
use std::ops::Deref;

/// A value decoded with its blocks in the input arena, where the build has
/// one (the component): dropping it gives the arena's chunks back without
/// walking the value. Elsewhere, or when the arena is in use, it is an
/// ordinary value, dropped as usual. It is only read, never changed, so
/// that no block of it is freed or grown once the arena is closed.
pub(crate) struct Held<T> {
    value: ManuallyDrop<T>,
    in_arena: bool,
}

impl<T> Held<T> {
    /// Runs `decode`, every block it allocates carved from the input arena
    /// when the arena can be opened.
    ///
    /// # Safety
    /// Nothing `decode` allocates may outlive it other than in the value it
    /// returns (no cache, no static), and the value must need nothing of
    /// its drop but the freeing of its blocks.
    pub(super) unsafe fn decode(decode: impl FnOnce() -> T) -> Self {
        let in_arena = arena::open();
        let value = decode();
        if in_arena {
            arena::close();
        }
        Self {
            value: ManuallyDrop::new(value),
            in_arena,
        }
    }
}

impl<T, E> Held<Result<T, E>> {
    /// The value decoded, still held; or, for an error, what `own` makes of
    /// it, made before the error's blocks go back with the arena's.
    pub(super) fn or_else_own<F>(self, own: impl FnOnce(&E) -> F) -> Result<Held<T>, F> {
        let mut this = ManuallyDrop::new(self);
        let in_arena = this.in_arena;
        // SAFETY: `this` is never dropped, so its value is taken once, and
        // whichever part is taken is held again below, to go as it came.
        let value = unsafe { ManuallyDrop::take(&mut this.value) };
        match value {
            Ok(value) => Ok(Held {
                value: ManuallyDrop::new(value),
                in_arena,
            }),
            Err(error) => {
                let owned = own(&error);
                drop(Held {
                    value: ManuallyDrop::new(error),
                    in_arena,
                });
                Err(owned)
            }
        }
    }
}

impl<T> Deref for Held<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> Drop for Held<T> {
    fn drop(&mut self) {
        if self.in_arena {
            // SAFETY: every block of the value is the arena's, and the value
            // is never used again: it is dropped.
            unsafe { arena::release() }
        } else {
            // SAFETY: the value is dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.value) }
        }
    }
}

#[cfg(all(target_arch = "wasm32", not(test)))]
mod arena {
    pub(super) fn open() -> bool {
        crate::ALLOCATOR.open_input()
    }

    pub(super) fn close() {
        crate::ALLOCATOR.close_input();
    }

    /// # Safety
    /// As for the allocator's `release_input`.
    pub(super) unsafe fn release() {
        unsafe { crate::ALLOCATOR.release_input() }
    }
}

/// Natively the global allocator is the platform's: no arena.
#[cfg(not(all(target_arch = "wasm32", not(test))))]
mod arena {
    pub(super) fn open() -> bool {
        false
    }

    pub(super) fn close() {}

    /// # Safety
    /// Never called: the arena never opens.
    pub(super) unsafe fn release() {}
}

#[cfg(test)]
mod tests {
    use super::Held;
    use std::cell::Cell;
    use std::rc::Rc;

    /// Counts its drops.
    struct Counted(Rc<Cell<u32>>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn a_held_error_is_made_into_an_owned_one_and_dropped_exactly_once() {
        let drops = Rc::new(Cell::new(0));
        // SAFETY: the closure allocates nothing beyond the value it returns.
        let held = unsafe { Held::decode(|| Err::<u8, _>(Counted(drops.clone()))) };
        let owned = held.or_else_own(|_| "refused");
        assert!(matches!(owned, Err("refused")));
        assert_eq!(drops.get(), 1);
    }

    #[test]
    fn a_held_value_stays_held_until_dropped_and_is_dropped_exactly_once() {
        let drops = Rc::new(Cell::new(0));
        // SAFETY: as above.
        let held = unsafe { Held::decode(|| Ok::<_, ()>(Counted(drops.clone()))) };
        let value = held
            .or_else_own(|()| ())
            .unwrap_or_else(|()| panic!("a value"));
        assert_eq!(drops.get(), 0);
        drop(value);
        assert_eq!(drops.get(), 1);
    }
}
