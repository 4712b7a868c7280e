//! Timing a closure over rounds: the median and the best, printed in µs or ms.

use std::time::{Duration, Instant};

/// The median and best of a series of timings.
pub struct Timing {
    pub median: Duration,
    pub best: Duration,
}

impl Timing {
    pub fn show(&self) -> String {
        format!("{} ({})", human(self.median), human(self.best))
    }
}

impl Timing {
    /// The median and best of `times`; zero when there are none.
    pub fn of(mut times: Vec<Duration>) -> Self {
        times.sort_unstable();
        Self {
            median: times.get(times.len() / 2).copied().unwrap_or_default(),
            best: times.first().copied().unwrap_or_default(),
        }
    }
}

/// Runs `f` once to warm up, then `rounds` times.
pub fn time(rounds: usize, mut f: impl FnMut()) -> Timing {
    f();
    Timing::of((0..rounds.max(1)).map(|_| once(&mut f)).collect())
}

/// How long one run of `f` takes.
pub fn once(mut f: impl FnMut()) -> Duration {
    let started = Instant::now();
    f();
    started.elapsed()
}

pub fn human(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1_000.0)
    }
}
