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

/// Runs `f` once to warm up, then `rounds` times.
pub fn time(rounds: usize, mut f: impl FnMut()) -> Timing {
    f();
    let mut times: Vec<Duration> = (0..rounds.max(1))
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect();
    times.sort_unstable();
    Timing {
        median: times[times.len() / 2],
        best: times[0],
    }
}

pub fn human(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1_000.0)
    }
}
