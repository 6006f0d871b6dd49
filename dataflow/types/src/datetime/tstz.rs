//! `timestamp with time zone`: a UTC instant (a `NaiveDateTime` read as UTC, microsecond
//! precision), and what PostgreSQL computes from it in a time zone.
//!
//! Everything that depends on a zone takes it explicitly: the planner passes the session's
//! `TimeZone` as a text argument (`zone_arg`), so dataflows evaluate without a session, and a
//! maintained view knows which zone it was planned with. The zone text of an expression is
//! either a user's (`AT TIME ZONE 'EST'`, read as PostgreSQL reads a function's zone) or the
//! session's, marked by a leading NUL character, which no SQL text can hold (read as the
//! `TimeZone` setting reads it; the setting's `CET` is the database zone with summer time, the
//! abbreviation `CET` is always +01). `SESSION_ZONE` builds and recognizes the mark.
//!
//! As in PostgreSQL: text without a zone is read in the session's zone; `+ interval` adds
//! months and days to the local date in the zone (so a day across a DST change is 23 or 25
//! hours) and the time part to the instant; `date_trunc` truncates the local time and, from
//! `day` up, reads the result back in the zone; EXTRACT reads local fields, except `epoch`.

use super::tz::{Zone, ZoneError};
use super::{add_interval, decode, extract, DateUnit};
use crate::error::EvalError;
use crate::interval::Interval;
use chrono::{Duration, NaiveDateTime, NaiveTime};
use rust_decimal::Decimal;

/// The mark of the session's zone in a zone argument: it precedes the `TimeZone` value.
pub const SESSION_ZONE: char = '\0';

/// The zone text of an expression: the session's (`SESSION_ZONE` then the `TimeZone`
/// value) or a user's.
pub fn zone_arg(text: &str) -> Result<Zone, EvalError> {
    let zone = match text.strip_prefix(SESSION_ZONE) {
        Some(setting) => Zone::parse_setting(setting).map(|(z, _)| z),
        None => Zone::parse_function(text),
    };
    zone.map_err(|e| match e {
        ZoneError::Unknown => EvalError::UnknownTimeZone(text.trim().to_string()),
        ZoneError::Unsupported => {
            EvalError::Unsupported(format!("the POSIX time zone \"{}\" with summer time", text))
        }
    })
}

fn overflow() -> EvalError {
    EvalError::DateTimeValueOutOfRange("timestamp".into())
}

/// timestamptz input: the zone the text names, else `session`.
pub fn parse_timestamptz(text: &str, session: &Zone) -> Result<NaiveDateTime, EvalError> {
    let err = |e: decode::DtErr| e.into_eval("timestamp with time zone", text);
    let (date, micros, zone) = decode::decode_zoned(text).map_err(err)?;
    let local = date
        .and_time(NaiveTime::MIN)
        .checked_add_signed(Duration::microseconds(micros))
        .ok_or_else(|| err(decode::DtErr::OutOfRange))?;
    let zone = match zone {
        Some(z) => Zone::from_input(&z).map_err(|e| match e {
            ZoneError::Unknown => err(decode::DtErr::Syntax),
            ZoneError::Unsupported => EvalError::Unsupported(format!(
                "timestamp with time zone input \"{text}\" (a POSIX zone with summer time)"
            )),
        })?,
        None => session.clone(),
    };
    zone.local_to_utc(&local)
        .ok_or_else(|| err(decode::DtErr::OutOfRange))
}

/// Text input of a value of type `ty` where the session's zone is `zone` (COPY FROM): a
/// timestamptz without a zone is read in it. Arrays of timestamptz are read in UTC only.
pub fn parse_text_in_zone(
    text: &str,
    ty: &crate::ScalarType,
    zone: &Zone,
) -> Result<crate::Datum, EvalError> {
    use crate::{Datum, ScalarType};
    match ty {
        ScalarType::TimestampTz => parse_timestamptz(text, zone).map(Datum::TimestampTz),
        ScalarType::TimestampTzOf(p) => {
            super::round_timestamp(parse_timestamptz(text, zone)?, *p).map(Datum::TimestampTz)
        }
        ScalarType::Array(e) if e.get().base() == ScalarType::TimestampTz && !zone.is_utc() => {
            Err(EvalError::Unsupported(
                "text input of arrays of timestamp with time zone outside UTC".into(),
            ))
        }
        ty => Datum::parse_text(text, ty),
    }
}

/// The local time in `zone` of the instant `utc` (timestamptz to timestamp, `AT TIME ZONE`).
pub fn to_local(utc: &NaiveDateTime, zone: &Zone) -> Result<NaiveDateTime, EvalError> {
    zone.utc_to_local(utc).ok_or_else(overflow)
}

/// The instant of the local time `local` in `zone` (timestamp to timestamptz).
pub fn from_local(local: &NaiveDateTime, zone: &Zone) -> Result<NaiveDateTime, EvalError> {
    zone.local_to_utc(local).ok_or_else(overflow)
}

