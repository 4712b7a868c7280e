//! UTC calendar arithmetic on the plugin's nanosecond timestamps: days, weekdays, times of day, and RFC 3339 text (dates by `jiff`).

use slotwise_plugin::{Timestamp, MINUTE, SECOND};

/// Nanoseconds in an hour.
pub const HOUR: i64 = 60 * MINUTE;
/// Nanoseconds in a day.
pub const DAY: i64 = 24 * HOUR;

/// A day of the week.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Weekday {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

impl Weekday {
    /// Every day, Monday first.
    pub const ALL: [Weekday; 7] = [
        Weekday::Mon,
        Weekday::Tue,
        Weekday::Wed,
        Weekday::Thu,
        Weekday::Fri,
        Weekday::Sat,
        Weekday::Sun,
    ];

    /// Reads `mon`, `monday`, `Mon`, ...
    pub fn parse(text: &str) -> Option<Weekday> {
        let lower = text.trim().to_ascii_lowercase();
        let names = [
            "monday",
            "tuesday",
            "wednesday",
            "thursday",
            "friday",
            "saturday",
            "sunday",
        ];
        names
            .iter()
            .position(|n| lower.len() >= 3 && n.starts_with(&lower))
            .map(|i| Weekday::ALL[i])
    }

    /// The weekday of day `day`, counted from 1970-01-01.
    pub fn of_day(day: i64) -> Weekday {
        let weekday = jiff::civil::date(1970, 1, 1)
            .checked_add(jiff::Span::new().days(day))
            .map_or(jiff::civil::Weekday::Thursday, |d| d.weekday());
        Weekday::ALL[usize::from(weekday.to_monday_zero_offset().unsigned_abs())]
    }
}

/// The day `at` falls on, counted from 1970-01-01.
pub fn day_of(at: Timestamp) -> i64 {
    at.div_euclid(DAY)
}

/// Reads a time of day, `HH:MM`, as nanoseconds after midnight; `24:00` is
/// the end of the day.
pub fn parse_time_of_day(text: &str) -> Option<i64> {
    let (h, m) = text.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    match (h, m) {
        (24, 0) => Some(DAY),
        (0..=23, 0..=59) => Some(h * HOUR + m * MINUTE),
        _ => None,
    }
}

/// Reads an instant in RFC 3339, `2026-01-03T02:00:00Z` (seconds optional,
/// an offset like `+02:00` allowed); `None` when it is not one or falls
/// outside the years 1678 to 2261 that nanosecond timestamps hold.
pub fn parse_instant(text: &str) -> Option<Timestamp> {
    let at: jiff::Timestamp = text.parse().ok()?;
    Timestamp::try_from(at.as_nanosecond()).ok()
}

/// `at` as RFC 3339 UTC text, to the second.
pub fn format_instant(at: Timestamp) -> String {
    let seconds = at.div_euclid(SECOND);
    jiff::Timestamp::from_second(seconds)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_read_and_print_the_same() {
        let at = parse_instant("2026-01-03T02:30:00Z").unwrap();
        assert_eq!(format_instant(at), "2026-01-03T02:30:00Z");
        assert_eq!(
            parse_instant("2026-01-01T00:00Z"),
            Some(1_767_225_600 * SECOND)
        );
    }

    #[test]
    fn the_first_of_january_2026_is_a_thursday() {
        let at = parse_instant("2026-01-01T12:00:00Z").unwrap();
        assert_eq!(Weekday::of_day(day_of(at)), Weekday::Thu);
    }

    #[test]
    fn impossible_dates_and_times_are_refused() {
        assert_eq!(parse_instant("2026-02-29T00:00:00Z"), None);
        assert_eq!(parse_instant("2026-01-01T00:00:00"), None);
        assert_eq!(parse_instant("3000-01-01T00:00:00Z"), None);
        assert_eq!(parse_instant("99999999999-01-01T00:00:00Z"), None);
        assert_eq!(parse_time_of_day("24:01"), None);
        assert_eq!(parse_time_of_day("7:00"), None);
        assert_eq!(parse_time_of_day("24:00"), Some(DAY));
    }

    #[test]
    fn weekdays_read_in_short_or_long_form() {
        assert_eq!(Weekday::parse("sat"), Some(Weekday::Sat));
        assert_eq!(Weekday::parse("Sunday"), Some(Weekday::Sun));
        assert_eq!(Weekday::parse("s"), None);
        assert_eq!(Weekday::parse("someday"), None);
    }
}
