//! The text of an interval in the `IntervalStyle`s other than the default `postgres`
//! (`Interval::write_text`): `postgres_verbose` (`@ 1 year 2 mons ago`), `sql_standard`
//! (`1-2`, `3 4:05:06`, `+1-2 +3 -4:05:06` when signs or kinds mix) and `iso_8601`
//! (`P1Y2M3DT4H5M6S`), as PostgreSQL 15's `EncodeInterval` writes them. The fields are
//! years and months of the months, the days, and hours, minutes, seconds and microseconds of
//! the time, each with its own sign (C's truncating division).

use super::{Interval, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC};
use crate::datetime::IntervalStyle;
use std::fmt::Write;

/// An interval's fields as PostgreSQL splits them for output.
struct Parts {
    year: i64,
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
    fsec: i64,
}

impl Parts {
    fn of(iv: &Interval) -> Parts {
        let t = iv.micros;
        Parts {
            year: i64::from(iv.months / 12),
            mon: i64::from(iv.months % 12),
            mday: i64::from(iv.days),
            hour: t / USECS_PER_HOUR,
            min: t % USECS_PER_HOUR / USECS_PER_MINUTE,
            sec: t % USECS_PER_MINUTE / USECS_PER_SEC,
            fsec: t % USECS_PER_SEC,
        }
    }
}

/// Seconds and their fraction without sign, trailing zeros of the fraction dropped; two
/// digits at least if `pad`.
fn seconds(sec: i64, fsec: i64, pad: bool, out: &mut String) {
    let s = sec.unsigned_abs();
    if pad {
        write!(out, "{s:02}").unwrap();
    } else {
        write!(out, "{s}").unwrap();
    }
    if fsec != 0 {
        let f = format!("{:06}", fsec.unsigned_abs());
        out.push('.');
        out.push_str(f.trim_end_matches('0'));
    }
}

impl Interval {
    /// The text in `style`.
    pub fn write_text_styled(&self, style: IntervalStyle, out: &mut String) {
        let p = Parts::of(self);
        match style {
            IntervalStyle::Postgres => self.write_text(out),
            IntervalStyle::PostgresVerbose => verbose(p, out),
            IntervalStyle::SqlStandard => sql_standard(p, out),
            IntervalStyle::Iso8601 => iso_8601(p, out),
        }
    }
}

fn verbose(p: Parts, out: &mut String) {
    out.push('@');
    let mut is_zero = true;
    let mut is_before = false;
    for (value, unit) in [
        (p.year, "year"),
        (p.mon, "mon"),
        (p.mday, "day"),
        (p.hour, "hour"),
        (p.min, "min"),
    ] {
        if value == 0 {
            continue;
        }
        let mut value = value;
        if is_zero {
            is_before = value < 0;
            value = value.abs();
        } else if is_before {
            value = -value;
        }
        write!(out, " {value} {unit}{}", if value == 1 { "" } else { "s" }).unwrap();
        is_zero = false;
    }
    if p.sec != 0 || p.fsec != 0 {
        out.push(' ');
        if p.sec < 0 || (p.sec == 0 && p.fsec < 0) {
            if is_zero {
                is_before = true;
            } else if !is_before {
                out.push('-');
            }
        } else if is_before {
            out.push('-');
        }
        seconds(p.sec, p.fsec, false, out);
        let plural = p.sec.abs() != 1 || p.fsec != 0;
        write!(out, " sec{}", if plural { "s" } else { "" }).unwrap();
        is_zero = false;
    }
    if is_zero {
        out.push_str(" 0");
    }
    if is_before {
        out.push_str(" ago");
    }
}

