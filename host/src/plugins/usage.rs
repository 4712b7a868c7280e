//! What plugins used: calls, fuel, peak memory and time, per hook.

use super::sandbox::{bytes, group_digits};
use crate::plugin_wit::types::Hook;
use std::time::Duration;

/// What one plugin used, per hook: promotion, pre-slot, post-slot, review.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Calls.
    pub calls: [u64; 4],
    /// Items asked about in those calls: slots, or deployment groups at promotion.
    pub items: [u64; 4],
    /// Fuel.
    pub fuel: [u64; 4],
    /// Wall-clock time in the calls. Never part of a plan, which must not
    /// depend on the clock.
    pub time: [Duration; 4],
    /// The most linear memory an instance had, in bytes.
    pub peak_memory: usize,
}

/// The position of `hook` in a usage's arrays.
pub fn slot_of(hook: Hook) -> usize {
    match hook {
        Hook::Promotion => 0,
        Hook::PreSlot => 1,
        Hook::PostSlot => 2,
        Hook::Review => 3,
    }
}

/// The hooks in the order of a usage's arrays.
pub const HOOKS: [Hook; 4] = [Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review];

impl Usage {
    /// Records one call at `hook` about `items` slots or deployment groups.
    pub fn record(
        &mut self,
        hook: Hook,
        items: usize,
        fuel: u64,
        time: Duration,
        peak_memory: usize,
    ) {
        let i = slot_of(hook);
        self.calls[i] += 1;
        self.items[i] += items as u64;
        self.fuel[i] += fuel;
        self.time[i] += time;
        self.peak_memory = self.peak_memory.max(peak_memory);
    }

    /// The time spent in calls, at every hook.
    pub fn total_time(&self) -> Duration {
        self.time.iter().sum()
    }

    /// Adds `other` to this usage.
    pub fn add(&mut self, other: &Usage) {
        for i in 0..4 {
            self.calls[i] += other.calls[i];
            self.items[i] += other.items[i];
            self.fuel[i] += other.fuel[i];
            self.time[i] += other.time[i];
        }
        self.peak_memory = self.peak_memory.max(other.peak_memory);
    }

    /// The calls, fuel and peak memory, in a sentence that depends only on
    /// what the plugin did, never on the clock.
    pub fn summary(&self) -> String {
        let calls: Vec<String> = HOOKS
            .iter()
            .zip(self.calls)
            .filter(|(_, n)| *n > 0)
            .map(|(h, n)| format!("{} {n}", super::loading::hook_name(*h)))
            .collect();
        if calls.is_empty() {
            return "not called".into();
        }
        let fuel: u64 = self.fuel.iter().sum();
        format!(
            "calls: {}; fuel {}; peak memory {}",
            calls.join(", "),
            group_digits(fuel),
            bytes(self.peak_memory as u64)
        )
    }
}
