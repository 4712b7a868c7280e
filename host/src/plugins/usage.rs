//! What plugins used, per hook: calls, items asked about, fuel and time; and peak memory. Hooks are told apart by value, never by name, so a new hook needs nothing here.

use crate::plugin_wit::types::Hook;
use std::time::Duration;

/// What one plugin used at one hook.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Calls.
    pub calls: u64,
    /// Items asked about in those calls: slots, or deployment groups.
    pub items: u64,
    /// Fuel.
    pub fuel: u64,
    /// Wall-clock time in the calls. Never part of a plan, which must not
    /// depend on the clock.
    pub time: Duration,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.calls += other.calls;
        self.items += other.items;
        self.fuel += other.fuel;
        self.time += other.time;
    }
}

/// What one plugin used, per hook, in the order the hooks were first called.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    hooks: Vec<(Hook, Counts)>,
    /// The most linear memory an instance had, in bytes.
    pub peak_memory: usize,
}

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
        self.counts_mut(hook).add(&Counts {
            calls: 1,
            items: items as u64,
            fuel,
            time,
        });
        self.peak_memory = self.peak_memory.max(peak_memory);
    }

    /// What was used at `hook`.
    pub fn at(&self, hook: Hook) -> Counts {
        self.hooks
            .iter()
            .find(|(h, _)| *h == hook)
            .map(|(_, c)| *c)
            .unwrap_or_default()
    }

    /// What was used per hook called, in the order first called.
    pub fn hooks(&self) -> &[(Hook, Counts)] {
        &self.hooks
    }

    /// What was used at every hook together.
    pub fn total(&self) -> Counts {
        let mut total = Counts::default();
        for (_, c) in &self.hooks {
            total.add(c);
        }
        total
    }

    /// The time spent in calls, at every hook.
    pub fn total_time(&self) -> Duration {
        self.total().time
    }

    /// Adds `other` to this usage.
    pub fn add(&mut self, other: &Usage) {
        for (hook, c) in &other.hooks {
            self.counts_mut(*hook).add(c);
        }
        self.peak_memory = self.peak_memory.max(other.peak_memory);
    }

    fn counts_mut(&mut self, hook: Hook) -> &mut Counts {
        let at = match self.hooks.iter().position(|(h, _)| *h == hook) {
            Some(at) => at,
            None => {
                self.hooks.push((hook, Counts::default()));
                self.hooks.len() - 1
            }
        };
        &mut self.hooks[at].1
    }
}
