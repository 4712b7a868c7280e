//! Times and durations as scenario files write them: `15s`, `1h30m`, `now-10m`, RFC 3339 instants, or nanoseconds.
//!
//! The text forms are read by `jiff`: its "friendly" durations (`1h30m`,
//! `250ms`, `2d`, with a day taken as 24 hours) and its RFC 3339 instants.

use jiff::{SignedDuration, Span, SpanRelativeTo, Timestamp};
use schemars::JsonSchema;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use slotwise_reconciler::phrasing::duration;
use std::fmt;

/// A span of time: nanoseconds, or text like `15s`, `1h30m`, `-5m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[schemars(with = "DurationText")]
pub struct Duration(pub i64);

/// A point in time: nanoseconds since the Unix epoch, an RFC 3339 instant
/// (`2026-01-01T00:00:00Z`), or text relative to the scenario's `now`, like
/// `now`, `now-10m`, `now+5s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[schemars(with = "DurationText")]
pub enum Time {
    At(i64),
    FromNow(i64),
}

impl Time {
    /// The time in nanoseconds, given the scenario's `now`.
    pub fn resolve(self, now: i64) -> i64 {
        match self {
            Time::At(t) => t,
            Time::FromNow(d) => now.saturating_add(d),
        }
    }
}

/// Nanoseconds or text (only describes the schema).
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum DurationText {
    Nanoseconds(i64),
    Text(String),
}

const DURATION_EXAMPLE: &str = "a duration (like 15s, 1h30m or 250ms)";
const TIME_EXAMPLE: &str =
    "a time (like now, now-10m, 2026-01-01T00:00:00Z or nanoseconds since 1970)";

/// Parses `15s`, `1h30m`, `-250ms`, `2d` into nanoseconds.
///
/// # Errors
/// A sentence naming the text, when it is not a duration or does not fit in
/// 64-bit nanoseconds (about 292 years).
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let not = || format!("`{text}` is not {DURATION_EXAMPLE}");
    // A bare number is nanoseconds, as in JSON.
    if let Ok(n) = text.trim().parse::<i64>() {
        return Ok(n);
    }
    let span: Span = text.trim().parse().map_err(|_| not())?;
    // Days and weeks are 24 hours and 7 days: scenario times are UTC instants,
    // and a day in a reschedule policy never has a daylight-saving hour.
    let exact: SignedDuration = span
        .to_duration(SpanRelativeTo::days_are_24_hours())
        .map_err(|_| {
            format!("`{text}` is not {DURATION_EXAMPLE}; months and years vary in length")
        })?;
    i64::try_from(exact.as_nanos()).map_err(|_| format!("`{text}` is too long a duration"))
}

/// Parses `now`, `now-10m` or an RFC 3339 instant.
fn parse_time(text: &str) -> Result<Time, String> {
    if let Some(offset) = text.trim().strip_prefix("now") {
        if offset.is_empty() {
            return Ok(Time::FromNow(0));
        }
        if !offset.starts_with(['+', '-']) {
            return Err(format!("`{text}` is not {TIME_EXAMPLE}"));
        }
        return parse_duration(offset).map(Time::FromNow);
    }
    let at: Timestamp = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not {TIME_EXAMPLE}"))?;
    i64::try_from(at.as_nanosecond())
        .map(Time::At)
        .map_err(|_| format!("`{text}` is outside the years 1678 to 2261 that times can hold"))
}

/// Reads nanoseconds or text, with `parse` for the text.
struct NanosOrText<F> {
    parse: F,
    expecting: &'static str,
}

impl<'de, T, F: FnOnce(&str) -> Result<T, String>> Visitor<'de> for NanosOrText<F>
where
    T: From<i64>,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Ok(T::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        i64::try_from(v)
            .map(T::from)
            .map_err(|_| E::custom(format!("{v} is too large; at most {}", i64::MAX)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.parse)(v).map_err(E::custom)
    }
}

impl From<i64> for Duration {
    fn from(n: i64) -> Self {
        Duration(n)
    }
}

impl From<i64> for Time {
    fn from(n: i64) -> Self {
        Time::At(n)
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NanosOrText {
            parse: |t: &str| parse_duration(t).map(Duration),
            expecting: DURATION_EXAMPLE,
        })
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NanosOrText {
            parse: parse_time,
            expecting: TIME_EXAMPLE,
        })
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Time::At(t) => write!(f, "{t}"),
            Time::FromNow(d) => write!(f, "{}", from_now(*d)),
        }
    }
}

/// An offset from now as a scenario would write it: `now`, `now+15s`, `now-1h30m`.
pub fn from_now(offset: i64) -> String {
    match offset {
        0 => "now".to_string(),
        d if d < 0 => format!("now{}", duration(d)),
        d => format!("now+{}", duration(d)),
    }
}

/// `ns` since the Unix epoch as RFC 3339 UTC text to the second, like
/// `2026-01-01T00:00:00Z`.
pub fn rfc3339(ns: i64) -> String {
    let at = Timestamp::from_nanosecond(i128::from(ns)).unwrap_or(Timestamp::UNIX_EPOCH);
    // Sub-seconds are dropped: plans speak in whole seconds.
    let seconds = Timestamp::from_second(at.as_second()).unwrap_or(at);
    seconds.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_units() {
        assert_eq!(parse_duration("15s"), Ok(15_000_000_000));
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("-250ms"), Ok(-250_000_000));
        assert_eq!(parse_duration("300ns"), Ok(300));
        assert_eq!(parse_duration("2d"), Ok(2 * 86_400_000_000_000));
        assert_eq!(parse_duration("1us"), Ok(1_000));
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("1 month").is_err());
    }

    #[test]
    fn a_duration_beyond_what_nanoseconds_hold_is_refused() {
        let e = parse_duration("200000d").unwrap_err();
        assert!(e.contains("too long"), "{e}");
    }

    #[test]
    fn times_read_relative_to_now() {
        assert_eq!(parse_time("now"), Ok(Time::FromNow(0)));
        assert_eq!(parse_time("now-10m"), Ok(Time::FromNow(-600_000_000_000)));
        assert_eq!(
            parse_time("now+5s").map(|t| t.resolve(1)),
            Ok(5_000_000_001)
        );
        assert!(parse_time("yesterday").is_err());
        assert!(parse_time("nowhere").is_err());
    }

    #[test]
    fn times_read_in_rfc_3339() {
        assert_eq!(
            parse_time("2026-01-01T00:00:00Z"),
            Ok(Time::At(1_767_225_600_000_000_000))
        );
        assert_eq!(
            parse_time("2026-01-01T02:00:00+02:00"),
            Ok(Time::At(1_767_225_600_000_000_000))
        );
        assert!(parse_time("2026-02-30T00:00:00Z").is_err());
        assert!(parse_time("3000-01-01T00:00:00Z")
            .unwrap_err()
            .contains("outside"));
    }

    #[test]
    fn instants_print_as_utc_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_767_225_600_000_000_000), "2026-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400_000_000_000), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_767_225_600_999_999_999), "2026-01-01T00:00:00Z");
    }

    #[test]
    fn offsets_print_as_they_are_written() {
        assert_eq!(from_now(0), "now");
        assert_eq!(from_now(3_000_000_000_000), "now+50m");
        assert_eq!(from_now(-5_400_000_000_000), "now-1h30m");
        for text in ["now+15s", "now-2h5m", "now+250ms"] {
            let Ok(Time::FromNow(d)) = parse_time(text) else {
                panic!("{text}")
            };
            assert_eq!(from_now(d), text);
        }
    }
}
