//! PostgreSQL's own interval input format: `[@] quantity unit [quantity unit ...] [ago]`.
//!
//! As PostgreSQL documents it: units are written out, abbreviated or plural (`1 year 2 mons`,
//! `3 hrs`, `1.5 weeks`), case does not matter, `@` is noise and `ago` (anywhere) negates
//! the whole value. Days and the time can go without units (`3 4:05:06` is 3 days 4 hours 5
//! minutes 6 seconds), years and months can be joined by a dash (`1-2` is 1 year 2 months),
//! and a number on its own at the end is seconds (or the last field of the SQL qualifier,
//! `interval '90' day`; see `typmod`). A number without a unit before one of hours (written
//! so or by the qualifier) is days (`1 2 hours`, `'1 2' hour`). Under the qualifier `MINUTE
//! TO SECOND` a clock of two fields is minutes and seconds. Besides what the documentation says, PostgreSQL also takes each unit at most once
//! (`1 day 1 day` is a syntax error; a clock takes the hours down to the microseconds), takes
//! empty clock fields as zero (`1::2`), and reports minutes past 59 or seconds past 60 in an
//! unsigned clock as a field overflow (22015) but in a signed one as a syntax error; kpg does
//! the same. A unit without a number before it is ignored, as PostgreSQL ignores it. Under
//! `IntervalStyle = sql_standard`, a leading minus with no other sign in the text negates
//! every field (`datetime/input.rs` says which style is in effect).

use super::fields::{fraction_micros, split_clock, Bad, Fields, Quantity};
use super::{IntervalField, IntervalTypmod, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC};
use crate::datetime::DateUnit;

/// One token of interval text.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Token<'a> {
    /// `[-]digits[.digits]`.
    Number { negative: bool, text: &'a str },
    /// `[-]years-months`.
    YearMonth {
        negative: bool,
        years: &'a str,
        months: &'a str,
    },
    /// `[-]h:m[:s[.frac]]` or `[-]m:s.frac`; `signed` when a `+` or `-` was written.
    Clock {
        negative: bool,
        signed: bool,
        text: &'a str,
    },
    /// Letters and digits starting with a letter: a unit or `ago`.
    Word(&'a str),
}

fn tokenize(text: &str) -> Result<Vec<Token<'_>>, Bad> {
    if !text.is_ascii() {
        return Err(Bad::Syntax);
    }
    let b = text.as_bytes();
    let run = |from: usize, keep: fn(u8) -> bool| {
        from + b[from..].iter().take_while(|c| keep(**c)).count()
    };
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let starts_number =
            c.is_ascii_digit() || c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        if c == b'+' || c == b'-' || starts_number {
            let signed = !starts_number;
            let negative = c == b'-';
            if signed {
                i = run(i + 1, |c| c.is_ascii_whitespace());
            }
            let start = i;
            i = run(i, |c| c.is_ascii_digit());
            // A sign must be followed by a digit (`-.5` is refused, `.5` taken).
            if i == start && signed {
                return Err(Bad::Syntax);
            }
            if b.get(i) == Some(&b'.') {
                i = run(i + 1, |c| c.is_ascii_digit());
            }
            if i == start {
                return Err(Bad::Syntax);
            }
            let token = match b.get(i) {
                Some(b':') => {
                    i = run(i, |c| c.is_ascii_digit() || c == b':' || c == b'.');
                    Token::Clock {
                        negative,
                        signed,
                        text: &text[start..i],
                    }
                }
                // `1.5-2` is one token in PostgreSQL, and a bad one.
                Some(b'-') if text[start..i].contains('.') => return Err(Bad::Syntax),
                Some(b'-') if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                    let dash = i;
                    i = run(i + 1, |c| c.is_ascii_digit());
                    Token::YearMonth {
                        negative,
                        years: &text[start..dash],
                        months: &text[dash + 1..i],
                    }
                }
                _ => Token::Number {
                    negative,
                    text: &text[start..i],
                },
            };
            // `1.5.5` is refused; after `1-2`, `.5` is a number of its own.
            if matches!(token, Token::Number { .. } | Token::Clock { .. })
                && b.get(i) == Some(&b'.')
            {
                return Err(Bad::Syntax);
            }
            // `1-2-3` and `2024-01-01` are dates, not a year-month.
            if matches!(token, Token::YearMonth { .. }) && b.get(i) == Some(&b'-') {
                return Err(Bad::Syntax);
            }
            tokens.push(token);
        } else if c.is_ascii_alphabetic() {
            let start = i;
            i = run(i, |c| c.is_ascii_alphabetic());
            let word = &text[start..i];
            // Digits may follow a one-letter unit or `mon`/`dec` (`y2`); after other words
            // they make one unknown token (`day2`), as do `-`, `/` and `.` after any word
            // (`week.5`), as in PostgreSQL.
            let splits = matches!(
                word.to_ascii_lowercase().as_str(),
                "y" | "m" | "d" | "h" | "s" | "mon" | "dec"
            );
            let joined = matches!(b.get(i), Some(b'-' | b'/' | b'.'));
            if joined || b.get(i).is_some_and(u8::is_ascii_digit) && !splits {
                return Err(Bad::Syntax);
            }
            tokens.push(Token::Word(word));
        } else if c.is_ascii_whitespace() || c.is_ascii_punctuation() {
            i += 1;
        } else {
            return Err(Bad::Syntax);
        }
    }
    Ok(tokens)
}

