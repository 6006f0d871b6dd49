//! The session's date/time output settings (`DateStyle`, `IntervalStyle`, `TimeZone`) and
//! the text of `date`, `timestamp` and `timestamptz` in each `DateStyle`.
//!
//! PostgreSQL 15's four styles, with the field order of `DateStyle` where it matters:
//! ISO `2024-03-10 12:00:00+02`; SQL `03/10/2024 12:00:00 EET` (`10/03/2024` in DMY);
//! Postgres `Sun Mar 10 12:00:00 2024 EET` (`Sun 10 Mar` in DMY); German
//! `10.03.2024 12:00:00 EET`. ISO writes a timestamptz's offset, the others the zone's
//! abbreviation. The default settings (ISO, MDY; postgres; UTC) write exactly what
//! `Datum::write_text` writes, which is what expressions inside dataflows use.

use super::tz::Zone;
use crate::interval::write_seconds;
use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};
use std::fmt::Write;

/// `DateStyle`'s output style.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DateStyle {
    #[default]
    Iso,
    Sql,
    Postgres,
    German,
}

/// `DateStyle`'s field order (output of SQL and Postgres styles; input of ambiguous dates).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum DateOrder {
    #[default]
    Mdy,
    Dmy,
    Ymd,
}

/// `IntervalStyle`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IntervalStyle {
    #[default]
    Postgres,
    PostgresVerbose,
    SqlStandard,
    Iso8601,
}

/// What the text of date/time values follows: a session's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct DateSettings {
    pub style: DateStyle,
    pub order: DateOrder,
    pub interval_style: IntervalStyle,
    pub zone: Zone,
}

impl Default for DateSettings {
    fn default() -> Self {
        DateSettings {
            style: DateStyle::Iso,
            order: DateOrder::Mdy,
            interval_style: IntervalStyle::Postgres,
            zone: Zone::UTC,
        }
    }
}

impl DateSettings {
    /// Whether values print as `Datum::write_text` prints them (zone aside).
    pub fn is_default_style(&self) -> bool {
        self.style == DateStyle::Iso && self.interval_style == IntervalStyle::Postgres
    }
}

/// Reads a `DateStyle` value given the current one, as PostgreSQL's `check_datestyle`:
/// a list of a style and/or an order (`SQL, DMY`, `german`, `euro`), `DEFAULT` for
/// `ISO, MDY`; German alone implies DMY. Returns the new pair and how SHOW prints it, or
/// `None` for a bad or conflicting value.
pub fn parse_datestyle(
    text: &str,
    current: (DateStyle, DateOrder),
) -> Option<(DateStyle, DateOrder, String)> {
    let mut style: Option<DateStyle> = None;
    let mut order: Option<DateOrder> = None;
    for word in text
        .split([',', ' '])
        .map(str::trim)
        .filter(|w| !w.is_empty())
    {
        let w = word.to_ascii_lowercase();
        let (s, o) = match w.as_str() {
            "iso" => (Some(DateStyle::Iso), None),
            "sql" => (Some(DateStyle::Sql), None),
            "postgres" => (Some(DateStyle::Postgres), None),
            "german" => (Some(DateStyle::German), None),
            "ymd" => (None, Some(DateOrder::Ymd)),
            "dmy" | "euro" | "european" => (None, Some(DateOrder::Dmy)),
            "mdy" | "us" | "noneuro" | "noneuropean" => (None, Some(DateOrder::Mdy)),
            "default" => (Some(DateStyle::Iso), Some(DateOrder::Mdy)),
            _ => return None,
        };
        if let Some(s) = s {
            if style.is_some_and(|old| old != s) {
                return None;
            }
            style = Some(s);
        }
        if let Some(o) = o {
            if order.is_some_and(|old| old != o) && w != "default" {
                return None;
            }
            order = Some(o);
        }
    }
    if style.is_none() && order.is_none() {
        return None;
    }
    let new_style = style.unwrap_or(current.0);
    let new_order = match (order, style) {
        (Some(o), _) => o,
        (None, Some(DateStyle::German)) => DateOrder::Dmy,
        (None, _) => current.1,
    };
    let shown = format!(
        "{}, {}",
        match new_style {
            DateStyle::Iso => "ISO",
            DateStyle::Sql => "SQL",
            DateStyle::Postgres => "Postgres",
            DateStyle::German => "German",
        },
        match new_order {
            DateOrder::Mdy => "MDY",
            DateOrder::Dmy => "DMY",
            DateOrder::Ymd => "YMD",
        }
    );
    Some((new_style, new_order, shown))
}

/// Reads an `IntervalStyle` value (case-insensitive), with the name SHOW prints.
pub fn parse_interval_style(text: &str) -> Option<(IntervalStyle, &'static str)> {
    Some(match text.trim().to_ascii_lowercase().as_str() {
        "postgres" => (IntervalStyle::Postgres, "postgres"),
        "postgres_verbose" => (IntervalStyle::PostgresVerbose, "postgres_verbose"),
        "sql_standard" => (IntervalStyle::SqlStandard, "sql_standard"),
        "iso_8601" => (IntervalStyle::Iso8601, "iso_8601"),
        _ => return None,
    })
}

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The year as written: 4 digits at least, years before 1 counted back (1 BC is year 0).
fn shown_year(d: &NaiveDate) -> i32 {
    let y = d.year();
    if y <= 0 {
        1 - y
    } else {
        y
    }
}

