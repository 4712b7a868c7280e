//! Times and durations as scenario files write them: `15s`, `1h30m`, `now-10m`, or nanoseconds.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use slotwise_reconciler::phrasing::duration;
use std::fmt;

const UNITS: [(&str, i64); 7] = [
    ("ns", 1),
    ("us", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
    ("d", 86_400_000_000_000),
];

/// A span of time: nanoseconds, or text like `15s`, `1h30m`, `-5m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[schemars(with = "DurationText")]
pub struct Duration(pub i64);

/// A point in time: nanoseconds since the Unix epoch, or text relative to the
/// scenario's `now`, like `now`, `now-10m`, `now+5s`.
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

/// Nanoseconds or text.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum DurationText {
    Nanoseconds(i64),
    Text(String),
}

/// Parses `15s`, `1h30m`, `-250ms` into nanoseconds.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let (sign, mut rest) = match text.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest.is_empty() {
        return Err(format!(
            "`{text}` is not a duration (like 15s, 1h30m or 250ms)"
        ));
    }
    let mut total: i64 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit_len = rest[digits..]
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len() - digits);
        let (number, unit) = (&rest[..digits], &rest[digits..digits + unit_len]);
        let value: i64 = number
            .parse()
            .map_err(|_| format!("`{text}` is not a duration (like 15s, 1h30m or 250ms)"))?;
        let Some(&(_, size)) = UNITS.iter().find(|(u, _)| *u == unit) else {
            return Err(format!(
                "`{unit}` in `{text}` is not a unit (ns, us, ms, s, m, h, d)"
            ));
        };
        total = value
            .checked_mul(size)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(|| format!("`{text}` is too long a duration"))?;
        rest = &rest[digits + unit_len..];
    }
    Ok(sign * total)
}

fn parse_time(text: &str) -> Result<Time, String> {
    let Some(offset) = text.strip_prefix("now") else {
        return Err(format!(
            "`{text}` is not a time (like now, now-10m or nanoseconds)"
        ));
    };
    if offset.is_empty() {
        return Ok(Time::FromNow(0));
    }
    parse_duration(offset).map(Time::FromNow)
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match DurationText::deserialize(d)? {
            DurationText::Nanoseconds(n) => Ok(Duration(n)),
            DurationText::Text(t) => parse_duration(&t)
                .map(Duration)
                .map_err(serde::de::Error::custom),
        }
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match DurationText::deserialize(d)? {
            DurationText::Nanoseconds(n) => Ok(Time::At(n)),
            DurationText::Text(t) => parse_time(&t).map_err(serde::de::Error::custom),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_units() {
        assert_eq!(parse_duration("15s"), Ok(15_000_000_000));
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("-250ms"), Ok(-250_000_000));
        assert_eq!(parse_duration("300ns"), Ok(300));
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("").is_err());
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