/// Adds `q` of `unit`, one of the units an interval may be written in (the words are those
/// of EXTRACT, `DateUnit::parse`, as in PostgreSQL).
fn add(f: &mut Fields, unit: DateUnit, q: Quantity) -> Result<(), Bad> {
    use DateUnit::*;
    match unit {
        Microseconds => f.micros(q, 1),
        Milliseconds => f.micros(q, 1000),
        Second => f.micros(q, USECS_PER_SEC),
        Minute => f.micros(q, USECS_PER_MINUTE),
        Hour => f.micros(q, USECS_PER_HOUR),
        Day => f.days(q, 1),
        Week => f.days(q, 7),
        Month => f.months(q),
        Year => f.years(q, 1),
        Decade => f.years(q, 10),
        Century => f.years(q, 100),
        Millennium => f.years(q, 1000),
        Quarter | Dow | Isodow | Doy | Isoyear | Epoch | Julian | Timezone | TimezoneHour
        | TimezoneMinute => Err(Bad::Syntax),
    }
}

/// The unit a word names (`hours`, `mins`), if an interval may be written in it.
fn unit_of(word: &str) -> Option<DateUnit> {
    use DateUnit::*;
    DateUnit::parse(word)?.ok().filter(|u| {
        !matches!(
            u,
            Quarter
                | Dow
                | Isodow
                | Doy
                | Isoyear
                | Epoch
                | Julian
                | Timezone
                | TimezoneHour
                | TimezoneMinute
        )
    })
}

/// The unit of a number written without one at the end of the text.
fn bare_unit(typmod: Option<&IntervalTypmod>) -> DateUnit {
    match typmod.map_or(IntervalField::Second, IntervalTypmod::bare_field) {
        IntervalField::Year => DateUnit::Year,
        IntervalField::Month => DateUnit::Month,
        IntervalField::Day => DateUnit::Day,
        IntervalField::Hour => DateUnit::Hour,
        IntervalField::Minute => DateUnit::Minute,
        IntervalField::Second => DateUnit::Second,
    }
}

