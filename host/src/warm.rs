//! Warm instances: reconciler instances kept after a reconcile that went well, for the next one to run in.
//!
//! A fresh instance per reconcile pays for more than its instantiation:
//! the pool resets every page the last reconcile dirtied, takes back the
//! access it granted as the memory grew, and grants it again as the next
//! one grows. At 10,000 allocations that was about a sixth of an encoded
//! reconcile (157 against 132 ns per allocation, side by side). The
//! reconciler is a pure function of its input, and every block it
//! allocates is freed before its call returns, so a later reconcile in the
//! same instance plans exactly as a fresh one; where it does not succeed,
//! the reconciler runs it again in a fresh instance, so that no outcome can
//! depend on the reconciles before.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use wasmtime::component::{Func, Instance};
use wasmtime::{ResourceLimiter, Store, StoreLimits};

/// A store's limits, and how far its instance's memory has grown.
pub(crate) struct Budget {
    limits: StoreLimits,
    memory: usize,
}

impl Budget {
    pub(crate) fn new(limits: StoreLimits) -> Self {
        Self { limits, memory: 0 }
    }

    /// The largest size, in bytes, the instance's memory has been allowed.
    pub(crate) fn memory(&self) -> usize {
        self.memory
    }
}

impl ResourceLimiter for Budget {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = self.limits.memory_growing(current, desired, maximum)?;
        if allowed {
            self.memory = self.memory.max(desired);
        }
        Ok(allowed)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
    }
}

/// An instance between reconciles, with its store and the exports a
/// reconcile calls.
pub(crate) struct Warm {
    pub(crate) store: Store<Budget>,
    pub(crate) instance: Instance,
    pub(crate) reconcile: Func,
    pub(crate) reconcile_encoded: Func,
}

/// The idle warm instances of one reconciler.
pub(crate) struct WarmInstances {
    idle: Mutex<Vec<Warm>>,
    /// How many may wait idle at once.
    keep: usize,
    /// How much memory, in bytes, the idle instances may hold in all. Not a
    /// size per instance: an instance whose memory grew past what the pool
    /// keeps resident (64 MiB) used to be dropped, so that every reconcile
    /// of 200,000 allocations or more ran fresh and faulted its pages in
    /// again (docs/performance.md, the twelfth round).
    memory: usize,
    /// How many reconciles failed in a warm instance and ran again fresh.
    retries: AtomicU64,
}

impl WarmInstances {
    pub(crate) fn new(keep: usize, memory: usize) -> Self {
        Self {
            idle: Mutex::new(Vec::new()),
            keep,
            memory,
            retries: AtomicU64::new(0),
        }
    }

    /// Counts a reconcile that failed in a warm instance, to be run again
    /// in a fresh one.
    pub(crate) fn note_retry(&self) {
        self.retries.fetch_add(1, Ordering::Relaxed);
    }

    /// How many reconciles failed in a warm instance and ran again fresh.
    pub(crate) fn retries(&self) -> u64 {
        self.retries.load(Ordering::Relaxed)
    }

    /// An idle instance, if one waits.
    pub(crate) fn take(&self) -> Option<Warm> {
        self.lock().pop()
    }

    /// Keeps `warm`, after a reconcile that succeeded in it, unless enough
    /// instances wait already or its memory does not fit in what the idle
    /// ones leave of the budget.
    pub(crate) fn give_back(&self, warm: Warm) {
        let mut idle = self.lock();
        let held = idle.iter().map(|w| w.store.data().memory());
        if self.keeps(held, warm.store.data().memory()) {
            idle.push(warm);
        }
    }

    /// Whether an instance whose memory is `memory` bytes may wait beside
    /// idle ones whose memories are `held`.
    fn keeps(&self, held: impl ExactSizeIterator<Item = usize>, memory: usize) -> bool {
        held.len() < self.keep && held.fold(memory, usize::saturating_add) <= self.memory
    }

    /// How many instances wait idle.
    pub(crate) fn idle(&self) -> usize {
        self.lock().len()
    }

    /// Keeps at most `keep` idle from now on; those waiting are dropped.
    pub(crate) fn set_keep(&mut self, keep: usize) {
        self.keep = keep;
        self.clear();
    }

    /// Lets the idle instances hold at most `memory` bytes in all from now
    /// on; those waiting are dropped.
    pub(crate) fn set_memory(&mut self, memory: usize) {
        self.memory = memory;
        self.clear();
    }

    /// Drops every idle instance: they were made under settings that no
    /// longer hold.
    pub(crate) fn clear(&mut self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Warm>> {
        // Only pushes and pops happen under the lock; a panic elsewhere
        // cannot leave the list half changed.
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::WarmInstances;

    #[test]
    fn idle_instances_share_one_memory_budget_and_one_count() {
        let warm = WarmInstances::new(3, 100);
        let keeps = |held: &[usize], memory| warm.keeps(held.iter().copied(), memory);
        assert!(keeps(&[], 100));
        assert!(!keeps(&[], 101));
        // The budget is for the idle instances in all, not for each.
        assert!(keeps(&[30, 30], 40));
        assert!(!keeps(&[30, 30], 41));
        assert!(!keeps(&[60], 60));
        // However little they hold, no more than `keep` wait.
        assert!(!keeps(&[0, 0, 0], 0));
        // Sizes near the address space's do not wrap around.
        assert!(!keeps(&[usize::MAX, 1], 1));
    }
}