/// A date in `settings`' style (` BC` appended).
pub fn write_date_styled(d: &NaiveDate, s: &DateSettings, out: &mut String) {
    let (y, m, day) = (shown_year(d), d.month(), d.day());
    match s.style {
        DateStyle::Iso => write!(out, "{y:04}-{m:02}-{day:02}"),
        DateStyle::Sql if s.order == DateOrder::Dmy => write!(out, "{day:02}/{m:02}/{y:04}"),
        DateStyle::Sql => write!(out, "{m:02}/{day:02}/{y:04}"),
        DateStyle::German => write!(out, "{day:02}.{m:02}.{y:04}"),
        DateStyle::Postgres if s.order == DateOrder::Dmy => write!(out, "{day:02}-{m:02}-{y:04}"),
        DateStyle::Postgres => write!(out, "{m:02}-{day:02}-{y:04}"),
    }
    .unwrap();
    if d.year() <= 0 {
        out.push_str(" BC");
    }
}

/// A local date and time in `settings`' style, followed by `zone` (an offset for ISO, an
/// abbreviation for the others) when given, then ` BC`.
pub fn write_datetime_styled(
    ts: &NaiveDateTime,
    zone: Option<(i32, &str)>,
    s: &DateSettings,
    out: &mut String,
) {
    let d = ts.date();
    let t = ts.time();
    let (y, m, day) = (shown_year(&d), d.month(), d.day());
    let clock = |out: &mut String| {
        write!(out, "{:02}:{:02}:", t.hour(), t.minute()).unwrap();
        let usec = u64::from(t.second()) * 1_000_000 + u64::from(t.nanosecond() / 1000);
        write_seconds(usec, out);
    };
    match s.style {
        DateStyle::Iso => {
            write!(out, "{y:04}-{m:02}-{day:02} ").unwrap();
            clock(out);
        }
        DateStyle::Sql | DateStyle::German => {
            match (s.style, s.order) {
                (DateStyle::German, _) => write!(out, "{day:02}.{m:02}.{y:04} "),
                (_, DateOrder::Dmy) => write!(out, "{day:02}/{m:02}/{y:04} "),
                _ => write!(out, "{m:02}/{day:02}/{y:04} "),
            }
            .unwrap();
            clock(out);
        }
        DateStyle::Postgres => {
            let dow = DAYS[d.weekday().num_days_from_sunday() as usize];
            let mon = MONTHS[m as usize - 1];
            match s.order {
                DateOrder::Dmy => write!(out, "{dow} {day:02} {mon} "),
                _ => write!(out, "{dow} {mon} {day:02} "),
            }
            .unwrap();
            clock(out);
            write!(out, " {y:04}").unwrap();
        }
    }
    if let Some((east, abbrev)) = zone {
        match s.style {
            DateStyle::Iso => write_offset(east, out),
            _ => write!(out, " {abbrev}").unwrap(),
        }
    }
    if d.year() <= 0 {
        out.push_str(" BC");
    }
}

/// A timestamptz (a UTC instant) in the settings' zone and style.
pub fn write_timestamptz_styled(utc: &NaiveDateTime, s: &DateSettings, out: &mut String) {
    let east = s.zone.offset_at_utc(utc);
    match utc.checked_add_signed(chrono::Duration::seconds(east.into())) {
        Some(local) => {
            let abbrev = match s.style {
                DateStyle::Iso => String::new(),
                _ => s.zone.abbrev_at_utc(utc),
            };
            write_datetime_styled(&local, Some((east, &abbrev)), s, out)
        }
        None => write_datetime_styled(utc, Some((0, "UTC")), s, out),
    }
}

/// An offset as ISO output ends: `+02`, `-03:30`, `+00:09:21`.
pub fn write_offset(east: i32, out: &mut String) {
    out.push(if east >= 0 { '+' } else { '-' });
    out.push_str(&super::tz::offset_body(east.unsigned_abs()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(style: &str, zone: &str) -> DateSettings {
        let (style, order, _) = parse_datestyle(style, (DateStyle::Iso, DateOrder::Mdy)).unwrap();
        DateSettings {
            style,
            order,
            zone: Zone::parse_setting(zone).unwrap().0,
            ..DateSettings::default()
        }
    }

    fn tstz(s: &DateSettings) -> String {
        let utc =
            NaiveDateTime::parse_from_str("2024-03-10 12:00:00", "%Y-%m-%d %H:%M:%S").unwrap();
        let mut out = String::new();
        write_timestamptz_styled(&utc, s, &mut out);
        out
    }

    #[test]
    fn styles_of_timestamptz() {
        assert_eq!(tstz(&settings("ISO", "+02")), "2024-03-10 14:00:00+02");
        assert_eq!(
            tstz(&settings("SQL, MDY", "+02")),
            "03/10/2024 14:00:00 +02"
        );
        assert_eq!(
            tstz(&settings("Postgres", "+02")),
            "Sun Mar 10 14:00:00 2024 +02"
        );
        assert_eq!(tstz(&settings("German", "+02")), "10.03.2024 14:00:00 +02");
        assert_eq!(tstz(&settings("SQL", "UTC+3")), "03/10/2024 09:00:00 UTC");
        assert_eq!(
            tstz(&settings("Postgres, DMY", "UTC")),
            "Sun 10 Mar 12:00:00 2024 UTC"
        );
        assert_eq!(
            tstz(&settings("ISO", "Asia/Kolkata")),
            "2024-03-10 17:30:00+05:30"
        );
    }

    #[test]
    fn datestyle_values() {
        let cur = (DateStyle::Iso, DateOrder::Mdy);
        assert_eq!(parse_datestyle("German", cur).unwrap().2, "German, DMY");
        assert_eq!(
            parse_datestyle("sql", (DateStyle::German, DateOrder::Dmy))
                .unwrap()
                .2,
            "SQL, DMY"
        );
        assert_eq!(parse_datestyle("ymd", cur).unwrap().2, "ISO, YMD");
        assert!(parse_datestyle("ISO, SQL", cur).is_none());
        assert!(parse_datestyle("foo", cur).is_none());
    }
}
