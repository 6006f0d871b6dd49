//! ISO 8601 interval input, tried when text is not in PostgreSQL's own format.
//!
//! Two forms, as PostgreSQL documents them: with designators, `P[nY][nM][nW][nD][T[nH][nM]
//! [nS]]` (`P1Y2M3DT4H5M6.5S`), and the "alternative format" `P[yyyy-mm-dd][Thh:mm:ss]` or
//! packed `PyyyymmddThhmmss`. What PostgreSQL also takes and kpg takes with it: any number
//! may carry a `-` sign, a fraction or an exponent (`P-1.5e1D`); designators may repeat and
//! come in any order (`P1Y1Y` is two years); `T` may repeat; the alternative date or time
//! may only be the first field of its part, and the alternative time ends the text. `P` and
//! the designators are upper case and blanks are not allowed.

use super::fields::{Bad, Fields, Quantity};
use super::{USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC};

/// Reads ISO 8601 interval text.
pub(super) fn parse(text: &str) -> Result<Fields, Bad> {
    let body = text
        .strip_prefix('P')
        .filter(|b| !b.is_empty())
        .ok_or(Bad::Syntax)?;
    let mut reader = Reader {
        rest: body,
        fields: Fields::default(),
    };
    let mut in_time = false;
    let mut first_of_part = true;
    while !reader.rest.is_empty() {
        if reader.eat('T') {
            (in_time, first_of_part) = (true, true);
            continue;
        }
        let (q, width) = reader.number()?;
        let f = &mut reader.fields;
        match (in_time, reader.rest.chars().next()) {
            (false, Some('Y')) => f.years(q, 1)?,
            (false, Some('M')) => f.months(q)?,
            (false, Some('W')) => f.days(q, 7)?,
            (false, Some('D')) => f.days(q, 1)?,
            (true, Some('H')) => f.micros(q, USECS_PER_HOUR)?,
            (true, Some('M')) => f.micros(q, USECS_PER_MINUTE)?,
            (true, Some('S')) => f.micros(q, USECS_PER_SEC)?,
            (false, None | Some('-' | 'T')) if first_of_part => {
                reader.alternative_date(q, width)?;
                if !reader.rest.is_empty() && !reader.rest.starts_with('T') {
                    return Err(Bad::Syntax);
                }
                first_of_part = false;
                continue;
            }
            (true, None | Some(':')) if first_of_part => {
                reader.alternative_time(q, width)?;
                return if reader.rest.is_empty() {
                    Ok(reader.fields)
                } else {
                    Err(Bad::Syntax)
                };
            }
            _ => return Err(Bad::Syntax),
        }
        reader.rest = &reader.rest[1..];
        first_of_part = false;
    }
    Ok(reader.fields)
}

struct Reader<'a> {
    rest: &'a str,
    fields: Fields,
}

