//! `timestamp` (without time zone) and the date/time functions: text I/O, arithmetic with
//! intervals, EXTRACT / date_part and date_trunc, with PostgreSQL 15's rules.
//!
//! A timestamp is a `chrono::NaiveDateTime` with microsecond precision (input is rounded to
//! microseconds, as PostgreSQL does). Adding an interval adds months first (clamping the day
//! to the month's end), then days, then microseconds, as PostgreSQL's `timestamp_pl_interval`.
//! EXTRACT returns numeric with PostgreSQL 15's scales (seconds with 6 decimals, milliseconds
//! with 3, epoch with 6 for timestamps and intervals, integers otherwise); `date_part` returns
//! the same value as double precision. Which units a type supports is decided by the planner
//! (`DateUnit::check_extract`), so evaluation never meets an unsupported one.

use crate::error::EvalError;
use crate::interval::{write_seconds, Interval, USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE};
use chrono::{Datelike, Duration, Months, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use rust_decimal::prelude::*;
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
}

/// The three kinds of value EXTRACT reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateKind {
    Date,
    Timestamp,
    Interval,
}

impl DateKind {
    pub fn type_name(self) -> &'static str {
        match self {
            DateKind::Date => "date",
            DateKind::Timestamp => "timestamp without time zone",
            DateKind::Interval => "interval",
        }
    }
}

impl DateUnit {
    /// Looks a unit name up the way PostgreSQL does (case-insensitive, with its abbreviations).
    /// `None` for a name PostgreSQL does not know; a known unit kpg does not handle (time
    /// zones) is `Some(Err(name))`.
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
            "timezone" | "timezone_h" | "timezone_m" => return Some(Err(lower)),
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
        }
    }

    /// Whether EXTRACT of this unit from a value of `kind` exists in PostgreSQL; the error is
    /// PostgreSQL's 0A000 message ("unit "hour" not supported for type date").
    pub fn check_extract(self, kind: DateKind) -> Result<(), String> {
        use DateUnit::*;
        let ok = match kind {
            DateKind::Date => !matches!(self, Microseconds | Milliseconds | Second | Minute | Hour),
            DateKind::Timestamp => true,
            DateKind::Interval => !matches!(self, Week | Dow | Isodow | Doy | Isoyear | Julian),
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

    /// Whether date_trunc of this unit exists for timestamps (`interval` false) or intervals.
    pub fn check_trunc(self, interval: bool) -> Result<(), String> {
        use DateUnit::*;
        let ok = match self {
            Microseconds | Milliseconds | Second | Minute | Hour | Day | Month | Quarter | Year
            | Decade | Century | Millennium => true,
            Week => !interval,
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            let ty = if interval {
                "interval"
            } else {
                "timestamp without time zone"
            };
            Err(format!(
                "unit \"{}\" not supported for type {ty}",
                self.name()
            ))
        }
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

/// Parses timestamp input: a date, optionally followed by `T` or blanks and
/// `HH:MM[:SS[.frac]]`; a trailing time zone is ignored, as PostgreSQL does for `timestamp
/// without time zone`.
pub fn parse_timestamp(text: &str) -> Result<NaiveDateTime, EvalError> {
    let invalid = || EvalError::InvalidTextRepresentation {
        type_name: "timestamp".into(),
        value: text.to_string(),
    };
    let s = text.trim();
    let (date_part, rest) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], s[i + 1..].trim_start()),
        None => (s, ""),
    };
    let date = parse_date(date_part).ok_or_else(invalid)?;
    if rest.is_empty() {
        return Ok(date.and_time(NaiveTime::MIN));
    }
    // Cut a time zone (`+05`, `-08:00`, `Z`, `UTC`) off the end.
    let time_end = rest
        .char_indices()
        .find(|(i, c)| (*i > 0 && matches!(c, '+' | '-')) || c.is_ascii_alphabetic() || *c == ' ')
        .map(|(i, _)| i)
        .unwrap_or(rest.len());
    let time = parse_time(&rest[..time_end]).ok_or_else(invalid)?;
    let mut ts = date.and_time(NaiveTime::MIN);
    ts = ts.checked_add_signed(time).ok_or_else(invalid)?;
    Ok(ts)
}

