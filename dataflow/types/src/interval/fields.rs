//! The months, days and microseconds of an interval being read from text, shared by both
//! input formats (`input` and `iso8601`).
//!
//! A quantity is added to one field and its fraction cascades down, as PostgreSQL documents:
//! a fraction of a year (decade, century, millennium) becomes whole months, rounded; a
//! fraction of a month becomes days of 30, a fraction of a week days of 7, and a fraction of
//! a day microseconds of a 24-hour day. Fractions of microseconds are rounded to the nearest,
//! halves toward zero, as PostgreSQL rounds them. A quantity too big for its field is 22015
//! (`interval field value out of range`); months that overflow once added up are 22008
//! (`interval out of range`), as in PostgreSQL.

use super::{Interval, USECS_PER_DAY};
use crate::error::EvalError;

/// Why interval text did not decode.
#[derive(Debug, PartialEq)]
pub(super) enum Bad {
    /// Not an interval (22007).
    Syntax,
    /// A quantity too big for its field (22015).
    FieldOverflow,
    /// Months beyond an int4 once added up (22008).
    OutOfRange,
}

impl Bad {
    pub(super) fn into_eval(self, text: &str) -> EvalError {
        match self {
            Bad::Syntax => EvalError::InvalidTextRepresentation {
                type_name: "interval".into(),
                value: text.into(),
            },
            Bad::FieldOverflow => EvalError::IntervalFieldOverflow(text.into()),
            Bad::OutOfRange => EvalError::DateTimeValueOutOfRange("interval".into()),
        }
    }
}

/// A number of units: its whole part and its fraction, both carrying its sign.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Quantity {
    pub whole: i64,
    pub frac: f64,
}

impl Quantity {
    pub fn whole(whole: i64) -> Quantity {
        Quantity { whole, frac: 0.0 }
    }

    /// `digits[.digits]`, either part maybe empty: the whole part exactly (an overflow
    /// beyond int8), the fraction as a double.
    pub fn parse(negative: bool, text: &str) -> Result<Quantity, Bad> {
        let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
        if !whole
            .bytes()
            .chain(frac.bytes())
            .all(|c| c.is_ascii_digit())
        {
            return Err(Bad::Syntax);
        }
        let sign = if negative { "-" } else { "" };
        let whole: i64 = match whole {
            "" => 0,
            w => format!("{sign}{w}")
                .parse()
                .map_err(|_| Bad::FieldOverflow)?,
        };
        let frac = fraction(frac).ok_or(Bad::Syntax)?;
        let frac = if negative { -frac } else { frac };
        Ok(Quantity { whole, frac })
    }
}

/// `0.digits` as a double (`digits` may be empty).
pub(crate) fn fraction(digits: &str) -> Option<f64> {
    if !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    format!("0.{digits}").parse().ok()
}

/// The digits after a decimal point (maybe none) as microseconds, rounded half to even: a
/// fraction of a second in a clock (`10:00:00.5`).
pub(crate) fn fraction_micros(digits: &str) -> Option<i64> {
    Some((fraction(digits)? * 1e6).round_ties_even() as i64)
}

/// `h:m`, `h:m:s[.frac]` or `m:s.frac` split into hours, minutes, seconds and the digits of
/// the fraction, each maybe empty; `None` for too many or too few colons. Date/time and
/// interval input read their clocks alike.
pub(crate) fn split_clock(text: &str) -> Option<(&str, &str, &str, &str)> {
    let parts: Vec<&str> = text.split(':').collect();
    let (h, m, s) = match parts[..] {
        [m, s] if s.contains('.') => ("", m, s),
        [h, m] => (h, m, ""),
        [h, m, s] => (h, m, s),
        _ => return None,
    };
    let (s, frac) = s.split_once('.').unwrap_or((s, ""));
    Some((h, m, s, frac))
}

/// `whole` times `per_unit`, if it fits an int4.
fn scaled(whole: i64, per_unit: i64) -> Result<i32, Bad> {
    whole
        .checked_mul(per_unit)
        .and_then(|v| i32::try_from(v).ok())
        .ok_or(Bad::FieldOverflow)
}

/// The fields read so far.
#[derive(Debug, Default)]
pub(super) struct Fields {
    months: i32,
    days: i32,
    micros: i64,
}

impl Fields {
    pub fn finish(self) -> Interval {
        Interval::new(self.months, self.days, self.micros)
    }

    /// `q` units of `years_per_unit` years (1, 10, 100 or 1000).
    pub fn years(&mut self, q: Quantity, years_per_unit: i64) -> Result<(), Bad> {
        let years = scaled(q.whole, years_per_unit)?;
        let months_per_unit = (12 * years_per_unit) as f64;
        self.add_months(years.checked_mul(12).ok_or(Bad::OutOfRange)?)?;
        self.add_months((q.frac * months_per_unit).round_ties_even() as i32)
    }

