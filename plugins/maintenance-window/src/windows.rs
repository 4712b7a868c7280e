//! Maintenance windows: weekly ones (days and a UTC time of day) and explicit `[start, end)` intervals, read from the settings and asked when one is open or opens next.

use crate::calendar::{self, Weekday, DAY};
use serde::Deserialize;
use slotwise_plugin::Timestamp;

/// When disruptive changes are allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Window {
    /// Every week on `days`, from `start` to `end` after midnight UTC; an end
    /// at or before the start runs into the next day.
    Weekly {
        days: Vec<Weekday>,
        start: i64,
        end: i64,
    },
    /// Once, from `start` (included) to `end` (excluded).
    Interval { start: Timestamp, end: Timestamp },
}

/// A window as the settings write it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowText {
    /// Weekdays, for a weekly window; absent: every day.
    days: Option<Vec<String>>,
    /// `HH:MM` for a weekly window, an RFC 3339 UTC instant for an interval.
    start: String,
    /// As `start`.
    end: String,
}

impl Window {
    /// Reads the window at `field` (like `windows[2]`), naming what is wrong.
    ///
    /// # Errors
    /// A sentence naming the field, when the text is not a window.
    pub fn read(field: &str, text: &WindowText) -> Result<Window, String> {
        let weekly = (
            calendar::parse_time_of_day(&text.start),
            calendar::parse_time_of_day(&text.end),
        );
        if let (Some(start), Some(end)) = weekly {
            if start == end {
                return Err(format!(
                    "{field}.end: {} is where the window starts; a window must last",
                    text.end
                ));
            }
            if start == DAY {
                return Err(format!("{field}.start: 24:00 ends a day; start at 00:00"));
            }
            let days = match &text.days {
                None => Weekday::ALL.to_vec(),
                Some(names) => read_days(field, names)?,
            };
            return Ok(Window::Weekly { days, start, end });
        }
        let instants = (
            calendar::parse_instant(&text.start),
            calendar::parse_instant(&text.end),
        );
        match instants {
            (Some(start), Some(end)) => {
                if text.days.is_some() {
                    return Err(format!(
                        "{field}.days: only for weekly windows, whose start and end are HH:MM"
                    ));
                }
                if end <= start {
                    return Err(format!(
                        "{field}.end: {} is not after start {}",
                        text.end, text.start
                    ));
                }
                Ok(Window::Interval { start, end })
            }
            _ => {
                let readable = |text: &str| {
                    calendar::parse_time_of_day(text).is_some()
                        || calendar::parse_instant(text).is_some()
                };
                let wrong = if !readable(&text.start) {
                    ("start", &text.start)
                } else if !readable(&text.end) {
                    ("end", &text.end)
                } else {
                    return Err(format!(
                        "{field}: start `{}` and end `{}` are not of the same kind; give both as \
                         HH:MM (a weekly window) or both as UTC instants (an explicit one)",
                        text.start, text.end
                    ));
                };
                Err(format!(
                    "{field}.{}: `{}` is neither a UTC time of day (HH:MM) nor a UTC instant \
                     (like 2026-01-03T02:00:00Z)",
                    wrong.0, wrong.1
                ))
            }
        }
    }

    /// Whether the window is open at `at`.
    pub fn is_open(&self, at: Timestamp) -> bool {
        self.openings_around(at)
            .any(|(start, end)| start <= at && at < end)
    }

    /// When the window next opens after `at`, if ever.
    pub fn next_start(&self, at: Timestamp) -> Option<Timestamp> {
        self.openings_around(at)
            .map(|(start, _)| start)
            .filter(|&start| start > at)
            .min()
    }

    /// Its openings that may contain `at` or start in the week after it.
    fn openings_around(
        &self,
        at: Timestamp,
    ) -> Box<dyn Iterator<Item = (Timestamp, Timestamp)> + '_> {
        match self {
            Window::Interval { start, end } => Box::new(std::iter::once((*start, *end))),
            Window::Weekly { days, start, end } => {
                let today = calendar::day_of(at);
                // Yesterday's opening may run past midnight into today; a week
                // and a day ahead always holds the next opening.
                Box::new(
                    (today - 1..=today + 7)
                        .filter(|&day| days.contains(&Weekday::of_day(day)))
                        .map(move |day| {
                            let open = day * DAY + start;
                            let close = if end > start {
                                day * DAY + end
                            } else {
                                (day + 1) * DAY + end
                            };
                            (open, close)
                        }),
                )
            }
        }
    }
}

