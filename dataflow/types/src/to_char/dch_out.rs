//! Writing a date, timestamp or interval through a datetime picture (`to_char`), as
//! PostgreSQL's `DCH_to_char` writes it in the C locale.
//!
//! The value is first broken into PostgreSQL's `struct pg_tm` fields ([`Tm`]): for a
//! timestamp its calendar fields (the year astronomical, 0 being 1 BC), for an interval its
//! years, months, days, hours (beyond 24), minutes, seconds and microseconds, each with the
//! interval's signs. The week, ISO and Julian-day computations are PostgreSQL's integer
//! formulas (`date2j`, `date2isoweek`, ...), so that they give PostgreSQL's answers also on an
//! interval's fields, which name no real date. Numbers are zero-padded to their width unless
//! `FM`; names are padded to 9 characters unless `FM`; `TH`/`th` append the ordinal suffix.

use super::dch_keys::{Case, DchKey};
use super::num_out::ordinal_suffix;
use super::picture::{Mods, Node};
use crate::error::EvalError;

/// PostgreSQL's broken-down time.
#[derive(Clone, Debug, Default)]
pub struct Tm {
    pub year: i64,
    pub mon: i64,
    pub mday: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: i64,
    /// Microseconds.
    pub fsec: i64,
    pub yday: i64,
    pub wday: i64,
    /// Seconds east of UTC.
    pub gmtoff: i64,
    /// The zone's abbreviation, if the value has a zone.
    pub tzn: Option<String>,
}

pub(super) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
pub(super) const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
pub(super) const RM: [&str; 12] = [
    "XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I",
];

/// PostgreSQL's `date2j`: the Julian day of a (possibly unnormalized) date.
pub fn date2j(y: i64, m: i64, d: i64) -> i64 {
    let (m, y) = if m > 2 {
        (m + 1, y + 4800)
    } else {
        (m + 13, y + 4799)
    };
    let century = y / 100;
    let mut julian = y * 365 - 32167;
    julian += y / 4 - century + century / 4;
    julian + 7834 * m / 256 + d
}

/// Day of the week of a Julian day, 0 for Sunday.
pub fn j2day(j: i64) -> i64 {
    (j + 1).rem_euclid(7)
}

fn iso_start(year: i64) -> i64 {
    let day4 = date2j(year, 1, 4);
    day4 - j2day(day4 - 1)
}

/// PostgreSQL's `date2isoweek` and `date2isoyear` at once.
pub fn iso_week_year(year: i64, mon: i64, mday: i64) -> (i64, i64) {
    let dayn = date2j(year, mon, mday);
    let mut year = year;
    let mut start = iso_start(year);
    if dayn < start {
        year -= 1;
        start = iso_start(year);
    }
    let mut week = (dayn - start) / 7 + 1;
    if week >= 52 {
        let next = iso_start(year + 1);
        if dayn >= next {
            week = (dayn - next) / 7 + 1;
            year += 1;
        }
    }
    (week, year)
}

fn cased(name: &str, case: Case) -> String {
    match case {
        Case::Upper => name.to_ascii_uppercase(),
        Case::Lower => name.to_ascii_lowercase(),
        Case::Capitalized => name.to_string(),
    }
}

/// C's `%0*d`: at least `width` characters, zero-padded after the sign.
fn padded(v: i64, width: usize) -> String {
    if v < 0 {
        format!("-{:0w$}", -v, w = width.saturating_sub(1))
    } else {
        format!("{v:0width$}")
    }
}

/// The year as written: BC years counted from 1 (not for intervals).
fn adjust_year(year: i64, interval: bool) -> i64 {
    if interval || year > 0 {
        year
    } else {
        -(year - 1)
    }
}

/// Writes `tm` through `nodes`.
pub fn format(nodes: &[Node<DchKey>], tm: &Tm, interval: bool) -> Result<String, EvalError> {
    let mut out = String::new();
    for node in nodes {
        match node {
            Node::Char { c, .. } => out.push(*c),
            Node::Key { key, mods } => {
                if interval && key.invalid_for_interval() {
                    return Err(EvalError::InvalidDatetimeFormat(
                        "invalid format specification for an interval value".into(),
                    ));
                }
                key_out(&mut out, *key, *mods, tm, interval)?;
            }
        }
    }
    Ok(out)
}

