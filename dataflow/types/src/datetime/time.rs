//! `time` (without time zone) and the fractional-second precision of `time(p)` and
//! `timestamp(p)`.
//!
//! A time is microseconds since midnight, 0 to 24:00:00 inclusive (PostgreSQL allows the end
//! of the day), held as an `i64` so that 24:00:00 needs no special case. Its arithmetic is
//! PostgreSQL's: adding an interval uses only the interval's time part and wraps around
//! midnight; `time - time` is an interval of microseconds only; `date + time` is a timestamp.
//!
//! A precision `p` (0 to 6) rounds to `10^(6-p)` microseconds, halves away from zero of the
//! value's microseconds: for a time that is up; for a timestamp it is away from PostgreSQL's
//! epoch, 2000-01-01 (its `AdjustTimestampForTypmod`), so a half before 2000 rounds down.

use super::decode::{decode_time, DtErr};
use crate::error::EvalError;
use crate::interval::{write_seconds, Interval, USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE};
use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use rust_decimal::Decimal;
use std::fmt::Write;

/// Reads `time` input text.
pub fn parse_time(text: &str) -> Result<i64, EvalError> {
    decode_time(text).map_err(|e| match e {
        // A date part beyond what kpg's dates hold is still only checked for a time.
        DtErr::BigYear(_) => EvalError::Unsupported(format!("time input \"{text}\"")),
        e => e.into_eval("time", text),
    })
}

/// PostgreSQL's text output of a time: `HH:MM:SS[.ffffff]`.
pub fn write_time(micros: i64, out: &mut String) {
    let hour = micros / USECS_PER_HOUR;
    let minute = micros % USECS_PER_HOUR / USECS_PER_MINUTE;
    write!(out, "{hour:02}:{minute:02}:").unwrap();
    write_seconds((micros % USECS_PER_MINUTE) as u64, out);
}

/// The unit a precision rounds to, in microseconds.
fn scale(precision: u8) -> i64 {
    10i64.pow(6 - u32::from(precision.min(6)))
}

/// A time rounded to `precision` fractional digits (23:59:59.9 as time(0) is 24:00:00).
pub fn round_time(micros: i64, precision: u8) -> i64 {
    let s = scale(precision);
    (micros + s / 2) / s * s
}

/// PostgreSQL's epoch, 2000-01-01 00:00:00, from which timestamps count microseconds.
fn pg_epoch() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2000, 1, 1)
        .expect("valid date")
        .and_time(NaiveTime::MIN)
}

/// A timestamp rounded to `precision` fractional digits, half away from PostgreSQL's epoch.
pub fn round_timestamp(ts: NaiveDateTime, precision: u8) -> Result<NaiveDateTime, EvalError> {
    let s = scale(precision);
    let us = (ts - pg_epoch())
        .num_microseconds()
        .ok_or_else(|| EvalError::DateTimeValueOutOfRange("timestamp".into()))?;
    let rounded = if us >= 0 {
        (us + s / 2) / s * s
    } else {
        -((-us + s / 2) / s * s)
    };
    pg_epoch()
        .checked_add_signed(Duration::microseconds(rounded))
        .ok_or_else(|| EvalError::DateTimeValueOutOfRange("timestamp".into()))
}

/// `time + interval` (`time - interval` adds the negated interval): the interval's time part
/// only, wrapped into one day.
pub fn add_interval(time: i64, iv: &Interval) -> i64 {
    (time + iv.micros % USECS_PER_DAY).rem_euclid(USECS_PER_DAY)
}

/// `time - time`: an interval of microseconds, neither days nor months.
pub fn sub_times(a: i64, b: i64) -> Interval {
    Interval::new(0, 0, a - b)
}

/// `date + time`: the timestamp of that time on that day (24:00:00 is the next midnight).
pub fn date_plus_time(d: NaiveDate, time: i64) -> Result<NaiveDateTime, EvalError> {
    d.and_time(NaiveTime::MIN)
        .checked_add_signed(Duration::microseconds(time))
        .ok_or_else(|| EvalError::DateTimeValueOutOfRange("timestamp".into()))
}