impl Reader<'_> {
    fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// A number as C's `strtod` reads one, except that a `+` is not taken: `-`, digits, a
    /// fraction, an exponent. Returns it and the count of digits before its point.
    fn number(&mut self) -> Result<(Quantity, usize), Bad> {
        let b = self.rest.as_bytes();
        let digits_from = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut end = usize::from(b.first() == Some(&b'-'));
        let width = digits_from(end);
        end += width;
        let mut mantissa_digits = width;
        if b.get(end) == Some(&b'.') {
            let n = digits_from(end + 1);
            mantissa_digits += n;
            end += 1 + n;
        }
        if mantissa_digits == 0 {
            return Err(Bad::Syntax);
        }
        if matches!(b.get(end), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
            let n = digits_from(end + 1 + sign);
            if n > 0 {
                end += 1 + sign + n;
            }
        }
        let value: f64 = self.rest[..end].parse().map_err(|_| Bad::Syntax)?;
        if !value.is_finite() {
            return Err(Bad::Syntax);
        }
        self.rest = &self.rest[end..];
        let whole = value.trunc();
        if whole.abs() >= 9.2e18 {
            return Err(Bad::FieldOverflow);
        }
        let q = Quantity {
            whole: whole as i64,
            frac: value - whole,
        };
        Ok((q, width))
    }

    /// The alternative date, its first number read: `yyyymmdd` (eight digits, no dash) or
    /// `y[-m[-d]]`, each part maybe with a fraction.
    fn alternative_date(&mut self, first: Quantity, width: usize) -> Result<(), Bad> {
        if width == 8 && !self.rest.starts_with('-') {
            let packed = first.whole;
            self.fields.years(Quantity::whole(packed / 10_000), 1)?;
            self.fields.months(Quantity::whole(packed / 100 % 100))?;
            let days = Quantity {
                whole: packed % 100,
                frac: first.frac,
            };
            return self.fields.days(days, 1);
        }
        self.fields.years(first, 1)?;
        if self.eat('-') {
            let (months, _) = self.number()?;
            self.fields.months(months)?;
            if self.eat('-') {
                let (days, _) = self.number()?;
                self.fields.days(days, 1)?;
            }
        }
        Ok(())
    }

    /// The alternative time, its first number read: `hhmmss` (six digits alone) or
    /// `h[:m[:s]]`, each part of the latter maybe with a fraction.
    fn alternative_time(&mut self, first: Quantity, width: usize) -> Result<(), Bad> {
        if width == 6 && self.rest.is_empty() {
            let packed = first.whole;
            self.fields
                .micros(Quantity::whole(packed / 10_000), USECS_PER_HOUR)?;
            self.fields
                .micros(Quantity::whole(packed / 100 % 100), USECS_PER_MINUTE)?;
            // PostgreSQL drops a fraction of packed seconds (`PT010203.5` is 01:02:03).
            return self
                .fields
                .micros(Quantity::whole(packed % 100), USECS_PER_SEC);
        }
        self.fields.micros(first, USECS_PER_HOUR)?;
        for scale in [USECS_PER_MINUTE, USECS_PER_SEC] {
            if !self.eat(':') {
                break;
            }
            let (q, _) = self.number()?;
            self.fields.micros(q, scale)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<(i32, i32, i64), Bad> {
        parse(text).map(|f| f.finish().fields())
    }

    const H: i64 = USECS_PER_HOUR;

    #[test]
    fn designators() {
        for (text, want) in [
            ("P1Y2M3DT4H5M6S", (14, 3, 4 * H + 306_000_000)),
            ("P1Y2M3W4D", (14, 25, 0)),
            ("P1Y1Y", (24, 0, 0)),
            ("PTT1H", (0, 0, H)),
            ("P-1.5D", (0, -1, -12 * H)),
            ("P1e2D", (0, 100, 0)),
            ("PT0.0000005S", (0, 0, 0)),
            ("PT", (0, 0, 0)),
        ] {
            assert_eq!(read(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn alternative_format() {
        for (text, want) in [
            ("P0001-02-03T04:05:06", (14, 3, 4 * H + 306_000_000)),
            ("P00010203T040506", (14, 3, 4 * H + 306_000_000)),
            ("P1.5-2-3", (20, 3, 0)),
            ("PT0405", (0, 0, 405 * H)),
            ("PT010203.5", (0, 0, H + 123_000_000)),
            ("PT1:2:3.5", (0, 0, H + 123_500_000)),
        ] {
            assert_eq!(read(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn refused() {
        for (text, err) in [
            ("P", Bad::Syntax),
            ("p1d", Bad::Syntax),
            (" P1D", Bad::Syntax),
            ("P1H", Bad::Syntax),
            ("PT1D", Bad::Syntax),
            ("P+1D", Bad::Syntax),
            ("P1D2", Bad::Syntax),
            ("P1e400D", Bad::Syntax),
            ("P0001-02-03X", Bad::Syntax),
            ("PT1:2:3:4", Bad::Syntax),
            ("P1DéT", Bad::Syntax),
            ("P2147483648D", Bad::FieldOverflow),
            ("PT1e30S", Bad::FieldOverflow),
            ("P178956971Y", Bad::OutOfRange),
        ] {
            assert_eq!(read(text), Err(err), "{text}");
        }
    }
}