fn read_days(field: &str, names: &[String]) -> Result<Vec<Weekday>, String> {
    if names.is_empty() {
        return Err(format!(
            "{field}.days: empty; name at least one day, or leave `days` out for every day"
        ));
    }
    let mut days = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let day = Weekday::parse(name).ok_or_else(|| {
            format!("{field}.days[{i}]: `{name}` is not a weekday (mon, tue, ... sun)")
        })?;
        days.push(day);
    }
    days.sort();
    days.dedup();
    Ok(days)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::parse_instant;

    fn at(text: &str) -> Timestamp {
        parse_instant(text).unwrap()
    }

    fn window(days: Option<&[&str]>, start: &str, end: &str) -> Result<Window, String> {
        let text = WindowText {
            days: days.map(|d| d.iter().map(|s| s.to_string()).collect()),
            start: start.into(),
            end: end.into(),
        };
        Window::read("windows[0]", &text)
    }

    #[test]
    fn a_weekend_night_window_is_open_only_on_weekend_nights() {
        let w = window(Some(&["sat", "sun"]), "02:00", "05:00").unwrap();
        // 2026-01-03 is a Saturday.
        assert!(w.is_open(at("2026-01-03T02:00:00Z")));
        assert!(w.is_open(at("2026-01-04T04:59:59Z")));
        assert!(!w.is_open(at("2026-01-03T05:00:00Z")));
        assert!(!w.is_open(at("2026-01-05T03:00:00Z")));
    }

    #[test]
    fn the_next_opening_of_a_weekly_window_may_be_days_ahead() {
        let w = window(Some(&["sat"]), "02:00", "05:00").unwrap();
        assert_eq!(
            w.next_start(at("2026-01-03T03:00:00Z")),
            Some(at("2026-01-10T02:00:00Z"))
        );
        assert_eq!(
            w.next_start(at("2026-01-01T00:00:00Z")),
            Some(at("2026-01-03T02:00:00Z"))
        );
    }

    #[test]
    fn a_window_that_ends_before_it_starts_runs_past_midnight() {
        let w = window(Some(&["fri"]), "22:00", "02:00").unwrap();
        // Friday 2026-01-02, 22:00 to Saturday 02:00.
        assert!(w.is_open(at("2026-01-03T01:00:00Z")));
        assert!(!w.is_open(at("2026-01-03T02:00:00Z")));
    }

    #[test]
    fn an_interval_opens_once() {
        let w = window(None, "2026-01-07T22:00:00Z", "2026-01-08T02:00:00Z").unwrap();
        assert!(w.is_open(at("2026-01-07T22:00:00Z")));
        assert!(!w.is_open(at("2026-01-08T02:00:00Z")));
        assert_eq!(
            w.next_start(at("2026-01-01T00:00:00Z")),
            Some(at("2026-01-07T22:00:00Z"))
        );
        assert_eq!(w.next_start(at("2026-01-08T00:00:00Z")), None);
    }

    #[test]
    fn bad_windows_are_refused_naming_the_field() {
        let e = |r: Result<Window, String>| r.unwrap_err();
        assert!(e(window(None, "25:00", "03:00")).starts_with("windows[0].start:"));
        assert!(e(window(Some(&["caturday"]), "01:00", "03:00")).starts_with("windows[0].days[0]:"));
        assert!(
            e(window(None, "2026-01-08T00:00:00Z", "2026-01-07T00:00:00Z"))
                .starts_with("windows[0].end:")
        );
        assert!(e(window(
            Some(&["mon"]),
            "2026-01-07T00:00:00Z",
            "2026-01-08T00:00:00Z"
        ))
        .starts_with("windows[0].days:"));
        assert!(e(window(None, "01:00", "2026-01-08T00:00:00Z")).contains("not of the same kind"));
        assert!(e(window(None, "01:00", "3am")).starts_with("windows[0].end:"));
    }
}