/// The unit of a number with `next` after it: the unit written there, the qualifier's at the
/// end, days before a clock or before another number without a unit; `None` if the text is
/// not an interval.
fn unit_before<'a>(
    next: Option<&Token<'a>>,
    after_next: Option<&Token<'a>>,
    typmod: Option<&IntervalTypmod>,
) -> Option<DateUnit> {
    match next {
        Some(Token::Word(w)) => unit_of(w),
        // `3 4:05:06`: days, then the time.
        Some(Token::Clock { .. }) => Some(DateUnit::Day),
        None => Some(bare_unit(typmod)),
        // `1 2 hours`, `'1 2' hour`: days before hours; before any other unit, nothing.
        Some(Token::Number { .. }) => {
            let next_unit = match after_next {
                Some(Token::Word(w)) => unit_of(w),
                None => Some(bare_unit(typmod)),
                _ => None,
            };
            (next_unit == Some(DateUnit::Hour)).then_some(DateUnit::Day)
        }
        Some(Token::YearMonth { .. }) => None,
    }
}

/// One thing the text says: a number with the unit it was given, or a year-month or clock
/// token.
enum Item<'a> {
    Quantity {
        negative: bool,
        text: &'a str,
        unit: DateUnit,
    },
    Token(Token<'a>),
}

/// Reads `text` in PostgreSQL's format. Numbers are paired with their units from left to
/// right, then the items are added up from right to left, as PostgreSQL does: that order is
/// visible because a clock replaces the microseconds that fractions of days, weeks or months
/// to its right have left (`10:00 1.5 days` is `1 day 10:00:00`, `1.5 days 10:00` is
/// `1 day 22:00:00`).
pub(super) fn parse(text: &str, typmod: Option<&IntervalTypmod>) -> Result<Fields, Bad> {
    let mut tokens = tokenize(text)?;
    if crate::datetime::input_style().sql_standard_intervals && leading_minus_alone(text) {
        // Every number, year-month and clock is negative, as PostgreSQL negates each field
        // as it reads it.
        for token in &mut tokens {
            match token {
                Token::Number { negative, .. }
                | Token::YearMonth { negative, .. }
                | Token::Clock { negative, .. } => *negative = true,
                Token::Word(_) => {}
            }
        }
    }
    let mut items = Vec::new();
    let mut ago = false;
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        i += 1;
        match token {
            Token::Word(w) if w.eq_ignore_ascii_case("ago") => ago = true,
            // A unit without a number before it says nothing (`days 100` is 100 seconds).
            Token::Word(w) if unit_of(w).is_some() => {}
            Token::Word(_) => return Err(Bad::Syntax),
            &Token::Number { negative, text } => {
                let next = tokens.get(i);
                let unit = unit_before(next, tokens.get(i + 1), typmod).ok_or(Bad::Syntax)?;
                if matches!(next, Some(Token::Word(_))) {
                    i += 1;
                }
                items.push(Item::Quantity {
                    negative,
                    text,
                    unit,
                });
            }
            Token::YearMonth { .. } | Token::Clock { .. } => items.push(Item::Token(*token)),
        }
    }
    if items.is_empty() {
        return Err(Bad::Syntax);
    }
    let mut fields = Fields::default();
    // The units given so far, one bit each.
    let mut given = 0u32;
    let mut claim = |units: &[DateUnit]| {
        let bits = units.iter().fold(0u32, |bits, u| bits | 1 << *u as u32);
        if given & bits != 0 {
            return Err(Bad::Syntax);
        }
        given |= bits;
        Ok(())
    };
    for item in items.iter().rev() {
        match *item {
            Item::Quantity {
                negative,
                text,
                unit,
            } => {
                add(&mut fields, unit, Quantity::parse(negative, text)?)?;
                claim(&[unit])?;
            }
            Item::Token(Token::YearMonth {
                negative,
                years,
                months,
            }) => {
                let years = Quantity::parse(negative, years)?;
                let months = Quantity::parse(negative, months)?;
                if months.whole.abs() > 11 {
                    return Err(Bad::FieldOverflow);
                }
                fields.years(years, 1)?;
                fields.months(months)?;
                claim(&[DateUnit::Month])?;
            }
            Item::Token(Token::Clock {
                negative,
                signed,
                text,
            }) => {
                let minutes_seconds = typmod.is_some_and(IntervalTypmod::clock_is_minutes_seconds);
                fields.set_micros(clock_micros(negative, signed, text, minutes_seconds)?);
                use DateUnit::*;
                claim(&[Hour, Minute, Second, Milliseconds, Microseconds])?;
            }
            Item::Token(Token::Number { .. } | Token::Word(_)) => {}
        }
    }
    if ago {
        fields.negate()?;
    }
    Ok(fields)
}