    pub fn months(&mut self, q: Quantity) -> Result<(), Bad> {
        self.add_months(scaled(q.whole, 1)?)?;
        self.fraction_of_days(q.frac * 30.0)
    }

    /// `q` units of `days_per_unit` days (1, or 7 for weeks).
    pub fn days(&mut self, q: Quantity, days_per_unit: i64) -> Result<(), Bad> {
        self.add_days(scaled(q.whole, days_per_unit)?)?;
        self.fraction_of_days(q.frac * days_per_unit as f64)
    }

    /// `q` units of `scale` microseconds (an hour, a minute, a second...).
    pub fn micros(&mut self, q: Quantity, scale: i64) -> Result<(), Bad> {
        self.add_micros(q.whole.checked_mul(scale).ok_or(Bad::FieldOverflow)?)?;
        self.fraction_of_micros(q.frac * scale as f64)
    }

    /// Changes every field's sign (`ago`).
    pub fn negate(&mut self) -> Result<(), Bad> {
        let neg = |f: &Fields| {
            Some((
                f.months.checked_neg()?,
                f.days.checked_neg()?,
                f.micros.checked_neg()?,
            ))
        };
        (self.months, self.days, self.micros) = neg(self).ok_or(Bad::FieldOverflow)?;
        Ok(())
    }

    fn add_months(&mut self, months: i32) -> Result<(), Bad> {
        self.months = self.months.checked_add(months).ok_or(Bad::OutOfRange)?;
        Ok(())
    }

    pub fn add_days(&mut self, days: i32) -> Result<(), Bad> {
        self.days = self.days.checked_add(days).ok_or(Bad::FieldOverflow)?;
        Ok(())
    }

    /// Replaces the microseconds (a clock does, in PostgreSQL's format).
    pub fn set_micros(&mut self, micros: i64) {
        self.micros = micros;
    }

    pub fn add_micros(&mut self, micros: i64) -> Result<(), Bad> {
        self.micros = self.micros.checked_add(micros).ok_or(Bad::FieldOverflow)?;
        Ok(())
    }

    /// A number of days below one unit: whole days, then microseconds.
    fn fraction_of_days(&mut self, days: f64) -> Result<(), Bad> {
        let whole = days.trunc();
        self.add_days(whole as i32)?;
        self.fraction_of_micros((days - whole) * USECS_PER_DAY as f64)
    }

    /// A number of microseconds below one unit, rounded to the nearest, halves toward zero.
    fn fraction_of_micros(&mut self, micros: f64) -> Result<(), Bad> {
        let whole = micros.trunc();
        let rounded = whole as i64 + (micros - whole).round_ties_even() as i64;
        self.add_micros(rounded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Quantity {
        Quantity::parse(false, text).unwrap()
    }

    #[test]
    fn quantities() {
        assert_eq!(
            q("12.5"),
            Quantity {
                whole: 12,
                frac: 0.5
            }
        );
        assert_eq!(
            q(".5"),
            Quantity {
                whole: 0,
                frac: 0.5
            }
        );
        assert_eq!(q("5."), Quantity::whole(5));
        assert_eq!(
            Quantity::parse(true, "1.5"),
            Ok(Quantity {
                whole: -1,
                frac: -0.5
            })
        );
        assert_eq!(
            Quantity::parse(false, "9223372036854775808"),
            Err(Bad::FieldOverflow)
        );
        assert_eq!(Quantity::parse(false, "1.5.5"), Err(Bad::Syntax));
    }

    #[test]
    fn fractions_cascade() {
        let mut f = Fields::default();
        f.months(q("1.5")).unwrap();
        f.days(q("1.5"), 7).unwrap();
        f.years(q("0.5"), 10).unwrap();
        assert_eq!(f.finish().fields(), (61, 25, 12 * 3_600_000_000));
        // 1.5 microseconds: halves go toward zero.
        let mut f = Fields::default();
        f.micros(q("1.5"), 1).unwrap();
        assert_eq!(f.finish().micros, 1);
    }

    #[test]
    fn overflows() {
        let mut f = Fields::default();
        assert_eq!(f.years(q("178956971"), 1), Err(Bad::OutOfRange));
        assert_eq!(f.years(q("999999999"), 10), Err(Bad::FieldOverflow));
        assert_eq!(f.months(q("2147483648")), Err(Bad::FieldOverflow));
        assert_eq!(f.days(q("306783379"), 7), Err(Bad::FieldOverflow));
        assert_eq!(
            f.micros(q("2562047789"), 3_600_000_000),
            Err(Bad::FieldOverflow)
        );
        f.days(q("2147483647"), 1).unwrap();
        assert_eq!(f.days(q("1"), 1), Err(Bad::FieldOverflow));
    }
}
