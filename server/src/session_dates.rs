//! The date/time session settings — `TimeZone`, `DateStyle`, `IntervalStyle` — checked as
//! PostgreSQL 15 checks them, and what they make for the rest of the server: the output style
//! of results (`kpg_types::OutputStyle`) and the statement context the planner reads
//! (`statement_context.rs`).
//!
//! What kpg follows: every zone of the IANA database, fixed offsets (`+02`, `-7`,
//! `INTERVAL '+05:30'`, POSIX `UTC+3` without summer-time rules); the four output styles with
//! each input order (MDY, DMY, YMD; `German` alone implies DMY), which statements read through
//! `statement_context.rs`; the four interval styles (`sql_standard` also in input, where a
//! leading minus then negates every field). What it refuses with 0A000 rather than ignore:
//! POSIX zones with summer time.

use kpg_types::datetime::{self, DateOrder, DateSettings, DateStyle, Zone, ZoneError};
use kpg_types::{Interval, OutputStyle};

use crate::error::ExecError;
use crate::statement_context::StatementContext;

fn invalid(name: &str, value: &str) -> ExecError {
    ExecError::new(
        "22023",
        format!("invalid value for parameter \"{name}\": \"{value}\""),
    )
}

/// A `TimeZone` value as SHOW prints it, or why it is refused.
pub fn check_time_zone(value: &str) -> Result<String, ExecError> {
    let v = value.trim();
    if v.len() > 8 && v[..8].eq_ignore_ascii_case("interval") {
        return interval_zone(value).map(|east| Zone::offset_setting(east).1);
    }
    match Zone::parse_setting(v) {
        Ok((_, shown)) => Ok(shown),
        Err(ZoneError::Unknown) => Err(invalid("TimeZone", value)),
        Err(ZoneError::Unsupported) => Err(ExecError::unsupported(format!(
            "TimeZone = '{value}' (a POSIX time zone with summer-time rules; use a zone \
             name such as America/New_York)"
        ))),
    }
}

/// `SET TIME ZONE INTERVAL '...'`: the offset east of UTC in seconds.
fn interval_zone(value: &str) -> Result<i32, ExecError> {
    let quoted = value
        .split_once('\'')
        .and_then(|(_, rest)| rest.rsplit_once('\''))
        .map(|(q, _)| q)
        .ok_or_else(|| invalid("TimeZone", value))?;
    let iv = Interval::parse(quoted, None).map_err(|_| invalid("TimeZone", value))?;
    let refuse = |what: &str| {
        invalid("TimeZone", value)
            .with_detail(format!("Cannot specify {what} in time zone interval."))
    };
    if iv.months != 0 {
        return Err(refuse("months"));
    }
    if iv.days != 0 {
        return Err(refuse("days"));
    }
    let secs = iv.micros / 1_000_000;
    if secs.abs() > 168 * 3600 {
        return Err(invalid("TimeZone", value));
    }
    Ok(secs as i32)
}

/// A `DateStyle` value given the current one, as SHOW prints it, or why it is refused.
pub fn check_datestyle(value: &str, current: &str) -> Result<String, ExecError> {
    let (style, order) = parse_shown_datestyle(current);
    let Some((_, _, shown)) = datetime::parse_datestyle(value, (style, order)) else {
        return Err(invalid("DateStyle", value));
    };
    Ok(shown)
}

/// An `IntervalStyle` value as SHOW prints it, or why it is refused.
pub fn check_interval_style(value: &str) -> Result<String, ExecError> {
    match datetime::parse_interval_style(value) {
        Some((_, shown)) => Ok(shown.to_string()),
        None => Err(invalid("intervalstyle", value)
            .with_hint("Available values: postgres, postgres_verbose, sql_standard, iso_8601.")),
    }
}

/// The style and order of a `DateStyle` value as SHOW prints it (`SQL, MDY`).
fn parse_shown_datestyle(shown: &str) -> (DateStyle, DateOrder) {
    datetime::parse_datestyle(shown, (DateStyle::Iso, DateOrder::Mdy))
        .map_or((DateStyle::Iso, DateOrder::Mdy), |(s, o, _)| (s, o))
}

/// The date/time settings of values as SHOW prints them (checked when they were set).
pub fn date_settings(time_zone: &str, datestyle: &str, interval_style: &str) -> DateSettings {
    let (style, order) = parse_shown_datestyle(datestyle);
    DateSettings {
        style,
        order,
        interval_style: datetime::parse_interval_style(interval_style)
            .map_or_else(Default::default, |(s, _)| s),
        zone: Zone::parse_setting(time_zone).map_or(Zone::UTC, |(z, _)| z),
    }
}

/// The output style of a session with these settings.
pub fn output_style(
    extra_float_digits: i32,
    dates: DateSettings,
    bytea_escape: bool,
) -> OutputStyle {
    OutputStyle {
        extra_float_digits,
        dates,
        bytea_escape,
    }
}

/// The statement context of a session in zone `time_zone`, in a block begun at
/// `transaction_start` if any.
pub fn statement_context(
    time_zone: &str,
    datestyle: &str,
    interval_style: &str,
    transaction_start: Option<chrono::NaiveDateTime>,
) -> StatementContext {
    let zone_is_utc = Zone::parse_setting(time_zone).is_ok_and(|(z, _)| z.is_utc());
    StatementContext {
        user: std::sync::Arc::from(kpg_sql::OWNER),
        time_zone: time_zone.to_string(),
        zone_is_utc,
        transaction_start,
        input_style: datetime::InputStyle {
            order: parse_shown_datestyle(datestyle).1,
            sql_standard_intervals: interval_style == "sql_standard",
        },
        statement_start: chrono::Utc::now().naive_utc(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_as_shown() {
        assert_eq!(
            check_time_zone("america/new_york").unwrap(),
            "America/New_York"
        );
        assert_eq!(check_time_zone("+02").unwrap(), "<+02>-02");
        assert_eq!(check_time_zone("-7").unwrap(), "<-07>+07");
        assert_eq!(check_time_zone("INTERVAL '-08:00'").unwrap(), "<-08>+08");
        assert_eq!(
            check_time_zone("INTERVAL '1 day'").unwrap_err().code,
            "22023"
        );
        assert_eq!(check_time_zone("foo").unwrap_err().code, "22023");
    }

    #[test]
    fn datestyles() {
        assert_eq!(check_datestyle("SQL", "ISO, MDY").unwrap(), "SQL, MDY");
        assert_eq!(
            check_datestyle("German, MDY", "ISO, MDY").unwrap(),
            "German, MDY"
        );
        assert_eq!(
            check_datestyle("German", "ISO, MDY").unwrap(),
            "German, DMY"
        );
        assert_eq!(check_datestyle("YMD", "SQL, DMY").unwrap(), "SQL, YMD");
        assert_eq!(
            check_datestyle("ISO, SQL", "ISO, MDY").unwrap_err().code,
            "22023"
        );
        assert_eq!(check_interval_style("ISO_8601").unwrap(), "iso_8601");
        assert_eq!(
            check_interval_style("SQL_standard").unwrap(),
            "sql_standard"
        );
    }
}
