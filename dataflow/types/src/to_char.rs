//! PostgreSQL's formatting functions (`formatting.c`): `to_char` of numbers, timestamps,
//! timestamps with time zone (dates are formatted as those) and intervals, `to_number`,
//! `to_date` and `to_timestamp(text, text)`, the picture languages they share, in the C
//! locale (the locale kpg and its test oracle run in: `.` and `,` for `D` and `G`, a blank for
//! `L`, English names).
//!
//! The picture is parsed once per call (`picture.rs`), then a number is turned into digits
//! (`num_value.rs`) and written through it (`num_out.rs`), a datetime is broken into fields
//! and written (`dch_out.rs`), and text is read back into a number (`num_in.rs`) or a date or
//! timestamp (`dch_in.rs`, for `to_date` and `to_timestamp`). Every picture and value gives a
//! result or an error with PostgreSQL's SQLSTATE, never a panic.

mod dch_combine;
mod dch_in;
mod dch_keys;
mod dch_out;
mod num_desc;
mod num_in;
mod num_out;
mod num_value;
mod picture;

use crate::datetime::Zone;
use crate::datum::Datum;
use crate::error::EvalError;
use crate::expr::VariadicFunc;
use crate::interval::Interval;
use crate::numeric::Numeric;
use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};

pub use num_value::NumValue;

/// `to_char(number, picture)`; an empty picture gives empty text.
pub fn number_to_char(value: &NumValue, picture: &str) -> Result<String, EvalError> {
    if picture.is_empty() {
        return Ok(String::new());
    }
    let (nodes, mut desc) = num_desc::NumDesc::parse(picture)?;
    let prepared = num_value::prepare(value, &mut desc)?;
    num_out::write(&nodes, &desc, prepared)
}

/// `to_char(timestamp, picture)`; `None` (NULL) for an empty picture, as PostgreSQL.
pub fn timestamp_to_char(ts: &NaiveDateTime, picture: &str) -> Result<Option<String>, EvalError> {
    datetime_to_char(ts, picture, 0, None)
}

/// `to_char(timestamptz, picture)` in `zone`: the local time's fields, the zone's offset
/// (`OF`, `TZH`, `TZM`) and abbreviation (`TZ`) at that instant.
pub fn timestamptz_to_char(
    utc: &NaiveDateTime,
    picture: &str,
    zone: &Zone,
) -> Result<Option<String>, EvalError> {
    let local = crate::datetime::to_local(utc, zone)?;
    let gmtoff = i64::from(zone.offset_at_utc(utc));
    datetime_to_char(&local, picture, gmtoff, zone_abbrev(zone, utc))
}

/// The zone's abbreviation as PostgreSQL's `TZ` writes it: the time zone database's letters,
/// or its numeric form without a colon (`+0545`, `-03`); nothing for a bare offset setting.
fn zone_abbrev(zone: &Zone, utc: &NaiveDateTime) -> Option<String> {
    if matches!(zone, Zone::Fixed { abbrev, .. } if abbrev.is_empty()) {
        return None;
    }
    let a = zone.abbrev_at_utc(utc);
    Some(if a.starts_with(['+', '-']) {
        a.replace(':', "")
    } else {
        a
    })
}

fn datetime_to_char(
    ts: &NaiveDateTime,
    picture: &str,
    gmtoff: i64,
    tzn: Option<String>,
) -> Result<Option<String>, EvalError> {
    if picture.is_empty() {
        return Ok(None);
    }
    let nodes = picture::parse(picture, dch_keys::TABLE, true);
    let date = ts.date();
    let (y, m, d) = (
        i64::from(date.year()),
        i64::from(date.month()),
        i64::from(date.day()),
    );
    let tm = dch_out::Tm {
        year: y,
        mon: m,
        mday: d,
        hour: i64::from(ts.hour()),
        min: i64::from(ts.minute()),
        sec: i64::from(ts.second()),
        fsec: i64::from(ts.nanosecond() / 1000),
        yday: i64::from(date.ordinal()),
        wday: i64::from(date.weekday().num_days_from_sunday()),
        gmtoff,
        tzn,
    };
    dch_out::format(&nodes, &tm, false).map(Some)
}

/// `to_char(interval, picture)`; `None` (NULL) for an empty picture.
pub fn interval_to_char(iv: &Interval, picture: &str) -> Result<Option<String>, EvalError> {
    if picture.is_empty() {
        return Ok(None);
    }
    let nodes = picture::parse(picture, dch_keys::TABLE, true);
    let (months, days, micros) = iv.fields();
    let (year, mon) = (i64::from(months / 12), i64::from(months % 12));
    let mday = i64::from(days);
    let secs = micros / 1_000_000;
    let tm = dch_out::Tm {
        year,
        mon,
        mday,
        hour: secs / 3600,
        min: secs / 60 % 60,
        sec: secs % 60,
        fsec: micros % 1_000_000,
        yday: (year * 12 + mon) * 30 + mday,
        wday: 0,
        gmtoff: 0,
        tzn: None,
    };
    dch_out::format(&nodes, &tm, true).map(Some)
}