/// Date input: `YYYY-MM-DD`, optionally followed by a time and a time zone, or by a time zone
/// alone, which PostgreSQL accepts and ignores (pgjdbc's setDate sends `2024-01-31 +00`,
/// node-postgres sends a JavaScript Date as `1999-12-31T00:59:58.250+00:00`).
pub fn parse_date_text(text: &str) -> Result<NaiveDate, EvalError> {
    let invalid = || EvalError::InvalidTextRepresentation {
        type_name: "date".into(),
        value: text.to_string(),
    };
    let s = text.trim();
    let (date_part, rest) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], s[i + 1..].trim()),
        None => (s, ""),
    };
    let date = parse_date(date_part).ok_or_else(invalid)?;
    let zone_only = rest.len() > 1
        && rest.starts_with(['+', '-'])
        && rest[1..].chars().all(|c| c.is_ascii_digit() || c == ':');
    if rest.is_empty() || zone_only || parse_timestamp(s).is_ok() {
        Ok(date)
    } else {
        Err(invalid())
    }
}

/// `YYYY-MM-DD` with one- or two-digit month and day.
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let mut it = s.split('-');
    let y: i32 = it.next()?.parse().ok()?;
    let m: u32 = it.next()?.parse().ok()?;
    let d: u32 = it.next()?.parse().ok()?;
    if it.next().is_some() {
        return None;
    }
    NaiveDate::from_ymd_opt(y, m, d)
}

