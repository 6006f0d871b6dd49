//! PostgreSQL's `interval`: months, days and microseconds kept apart, as PostgreSQL keeps them.
//!
//! A month is not a fixed number of days and a day is not always 24 hours (in time zones), so
//! the three fields are stored separately and only combined where PostgreSQL combines them:
//! comparison, equality and hashing treat a month as 30 days and a day as 24 hours (so
//! `'1 mon' = '30 days'`, as in PostgreSQL, and both fall in one GROUP BY group), while
//! output and arithmetic keep the fields. Output is PostgreSQL's default `postgres` style
//! (`1 year 2 mons 3 days 04:05:06`). Text input is PostgreSQL's own format (`input`), and,
//! when that does not read the text, ISO 8601 (`iso8601`), as PostgreSQL tries them; both
//! add up their fields in `fields`.

mod fields;
mod input;
mod iso8601;
mod style;
mod typmod;

pub(crate) use fields::{fraction_micros, split_clock};
pub use typmod::{IntervalFields, IntervalTypmod, PrecisionWithoutSeconds};

use crate::error::EvalError;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt::Write;
use std::hash::{Hash, Hasher};

pub const USECS_PER_SEC: i64 = 1_000_000;
pub const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
pub const USECS_PER_HOUR: i64 = 60 * USECS_PER_MINUTE;
pub const USECS_PER_DAY: i64 = 24 * USECS_PER_HOUR;
const DAYS_PER_MONTH: i64 = 30;
const SECS_PER_DAY: f64 = 86_400.0;

/// An interval value.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Interval {
    pub months: i32,
    pub days: i32,
    pub micros: i64,
}

/// A field of an interval qualifier (`typmod`), largest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IntervalField {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
}

impl Interval {
    pub fn new(months: i32, days: i32, micros: i64) -> Self {
        Interval {
            months,
            days,
            micros,
        }
    }

    /// The value as microseconds with a month as 30 days and a day as 24 hours: PostgreSQL's
    /// `interval_cmp_value`, which orders and equates intervals.
    pub fn span(&self) -> i128 {
        (i128::from(self.months) * i128::from(DAYS_PER_MONTH) + i128::from(self.days))
            * i128::from(USECS_PER_DAY)
            + i128::from(self.micros)
    }

    /// The months, days and microseconds, in that order.
    pub fn fields(&self) -> (i32, i32, i64) {
        (self.months, self.days, self.micros)
    }

    /// The interval that stands for every interval of this span (whole 30-day months, then
    /// days, then microseconds, all of the span's sign), or `None` when it is this one or
    /// when its months would not fit (spans near the type's limits are left as they are).
    pub fn canonical(&self) -> Option<Interval> {
        let span = self.span();
        let month = i128::from(DAYS_PER_MONTH) * i128::from(USECS_PER_DAY);
        let day = i128::from(USECS_PER_DAY);
        let c = Interval {
            months: i32::try_from(span / month).ok()?,
            days: ((span % month) / day) as i32,
            micros: (span % day) as i64,
        };
        (c.fields() != self.fields()).then_some(c)
    }

    pub fn checked_add(&self, o: &Interval) -> Result<Interval, EvalError> {
        Ok(Interval {
            months: self.months.checked_add(o.months).ok_or_else(overflow)?,
            days: self.days.checked_add(o.days).ok_or_else(overflow)?,
            micros: self.micros.checked_add(o.micros).ok_or_else(overflow)?,
        })
    }

    /// The interval of these months, days and microseconds, or "interval out of range" when
    /// one of them does not fit.
    pub fn from_wide(months: i128, days: i128, micros: i128) -> Result<Interval, EvalError> {
        Ok(Interval {
            months: i32::try_from(months).map_err(|_| overflow())?,
            days: i32::try_from(days).map_err(|_| overflow())?,
            micros: i64::try_from(micros).map_err(|_| overflow())?,
        })
    }

    pub fn checked_neg(&self) -> Result<Interval, EvalError> {
        Ok(Interval {
            months: self.months.checked_neg().ok_or_else(overflow)?,
            days: self.days.checked_neg().ok_or_else(overflow)?,
            micros: self.micros.checked_neg().ok_or_else(overflow)?,
        })
    }

    pub fn checked_sub(&self, o: &Interval) -> Result<Interval, EvalError> {
        self.checked_add(&o.checked_neg()?)
    }

    /// `interval * float8` (PostgreSQL's `interval_mul`): whole months and days stay, their
    /// fractions cascade down to days and seconds.
    pub fn mul(&self, factor: f64) -> Result<Interval, EvalError> {
        Interval::cascade(
            f64::from(self.months) * factor,
            f64::from(self.days) * factor,
            self.micros as f64 * factor,
            true,
        )
    }

