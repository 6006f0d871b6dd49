//! The second half of reading a datetime through a picture (`dch_in.rs` reads the fields):
//! combining the fields as PostgreSQL's `do_to_timestamp` does — seconds of the day, the
//! 12-hour clock, a century with a two-digit year, BC years, a Julian day, ISO or Gregorian
//! weeks, the day of the year — and validating the result as its `ValidateDate` does, with the
//! calendar arithmetic (`j2date`, `isoweek2j`) it needs.

use super::dch_in::{Fields, Mode, Parsed};
use super::dch_out::{date2j, j2day};
use crate::error::EvalError;

/// Combines the fields as `do_to_timestamp` does and validates them.
pub(super) fn finish(text: &str, mut f: Fields, mode: Mode) -> Result<Parsed, EvalError> {
    let overflow = || EvalError::DateTimeFieldOverflow(text.to_string());
    let (mut year, mut mon, mut mday) = (0, 1, 1);
    let (mut hour, mut min, mut sec) = (0, 0, 0);
    let (mut has_year, mut has_mon, mut has_day) = (false, false, false);
    if f.ssss != 0 {
        hour = f.ssss / 3600;
        min = f.ssss % 3600 / 60;
        sec = f.ssss % 60;
    }
    if f.ss != 0 {
        sec = f.ss;
    }
    if f.mi != 0 {
        min = f.mi;
    }
    if f.hh != 0 {
        hour = f.hh;
    }
    if f.twelve_hour {
        if !(1..=12).contains(&hour) {
            return Err(EvalError::InvalidDatetimeFormat(format!(
                "hour \"{hour}\" is invalid for the 12-hour clock"
            )));
        }
        if f.pm && hour < 12 {
            hour += 12;
        } else if !f.pm && hour == 12 {
            hour = 0;
        }
    }
    if f.year != 0 {
        if f.cc != 0 && f.yysz <= 2 {
            if f.bc {
                f.cc = -f.cc;
            }
            year = f.year % 100;
            if year != 0 {
                if f.cc >= 0 {
                    year += (f.cc - 1) * 100;
                } else {
                    year = (f.cc + 1) * 100 - year + 1;
                }
            } else {
                year = f.cc * 100 + if f.cc >= 0 { 0 } else { 1 };
            }
        } else {
            year = f.year;
            if f.bc {
                year = -year;
            }
            if year < 0 {
                year += 1;
            }
        }
        has_year = true;
    } else if f.cc != 0 {
        if f.bc {
            f.cc = -f.cc;
        }
        year = if f.cc >= 0 {
            (f.cc - 1) * 100 + 1
        } else {
            f.cc * 100 + 1
        };
        has_year = true;
    }
    if f.j != 0 {
        (year, mon, mday) = j2date(f.j);
        (has_year, has_mon, has_day) = (true, true, true);
    }
    if f.ww != 0 {
        if mode == Mode::IsoWeek {
            let mut j = isoweek2j(year, f.ww);
            if f.d != 0 {
                // From a Sunday-first day number to a Monday-first one.
                j += if f.d > 1 { f.d - 2 } else { 6 };
            }
            (year, mon, mday) = j2date(j);
            (has_year, has_mon, has_day) = (true, true, true);
        } else {
            f.ddd = (f.ww - 1) * 7 + 1;
        }
    }
    if f.w != 0 {
        f.dd = (f.w - 1) * 7 + 1;
    }
    if f.dd != 0 {
        mday = f.dd;
        has_day = true;
    }
    if f.mm != 0 {
        mon = f.mm;
        has_mon = true;
    }
    if f.ddd != 0 && (mon <= 1 || mday <= 1) {
        if year == 0 && !f.bc {
            return Err(EvalError::InvalidDatetimeFormat(
                "cannot calculate day of year without year information".to_string(),
            ));
        }
        if mode == Mode::IsoWeek {
            let j0 = isoweek2j(year, 1) - 1;
            (year, mon, mday) = j2date(j0 + f.ddd);
            (has_year, has_mon, has_day) = (true, true, true);
        } else {
            let leap = is_leap(year);
            let mut cumulative = 0;
            let mut i = 1;
            while i <= 12 {
                let next = cumulative + days_in_month(leap, i);
                if f.ddd <= next {
                    break;
                }
                cumulative = next;
                i += 1;
            }
            if mon <= 1 {
                mon = i;
            }
            if mday <= 1 {
                mday = f.ddd - cumulative;
            }
            (has_mon, has_day) = (true, true);
        }
    }
    let fsec = f.ms * 1000 + f.us;
    // ValidateDate with the fields given.
    if has_mon && !(1..=12).contains(&mon) {
        return Err(overflow());
    }
    if has_day && !(1..=31).contains(&mday) {
        return Err(overflow());
    }
    if has_year && has_mon && has_day && mday > days_in_month(is_leap(year), mon) {
        return Err(overflow());
    }
    if !(0..24).contains(&hour)
        || !(0..60).contains(&min)
        || !(0..60).contains(&sec)
        || !(0..1_000_000).contains(&fsec)
    {
        return Err(overflow());
    }
    let east = if f.tzsign != 0 {
        if !(0..=15).contains(&f.tzh) || !(0..60).contains(&f.tzm) {
            return Err(EvalError::TimeZoneDisplacementOverflow(text.to_string()));
        }
        Some(f.tzsign * (f.tzh * 3600 + f.tzm * 60))
    } else {
        None
    };
    Ok(Parsed {
        year,
        mon,
        mday,
        hour,
        min,
        sec,
        fsec,
        east,
        fprec: (f.ff != 0).then_some(f.ff),
    })
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(leap: bool, mon: i64) -> i64 {
    match mon {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// PostgreSQL's `isoweek2j`: the Julian day of the Monday of ISO week `week` of `year`.
fn isoweek2j(year: i64, week: i64) -> i64 {
    let day4 = date2j(year, 1, 4);
    let day0 = j2day(day4 - 1);
    (week - 1) * 7 + (day4 - day0)
}

/// PostgreSQL's `j2date`: the date of a Julian day.
pub fn j2date(jd: i64) -> (i64, i64, i64) {
    let mut julian = jd + 32044;
    let mut quad = julian.div_euclid(146_097);
    let extra = (julian - quad * 146_097) * 4 + 3;
    julian += 60 + quad * 3 + extra / 146_097;
    quad = julian.div_euclid(1461);
    julian -= quad * 1461;
    let mut y = julian * 4 / 1461;
    julian = if y != 0 {
        (julian + 305) % 365
    } else {
        (julian + 306) % 366
    } + 123;
    y += quad * 4;
    let year = y - 4800;
    let q = julian * 2141 / 65536;
    let day = julian - 7834 * q / 256;
    let month = (q + 10) % 12 + 1;
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn julian_days_round_trip() {
        for j in [1_721_426, 2_451_545, 2_460_000, 5_000_000, 1_000_000] {
            let (y, m, d) = j2date(j);
            assert_eq!(date2j(y, m, d), j);
        }
    }
}
