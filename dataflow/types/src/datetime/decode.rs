//! Turning date/time tokens into a date and a time of day, the second step of `date` and
//! `timestamp` input, with PostgreSQL's rules and the session's `DateStyle` field order.
//!
//! Tokens fill a [`Draft`] one at a time. Each slot (year, month, day, time, zone, AM/PM,
//! AD/BC, weekday) may be filled once; a second value for it is a syntax error. A number's
//! meaning depends on what is already known, as PostgreSQL documents in "Date/Time Input
//! Interpretation": a number of three or more digits before anything else is the year, the
//! others fill month, day and year in that order (MDY); three digits after a lone year are
//! the day of the year; six or eight digits are a packed `YYMMDD`/`YYYYMMDD` date, and four or
//! six digits once the date is complete a packed `hhmm`/`hhmmss` time; a year of one or two
//! digits is 1970-2069. Ranges are checked once every token is in (22008), so `Feb 30` fails
//! only after the whole text has been read, as in PostgreSQL. What kpg cannot hold
//! (`infinity`, BC years, years past chrono's range) or does not implement (Julian days) is
//! 0A000.

use super::lex::{is_weekday, month_number, tokenize, Token};
use super::zone;
use crate::error::EvalError;
use crate::interval::{
    fraction_micros, split_clock, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC,
};
use chrono::{Duration, NaiveDate};

mod placement;

/// Why date/time text did not decode.
#[derive(Debug, PartialEq)]
pub(crate) enum DtErr {
    /// Not a date/time at all (22007).
    Syntax,
    /// A field out of range, such as February 30 (22008).
    Field,
    /// A zone offset beyond ±15:59:59 (22009).
    ZoneOffset,
    /// A zone name that is not known (22023).
    UnknownZone(String),
    /// A date outside what the type holds (22008).
    OutOfRange,
    /// A year PostgreSQL's date and timestamp may hold but chrono's dates cannot.
    BigYear(i64),
    /// A form PostgreSQL accepts that kpg does not implement (0A000), named.
    Unsupported(String),
    /// A word that reads the statement's time (`today`) where there is none (0A000).
    NeedsClock(String),
}

/// The last years PostgreSQL's `date` and `timestamp` hold.
const LAST_DATE_YEAR: i64 = 5_874_897;
const LAST_TIMESTAMP_YEAR: i64 = 294_276;

impl DtErr {
    /// The error for `text`, read as `type_name` (`date` or `timestamp`).
    pub(crate) fn into_eval(self, type_name: &str, text: &str) -> EvalError {
        let last_year = if type_name == "date" {
            LAST_DATE_YEAR
        } else {
            LAST_TIMESTAMP_YEAR
        };
        match self {
            DtErr::Syntax => EvalError::InvalidTextRepresentation {
                type_name: type_name.into(),
                value: text.into(),
            },
            DtErr::Field => EvalError::DateTimeFieldOverflow(text.into()),
            DtErr::ZoneOffset => EvalError::TimeZoneDisplacementOverflow(text.into()),
            DtErr::UnknownZone(name) => EvalError::UnknownTimeZone(name),
            DtErr::BigYear(year) if year <= last_year => {
                EvalError::Unsupported(format!("{type_name} input \"{text}\""))
            }
            DtErr::OutOfRange | DtErr::BigYear(_) => EvalError::DateTimeOutOfRange {
                type_name: type_name.into(),
                value: text.into(),
            },
            DtErr::Unsupported(what) => {
                EvalError::Unsupported(format!("{type_name} input \"{what}\""))
            }
            DtErr::NeedsClock(word) => EvalError::Unsupported(format!(
                "{type_name} input \"{word}\" outside an ad hoc statement (in a materialized \
                 view, an index, a subscription, a stored definition or a value computed in a \
                 dataflow, as now() is)"
            )),
        }
    }
}

/// Decodes date/time text into a date and the microseconds since its midnight (more than a
/// day when a packed time says so, as PostgreSQL allows).
pub(super) fn decode(text: &str) -> Result<(NaiveDate, i64), DtErr> {
    decode_zoned(text).map(|(date, micros, _)| (date, micros))
}