/// Whether the text starts with a minus and no other field has a sign: under
/// `IntervalStyle = sql_standard` that minus applies to every field (`-1 2:03:04` is minus
/// one day, two hours...), as in PostgreSQL. A sign starts a field unless it follows a digit,
/// a point or a colon (`1-2` is a year and months).
fn leading_minus_alone(text: &str) -> bool {
    // `@` is noise before the first field.
    let t = text.trim_start().trim_start_matches('@').trim_start();
    if !t.starts_with('-') {
        return false;
    }
    let b = t.as_bytes();
    !(1..b.len()).any(|i| {
        matches!(b[i], b'+' | b'-')
            && !(b[i - 1].is_ascii_digit() || matches!(b[i - 1], b'.' | b':'))
    })
}

/// The microseconds of `h:m[:s[.frac]]` or `m:s.frac` (an empty field is zero), negated when
/// `negative`; `h:m` is `m:s` when `minutes_seconds`.
fn clock_micros(
    negative: bool,
    signed: bool,
    text: &str,
    minutes_seconds: bool,
) -> Result<i64, Bad> {
    let (h, m, s, frac) = match split_clock(text).ok_or(Bad::Syntax)? {
        (h, m, "", "") if minutes_seconds && text.matches(':').count() == 1 => ("", h, m, ""),
        parts => parts,
    };
    let int = |p: &str| -> Result<i64, Bad> {
        match p {
            "" => Ok(0),
            p if p.bytes().all(|c| c.is_ascii_digit()) => p.parse().map_err(|_| Bad::FieldOverflow),
            _ => Err(Bad::Syntax),
        }
    };
    let (h, m, s) = (int(h)?, int(m)?, int(s)?);
    let frac = fraction_micros(frac).ok_or(Bad::Syntax)?;
    if m > 59 || s > 60 {
        return Err(if signed {
            Bad::Syntax
        } else {
            Bad::FieldOverflow
        });
    }
    let micros = h
        .checked_mul(USECS_PER_HOUR)
        .and_then(|us| us.checked_add(m * USECS_PER_MINUTE + s * USECS_PER_SEC + frac))
        .ok_or(Bad::FieldOverflow)?;
    Ok(if negative { -micros } else { micros })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<(i32, i32, i64), Bad> {
        parse(text, None).map(|f| f.finish().fields())
    }

    const H: i64 = USECS_PER_HOUR;

    #[test]
    fn tokens() {
        assert_eq!(
            tokenize("@ -1-2 +3 4:05:06.5 1.5days").unwrap(),
            [
                Token::YearMonth {
                    negative: true,
                    years: "1",
                    months: "2"
                },
                Token::Number {
                    negative: false,
                    text: "3"
                },
                Token::Clock {
                    negative: false,
                    signed: false,
                    text: "4:05:06.5"
                },
                Token::Number {
                    negative: false,
                    text: "1.5"
                },
                Token::Word("days"),
            ]
        );
        for bad in [
            "--1 day",
            "1.5.5 day",
            "1 dayé",
            "- day",
            "-.5",
            "-0.5-04:05",
            "us-04:05",
        ] {
            assert_eq!(tokenize(bad), Err(Bad::Syntax), "{bad}");
        }
    }

    #[test]
    fn accepted_forms() {
        for (text, want) in [
            (
                "1 year 2 mons 3 days 04:05:06",
                (14, 3, 4 * H + 306_000_000),
            ),
            ("3 4:05", (0, 3, 4 * H + 300_000_000)),
            ("1.5 2:00", (0, 1, 14 * H)),
            ("1-2 3", (14, 0, 3_000_000)),
            ("-1-2", (-14, 0, 0)),
            ("1 year 1-2", (26, 0, 0)),
            ("ago 1 day", (0, -1, 0)),
            ("1 day 2 hours ago 3", (0, -1, -2 * H - 3_000_000)),
            ("+ 1 day", (0, 1, 0)),
            ("1::2", (0, 0, H + 2_000_000)),
            ("10:30.5", (0, 0, 630_500_000)),
            ("1 day, 2 HOURS", (0, 1, 2 * H)),
            ("1 week 2 days", (0, 9, 0)),
            ("1 ms 1 s", (0, 0, 1_001_000)),
            ("1-2.5", (14, 0, 500_000)),
            ("- 0.5", (0, 0, -500_000)),
            ("days 100", (0, 0, 100_000_000)),
            ("1 2 hours", (0, 1, 2 * H)),
            ("1.5 2 hours", (0, 1, 14 * H)),
            ("1 -2 h ago", (0, -1, 2 * H)),
            ("y12months", (12, 0, 0)),
            ("10:00 1.5 days", (0, 1, 10 * H)),
            ("1.5 days 10:00", (0, 1, 22 * H)),
            ("-9223372036854775808 us", (0, 0, i64::MIN)),
        ] {
            assert_eq!(read(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn refused_forms() {
        for (text, err) in [
            ("", Bad::Syntax),
            ("@", Bad::Syntax),
            ("ago", Bad::Syntax),
            ("1 ago", Bad::Syntax),
            ("day", Bad::Syntax),
            ("1 day2 hours", Bad::Syntax),
            ("1 fortnight", Bad::Syntax),
            ("1 day 1 day", Bad::Syntax),
            ("1 2", Bad::Syntax),
            ("1 2 days", Bad::Syntax),
            ("1 2 minutes", Bad::Syntax),
            ("2 ago", Bad::Syntax),
            ("1 2 ago", Bad::Syntax),
            ("3 1 2 hours", Bad::Syntax),
            ("1.5-2", Bad::Syntax),
            ("1 hour 02:03", Bad::Syntax),
            ("1 mon 1-2", Bad::Syntax),
            ("1day2hours", Bad::Syntax),
            ("-25:61:61", Bad::Syntax),
            ("1:2:3:4", Bad::Syntax),
            ("25:61:61", Bad::FieldOverflow),
            ("1-13", Bad::FieldOverflow),
            ("99999999999999999999:00", Bad::FieldOverflow),
            ("2147483647 days 1 day", Bad::FieldOverflow),
            ("9223372036854775808 us", Bad::FieldOverflow),
            ("178956971 years", Bad::OutOfRange),
        ] {
            assert_eq!(read(text), Err(err), "{text}");
        }
    }

    #[test]
    fn qualifier_sets_the_bare_unit() {
        let t = IntervalTypmod::new(Some(super::super::IntervalFields::Day), None).unwrap();
        let day = parse("90", Some(&t)).unwrap().finish();
        assert_eq!(day.fields(), (0, 90, 0));
    }
}

// Expected values from PostgreSQL 15 under `SET IntervalStyle = sql_standard`, shown in the
// postgres style.
#[cfg(test)]
#[test]
fn sql_standard_leading_minus() {
    let style = crate::datetime::InputStyle {
        sql_standard_intervals: true,
        ..Default::default()
    };
    let read = |s: &str| {
        crate::datetime::with_input_style(style, || {
            let mut out = String::new();
            super::Interval::parse(s, None)
                .unwrap()
                .write_text(&mut out);
            out
        })
    };
    assert_eq!(read("-1 2:03:04"), "-1 days -02:03:04");
    assert_eq!(read("-1-2 3 4:05:06"), "-1 years -2 mons -3 days -04:05:06");
    assert_eq!(read("-1 year 2 mons"), "-1 years -2 mons");
    assert_eq!(read("-1 day +2:03:04"), "-1 days +02:03:04");
    assert_eq!(read("1 day -2:03:04"), "1 day -02:03:04");
    assert_eq!(read("-1 day 2 hours ago"), "1 day 02:00:00");
}
