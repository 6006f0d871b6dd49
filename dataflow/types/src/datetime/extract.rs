//! EXTRACT / date_part and date_trunc on dates, timestamps and intervals.
//!
//! EXTRACT returns numeric with PostgreSQL 15's scales (seconds with 6 decimals, milliseconds
//! with 3, epoch with 6 for timestamps and intervals, integers otherwise); `date_part`
//! returns the same value as double precision. The planner has checked that the unit exists
//! for the type (`DateUnit::check_extract`, `check_trunc`), so the others are unreachable.

use super::DateUnit;
use crate::interval::{Interval, USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE};
use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use rust_decimal::prelude::*;

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
        Week | Dow | Isodow | Doy | Isoyear | Julian | Timezone | TimezoneHour | TimezoneMinute => {
            unreachable!("planner checked the unit")
        }
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
        Dow | Isodow | Doy | Isoyear | Epoch | Julian | Timezone | TimezoneHour
        | TimezoneMinute => unreachable!("planner checked the unit"),
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
        Week | Dow | Isodow | Doy | Isoyear | Epoch | Julian | Timezone | TimezoneHour
        | TimezoneMinute => unreachable!("planner checked the unit"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datetime::tests::{show, ts};

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