/// `HH:MM[:SS[.frac]]` as a duration (24:00:00 allowed), rounded to microseconds.
fn parse_time(s: &str) -> Option<Duration> {
    let parts: Vec<&str> = s.split(':').collect();
    let int = |p: &str| -> Option<i64> {
        (!p.is_empty() && p.len() <= 2 && p.chars().all(|c| c.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let (h, m, sec) = match parts.as_slice() {
        [h, m] => (int(h)?, int(m)?, Decimal::ZERO),
        [h, m, sec] => {
            if sec.is_empty() || !sec.chars().all(|c| c.is_ascii_digit() || c == '.') {
                return None;
            }
            (int(h)?, int(m)?, Decimal::from_str(sec).ok()?)
        }
        _ => return None,
    };
    let usec = (sec * Decimal::from(1_000_000))
        .round_dp_with_strategy(0, RoundingStrategy::MidpointNearestEven)
        .to_i64()?;
    if m > 59 || usec > 60_000_000 || h > 24 {
        return None;
    }
    let total = h * USECS_PER_HOUR + m * USECS_PER_MINUTE + usec;
    if total > USECS_PER_DAY {
        return None;
    }
    Some(Duration::microseconds(total))
}

fn ts_overflow() -> EvalError {
    EvalError::NumericOutOfRange("timestamp".into())
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
        .ok_or_else(|| EvalError::NumericOutOfRange("interval".into()))?;
    Ok(Interval::new(0, 0, us).justify_hours())
}

fn julian_day(d: &NaiveDate) -> i64 {
    // Julian day number of 1970-01-01 is 2440588.
    i64::from(d.num_days_from_ce()) - 719_163 + 2_440_588
}

fn year_based(unit: DateUnit, year: i32) -> Option<i64> {
    let y = i64::from(year);
    // chrono's year 0 is 1 BC; PostgreSQL's decade/century/millennium rules work on the
    // astronomical year for positive years and on the BC year otherwise.
    Some(match unit {
        DateUnit::Year => {
            if y <= 0 {
                y - 1
            } else {
                y
            }
        }
        DateUnit::Decade => {
            if y >= 0 {
                y / 10
            } else {
                -((8 - (y - 1)) / 10)
            }
        }
        DateUnit::Century => {
            if y > 0 {
                (y + 99) / 100
            } else {
                -((99 - (y - 1)) / 100)
            }
        }
        DateUnit::Millennium => {
            if y > 0 {
                (y + 999) / 1000
            } else {
                -((999 - (y - 1)) / 1000)
            }
        }
        _ => return None,
    })
}

/// EXTRACT on the date part of a date or timestamp (units that depend on the day only).
fn extract_day_fields(unit: DateUnit, d: &NaiveDate) -> Option<i64> {
    use DateUnit::*;
    Some(match unit {
        Day => d.day().into(),
        Month => d.month().into(),
        Quarter => ((d.month() - 1) / 3 + 1).into(),
        Week => d.iso_week().week().into(),
        Isoyear => {
            let y = d.iso_week().year();
            i64::from(if y <= 0 { y - 1 } else { y })
        }
        Dow => d.weekday().num_days_from_sunday().into(),
        Isodow => d.weekday().number_from_monday().into(),
        Doy => d.ordinal().into(),
        Year | Decade | Century | Millennium => year_based(unit, d.year())?,
        _ => return None,
    })
}

fn numeric(value: i64, scale: u32) -> Decimal {
    Decimal::new(value, scale)
}

/// EXTRACT(unit FROM date), as numeric.
pub fn extract_date(unit: DateUnit, d: &NaiveDate) -> Decimal {
    match unit {
        DateUnit::Epoch => Decimal::from(
            (*d - NaiveDate::from_ymd_opt(1970, 1, 1).expect("epoch")).num_days() * 86_400,
        ),
        DateUnit::Julian => Decimal::from(julian_day(d)),
        _ => Decimal::from(extract_day_fields(unit, d).expect("planner checked the unit")),
    }
}

/// EXTRACT(unit FROM timestamp), as numeric.
pub fn extract_timestamp(unit: DateUnit, ts: &NaiveDateTime) -> Decimal {
    use DateUnit::*;
    let t = ts.time();
    let usec_in_minute = i64::from(t.second()) * 1_000_000 + i64::from(t.nanosecond() / 1000);
    match unit {
        Microseconds => Decimal::from(usec_in_minute),
        Milliseconds => numeric(usec_in_minute, 3),
        Second => numeric(usec_in_minute, 6),
        Minute => t.minute().into(),
        Hour => t.hour().into(),
        Epoch => {
            let us = ts.and_utc().timestamp_micros();
            numeric(us, 6)
        }
        Julian => {
            let day_us = i64::from(t.num_seconds_from_midnight()) * 1_000_000
                + i64::from(t.nanosecond() / 1000);
            let frac = crate::numeric::Numeric::from(day_us)
                .checked_div(&USECS_PER_DAY.into())
                .ok()
                .and_then(|f| f.to_decimal())
                .unwrap_or_default();
            Decimal::from(julian_day(&ts.date())) + frac
        }
        _ => Decimal::from(extract_day_fields(unit, &ts.date()).expect("planner checked the unit")),
    }
}

/// EXTRACT(unit FROM interval), as numeric.
pub fn extract_interval(unit: DateUnit, iv: &Interval) -> Decimal {
    use DateUnit::*;
    let usec_in_minute = iv.micros % USECS_PER_MINUTE;
    let year = i64::from(iv.months / 12);
    match unit {
        Microseconds => Decimal::from(usec_in_minute),
        Milliseconds => numeric(usec_in_minute, 3),
        Second => numeric(usec_in_minute, 6),
        Minute => Decimal::from((iv.micros % USECS_PER_HOUR) / USECS_PER_MINUTE),
        Hour => Decimal::from(iv.micros / USECS_PER_HOUR),
        Day => Decimal::from(iv.days),
        Month => Decimal::from(iv.months % 12),
        Quarter => Decimal::from((iv.months % 12) / 3 + 1),
        Year => Decimal::from(year),
        Decade => Decimal::from(year / 10),
        Century => Decimal::from(year / 100),
        Millennium => Decimal::from(year / 1000),
        Epoch => {
            // 365.25 days a year, 30 days a month, computed in quarter days as PostgreSQL does.
            let secs_from_day_month = (1461 * i64::from(iv.months / 12)
                + 120 * i64::from(iv.months % 12)
                + 4 * i64::from(iv.days))
                * (86_400 / 4);
            let us = i128::from(secs_from_day_month) * 1_000_000 + i128::from(iv.micros);
            Decimal::from_i128_with_scale(us, 6)
        }
        Week | Dow | Isodow | Doy | Isoyear | Julian => unreachable!("planner checked the unit"),
    }
}

/// date_trunc(unit, timestamp).
pub fn trunc_timestamp(unit: DateUnit, ts: &NaiveDateTime) -> NaiveDateTime {
    use DateUnit::*;
    let d = ts.date();
    let t = ts.time();
    let ymd = |y: i32, m: u32| {
        NaiveDate::from_ymd_opt(y, m, 1)
            .expect("valid month start")
            .and_time(NaiveTime::MIN)
    };
    let hms = |h: u32, m: u32, s: u32, ns: u32| {
        d.and_time(NaiveTime::from_hms_nano_opt(h, m, s, ns).expect("valid time"))
    };
    match unit {
        Microseconds => *ts,
        Milliseconds => hms(
            t.hour(),
            t.minute(),
            t.second(),
            t.nanosecond() / 1_000_000 * 1_000_000,
        ),
        Second => hms(t.hour(), t.minute(), t.second(), 0),
        Minute => hms(t.hour(), t.minute(), 0, 0),
        Hour => hms(t.hour(), 0, 0, 0),
        Day => d.and_time(NaiveTime::MIN),
        Week => {
            (d - Duration::days(d.weekday().num_days_from_monday().into())).and_time(NaiveTime::MIN)
        }
        Month => ymd(d.year(), d.month()),
        Quarter => ymd(d.year(), (d.month() - 1) / 3 * 3 + 1),
        Year => ymd(d.year(), 1),
        // PostgreSQL's decades start at years divisible by 10, centuries and millennia at
        // years ending in 1 (for AD years).
        Decade => ymd(d.year() - d.year().rem_euclid(10), 1),
        Century => ymd((d.year() - 1).div_euclid(100) * 100 + 1, 1),
        Millennium => ymd((d.year() - 1).div_euclid(1000) * 1000 + 1, 1),
        Dow | Isodow | Doy | Isoyear | Epoch | Julian => unreachable!("planner checked the unit"),
    }
}

/// date_trunc(unit, interval).
pub fn trunc_interval(unit: DateUnit, iv: &Interval) -> Interval {
    use DateUnit::*;
    let cut = |us: i64| iv.micros / us * us;
    let years = |n: i32| Interval::new(iv.months / (12 * n) * (12 * n), 0, 0);
    match unit {
        Microseconds => *iv,
        Milliseconds => Interval::new(iv.months, iv.days, cut(1000)),
        Second => Interval::new(iv.months, iv.days, cut(1_000_000)),
        Minute => Interval::new(iv.months, iv.days, cut(USECS_PER_MINUTE)),
        Hour => Interval::new(iv.months, iv.days, cut(USECS_PER_HOUR)),
        Day => Interval::new(iv.months, iv.days, 0),
        Month => Interval::new(iv.months, 0, 0),
        Quarter => Interval::new(iv.months / 3 * 3, 0, 0),
        Year => years(1),
        Decade => years(10),
        Century => years(100),
        Millennium => years(1000),
        Week | Dow | Isodow | Doy | Isoyear | Epoch | Julian => {
            unreachable!("planner checked the unit")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_input_ignores_a_time_and_zone() {
        let d = |s: &str| parse_date_text(s).map(|d| d.to_string());
        for ok in [
            "1999-12-31",
            " 1999-12-31 ",
            "1999-12-31 +00",
            "1999-12-31 -08:00",
            "1999-12-31 00:00:00",
            "1999-12-31T00:59:58.250+00:00",
            "1999-12-31 23:59:59.999999",
        ] {
            assert_eq!(d(ok), Ok("1999-12-31".into()), "{ok}");
        }
        for bad in [
            "1999-12-31 junk",
            "1999-02-30",
            "1999-12-31 25:00",
            "31-12-1999",
            "",
        ] {
            assert_eq!(d(bad).unwrap_err().sqlstate(), "22007", "{bad}");
        }
    }

    fn ts(s: &str) -> NaiveDateTime {
        parse_timestamp(s).unwrap()
    }

    fn show(t: &NaiveDateTime) -> String {
        let mut o = String::new();
        write_timestamp(t, &mut o);
        o
    }

    #[test]
    fn timestamp_text_io() {
        // Expected texts are PostgreSQL 15's.
        assert_eq!(show(&ts("2020-01-01 00:00:00+05")), "2020-01-01 00:00:00");
        assert_eq!(
            show(&ts("2020-01-01T10:11:12.123")),
            "2020-01-01 10:11:12.123"
        );
        assert_eq!(show(&ts("2020-1-2 3:4")), "2020-01-02 03:04:00");
        assert_eq!(
            show(&ts("2020-01-01 10:11:12.0000005")),
            "2020-01-01 10:11:12"
        );
        assert!(parse_timestamp("x").is_err());
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

    #[test]
    fn extract_and_trunc() {
        let t = ts("2020-01-01 01:02:03.5");
        assert_eq!(
            extract_timestamp(DateUnit::Second, &t).to_string(),
            "3.500000"
        );
        assert_eq!(
            extract_timestamp(DateUnit::Milliseconds, &t).to_string(),
            "3500.000"
        );
        assert_eq!(
            extract_timestamp(DateUnit::Epoch, &t).to_string(),
            "1577840523.500000"
        );
        let d = NaiveDate::from_ymd_opt(2021, 1, 1).unwrap();
        assert_eq!(extract_date(DateUnit::Week, &d).to_string(), "53");
        assert_eq!(extract_date(DateUnit::Isoyear, &d).to_string(), "2020");
        assert_eq!(
            show(&trunc_timestamp(DateUnit::Week, &ts("2020-01-01 05:00"))),
            "2019-12-30 00:00:00"
        );
        assert_eq!(
            show(&trunc_timestamp(DateUnit::Century, &ts("2001-05-01"))),
            "2001-01-01 00:00:00"
        );
        assert_eq!(
            extract_interval(DateUnit::Epoch, &Interval::new(13, 0, 0)).to_string(),
            "34149600.000000"
        );
    }
}
