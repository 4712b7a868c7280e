//! Times for people: nanoseconds since the epoch as UTC dates, and offsets from now.

/// `ns` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (sub-seconds dropped).
pub fn iso8601(ns: i64) -> String {
    slotwise_scenario::rfc3339(ns)
}

/// `at` relative to `now`, like `now+15s` or `now-10m`.
pub fn from_now(at: i64, now: i64) -> String {
    slotwise_scenario::from_now(at.saturating_sub(now))
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
