//! `timestamp` (without time zone) and `date`: their text input and output, arithmetic with
//! intervals, and the units of EXTRACT / date_part / date_trunc (computed in `extract`);
//! `time` and the precision of `time(p)`/`timestamp(p)` are in `time`.
//!
//! A timestamp is a `chrono::NaiveDateTime` with microsecond precision (input is rounded to
//! microseconds, as PostgreSQL does). Adding an interval adds months first (clamping the day
//! to the month's end), then days, then microseconds, as PostgreSQL does. Text input takes
//! what PostgreSQL 15 takes, with the session's `DateStyle` field order (`input`):
//! `2024-01-05`, `1/2/2024`, `Jan 5 2024`, `20240105`, `epoch`, `today`, `now`, times with AM/PM and time zones (checked, then
//! ignored); it is read in two steps, `lex` (where tokens end) and `decode` (what they
//! mean), with the zone checks in `zone`. Which units a type supports is decided by the
//! planner (`DateUnit::check_extract`), so evaluation never meets an unsupported one.

mod abbrevs;
mod decode;
mod extract;
mod input;
mod lex;
mod rule_years;
mod style;
mod time;
mod tstz;
mod tz;
mod zone;

pub use input::{
    date_order, input_style, with_date_input, with_input_style, InputClock, InputStyle,
};
pub use style::{
    parse_datestyle, parse_interval_style, write_date_styled, write_datetime_styled, write_offset,
    write_timestamptz_styled, DateOrder, DateSettings, DateStyle, IntervalStyle,
};
pub use tstz::{
    add_interval_tz, extract_timestamptz, from_local, parse_text_in_zone, parse_timestamptz,
    to_local, to_timestamp, trunc_timestamptz, zone_arg, SESSION_ZONE,
};
pub use tz::{Zone, ZoneError};

pub use time::{
    add_interval as add_time_interval, date_plus_time, extract_time, interval_time, parse_time,
    round_time, round_timestamp, sub_times, time_of, write_time,
};

pub use extract::{
    extract_date, extract_interval, extract_timestamp, trunc_interval, trunc_timestamp,
};

use crate::error::EvalError;
use crate::interval::{write_seconds, Interval};
use chrono::{Datelike, Duration, Months, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use std::fmt::Write;

/// A unit of EXTRACT, date_part and date_trunc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum DateUnit {
    Microseconds,
    Milliseconds,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    Decade,
    Century,
    Millennium,
    Dow,
    Isodow,
    Doy,
    Isoyear,
    Epoch,
    Julian,
    /// The offset from UTC, of a timestamptz only: seconds, whole hours, minutes.
    Timezone,
    TimezoneHour,
    TimezoneMinute,
}

/// The kinds of value EXTRACT reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum DateKind {
    Date,
    Timestamp,
    Interval,
    Time,
    TimestampTz,
}

impl DateKind {
    pub fn type_name(self) -> &'static str {
        match self {
            DateKind::Date => "date",
            DateKind::Timestamp => "timestamp without time zone",
            DateKind::Interval => "interval",
            DateKind::Time => "time without time zone",
            DateKind::TimestampTz => "timestamp with time zone",
        }
    }
}

impl DateUnit {
    /// Looks a unit name up the way PostgreSQL does (case-insensitive, with its abbreviations).
    /// `None` for a name PostgreSQL does not know; `Some(Err(name))` would be a known unit
    /// kpg does not handle (there is none at present: the time zone units are the
    /// timestamptz ones).
    pub fn parse(name: &str) -> Option<Result<DateUnit, String>> {
        use DateUnit::*;
        let lower = name.to_ascii_lowercase();
        Some(Ok(match lower.as_str() {
            "microsecond" | "microseconds" | "us" | "usec" | "usecs" | "useconds"
            | "microsecon" => Microseconds,
            "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" | "mseconds"
            | "millisecon" => Milliseconds,
            "second" | "seconds" | "s" | "sec" | "secs" => Second,
            "minute" | "minutes" | "m" | "min" | "mins" => Minute,
            "hour" | "hours" | "h" | "hr" | "hrs" => Hour,
            "day" | "days" | "d" => Day,
            "week" | "weeks" | "w" => Week,
            "month" | "months" | "mon" | "mons" => Month,
            "quarter" | "qtr" => Quarter,
            "year" | "years" | "y" | "yr" | "yrs" => Year,
            "decade" | "decades" | "dec" | "decs" => Decade,
            "century" | "centuries" | "c" | "cent" => Century,
            "millennium" | "millennia" | "mil" | "mils" | "millenniums" => Millennium,
            "dow" => Dow,
            "isodow" => Isodow,
            "doy" => Doy,
            "isoyear" => Isoyear,
            "epoch" => Epoch,
            "julian" | "j" => Julian,
            "timezone" => Timezone,
            "timezone_h" | "timezone_hour" => TimezoneHour,
            "timezone_m" | "timezone_minute" => TimezoneMinute,
            _ => return None,
        }))
    }

