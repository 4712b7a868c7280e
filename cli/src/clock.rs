//! Times for people: nanoseconds since the epoch as UTC dates, and offsets from now.

use slotwise_reconciler::phrasing::duration;

/// `ns` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (sub-seconds dropped).
pub fn iso8601(ns: i64) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-from-civil, inverted.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60
    )
}

/// `at` relative to `now`, like `now+15s` or `now-10m`.
pub fn from_now(at: i64, now: i64) -> String {
    match at.saturating_sub(now) {
        0 => "now".to_string(),
        d if d < 0 => format!("now{}", duration(d)),
        d => format!("now+{}", duration(d)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(1_767_225_600_000_000_000), "2026-01-01T00:00:00Z");
        assert_eq!(iso8601(951_782_400_000_000_000), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn offsets_read_from_now() {
        assert_eq!(from_now(15_000_000_000, 0), "now+15s");
        assert_eq!(from_now(0, 600_000_000_000), "now-10m");
    }
}
