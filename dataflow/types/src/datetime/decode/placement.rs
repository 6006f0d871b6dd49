//! Where the numbers of a date go, by `DateStyle`'s field order, and the words that stand
//! for the statement's date or time (`now`, `today`, `tomorrow`, `yesterday`), which fill the
//! same slots: the part of `decode` that depends on the session (`datetime/input.rs`).

use super::{field_int, fill, zone, Draft, DtErr, Month, Year};
use crate::datetime::style::DateOrder;
use crate::interval::{USECS_PER_HOUR, USECS_PER_SEC};
use chrono::{Datelike, NaiveDate, Timelike};

impl Draft {
    /// One number of a date, placed by what is already known and by `DateStyle`'s field
    /// order, as PostgreSQL's "Date/Time Input Interpretation" describes: a first number of
    /// three or more digits is the year, else the order says (MDY month, DMY day, YMD year);
    /// after a year comes the month, after a month alone the day, after a day alone the
    /// month, after month and day the year. After a month name, a first number is the day
    /// (the year if long, or under YMD); under YMD a long number after a short year and a
    /// month name makes that year the day (`05-jan-2024`).
    pub(super) fn date_number(&mut self, digits: &str) -> Result<(), DtErr> {
        if self.date_complete() {
            return self.packed_time(digits);
        }
        let value = field_int(digits)?;
        let long = digits.len() >= 3;
        let only_year = self.year.is_some() && self.month.is_none() && self.day.is_none();
        if digits.len() == 3 && only_year && (1..=366).contains(&value) {
            self.month = Some(Month {
                value: 1,
                named: false,
            });
            self.day = Some(value);
            self.day_of_year = true;
            return Ok(());
        }
        let order = crate::datetime::input::date_order();
        let year = Year {
            value,
            short: !long,
        };
        let named = self.month.is_some_and(|m| m.named);
        let known = (self.year, self.month.is_some(), self.day.is_some());
        match known {
            (None, false, false) if long || order == DateOrder::Ymd => self.year = Some(year),
            (None, false, false) if order == DateOrder::Dmy => self.day = Some(value),
            (None, false, false) => {
                self.month = Some(Month {
                    value,
                    named: false,
                })
            }
            (Some(_), false, false) | (None, false, true) => {
                self.month = Some(Month {
                    value,
                    named: false,
                })
            }
            (None, true, false) if named && (long || order == DateOrder::Ymd) => {
                self.year = Some(year)
            }
            (None, true, false) => self.day = Some(value),
            (Some(first), true, false) if named && long && first.short => {
                self.day = Some(first.value);
                self.year = Some(year);
            }
            (Some(_), true, false) => self.day = Some(value),
            (None, true, true) => self.year = Some(year),
            _ => return Err(DtErr::Syntax),
        }
        Ok(())
    }

    /// `now`: the statement's date, time and zone, so none of them may be given as well.
    pub(super) fn now(&mut self) -> Result<(), DtErr> {
        let (local, east) = crate::datetime::input::local_now("now")?;
        self.fill_date(local.date())?;
        let micros = i64::from(local.time().num_seconds_from_midnight()) * USECS_PER_SEC
            + i64::from(local.time().nanosecond() / 1000);
        fill(&mut self.time, (micros / USECS_PER_HOUR, micros))?;
        fill(&mut self.zone, zone::InputZone::Offset(east))
    }

    /// `today` (`days` 0), `tomorrow` (1), `yesterday` (-1): the date only, in the
    /// session's zone; a time may go with it.
    pub(super) fn today(&mut self, word: &str, days: i64) -> Result<(), DtErr> {
        let date = crate::datetime::input::local_day(word, days)?;
        self.fill_date(date)
    }

    /// Fills the year, month and day with `date`'s.
    fn fill_date(&mut self, date: NaiveDate) -> Result<(), DtErr> {
        fill(
            &mut self.year,
            Year {
                value: date.year().into(),
                short: false,
            },
        )?;
        fill(
            &mut self.month,
            Month {
                value: date.month().into(),
                named: false,
            },
        )?;
        fill(&mut self.day, date.day().into())
    }
}