fn sql_standard(mut p: Parts, out: &mut String) {
    let all = [p.year, p.mon, p.mday, p.hour, p.min, p.sec, p.fsec];
    let has_negative = all.iter().any(|v| *v < 0);
    let has_positive = all.iter().any(|v| *v > 0);
    let has_year_month = p.year != 0 || p.mon != 0;
    let has_day_time = all[2..].iter().any(|v| *v != 0);
    let mixed = (has_negative && has_positive) || (has_year_month && has_day_time);
    let standard = !mixed;
    if has_negative && standard {
        out.push('-');
        for v in [
            &mut p.year,
            &mut p.mon,
            &mut p.mday,
            &mut p.hour,
            &mut p.min,
            &mut p.sec,
            &mut p.fsec,
        ] {
            *v = -*v;
        }
    }
    if !has_negative && !has_positive {
        out.push('0');
    } else if !standard {
        let year_sign = if p.year < 0 || p.mon < 0 { '-' } else { '+' };
        let day_sign = if p.mday < 0 { '-' } else { '+' };
        let time_negative = p.hour < 0 || p.min < 0 || p.sec < 0 || p.fsec < 0;
        let sec_sign = if time_negative { '-' } else { '+' };
        write!(
            out,
            "{year_sign}{}-{} {day_sign}{} {sec_sign}{}:{:02}:",
            p.year.abs(),
            p.mon.abs(),
            p.mday.abs(),
            p.hour.abs(),
            p.min.abs()
        )
        .unwrap();
        seconds(p.sec, p.fsec, true, out);
    } else if has_year_month {
        write!(out, "{}-{}", p.year, p.mon).unwrap();
    } else if p.mday != 0 {
        write!(out, "{} {}:{:02}:", p.mday, p.hour, p.min).unwrap();
        seconds(p.sec, p.fsec, true, out);
    } else {
        write!(out, "{}:{:02}:", p.hour, p.min).unwrap();
        seconds(p.sec, p.fsec, true, out);
    }
}

fn iso_8601(p: Parts, out: &mut String) {
    let time = p.hour != 0 || p.min != 0 || p.sec != 0 || p.fsec != 0;
    if p.year == 0 && p.mon == 0 && p.mday == 0 && !time {
        out.push_str("PT0S");
        return;
    }
    out.push('P');
    let part = |v: i64, unit: char, out: &mut String| {
        if v != 0 {
            write!(out, "{v}{unit}").unwrap();
        }
    };
    part(p.year, 'Y', out);
    part(p.mon, 'M', out);
    part(p.mday, 'D', out);
    if time {
        out.push('T');
    }
    part(p.hour, 'H', out);
    part(p.min, 'M', out);
    if p.sec != 0 || p.fsec != 0 {
        if p.sec < 0 || p.fsec < 0 {
            out.push('-');
        }
        seconds(p.sec, p.fsec, false, out);
        out.push('S');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(months: i32, days: i32, micros: i64, style: IntervalStyle) -> String {
        let mut out = String::new();
        Interval::new(months, days, micros).write_text_styled(style, &mut out);
        out
    }

    #[test]
    fn each_style() {
        let h = USECS_PER_HOUR;
        let s = USECS_PER_SEC;
        use IntervalStyle::*;
        assert_eq!(
            show(14, 3, 4 * h + 5 * 60 * s + 6 * s, Iso8601),
            "P1Y2M3DT4H5M6S"
        );
        assert_eq!(show(0, 0, 0, Iso8601), "PT0S");
        assert_eq!(show(0, 0, -s / 2, Iso8601), "PT-0.5S");
        assert_eq!(show(14, 0, 0, SqlStandard), "1-2");
        assert_eq!(show(-14, 0, 0, SqlStandard), "-1-2");
        assert_eq!(
            show(0, 3, 4 * h + 5 * 60 * s + 6 * s, SqlStandard),
            "3 4:05:06"
        );
        assert_eq!(show(14, 3, -4 * h, SqlStandard), "+1-2 +3 -4:00:00");
        assert_eq!(show(0, 0, 0, SqlStandard), "0");
        assert_eq!(
            show(14, 3, 4 * h, PostgresVerbose),
            "@ 1 year 2 mons 3 days 4 hours"
        );
        assert_eq!(
            show(-14, -3, 0, PostgresVerbose),
            "@ 1 year 2 mons 3 days ago"
        );
        assert_eq!(show(0, 0, -s, PostgresVerbose), "@ 1 sec ago");
        assert_eq!(show(0, 0, 0, PostgresVerbose), "@ 0");
    }
}