fn key_out(
    out: &mut String,
    key: DchKey,
    mods: Mods,
    tm: &Tm,
    interval: bool,
) -> Result<(), EvalError> {
    use DchKey::*;
    let fm = mods.fill;
    // A number padded to `width` (one more when negative) unless FM, with its suffix.
    let num = |out: &mut String, v: i64, width: usize| {
        let w = if fm {
            0
        } else if v >= 0 {
            width
        } else {
            width + 1
        };
        let s = padded(v, w);
        out.push_str(&s);
        if let Some(upper) = mods.th {
            // Every number written ends in a digit.
            out.push_str(ordinal_suffix(&s, upper).unwrap_or("th"));
        }
    };
    // A number padded to `width` whatever its sign (PostgreSQL's day and week fields).
    let fixed = |out: &mut String, v: i64, width: usize| {
        let s = padded(v, if fm { 0 } else { width });
        out.push_str(&s);
        if let Some(upper) = mods.th {
            out.push_str(ordinal_suffix(&s, upper).unwrap_or("th"));
        }
    };
    let plain = |out: &mut String, s: String| {
        if let Some(upper) = mods.th {
            let suffix = ordinal_suffix(&s, upper).unwrap_or("th");
            out.push_str(&s);
            out.push_str(suffix);
        } else {
            out.push_str(&s);
        }
    };
    let name = |out: &mut String, s: String| {
        // TM names are the locale's, written unpadded.
        if fm || mods.tm {
            out.push_str(&s);
        } else {
            out.push_str(&format!("{s:<9}"));
        }
    };
    let year = adjust_year(tm.year, interval);
    let (iso_week, iso_year) = iso_week_year(tm.year, tm.mon, tm.mday);
    let iso_year = adjust_year(iso_year, interval);
    match key {
        Era(dotted, upper) => {
            let s = match (tm.year <= 0, dotted) {
                (true, true) => "B.C.",
                (true, false) => "BC",
                (false, true) => "A.D.",
                (false, false) => "AD",
            };
            out.push_str(&if upper {
                s.into()
            } else {
                s.to_ascii_lowercase()
            });
        }
        Meridiem(dotted, upper) => {
            let s = match (tm.hour % 24 >= 12, dotted) {
                (true, true) => "P.M.",
                (true, false) => "PM",
                (false, true) => "A.M.",
                (false, false) => "AM",
            };
            out.push_str(&if upper {
                s.into()
            } else {
                s.to_ascii_lowercase()
            });
        }
        Hh | Hh12 => {
            let h = match tm.hour % 12 {
                0 => 12,
                h => h,
            };
            // The width follows the sign of the hour, not of the 12-hour value.
            let w = if fm {
                0
            } else if tm.hour >= 0 {
                2
            } else {
                3
            };
            plain(out, padded(h, w));
        }
        Hh24 => num(out, tm.hour, 2),
        Mi => num(out, tm.min, 2),
        Ss => num(out, tm.sec, 2),
        Ff(n) => {
            let v = tm.fsec / 10i64.pow(6 - u32::from(n));
            plain(out, padded(v, usize::from(n)));
        }
        Ms => plain(out, padded(tm.fsec / 1000, 3)),
        Us => plain(out, padded(tm.fsec, 6)),
        Sssss | Ssss => plain(out, (tm.hour * 3600 + tm.min * 60 + tm.sec).to_string()),
        Tz(upper) => {
            if let Some(z) = &tm.tzn {
                out.push_str(&if upper {
                    z.clone()
                } else {
                    z.to_ascii_lowercase()
                });
            }
        }
        Tzh => {
            let sign = if tm.gmtoff >= 0 { '+' } else { '-' };
            out.push_str(&format!("{sign}{:02}", tm.gmtoff.abs() / 3600));
        }
        Tzm => out.push_str(&format!("{:02}", (tm.gmtoff.abs() % 3600) / 60)),
        Of => {
            let sign = if tm.gmtoff >= 0 { '+' } else { '-' };
            let w = if fm { 0 } else { 2 };
            out.push_str(&format!("{sign}{:0w$}", tm.gmtoff.abs() / 3600));
            if tm.gmtoff.abs() % 3600 != 0 {
                out.push_str(&format!(":{:02}", (tm.gmtoff.abs() % 3600) / 60));
            }
        }
        Month(case) | Mon(case) => {
            if tm.mon == 0 {
                return Ok(());
            }
            let full = MONTHS[(tm.mon - 1).clamp(0, 11) as usize];
            if matches!(key, Month(_)) {
                name(out, cased(full, case));
            } else {
                out.push_str(&cased(&full[..3], case));
            }
        }
        Mm => num(out, tm.mon, 2),
        Day(case) | Dy(case) => {
            let full = DAYS[tm.wday.rem_euclid(7) as usize];
            if matches!(key, Day(_)) {
                name(out, cased(full, case));
            } else {
                out.push_str(&cased(&full[..3], case));
            }
        }
        Ddd => fixed(out, tm.yday, 3),
        Iddd => {
            let wday = j2day(date2j(tm.year, tm.mon, tm.mday));
            fixed(out, (iso_week - 1) * 7 + (wday + 6) % 7 + 1, 3);
        }
        Dd => fixed(out, tm.mday, 2),
        D => plain(out, (tm.wday + 1).to_string()),
        Id => plain(out, if tm.wday == 0 { 7 } else { tm.wday }.to_string()),
        Ww => fixed(out, (tm.yday - 1) / 7 + 1, 2),
        Iw => fixed(out, iso_week, 2),
        Q => {
            if tm.mon == 0 {
                return Ok(());
            }
            plain(out, ((tm.mon - 1) / 3 + 1).to_string());
        }
        Cc => {
            let c = if interval {
                tm.year / 100
            } else if tm.year > 0 {
                (tm.year - 1) / 100 + 1
            } else {
                tm.year / 100 - 1
            };
            if (-99..=99).contains(&c) {
                num(out, c, 2);
            } else {
                plain(out, c.to_string());
            }
        }
        YCommaYyy => {
            let i = year / 1000;
            plain(out, format!("{i},{}", padded(year - i * 1000, 3)));
        }
        // The width of the ISO forms follows the sign of the calendar year, as PostgreSQL's.
        Yyyy => year_part(out, year, None, 4, year >= 0, mods),
        Yyy => year_part(out, year, Some(1000), 3, year >= 0, mods),
        Yy => year_part(out, year, Some(100), 2, year >= 0, mods),
        Y => year_part(out, year, Some(10), 1, year >= 0, mods),
        Iyyy => year_part(out, iso_year, None, 4, year >= 0, mods),
        Iyy => year_part(out, iso_year, Some(1000), 3, year >= 0, mods),
        Iy => year_part(out, iso_year, Some(100), 2, year >= 0, mods),
        I => year_part(out, iso_year, Some(10), 1, year >= 0, mods),
        Rm(upper) => {
            if tm.mon == 0 && tm.year == 0 {
                return Ok(());
            }
            let i = if tm.mon == 0 {
                if tm.year >= 0 {
                    0
                } else {
                    11
                }
            } else if tm.mon < 0 {
                -(tm.mon + 1)
            } else {
                12 - tm.mon
            };
            let s = RM[i.clamp(0, 11) as usize];
            let s = if upper {
                s.to_string()
            } else {
                s.to_ascii_lowercase()
            };
            if fm {
                out.push_str(&s);
            } else {
                out.push_str(&format!("{s:<4}"));
            }
        }
        W => plain(out, ((tm.mday - 1) / 7 + 1).to_string()),
        J => plain(out, date2j(tm.year, tm.mon, tm.mday).to_string()),
        Fx => {}
    }
    Ok(())
}

/// `YYYY`, `YYY`, `YY`, `Y` (and the ISO forms): the year or its last digits, padded to
/// `width`, one more when the calendar year is negative.
fn year_part(
    out: &mut String,
    year: i64,
    modulus: Option<i64>,
    width: usize,
    nonnegative: bool,
    mods: Mods,
) {
    let w = if mods.fill {
        0
    } else if nonnegative {
        width
    } else {
        width + 1
    };
    let s = padded(modulus.map_or(year, |m| year % m), w);
    out.push_str(&s);
    if let Some(upper) = mods.th {
        out.push_str(ordinal_suffix(&s, upper).unwrap_or("th"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn julian_and_iso_weeks() {
        assert_eq!(date2j(2000, 1, 1), 2451545);
        assert_eq!(date2j(2024, 3, 5), 2460375);
        assert_eq!(iso_week_year(2024, 3, 5), (10, 2024));
        assert_eq!(iso_week_year(2021, 1, 1), (53, 2020));
        assert_eq!(iso_week_year(2024, 12, 30), (1, 2025));
        assert_eq!(date2j(-1, -2, 3), 1720605);
        assert_eq!(iso_week_year(-1, -2, 3), (40, -2));
    }
}