/// `timestamptz + interval` in `zone`: months, then days on the local date (read back in the
/// zone), then the time part on the instant.
pub fn add_interval_tz(
    utc: NaiveDateTime,
    iv: &Interval,
    zone: &Zone,
) -> Result<NaiveDateTime, EvalError> {
    let mut t = utc;
    // Months, then days, each resolved in the zone, as PostgreSQL's timestamptz_pl_interval.
    for step in [Interval::new(iv.months, 0, 0), Interval::new(0, iv.days, 0)] {
        if step.months != 0 || step.days != 0 {
            let local = to_local(&t, zone)?;
            t = from_local(&add_interval(local, &step)?, zone)?;
        }
    }
    t.checked_add_signed(Duration::microseconds(iv.micros))
        .ok_or_else(overflow)
}

/// date_trunc(unit, timestamptz) in `zone`.
pub fn trunc_timestamptz(
    unit: DateUnit,
    utc: &NaiveDateTime,
    zone: &Zone,
) -> Result<NaiveDateTime, EvalError> {
    let east = zone.offset_at_utc(utc);
    let local = to_local(utc, zone)?;
    let truncated = extract::trunc_timestamp(unit, &local);
    let redo_zone = !matches!(
        unit,
        DateUnit::Hour
            | DateUnit::Minute
            | DateUnit::Second
            | DateUnit::Milliseconds
            | DateUnit::Microseconds
    );
    if redo_zone {
        from_local(&truncated, zone)
    } else {
        truncated
            .checked_sub_signed(Duration::seconds(east.into()))
            .ok_or_else(overflow)
    }
}

/// EXTRACT(unit FROM timestamptz) in `zone`: local fields, but `epoch` of the instant.
pub fn extract_timestamptz(
    unit: DateUnit,
    utc: &NaiveDateTime,
    zone: &Zone,
) -> Result<Decimal, EvalError> {
    let east = i64::from(zone.offset_at_utc(utc));
    match unit {
        DateUnit::Epoch => return Ok(extract::extract_timestamp(unit, utc)),
        DateUnit::Timezone => return Ok(Decimal::from(east)),
        DateUnit::TimezoneHour => return Ok(Decimal::from(east / 3600)),
        DateUnit::TimezoneMinute => return Ok(Decimal::from(east / 60 % 60)),
        _ => {}
    }
    Ok(extract::extract_timestamp(unit, &to_local(utc, zone)?))
}

/// to_timestamp(double precision): seconds since 1970-01-01 UTC; NaN and values out of
/// range are errors as in PostgreSQL.
pub fn to_timestamp(secs: f64) -> Result<NaiveDateTime, EvalError> {
    if secs.is_nan() {
        return Err(EvalError::TimestampNaN);
    }
    if secs.is_infinite() {
        return Err(EvalError::Unsupported(
            "infinite timestamps (to_timestamp of infinity)".into(),
        ));
    }
    let micros = (secs * 1_000_000.0).round();
    if micros.abs() > 9.2e18 {
        return Err(overflow());
    }
    chrono::DateTime::from_timestamp_micros(micros as i64)
        .map(|t| t.naive_utc())
        .filter(|t| t.and_utc().timestamp() < 9_224_318_016_000)
        .ok_or_else(overflow)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn input_with_and_without_zones() {
        let utc = Zone::UTC;
        let ny = zone_arg("\0America/New_York").unwrap();
        assert_eq!(
            parse_timestamptz("2024-03-10 12:00:00+02", &ny).unwrap(),
            ts("2024-03-10 10:00:00")
        );
        assert_eq!(
            parse_timestamptz("2024-03-10 12:00 Europe/Paris", &utc).unwrap(),
            ts("2024-03-10 11:00:00")
        );
        assert_eq!(
            parse_timestamptz("2024-03-10 12:00 UTC", &ny).unwrap(),
            ts("2024-03-10 12:00:00")
        );
        assert_eq!(
            parse_timestamptz("2024-03-10 12:00", &ny).unwrap(),
            ts("2024-03-10 16:00:00")
        );
        assert_eq!(
            parse_timestamptz("2024-01-01 00:00 UTC+3", &utc).unwrap(),
            ts("2024-01-01 03:00:00")
        );
        assert!(parse_timestamptz("2024-01-01 00:00 foo/bar", &utc).is_err());
    }

    #[test]
    fn days_follow_the_local_clock_across_dst() {
        let ny = zone_arg("\0America/New_York").unwrap();
        let day = Interval::new(0, 1, 0);
        // 2024-03-09 12:00 EST + 1 day = 2024-03-10 12:00 EDT: 23 hours later.
        let t = add_interval_tz(ts("2024-03-09 17:00:00"), &day, &ny).unwrap();
        assert_eq!(t, ts("2024-03-10 16:00:00"));
        let hours = Interval::new(0, 0, 24 * 3_600_000_000);
        assert_eq!(
            add_interval_tz(ts("2024-03-09 17:00:00"), &hours, &ny).unwrap(),
            ts("2024-03-10 17:00:00")
        );
        let paris = zone_arg("\0Europe/Paris").unwrap();
        assert_eq!(
            trunc_timestamptz(DateUnit::Day, &ts("2024-10-27 12:00:00"), &paris).unwrap(),
            ts("2024-10-26 22:00:00")
        );
    }

    #[test]
    fn session_and_function_zones_differ_for_cet() {
        let summer = ts("2024-07-01 12:00:00");
        assert_eq!(zone_arg("\0CET").unwrap().offset_at_utc(&summer), 7200);
        assert_eq!(zone_arg("CET").unwrap().offset_at_utc(&summer), 3600);
    }
}