/// The time of day of a timestamp.
pub fn time_of(ts: &NaiveDateTime) -> i64 {
    let t = ts.time();
    i64::from(t.num_seconds_from_midnight()) * 1_000_000 + i64::from(t.nanosecond() / 1000)
}

/// `interval::time`: the interval's time part, wrapped into one day (days and months go).
pub fn interval_time(iv: &Interval) -> i64 {
    iv.micros.rem_euclid(USECS_PER_DAY)
}

/// EXTRACT(unit FROM time), as numeric; the planner admits only the units of a time of day.
pub fn extract_time(unit: super::DateUnit, micros: i64) -> Decimal {
    use super::DateUnit::*;
    let usec_in_minute = micros % USECS_PER_MINUTE;
    match unit {
        Microseconds => Decimal::from(usec_in_minute),
        Milliseconds => Decimal::new(usec_in_minute, 3),
        Second => Decimal::new(usec_in_minute, 6),
        Minute => Decimal::from(micros % USECS_PER_HOUR / USECS_PER_MINUTE),
        Hour => Decimal::from(micros / USECS_PER_HOUR),
        Epoch => Decimal::new(micros, 6),
        other => unreachable!("EXTRACT {other:?} from time"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Result<String, String> {
        let us = parse_time(s).map_err(|e| format!("{} {e}", e.sqlstate()))?;
        let mut out = String::new();
        write_time(us, &mut out);
        Ok(out)
    }

    /// Answers of PostgreSQL 15.
    #[test]
    fn time_input_forms() {
        for (input, want) in [
            ("10:00", "10:00:00"),
            ("10:00:00.1234567", "10:00:00.123457"),
            ("2024-01-05 10:00", "10:00:00"),
            ("040506", "04:05:06"),
            ("0405", "04:05:00"),
            ("1030", "10:30:00"),
            ("100506.5", "10:05:06.5"),
            ("allballs", "00:00:00"),
            ("24:00", "24:00:00"),
            ("23:59:59.9999999", "24:00:00"),
            ("10:00 PM", "22:00:00"),
            ("4:05 AM", "04:05:00"),
            ("10:00 +05", "10:00:00"),
            ("T10:00", "10:00:00"),
        ] {
            assert_eq!(text(input).as_deref(), Ok(want), "{input}");
        }
        for (input, code) in [
            ("2024-01-05", "22007"),
            ("10", "22007"),
            ("10.5", "22007"),
            ("epoch", "22007"),
            ("10:00 America/New_York", "22007"),
            ("24:00:00.000001", "22008"),
            ("13:00 pm", "22008"),
            ("now", "0A000"),
        ] {
            let err = text(input).unwrap_err();
            assert!(err.starts_with(code), "{input}: {err}");
        }
    }

    #[test]
    fn precision_rounds_half_away_from_the_epoch() {
        let ts = |s: &str| super::super::parse_timestamp(s).unwrap();
        let show = |t: NaiveDateTime| super::super::tests::show(&t);
        assert_eq!(
            show(round_timestamp(ts("2024-01-01 10:00:00.1235"), 3).unwrap()),
            "2024-01-01 10:00:00.124"
        );
        assert_eq!(
            show(round_timestamp(ts("1999-12-31 10:00:00.1235"), 3).unwrap()),
            "1999-12-31 10:00:00.123"
        );
        assert_eq!(
            show(round_timestamp(ts("2024-01-01 23:59:59.5"), 0).unwrap()),
            "2024-01-02 00:00:00"
        );
        assert_eq!(round_time(86_399_950_000, 1), 86_400_000_000);
        assert_eq!(round_time(1_250, 3), 1_000);
        assert_eq!(round_time(1_500, 3), 2_000);
    }
}