    fn name(self) -> &'static str {
        use DateUnit::*;
        match self {
            Microseconds => "microseconds",
            Milliseconds => "milliseconds",
            Second => "second",
            Minute => "minute",
            Hour => "hour",
            Day => "day",
            Week => "week",
            Month => "month",
            Quarter => "quarter",
            Year => "year",
            Decade => "decade",
            Century => "century",
            Millennium => "millennium",
            Dow => "dow",
            Isodow => "isodow",
            Doy => "doy",
            Isoyear => "isoyear",
            Epoch => "epoch",
            Julian => "julian",
            Timezone => "timezone",
            TimezoneHour => "timezone_h",
            TimezoneMinute => "timezone_m",
        }
    }

    /// The unit named `name` (`parse`) for EXTRACT or date_part of a value of `kind`, with
    /// PostgreSQL's errors: 22023 for a name it does not know, 0A000 for a unit the kind has
    /// not (`check_extract`).
    pub fn for_extract(name: &str, kind: DateKind) -> Result<DateUnit, EvalError> {
        let u = Self::named(name, kind)?;
        u.check_extract(kind)
            .map_err(EvalError::FeatureNotSupported)?;
        Ok(u)
    }

    /// The unit named `name` for date_trunc of a value of `kind`, with PostgreSQL's errors
    /// (`check_trunc`).
    pub fn for_trunc(name: &str, kind: DateKind) -> Result<DateUnit, EvalError> {
        let u = Self::named(name, kind)?;
        u.check_trunc(kind).map_err(|(code, m)| match code {
            "0A000" => EvalError::FeatureNotSupported(m),
            _ => EvalError::InvalidParameterValue(m),
        })?;
        Ok(u)
    }

    fn named(name: &str, kind: DateKind) -> Result<DateUnit, EvalError> {
        match Self::parse(name) {
            Some(Ok(u)) => Ok(u),
            Some(Err(unit)) => Err(EvalError::FeatureNotSupported(format!(
                "unit \"{unit}\" not supported for type {}",
                kind.type_name()
            ))),
            None => Err(EvalError::InvalidParameterValue(format!(
                "unit \"{}\" not recognized for type {}",
                name.to_lowercase(),
                kind.type_name()
            ))),
        }
    }

    /// Whether EXTRACT of this unit from a value of `kind` exists in PostgreSQL; the error is
    /// PostgreSQL's 0A000 message ("unit "hour" not supported for type date").
    pub fn check_extract(self, kind: DateKind) -> Result<(), String> {
        use DateUnit::*;
        let zone = matches!(self, Timezone | TimezoneHour | TimezoneMinute);
        let ok = match kind {
            _ if zone => kind == DateKind::TimestampTz,
            DateKind::Date => !matches!(self, Microseconds | Milliseconds | Second | Minute | Hour),
            DateKind::Timestamp | DateKind::TimestampTz => true,
            DateKind::Interval => !matches!(self, Week | Dow | Isodow | Doy | Isoyear | Julian),
            DateKind::Time => matches!(
                self,
                Microseconds | Milliseconds | Second | Minute | Hour | Epoch
            ),
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "unit \"{}\" not supported for type {}",
                self.name(),
                kind.type_name()
            ))
        }
    }

    /// Whether date_trunc of this unit exists for a value of `kind`; the error is
    /// PostgreSQL's SQLSTATE and message: units of EXTRACT that date_trunc does not know are
    /// 22023 ("not recognized"), the time zone units and an interval's weeks 0A000.
    pub fn check_trunc(self, kind: DateKind) -> Result<(), (&'static str, String)> {
        use DateUnit::*;
        let interval = kind == DateKind::Interval;
        let known = match self {
            Microseconds | Milliseconds | Second | Minute | Hour | Day | Month | Quarter | Year
            | Decade | Century | Millennium => return Ok(()),
            Week if !interval => return Ok(()),
            Week | Timezone | TimezoneHour | TimezoneMinute => true,
            Dow | Isodow | Doy | Isoyear | Epoch | Julian => false,
        };
        let (code, what) = match known {
            true => ("0A000", "not supported"),
            false => ("22023", "not recognized"),
        };
        Err((
            code,
            format!(
                "unit \"{}\" {what} for type {}",
                self.name(),
                kind.type_name()
            ),
        ))
    }
}

/// PostgreSQL's text output of a timestamp: `YYYY-MM-DD HH:MM:SS[.ffffff]`, `BC` for years
/// before 1.
pub fn write_timestamp(ts: &NaiveDateTime, out: &mut String) {
    write_date(&ts.date(), out, false);
    let t = ts.time();
    write!(out, " {:02}:{:02}:", t.hour(), t.minute()).unwrap();
    let usec = u64::from(t.second()) * 1_000_000 + u64::from(t.nanosecond() / 1000);
    write_seconds(usec, out);
    if ts.year() <= 0 {
        out.push_str(" BC");
    }
}