    /// `interval / float8` (PostgreSQL's `interval_div`).
    pub fn div(&self, factor: f64) -> Result<Interval, EvalError> {
        if factor == 0.0 {
            return Err(EvalError::DivisionByZero);
        }
        Interval::cascade(
            f64::from(self.months) / factor,
            f64::from(self.days) / factor,
            self.micros as f64 / factor,
            false,
        )
    }

    /// The interval of fractional months, days and microseconds: the fraction of a month
    /// becomes days of 30 (rounded to the microsecond when `round_month_days`, as
    /// multiplication does and division does not), the fraction of a day seconds.
    fn cascade(
        months_f: f64,
        days_f: f64,
        micros_f: f64,
        round_month_days: bool,
    ) -> Result<Interval, EvalError> {
        let months = to_i32(months_f)?;
        let mut days = to_i32(days_f)?;
        let mut month_remainder_days = (months_f - f64::from(months)) * DAYS_PER_MONTH as f64;
        if round_month_days {
            month_remainder_days = ts_round(month_remainder_days);
        }
        let mut sec_remainder = ts_round(
            (days_f - f64::from(days) + month_remainder_days - month_remainder_days.trunc())
                * SECS_PER_DAY,
        );
        if sec_remainder.abs() >= SECS_PER_DAY {
            let whole = (sec_remainder / SECS_PER_DAY).trunc();
            days = days.checked_add(whole as i32).ok_or_else(overflow)?;
            sec_remainder -= whole * SECS_PER_DAY;
        }
        days = days
            .checked_add(month_remainder_days.trunc() as i32)
            .ok_or_else(overflow)?;
        let micros = (micros_f + sec_remainder * USECS_PER_SEC as f64).round_ties_even();
        if !micros.is_finite() || micros < i64::MIN as f64 || micros >= i64::MAX as f64 {
            return Err(overflow());
        }
        Ok(Interval {
            months,
            days,
            micros: micros as i64,
        })
    }

    /// Moves whole 24-hour periods of the time part into days (`justify_hours`), as
    /// `timestamp - timestamp` does.
    pub fn justify_hours(mut self) -> Interval {
        let whole_days = self.micros / USECS_PER_DAY;
        self.micros -= whole_days * USECS_PER_DAY;
        self.days += whole_days as i32;
        if self.days > 0 && self.micros < 0 {
            self.micros += USECS_PER_DAY;
            self.days -= 1;
        } else if self.days < 0 && self.micros > 0 {
            self.micros -= USECS_PER_DAY;
            self.days += 1;
        }
        self
    }

    /// PostgreSQL's output in the default `postgres` style.
    pub fn write_text(&self, out: &mut String) {
        let year = self.months / 12;
        let mon = self.months % 12;
        let mut is_zero = true;
        let mut is_before = false;
        for (value, unit) in [
            (i64::from(year), "year"),
            (i64::from(mon), "mon"),
            (i64::from(self.days), "day"),
        ] {
            if value == 0 {
                continue;
            }
            write!(
                out,
                "{}{}{value} {unit}{}",
                if is_zero { "" } else { " " },
                if is_before && value > 0 { "+" } else { "" },
                if value != 1 { "s" } else { "" }
            )
            .unwrap();
            is_before = value < 0;
            is_zero = false;
        }
        if is_zero || self.micros != 0 {
            let t = self.micros;
            let hour = (t / USECS_PER_HOUR).unsigned_abs();
            let min = ((t % USECS_PER_HOUR) / USECS_PER_MINUTE).unsigned_abs();
            let usec = (t % USECS_PER_MINUTE).unsigned_abs();
            let sign = if t < 0 {
                "-"
            } else if is_before {
                "+"
            } else {
                ""
            };
            write!(
                out,
                "{}{sign}{hour:02}:{min:02}:",
                if is_zero { "" } else { " " }
            )
            .unwrap();
            write_seconds(usec, out);
        }
    }

    /// Parses interval text; `typmod` is the type's modifier when a constant string is read
    /// as a qualified interval (`interval '90' day`), which steers the reading and cuts the
    /// value (see `typmod`). Text that is not in PostgreSQL's own format is tried as ISO 8601
    /// (`P1Y2M3DT4H5M6S`), as PostgreSQL does.
    pub fn parse(text: &str, typmod: Option<&IntervalTypmod>) -> Result<Interval, EvalError> {
        match typmod {
            Some(t) => t.parse(text),
            None => typmod::read(text, None),
        }
    }
}