/// As `decode`, also returning the time zone the text names, if any (`timestamptz` input).
pub(super) fn decode_zoned(text: &str) -> Result<(NaiveDate, i64, Option<zone::InputZone>), DtErr> {
    let lower = text.to_ascii_lowercase();
    let tokens = tokenize(&lower)?;
    let mut draft = Draft::default();
    for (i, token) in tokens.iter().enumerate() {
        draft.take(*token, tokens.get(i + 1))?;
    }
    let zone = draft.zone.take();
    let (date, micros) = draft.finish()?;
    Ok((date, micros, zone))
}

/// Decodes `time` text into microseconds since midnight (at most 24:00:00), as PostgreSQL's
/// `DecodeTimeOnly`: a date may precede the time and is checked, then ignored; numbers are
/// read as packed times (`040506`, `1030`), never as dates; a time is required.
pub(super) fn decode_time(text: &str) -> Result<i64, DtErr> {
    let lower = text.to_ascii_lowercase();
    let tokens = tokenize(&lower)?;
    let mut draft = Draft {
        time_only: true,
        ..Draft::default()
    };
    for (i, token) in tokens.iter().enumerate() {
        draft.take(*token, tokens.get(i + 1))?;
    }
    draft.finish_time()
}

#[derive(Clone, Copy, Debug)]
struct Year {
    value: i64,
    /// Written with one or two digits: a year of 1970-2069.
    short: bool,
}

#[derive(Clone, Copy, Debug)]
struct Month {
    value: i64,
    /// Written as a name (`jan`), not a number.
    named: bool,
}

/// A word standing for a whole value.
#[derive(Debug, PartialEq)]
enum Keyword {
    Epoch,
    /// One kpg does not implement (`today`, `infinity`, `julian`...).
    Unsupported(String),
}

/// What the tokens read so far have said.
#[derive(Debug, Default)]
struct Draft {
    year: Option<Year>,
    month: Option<Month>,
    day: Option<i64>,
    /// Month 1 and `day` are a day of the year, which may run into the next year.
    day_of_year: bool,
    /// The hour as written (for AM/PM) and the time of day in microseconds.
    time: Option<(i64, i64)>,
    zone: Option<zone::InputZone>,
    pm: Option<bool>,
    bc: Option<bool>,
    weekday: Option<()>,
    keyword: Option<Keyword>,
    /// The previous token was the ISO `T`: this one must be a time.
    time_next: bool,
    /// Reading `time` input (`decode_time`).
    time_only: bool,
}

/// Fills an empty slot; a slot given twice is a syntax error.
fn fill<T>(slot: &mut Option<T>, value: T) -> Result<(), DtErr> {
    if slot.is_some() {
        return Err(DtErr::Syntax);
    }
    *slot = Some(value);
    Ok(())
}

impl Draft {
    fn date_complete(&self) -> bool {
        self.year.is_some() && self.month.is_some() && self.day.is_some()
    }

    fn take(&mut self, token: Token, next: Option<&Token>) -> Result<(), DtErr> {
        if std::mem::take(&mut self.time_next) {
            return match token {
                Token::Clock(c) => self.clock(c),
                Token::Number(n) => self.packed_time(n),
                _ => Err(DtErr::Syntax),
            };
        }
        match token {
            Token::Number(n) => self.number(n),
            Token::Compound(c) => self.compound(c),
            Token::Clock(c) => self.clock(c),
            Token::Word(w) => self.word(w, next),
            Token::Offset { negative, body } => {
                let east = zone::check_offset(body)?;
                let east = if negative { -east } else { east };
                fill(&mut self.zone, zone::InputZone::Offset(east))
            }
            Token::SignedWord {
                negative: true,
                word: "infinity",
            } => fill(&mut self.keyword, Keyword::Unsupported("-infinity".into())),
            Token::SignedWord { .. } => Err(DtErr::Syntax),
        }
    }

