//! Evaluation of make_date, justify_days, justify_hours, justify_interval and
//! age(timestamp, timestamp), as PostgreSQL 15's `date.c` and `timestamp.c` compute them.
//!
//! They are strict: `expr.rs` returns NULL before calling here when an argument is NULL. The
//! justify functions move whole 30-day periods into months and whole 24-hour periods into
//! days, then give the fields one sign, failing with 22008 when a field overflows. age
//! subtracts the two timestamps field by field (years, months, days, hours, ...) and borrows
//! from the next larger field where one is negative, a month borrowing the length of the
//! month of the later (or, for a negative age, the earlier) timestamp, so `age('2020-03-01',
//! '2020-01-31')` is `1 mon 1 day`.

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};

use crate::datum::Datum;
use crate::error::EvalError;
use crate::expr::VariadicFunc;
use crate::interval::{Interval, USECS_PER_DAY};

const DAYS_PER_MONTH: i32 = 30;

fn out_of_range() -> EvalError {
    EvalError::DateTimeValueOutOfRange("interval".into())
}

/// One of this module's functions over non-NULL arguments.
pub(crate) fn eval(func: VariadicFunc, args: &[Datum]) -> Result<Datum, EvalError> {
    Ok(match (func, args) {
        (VariadicFunc::MakeDate, [Datum::Int32(y), Datum::Int32(m), Datum::Int32(d)]) => {
            Datum::Date(make_date(*y, *m, *d)?)
        }
        (VariadicFunc::JustifyDays, [Datum::Interval(iv)]) => Datum::Interval(justify_days(*iv)?),
        (VariadicFunc::JustifyHours, [Datum::Interval(iv)]) => Datum::Interval(justify_hours(*iv)?),
        (VariadicFunc::JustifyInterval, [Datum::Interval(iv)]) => {
            Datum::Interval(justify_interval(*iv)?)
        }
        (VariadicFunc::Age, [Datum::Timestamp(a), Datum::Timestamp(b)]) => {
            Datum::Interval(age(a, b)?)
        }
        (func, args) => unreachable!("planner typed {func:?} over {args:?}"),
    })
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The number of days of `month` (1 to 12) in the astronomical `year`.
fn days_in_month(year: i64, month: u32) -> i32 {
    const DAYS: [i32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let d = DAYS[month as usize - 1];
    if month == 2 && is_leap(year) {
        d + 1
    } else {
        d
    }
}

/// make_date(year, month, day): a negative year is BC (there is no year 0).
fn make_date(year: i32, month: i32, day: i32) -> Result<NaiveDate, EvalError> {
    let text = format!("{year}-{month:02}-{day:02}");
    // PostgreSQL's BC years count from 1 BC, chrono's astronomical ones from 0.
    let astronomical = if year < 0 {
        i64::from(year) + 1
    } else {
        i64::from(year)
    };
    let valid = year != 0
        && (1..=12).contains(&month)
        && day >= 1
        && day <= days_in_month(astronomical, month as u32);
    if !valid {
        return Err(EvalError::DateTimeFieldOverflow(text));
    }
    i32::try_from(astronomical)
        .ok()
        .and_then(|y| NaiveDate::from_ymd_opt(y, month as u32, day as u32))
        .ok_or(EvalError::DateTimeOutOfRange {
            type_name: "date".into(),
            value: text,
        })
}

/// Whole 30-day periods of the days moved into months, the two then given one sign.
fn justify_days(iv: Interval) -> Result<Interval, EvalError> {
    let (mut months, mut days, micros) = iv.fields();
    let whole = days / DAYS_PER_MONTH;
    days -= whole * DAYS_PER_MONTH;
    months = months.checked_add(whole).ok_or_else(out_of_range)?;
    let mut days = i64::from(days);
    borrow_sign(&mut months, &mut days, i64::from(DAYS_PER_MONTH));
    Ok(Interval::new(months, days as i32, micros))
}

/// Gives `lo` the sign of `hi` (when they differ) by moving one `unit` from `hi` to `lo`.
fn borrow_sign(hi: &mut i32, lo: &mut i64, unit: i64) {
    if *hi > 0 && *lo < 0 {
        *lo += unit;
        *hi -= 1;
    } else if *hi < 0 && *lo > 0 {
        *lo -= unit;
        *hi += 1;
    }
}

/// Whole 24-hour periods of the time moved into days, the two then given one sign.
fn justify_hours(iv: Interval) -> Result<Interval, EvalError> {
    let (months, days, micros) = iv.fields();
    let (mut days, mut micros) = carry_days(days, micros)?;
    borrow_sign(&mut days, &mut micros, USECS_PER_DAY);
    Ok(Interval::new(months, days, micros))
}

/// The whole days of `micros` added to `days`, and the time left.
fn carry_days(days: i32, micros: i64) -> Result<(i32, i64), EvalError> {
    let whole = micros / USECS_PER_DAY;
    let days = i32::try_from(whole)
        .ok()
        .and_then(|w| days.checked_add(w))
        .ok_or_else(out_of_range)?;
    Ok((days, micros - whole * USECS_PER_DAY))
}

/// justify_days and justify_hours together, all three fields given one sign.
fn justify_interval(iv: Interval) -> Result<Interval, EvalError> {
    let (mut months, mut days, micros) = iv.fields();
    // Days are moved into months first when that may prevent an overflow, as PostgreSQL does.
    if (days > 0 && micros > 0) || (days < 0 && micros < 0) {
        let whole = days / DAYS_PER_MONTH;
        days -= whole * DAYS_PER_MONTH;
        months = months.checked_add(whole).ok_or_else(out_of_range)?;
    }
    let (d, mut micros) = carry_days(days, micros)?;
    days = d;
    let whole = days / DAYS_PER_MONTH;
    days -= whole * DAYS_PER_MONTH;
    months = months.checked_add(whole).ok_or_else(out_of_range)?;
    if months > 0 && (days < 0 || (days == 0 && micros < 0)) {
        days += DAYS_PER_MONTH;
        months -= 1;
    } else if months < 0 && (days > 0 || (days == 0 && micros > 0)) {
        days -= DAYS_PER_MONTH;
        months += 1;
    }
    borrow_sign(&mut days, &mut micros, USECS_PER_DAY);
    Ok(Interval::new(months, days, micros))
}

/// age(a, b): `a - b` in years, months, days and time, each field subtracted apart and
/// borrowed from the next larger one when negative (PostgreSQL's `timestamp_age`).
fn age(a: &NaiveDateTime, b: &NaiveDateTime) -> Result<Interval, EvalError> {
    age_of_fields(a, b, a < b)
}

/// `age` of the local times `a` and `b`, `negative` when `a` is the earlier (for timestamps
/// with time zone, of the instants: PostgreSQL's `timestamptz_age` compares those).
pub(super) fn age_of_fields(
    a: &NaiveDateTime,
    b: &NaiveDateTime,
    negative: bool,
) -> Result<Interval, EvalError> {
    let fields = |t: &NaiveDateTime| {
        [
            i64::from(t.year()),
            i64::from(t.month()),
            i64::from(t.day()),
            i64::from(t.hour()),
            i64::from(t.minute()),
            i64::from(t.second()),
            i64::from(t.nanosecond() / 1000),
        ]
    };
    let (fa, fb) = (fields(a), fields(b));
    let sign = if negative { -1 } else { 1 };
    let mut d: Vec<i64> = fa.iter().zip(&fb).map(|(x, y)| (x - y) * sign).collect();
    let [year, mon, mday, hour, min, sec, usec] = &mut d[..] else {
        unreachable!("seven fields")
    };
    while *usec < 0 {
        *usec += 1_000_000;
        *sec -= 1;
    }
    while *sec < 0 {
        *sec += 60;
        *min -= 1;
    }
    while *min < 0 {
        *min += 60;
        *hour -= 1;
    }
    while *hour < 0 {
        *hour += 24;
        *mday -= 1;
    }
    // A month borrows the length of the earlier timestamp's month in PostgreSQL's order
    // (of `a` when a < b, else of `b`).
    let (by_year, by_month) = if negative {
        (fa[0], fa[1])
    } else {
        (fb[0], fb[1])
    };
    while *mday < 0 {
        *mday += i64::from(days_in_month(by_year, by_month as u32));
        *mon -= 1;
    }
    while *mon < 0 {
        *mon += 12;
        *year -= 1;
    }
    let months = (*year * 12 + *mon) * sign;
    let days = *mday * sign;
    let micros = ((((*hour * 60) + *min) * 60 + *sec) * 1_000_000 + *usec) * sign;
    Ok(Interval::new(
        i32::try_from(months).map_err(|_| out_of_range())?,
        i32::try_from(days).map_err(|_| out_of_range())?,
        micros,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datetime::parse_timestamp;

    fn text(iv: Interval) -> String {
        let mut s = String::new();
        iv.write_text(&mut s);
        s
    }

    /// Expected values are PostgreSQL 15's.
    #[test]
    fn justify_and_age_like_postgres() {
        let us = |h: i64| h * 3_600_000_000;
        assert_eq!(
            text(justify_days(Interval::new(0, 65, 0)).unwrap()),
            "2 mons 5 days"
        );
        assert_eq!(
            text(justify_days(Interval::new(1, -65, 0)).unwrap()),
            "-1 mons -5 days"
        );
        assert_eq!(
            text(justify_hours(Interval::new(0, 1, us(-50))).unwrap()),
            "-1 days -02:00:00"
        );
        assert_eq!(
            text(justify_interval(Interval::new(1, 0, us(-1))).unwrap()),
            "29 days 23:00:00"
        );
        let ts = |s| parse_timestamp(s).unwrap();
        assert_eq!(
            text(age(&ts("2020-03-01"), &ts("2020-01-31")).unwrap()),
            "1 mon 1 day"
        );
        assert_eq!(
            text(age(&ts("2020-01-31"), &ts("2020-03-01")).unwrap()),
            "-1 mons -1 days"
        );
        assert_eq!(make_date(-44, 3, 15).unwrap().year(), -43);
        assert!(make_date(2023, 2, 29).is_err());
        assert!(make_date(0, 1, 1).is_err());
    }
}