/// Writes seconds (given in microseconds, non-negative) as `SS[.ffffff]` with trailing
/// zeros of the fraction removed.
pub fn write_seconds(usec: u64, out: &mut String) {
    let sec = usec / 1_000_000;
    let frac = usec % 1_000_000;
    write!(out, "{sec:02}").unwrap();
    if frac != 0 {
        let f = format!("{frac:06}");
        out.push('.');
        out.push_str(f.trim_end_matches('0'));
    }
}

fn overflow() -> EvalError {
    EvalError::DateTimeValueOutOfRange("interval".into())
}

fn to_i32(f: f64) -> Result<i32, EvalError> {
    if f.is_nan() || f > f64::from(i32::MAX) || f < f64::from(i32::MIN) {
        return Err(overflow());
    }
    Ok(f.trunc() as i32)
}

/// PostgreSQL's `TSROUND`: rounds to microsecond precision.
fn ts_round(x: f64) -> f64 {
    (x * 1e6).round_ties_even() / 1e6
}

impl PartialEq for Interval {
    fn eq(&self, other: &Self) -> bool {
        self.span() == other.span()
    }
}

impl Eq for Interval {}

impl PartialOrd for Interval {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Interval {
    fn cmp(&self, other: &Self) -> Ordering {
        self.span().cmp(&other.span())
    }
}

impl Hash for Interval {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.span().hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(s: &str) -> String {
        let mut o = String::new();
        Interval::parse(s, None).unwrap().write_text(&mut o);
        o
    }

    #[test]
    fn postgres_style_output() {
        // Expected texts are PostgreSQL 15's.
        assert_eq!(
            out("1 year 2 mons 3 days 04:05:06"),
            "1 year 2 mons 3 days 04:05:06"
        );
        assert_eq!(out("-1 day +2 hours"), "-1 days +02:00:00");
        assert_eq!(out("0"), "00:00:00");
        assert_eq!(out("90"), "00:01:30");
        assert_eq!(out("1.5 months"), "1 mon 15 days");
        assert_eq!(out("1.5 years"), "1 year 6 mons");
        assert_eq!(out("1.5 days"), "1 day 12:00:00");
        assert_eq!(out("@ 1 day ago"), "-1 days");
        assert_eq!(out("-00:00:01.5"), "-00:00:01.5");
        assert_eq!(out("25 hours"), "25:00:00");
    }

    #[test]
    fn qualifier_and_order() {
        let q = |s: &str, f| {
            let t = IntervalTypmod::new(Some(f), None).unwrap();
            Interval::parse(s, Some(&t)).unwrap()
        };
        assert_eq!(q("90", IntervalFields::Day), Interval::new(0, 90, 0));
        assert_eq!(q("3", IntervalFields::Month), Interval::new(3, 0, 0));
        assert_eq!(
            q("1 day 02:03", IntervalFields::Day),
            Interval::new(0, 1, 0)
        );
        assert_eq!(Interval::new(1, 0, 0), Interval::new(0, 30, 0));
        assert!(Interval::new(0, 40, 0) > Interval::new(1, 0, 0));
        assert_eq!(
            Interval::parse("abc", None).unwrap_err().sqlstate(),
            "22007"
        );
    }

    #[test]
    fn field_overflow_is_22015() {
        // Expected texts, SQLSTATEs and messages are PostgreSQL 15's.
        let err = Interval::parse("25:61:61", None).unwrap_err();
        assert_eq!(err.sqlstate(), "22015");
        assert_eq!(
            err.to_string(),
            r#"interval field value out of range: "25:61:61""#
        );
        for text in [
            "00:00:61",
            "1 day 10:60:00",
            "2147483648 days",
            "99999999999 hours",
        ] {
            let err = Interval::parse(text, None).unwrap_err();
            assert_eq!(err.sqlstate(), "22015", "{text}");
        }
        assert_eq!(
            Interval::parse("-25:61:61", None).unwrap_err().sqlstate(),
            "22007"
        );
        assert_eq!(out("00:00:60.5"), "00:01:00.5");
        assert_eq!(out("10:30.5"), "00:10:30.5");
    }

    #[test]
    fn multiplication_cascades_fractions() {
        let iv = Interval::new(1, 0, 0).mul(1.5).unwrap();
        assert_eq!((iv.months, iv.days, iv.micros), (1, 15, 0));
        let iv = Interval::new(0, 1, 0).div(2.0).unwrap();
        assert_eq!((iv.months, iv.days, iv.micros), (0, 0, 12 * USECS_PER_HOUR));
    }
}
