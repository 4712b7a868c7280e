//! How numbers read in slotwise's messages: durations, times relative to now, counts.

use crate::sentence::{say, Piece};
use crate::{Duration, Timestamp};

const UNITS: [(i64, &str); 4] = [
    (3_600_000_000_000, "h"),
    (60_000_000_000, "m"),
    (1_000_000_000, "s"),
    (1_000_000, "ms"),
];

/// A duration in its largest units, like `1h30m` or `250ms`.
pub fn duration(d: Duration) -> String {
    if d == 0 {
        return "0s".to_string();
    }
    let mut out = String::new();
    if d < 0 {
        out.push('-');
    }
    let mut rest = d.unsigned_abs();
    for (size, unit) in UNITS {
        let size = size as u64;
        if rest >= size {
            // Appended in place: a sentence of its own would be one more
            // allocation, copied and dropped.
            (rest / size).text().put(&mut out);
            out.push_str(unit);
            rest %= size;
        }
    }
    if rest > 0 {
        rest.text().put(&mut out);
        out.push_str("ns");
    }
    out
}

/// `n` things, like `1 group` or `3 groups`.
pub fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        say!("1 ", thing)
    } else {
        say!(n, " ", thing, "s")
    }
}

/// A time as seen from `now`, like `in 15s` or `10m ago`.
pub fn relative(at: Timestamp, now: Timestamp) -> String {
    let delta = at.saturating_sub(now);
    match delta {
        0 => "now".to_string(),
        d if d > 0 => say!("in ", duration(d)),
        d => say!(duration(d.saturating_neg()), " ago"),
    }
}

/// A byte count in the largest binary unit that keeps it readable.
pub fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / (1u64 << 10) as f64),
        n => say!(n, " B"),
    }
}

/// `1234567` as `1,234,567`.
pub fn digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_their_largest_units() {
        assert_eq!(duration(0), "0s");
        assert_eq!(duration(90 * 60_000_000_000), "1h30m");
        assert_eq!(duration(15_000_000_000), "15s");
        assert_eq!(duration(250_000_000), "250ms");
        assert_eq!(duration(300), "300ns");
        assert_eq!(duration(-5_000_000_000), "-5s");
    }

    #[test]
    fn counts_agree_with_their_number() {
        assert_eq!(count(1, "group"), "1 group");
        assert_eq!(count(0, "group"), "0 groups");
        assert_eq!(count(3, "node"), "3 nodes");
    }

    #[test]
    fn times_read_relative_to_now() {
        assert_eq!(relative(15_000_000_000, 0), "in 15s");
        assert_eq!(relative(0, 600_000_000_000), "10m ago");
        assert_eq!(relative(7, 7), "now");
    }
}