/// PostgreSQL's text output of a date (`BC` appended by the caller's choice).
pub fn write_date(d: &NaiveDate, out: &mut String, with_bc: bool) {
    let y = d.year();
    let shown = if y <= 0 { 1 - y } else { y };
    write!(out, "{shown:04}-{:02}-{:02}", d.month(), d.day()).unwrap();
    if with_bc && y <= 0 {
        out.push_str(" BC");
    }
}

/// Timestamp input: a date, maybe a time, maybe a time zone (checked and ignored, as for
/// `timestamp without time zone`).
pub fn parse_timestamp(text: &str) -> Result<NaiveDateTime, EvalError> {
    let (date, micros) = decode::decode(text).map_err(|e| e.into_eval("timestamp", text))?;
    date.and_time(NaiveTime::MIN)
        .checked_add_signed(Duration::microseconds(micros))
        .ok_or_else(|| decode::DtErr::OutOfRange.into_eval("timestamp", text))
}

/// Date input: a time and a time zone may follow the date and are checked and ignored
/// (pgjdbc's setDate sends `2024-01-31 +00`, node-postgres sends a JavaScript Date as
/// `1999-12-31T00:59:58.250+00:00`).
pub fn parse_date_text(text: &str) -> Result<NaiveDate, EvalError> {
    // The common ISO form `YYYY-MM-DD` of a valid date reads as the full decoder reads it;
    // everything else (and an invalid date, for its error) goes through the decoder.
    if let Some(date) = iso_date(text.as_bytes()) {
        return Ok(date);
    }
    decode::decode(text)
        .map(|(date, _)| date)
        .map_err(|e| e.into_eval("date", text))
}

/// `YYYY-MM-DD` exactly (year 1-9999), if it is a valid date.
pub(crate) fn iso_date(b: &[u8]) -> Option<NaiveDate> {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| {
        b[r].iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let year = num(0..4).filter(|&y| y >= 1)?;
    NaiveDate::from_ymd_opt(year as i32, num(5..7)?, num(8..10)?)
}

fn ts_overflow() -> EvalError {
    EvalError::DateTimeValueOutOfRange("timestamp".into())
}

/// `timestamp + interval`: months (day clamped to the month's end), then days, then time.
pub fn add_interval(ts: NaiveDateTime, iv: &Interval) -> Result<NaiveDateTime, EvalError> {
    let mut ts = ts;
    if iv.months != 0 {
        let m = Months::new(iv.months.unsigned_abs());
        ts = if iv.months > 0 {
            ts.checked_add_months(m)
        } else {
            ts.checked_sub_months(m)
        }
        .ok_or_else(ts_overflow)?;
    }
    ts.checked_add_signed(Duration::days(iv.days.into()))
        .and_then(|t| t.checked_add_signed(Duration::microseconds(iv.micros)))
        .ok_or_else(ts_overflow)
}

/// `timestamp - timestamp`: the difference as microseconds, with whole days split off.
pub fn sub_timestamps(a: NaiveDateTime, b: NaiveDateTime) -> Result<Interval, EvalError> {
    let us = (a - b)
        .num_microseconds()
        .ok_or_else(|| EvalError::DateTimeValueOutOfRange("interval".into()))?;
    Ok(Interval::new(0, 0, us).justify_hours())
}

#[cfg(test)]
mod input_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::USECS_PER_HOUR;

    /// The ISO shortcut of `parse_date_text` reads what the full decoder reads.
    #[test]
    fn iso_dates_read_as_the_decoder_reads_them() {
        for text in [
            "1996-03-13",
            "0001-01-01",
            "9999-12-31",
            "2024-02-29",
            "1900-02-28",
            "2000-02-29",
        ] {
            let (full, _) = decode::decode(text).expect(text);
            assert_eq!(iso_date(text.as_bytes()), Some(full), "{text}");
        }
        for text in [
            "2023-02-29",
            "0000-01-01",
            "1996-13-01",
            "1996-3-13",
            "+996-03-13",
        ] {
            assert_eq!(iso_date(text.as_bytes()), None, "{text}");
        }
    }

    /// A timestamp from text that must read.
    pub(super) fn ts(s: &str) -> NaiveDateTime {
        parse_timestamp(s).unwrap()
    }

    /// A timestamp's text.
    pub(super) fn show(t: &NaiveDateTime) -> String {
        let mut o = String::new();
        write_timestamp(t, &mut o);
        o
    }

    #[test]
    fn interval_arithmetic_clamps_month_ends() {
        let one_month = Interval::new(1, 0, 0);
        assert_eq!(
            show(&add_interval(ts("2021-03-31"), &one_month).unwrap()),
            "2021-04-30 00:00:00"
        );
        let d = sub_timestamps(ts("2020-01-03 10:00"), ts("2020-01-01")).unwrap();
        assert_eq!((d.days, d.micros), (2, 10 * USECS_PER_HOUR));
    }
}
