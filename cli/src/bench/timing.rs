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

    /// The median over `other`'s median.
    pub fn ratio(&self, other: &Timing) -> f64 {
        self.median.as_secs_f64() / other.median.as_secs_f64()
    }

    /// The median in nanoseconds per one of `n` items.
    pub fn per(&self, n: usize) -> f64 {
        self.median.as_secs_f64() * 1e9 / n.max(1) as f64
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

/// Runs each of `fs` once to warm up, then `rounds` rounds of each in turn,
/// so that the noise of a busy machine falls on all of them alike.
pub fn interleaved<const N: usize>(rounds: usize, mut fs: [&mut dyn FnMut(); N]) -> [Timing; N] {
    for f in fs.iter_mut() {
        f();
    }
    let mut times: [Vec<Duration>; N] = std::array::from_fn(|_| Vec::with_capacity(rounds));
    for _ in 0..rounds.max(1) {
        for (f, times) in fs.iter_mut().zip(times.iter_mut()) {
            times.push(once(f));
        }
    }
    times.map(Timing::of)
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