    /// A number standing alone.
    fn number(&mut self, n: &str) -> Result<(), DtErr> {
        let date_begun = self.year.is_some() || self.month.is_some() || self.day.is_some();
        if self.time_only {
            // Several digits before any point are a packed time; fewer are nothing.
            let whole = n.split_once('.').map_or(n, |(w, _)| w);
            return if whole.len() > 2 {
                self.packed_time(n)
            } else {
                Err(DtErr::Syntax)
            };
        }
        if let Some((whole, _)) = n.split_once('.') {
            return if !date_begun {
                // `2024.015`: a year and a day of the year.
                self.compound(n)
            } else if whole.len() >= 3 {
                self.packed_time(n)
            } else {
                Err(DtErr::Syntax)
            };
        }
        if n.len() >= 6 && !self.date_complete() {
            return self.packed_date(n);
        }
        self.date_number(n)
    }

    /// Six or more digits while the date is incomplete: `[Y...]YYMMDD`.
    fn packed_date(&mut self, digits: &str) -> Result<(), DtErr> {
        let (year, rest) = digits.split_at(digits.len() - 4);
        let (month, day) = rest.split_at(2);
        fill(
            &mut self.year,
            Year {
                value: year.parse().map_err(|_| DtErr::Field)?,
                short: year.len() == 2,
            },
        )?;
        fill(
            &mut self.month,
            Month {
                value: field_int(month)?,
                named: false,
            },
        )?;
        fill(&mut self.day, field_int(day)?)
    }

    /// `hhmmss` or `hhmm`, maybe with a fraction of a second; the fields are not checked
    /// against their ranges (`996099` is 99 hours, 60 minutes and 99 seconds, as in
    /// PostgreSQL).
    fn packed_time(&mut self, text: &str) -> Result<(), DtErr> {
        let (digits, micros) = match text.split_once('.') {
            Some((d, f)) => (d, fraction_micros(f).ok_or(DtErr::Syntax)?),
            None => (text, 0),
        };
        let (hm, seconds) = match digits.len() {
            6 => digits.split_at(4),
            4 => (digits, "0"),
            _ => return Err(DtErr::Syntax),
        };
        let (hour, minute) = hm.split_at(2);
        let hour = field_int(hour)?;
        let micros = hour * USECS_PER_HOUR
            + field_int(minute)? * USECS_PER_MINUTE
            + field_int(seconds)? * USECS_PER_SEC
            + micros;
        fill(&mut self.time, (hour, micros))
    }