/// Evaluates `to_char` or `to_number` over non-NULL arguments.
pub(crate) fn eval(func: VariadicFunc, args: &[Datum]) -> Result<Datum, EvalError> {
    let text = |s: String| Datum::String(s);
    let opt = |s: Option<String>| s.map_or(Datum::Null, Datum::String);
    Ok(match (func, args) {
        (VariadicFunc::ToNumber, [Datum::String(t), Datum::String(p)]) => {
            if p.is_empty() {
                return Ok(Datum::Null);
            }
            Datum::Numeric(to_number(t, p)?)
        }
        (VariadicFunc::ToDate, [Datum::String(t), Datum::String(p)]) => Datum::Date(to_date(t, p)?),
        (VariadicFunc::ToChar, [v, Datum::String(p)]) => match v {
            Datum::Int16(i) => text(number_to_char(&NumValue::Int4((*i).into()), p)?),
            Datum::Int32(i) => text(number_to_char(&NumValue::Int4(*i), p)?),
            Datum::Int64(i) => text(number_to_char(&NumValue::Int8(*i), p)?),
            Datum::Numeric(n) => text(number_to_char(&NumValue::Numeric(n.clone()), p)?),
            Datum::Float32(f) => text(number_to_char(&NumValue::Float4(f.0), p)?),
            Datum::Float64(f) => text(number_to_char(&NumValue::Float8(f.0), p)?),
            Datum::Timestamp(ts) => opt(timestamp_to_char(ts, p)?),
            Datum::Interval(iv) => opt(interval_to_char(iv, p)?),
            other => {
                return Err(EvalError::Internal(format!("to_char of {other:?}")));
            }
        },
        (func, args) => {
            return Err(EvalError::Internal(format!("{func:?} over {args:?}")));
        }
    })
}

/// `to_date(text, picture)`: the date the text writes through the picture.
pub fn to_date(text: &str, picture: &str) -> Result<NaiveDate, EvalError> {
    let p = dch_in::parse(text, picture)?;
    let out_of_range = || EvalError::DateTimeOutOfRange {
        type_name: "date".into(),
        value: text.to_string(),
    };
    // PostgreSQL's Julian day arithmetic holds from 4714-11-24 BC.
    if p.year < -4713 || p.year == -4713 && p.mon < 11 || p.year >= 5_874_898 {
        return Err(out_of_range());
    }
    let j = dch_out::date2j(p.year, p.mon, p.mday);
    // Dates run from Julian day 0 to the end of 5874897 (Julian day 2147483494 after it).
    if !(0..2_147_483_494).contains(&j) {
        return Err(out_of_range());
    }
    julian_date(j).ok_or_else(|| beyond(text))
}

/// A date PostgreSQL holds past the year 262143, where kpg's dates end (as for input).
fn beyond(text: &str) -> EvalError {
    EvalError::Unsupported(format!(
        "the date or timestamp \"{text}\" (after the year 262143)"
    ))
}

/// `to_timestamp(text, picture)`: the instant the text writes, read in `zone` unless the text
/// gives an offset (`TZH`, `TZM`), rounded to the precision of an `FF1`..`FF6` field.
pub fn to_timestamp(text: &str, picture: &str, zone: &Zone) -> Result<NaiveDateTime, EvalError> {
    let p = dch_in::parse(text, picture)?;
    let out_of_range = || EvalError::DateTimeValueOutOfRange("timestamp".into());
    let j = dch_out::date2j(p.year, p.mon, p.mday);
    // PostgreSQL's timestamps run from 4714-11-24 BC (Julian day 0) to the end of 294276
    // (294277-01-01 is Julian day 109203528).
    if !(0..109_203_528).contains(&j) {
        return Err(out_of_range());
    }
    let date = julian_date(j).ok_or_else(|| beyond(text))?;
    let local = date
        .and_hms_opt(0, 0, 0)
        .and_then(|d| {
            d.checked_add_signed(chrono::Duration::microseconds(
                ((p.hour * 60 + p.min) * 60 + p.sec) * 1_000_000 + p.fsec,
            ))
        })
        .ok_or_else(out_of_range)?;
    let utc = match p.east {
        Some(east) => local
            .checked_sub_signed(chrono::Duration::seconds(east))
            .ok_or_else(out_of_range)?,
        None => crate::datetime::from_local(&local, zone)?,
    };
    match p.fprec {
        Some(precision) => crate::datetime::round_timestamp(utc, precision),
        None => Ok(utc),
    }
}

/// The date of a Julian day, if chrono holds it.
fn julian_date(j: i64) -> Option<NaiveDate> {
    // Julian day 2451545 is 2000-01-01, day 730120 of the common era.
    i32::try_from(j - 1_721_425)
        .ok()
        .and_then(NaiveDate::from_num_days_from_ce_opt)
}

/// `to_number(text, picture)`.
pub fn to_number(text: &str, picture: &str) -> Result<Numeric, EvalError> {
    num_in::to_number(text, picture)
}

#[cfg(test)]
mod tests;
