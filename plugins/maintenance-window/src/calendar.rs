//! UTC calendar arithmetic on the plugin's nanosecond timestamps: days, weekdays, times of day, and RFC 3339 text.

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

    /// The weekday of day `day`, counted from 1970-01-01 (a Thursday).
    pub fn of_day(day: i64) -> Weekday {
        Weekday::ALL[(day + 3).rem_euclid(7) as usize]
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

/// Reads a UTC instant in RFC 3339, `2026-01-03T02:00:00Z` (seconds optional).
pub fn parse_instant(text: &str) -> Option<Timestamp> {
    let rest = text.strip_suffix('Z')?;
    let (date, time) = rest.split_once('T')?;
    let mut ymd = date.splitn(3, '-');
    let year: i64 = ymd.next()?.parse().ok()?;
    let month: u32 = ymd.next()?.parse().ok()?;
    let day: u32 = ymd.next()?.parse().ok()?;
    // Four-digit years keep every later sum far from overflowing.
    if !(1..=9999).contains(&year)
        || !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
    {
        return None;
    }
    let (clock, seconds) = match time.len() {
        5 => (time, 0),
        8 => (&time[..5], time[6..].parse::<i64>().ok()?),
        _ => return None,
    };
    let of_day = parse_time_of_day(clock)?;
    if of_day >= DAY || !(0..60).contains(&seconds) || (time.len() == 8 && &time[5..6] != ":") {
        return None;
    }
    Some(days_from_civil(year, month, day) * DAY + of_day + seconds * SECOND)
}

/// `at` as RFC 3339 text, to the second.
pub fn format_instant(at: Timestamp) -> String {
    let (year, month, day) = civil_from_days(day_of(at));
    let within = at.rem_euclid(DAY) / SECOND;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        within / 3600,
        within / 60 % 60,
        within % 60
    )
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's algorithms for the proleptic Gregorian calendar: eras of
// 400 years make every era alike, so no table is needed.

/// Days since 1970-01-01 of a civil date.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day counted from 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
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