    /// Digits and month names joined by separators; the date must be complete afterwards.
    /// Once the month and day are known, this is a zone name instead. A date may follow
    /// other parts of a date or a zone, but not a time, weekday, AM/PM, AD/BC or keyword
    /// (`fri 2024-01-05` is refused, `2024-01-05 fri` taken, as in PostgreSQL).
    fn compound(&mut self, text: &str) -> Result<(), DtErr> {
        if self.month.is_some() && self.day.is_some() {
            if text.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(DtErr::Syntax);
            }
            zone::check_name(text)?;
            return fill(&mut self.zone, zone::InputZone::Name(text.to_string()));
        }
        let too_late = self.time.is_some()
            || self.weekday.is_some()
            || self.pm.is_some()
            || self.bc.is_some()
            || self.keyword.is_some();
        if too_late {
            return Err(DtErr::Syntax);
        }
        let parts = split_parts(text)?;
        // Names first, so that the numbers know the month was a name (`05-jan-24`).
        for word in parts
            .iter()
            .filter(|p| p.starts_with(|c: char| c.is_ascii_alphabetic()))
        {
            let value = month_number(word).ok_or(DtErr::Syntax)?;
            fill(&mut self.month, Month { value, named: true })?;
        }
        for digits in parts
            .iter()
            .filter(|p| p.starts_with(|c: char| c.is_ascii_digit()))
        {
            if self.date_complete() {
                return Err(DtErr::Syntax);
            }
            self.date_number(digits)?;
        }
        if !self.date_complete() {
            return Err(DtErr::Syntax);
        }
        Ok(())
    }

    /// `hh:mm`, `hh:mm:ss[.frac]` or `mm:ss.frac`; an empty part is zero. 24:00:00 and a
    /// 60th second are allowed.
    fn clock(&mut self, text: &str) -> Result<(), DtErr> {
        let (hour, minute, second, frac) = split_clock(text).ok_or(DtErr::Syntax)?;
        let frac = fraction_micros(frac).ok_or(DtErr::Syntax)?;
        let (hour, minute, second) = (clock_int(hour)?, clock_int(minute)?, clock_int(second)?);
        if hour > 24 || minute > 59 || second > 60 {
            return Err(DtErr::Field);
        }
        let micros =
            hour * USECS_PER_HOUR + minute * USECS_PER_MINUTE + second * USECS_PER_SEC + frac;
        if micros > 24 * USECS_PER_HOUR {
            return Err(DtErr::Field);
        }
        fill(&mut self.time, (hour, micros))
    }

    fn word(&mut self, w: &str, next: Option<&Token>) -> Result<(), DtErr> {
        if zone::is_abbreviation(w) {
            return fill(&mut self.zone, zone::InputZone::Name(w.to_string()));
        }
        if let Some(month) = month_number(w) {
            return self.month_name(month);
        }
        if is_weekday(w) {
            return fill(&mut self.weekday, ());
        }
        match w {
            "at" | "on" => Ok(()),
            "am" | "pm" => fill(&mut self.pm, w == "pm"),
            "ad" | "bc" => fill(&mut self.bc, w == "bc"),
            "t" => {
                let time_follows = matches!(
                    next,
                    Some(Token::Number(_) | Token::Clock(_) | Token::Compound(_))
                );
                if !(self.date_complete() || self.time_only) || !time_follows {
                    return Err(DtErr::Syntax);
                }
                self.time_next = true;
                Ok(())
            }
            "allballs" => {
                fill(&mut self.time, (0, 0))?;
                fill(&mut self.zone, zone::InputZone::Offset(0))
            }
            // The instant 1970-01-01 00:00 UTC (also as a timestamptz).
            "epoch" => {
                fill(&mut self.keyword, Keyword::Epoch)?;
                fill(&mut self.zone, zone::InputZone::Offset(0))
            }
            "now" => self.now(),
            "today" | "tomorrow" | "yesterday" if !self.time_only => {
                let days = match w {
                    "today" => 0,
                    "tomorrow" => 1,
                    _ => -1,
                };
                self.today(w, days)
            }
            "infinity" => fill(&mut self.keyword, Keyword::Unsupported(w.into())),
            "j" | "jd" | "julian" => {
                fill(&mut self.keyword, Keyword::Unsupported("julian day".into()))
            }
            // A zone name needs a date to say its offset; a time alone may not have one.
            _ if zone::is_zone_name(w) && (!self.time_only || self.date_complete()) => {
                fill(&mut self.zone, zone::InputZone::Name(w.to_string()))
            }
            _ => Err(DtErr::Syntax),
        }
    }

    /// A month name; a number already taken as the month is the day (`5 jan 2024`).
    fn month_name(&mut self, value: i64) -> Result<(), DtErr> {
        if let (Some(m), None) = (self.month, self.day) {
            if !m.named && (1..=31).contains(&m.value) {
                self.day = Some(m.value);
                self.month = None;
            }
        }
        fill(&mut self.month, Month { value, named: true })
    }

    /// Checks a `time`'s fields and returns its microseconds since midnight.
    fn finish_time(self) -> Result<i64, DtErr> {
        match &self.keyword {
            Some(_) => return Err(DtErr::Syntax),
            None if self.time.is_none() => return Err(DtErr::Syntax),
            None => {}
        }
        let date_given = self.date_complete();
        let micros = self.finish_with_date(date_given)?.1;
        if !(0..=24 * USECS_PER_HOUR).contains(&micros) {
            return Err(DtErr::Field);
        }
        Ok(micros)
    }

    /// Checks the ranges and builds the result.
    fn finish(self) -> Result<(NaiveDate, i64), DtErr> {
        let (date, micros) = self.finish_with_date(true)?;
        Ok((date.expect("a date is required"), micros))
    }

    /// Checks the ranges and builds the date (unless not `need_date`, when a time alone
    /// is read) and the time.
    fn finish_with_date(self, need_date: bool) -> Result<(Option<NaiveDate>, i64), DtErr> {
        if let Some(Keyword::Unsupported(what)) = self.keyword {
            return Err(DtErr::Unsupported(what));
        }
        let bc = self.bc == Some(true);
        let year = match self.year {
            Some(y) if y.short && !bc => Some(y.value + if y.value < 70 { 2000 } else { 1900 }),
            Some(y) if y.value <= 0 => return Err(DtErr::Field),
            y => y.map(|y| y.value),
        };
        let month_ok = self.month.is_none_or(|m| (1..=12).contains(&m.value));
        let day_ok = self.day_of_year || self.day.is_none_or(|d| (1..=31).contains(&d));
        if !month_ok || !day_ok {
            return Err(DtErr::Field);
        }
        let date = match (year, self.month, self.day) {
            (Some(y), Some(m), Some(d)) => Some((y, m.value, d)),
            _ => None,
        };
        if let Some((y, m, d)) = date {
            if !self.day_of_year && d > days_in_month(y, m) {
                return Err(DtErr::Field);
            }
        }
        let (hour, mut micros) = self.time.unwrap_or((0, 0));
        match self.pm {
            Some(_) if hour > 12 => return Err(DtErr::Field),
            Some(false) if hour == 12 => micros -= 12 * USECS_PER_HOUR,
            Some(true) if hour != 12 => micros += 12 * USECS_PER_HOUR,
            _ => {}
        }
        if self.keyword == Some(Keyword::Epoch) {
            return Ok((NaiveDate::from_ymd_opt(1970, 1, 1), 0));
        }
        if !need_date {
            return Ok((None, micros));
        }
        if bc {
            return Err(DtErr::Unsupported("BC".into()));
        }
        let (y, m, d) = date.ok_or(DtErr::Syntax)?;
        let date = i32::try_from(y).ok().and_then(|y| {
            if self.day_of_year {
                NaiveDate::from_ymd_opt(y, 1, 1)?.checked_add_signed(Duration::days(d - 1))
            } else {
                NaiveDate::from_ymd_opt(y, m as u32, d as u32)
            }
        });
        Ok((Some(date.ok_or(DtErr::BigYear(y))?), micros))
    }
}

/// Splits a compound date into runs of digits and runs of letters. Whatever separates them
/// is dropped; a trailing separator is a syntax error.
fn split_parts(text: &str) -> Result<Vec<&str>, DtErr> {
    let mut parts = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        rest = rest.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
        let first = rest.chars().next().ok_or(DtErr::Syntax)?;
        let len = if first.is_ascii_digit() {
            rest.find(|c: char| !c.is_ascii_digit())
        } else {
            rest.find(|c: char| !c.is_ascii_alphabetic())
        }
        .unwrap_or(rest.len());
        parts.push(&rest[..len]);
        // PostgreSQL drops the character after each part, separator or not
        // (`2024-jan123` is January 23).
        rest = rest.get(len + 1..).unwrap_or("");
    }
    Ok(parts)
}

/// A date field: digits whose value fits an int4, else out of range.
fn field_int(digits: &str) -> Result<i64, DtErr> {
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(DtErr::Syntax);
    }
    digits
        .parse::<i32>()
        .map(i64::from)
        .map_err(|_| DtErr::Field)
}

/// A field of a clock, where an empty field is zero (`10::` is 10:00:00).
fn clock_int(digits: &str) -> Result<i64, DtErr> {
    if digits.is_empty() {
        Ok(0)
    } else {
        field_int(digits)
    }
}

/// Days in a month of the proleptic Gregorian calendar.
fn days_in_month(year: i64, month: i64) -> i64 {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
