//! SQL's interval qualifiers and seconds precision (`interval day to second(2)`,
//! `interval hour`, `interval(0)`): PostgreSQL's interval type modifier.
//!
//! A modifier does two things, as PostgreSQL 15 does them (worked out from its documentation,
//! section 8.5.4, and black-box comparison). When a constant string is read as a qualified
//! interval it steers the reading of ambiguous text (`input`): a number without a unit is of
//! the qualifier's last field (`'2' hour` is two hours), and under `MINUTE TO SECOND` a clock
//! of two fields is minutes and seconds (`'1 2:03'` is 1 day 2 minutes 3 seconds). Then the
//! value, read or computed, loses the fields below the last one, toward zero (`'1 day
//! 2:03:04' hour` is 1 day 02:00:00; `'1.5' year` is 1 year), and its seconds are rounded,
//! half away from zero, to the precision. Fields above the qualifier stay (`'1-2' day` is 1
//! year 2 months), as in PostgreSQL. Text that is not a constant (a text column cast to a
//! qualified interval) is read as a plain interval and then cut, as PostgreSQL does.
//!
//! The modifier's number (`typmod`, as `pg_attribute.atttypmod` shows it) is PostgreSQL's:
//! a bit per field in the high half, the precision (0xFFFF for none) in the low half.

use super::{
    input, iso8601, Interval, IntervalField, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC,
};
use crate::error::EvalError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The fields of a qualifier, largest first.
const FIELDS: [IntervalField; 6] = [
    IntervalField::Year,
    IntervalField::Month,
    IntervalField::Day,
    IntervalField::Hour,
    IntervalField::Minute,
    IntervalField::Second,
];

/// The field ranges SQL allows in an interval qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IntervalFields {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    YearToMonth,
    DayToHour,
    DayToMinute,
    DayToSecond,
    HourToMinute,
    HourToSecond,
    MinuteToSecond,
}

impl IntervalFields {
    /// The range from `first` to `last` (`None` for the same field), if SQL has it.
    pub fn range(first: IntervalField, last: Option<IntervalField>) -> Option<IntervalFields> {
        use IntervalField as F;
        use IntervalFields::*;
        Some(match (first, last) {
            (F::Year, None) => Year,
            (F::Month, None) => Month,
            (F::Day, None) => Day,
            (F::Hour, None) => Hour,
            (F::Minute, None) => Minute,
            (F::Second, None) => Second,
            (F::Year, Some(F::Month)) => YearToMonth,
            (F::Day, Some(F::Hour)) => DayToHour,
            (F::Day, Some(F::Minute)) => DayToMinute,
            (F::Day, Some(F::Second)) => DayToSecond,
            (F::Hour, Some(F::Minute)) => HourToMinute,
            (F::Hour, Some(F::Second)) => HourToSecond,
            (F::Minute, Some(F::Second)) => MinuteToSecond,
            _ => return None,
        })
    }

    /// The fields of the range, first to last.
    fn ends(self) -> (IntervalField, IntervalField) {
        use IntervalField as F;
        use IntervalFields::*;
        match self {
            Year => (F::Year, F::Year),
            Month => (F::Month, F::Month),
            Day => (F::Day, F::Day),
            Hour => (F::Hour, F::Hour),
            Minute => (F::Minute, F::Minute),
            Second => (F::Second, F::Second),
            YearToMonth => (F::Year, F::Month),
            DayToHour => (F::Day, F::Hour),
            DayToMinute => (F::Day, F::Minute),
            DayToSecond => (F::Day, F::Second),
            HourToMinute => (F::Hour, F::Minute),
            HourToSecond => (F::Hour, F::Second),
            MinuteToSecond => (F::Minute, F::Second),
        }
    }

    pub fn last(self) -> IntervalField {
        self.ends().1
    }

    /// PostgreSQL's bit for a field in the modifier's range mask.
    fn bit(f: IntervalField) -> i32 {
        1 << match f {
            IntervalField::Month => 1,
            IntervalField::Year => 2,
            IntervalField::Day => 3,
            IntervalField::Hour => 10,
            IntervalField::Minute => 11,
            IntervalField::Second => 12,
        }
    }

    /// The range mask: the bits of every field from the first to the last.
    fn mask(self) -> i32 {
        let (first, last) = self.ends();
        FIELDS
            .into_iter()
            .filter(|f| (first..=last).contains(f))
            .fold(0, |m, f| m | Self::bit(f))
    }

    /// The range of a mask, if it is one SQL has.
    fn of_mask(mask: i32) -> Option<IntervalFields> {
        let mut set = FIELDS.into_iter().filter(|f| mask & Self::bit(*f) != 0);
        let first = set.next()?;
        let fields = IntervalFields::range(first, set.next_back())?;
        (fields.mask() == mask).then_some(fields)
    }
}

impl fmt::Display for IntervalFields {
    /// The qualifier as PostgreSQL's format_type writes it (`day to second`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |x: IntervalField| format!("{x:?}").to_lowercase();
        match self.ends() {
            (a, b) if a == b => write!(f, "{}", name(a)),
            (a, b) => write!(f, "{} to {}", name(a), name(b)),
        }
    }
}

/// The most digits after the point an interval's seconds keep.
pub const MAX_INTERVAL_PRECISION: u8 = 6;

/// An interval type's modifier: the qualifier's fields (`None`: all) and the digits of the
/// seconds (`None`: all six). At least one of them is given; `interval` without either is
/// `ScalarType::Interval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IntervalTypmod {
    pub fields: Option<IntervalFields>,
    pub precision: Option<u8>,
}

/// A modifier SQL does not allow: a seconds precision after a qualifier whose last field is
/// not SECOND (PostgreSQL: a syntax error).
#[derive(Debug, PartialEq, Eq)]
pub struct PrecisionWithoutSeconds;

impl IntervalTypmod {
    /// The modifier of `fields` and `precision`; a precision above 6 becomes 6, as PostgreSQL
    /// reduces it (with a warning kpg does not send).
    pub fn new(
        fields: Option<IntervalFields>,
        precision: Option<u64>,
    ) -> Result<IntervalTypmod, PrecisionWithoutSeconds> {
        if precision.is_some() && fields.is_some_and(|f| f.last() != IntervalField::Second) {
            return Err(PrecisionWithoutSeconds);
        }
        Ok(IntervalTypmod {
            fields,
            precision: precision.map(|p| p.min(u64::from(MAX_INTERVAL_PRECISION)) as u8),
        })
    }

    /// The field a number without a unit stands for: the qualifier's last (seconds without
    /// one).
    pub(super) fn bare_field(&self) -> IntervalField {
        self.fields
            .map_or(IntervalField::Second, IntervalFields::last)
    }

    /// Whether a two-field clock is minutes and seconds (`MINUTE TO SECOND`).
    pub(super) fn clock_is_minutes_seconds(&self) -> bool {
        self.fields == Some(IntervalFields::MinuteToSecond)
    }

    /// PostgreSQL's `atttypmod` of the modifier.
    pub fn typmod(&self) -> i32 {
        let range = self.fields.map_or(0x7FFF, IntervalFields::mask);
        let precision = self.precision.map_or(0xFFFF, i32::from);
        (range << 16) | precision
    }

    /// The modifier of a PostgreSQL `atttypmod`, if it is one kpg knows.
    pub fn from_typmod(typmod: i32) -> Option<IntervalTypmod> {
        if typmod < 0 {
            return None;
        }
        let (range, precision) = (typmod >> 16, typmod & 0xFFFF);
        let fields = match range {
            0x7FFF => None,
            mask => Some(IntervalFields::of_mask(mask)?),
        };
        let precision = match precision {
            0xFFFF => None,
            p if p <= i32::from(MAX_INTERVAL_PRECISION) => Some(p as u8),
            _ => return None,
        };
        Some(IntervalTypmod { fields, precision })
    }

    /// Reads a constant string as an interval of this type: the modifier steers the reading,
    /// then cuts the value.
    pub fn parse(&self, text: &str) -> Result<Interval, EvalError> {
        self.apply(read(text, Some(self))?)
    }

    /// Cuts a value to the type: the fields below the qualifier's last go (toward zero), the
    /// seconds are rounded (half away from zero) to the precision.
    pub fn apply(&self, iv: Interval) -> Result<Interval, EvalError> {
        let cut = |unit: i64| iv.micros / unit * unit;
        let iv = match self.fields.map(IntervalFields::last) {
            Some(IntervalField::Year) => Interval::new(iv.months / 12 * 12, 0, 0),
            Some(IntervalField::Month) => Interval::new(iv.months, 0, 0),
            Some(IntervalField::Day) => Interval::new(iv.months, iv.days, 0),
            Some(IntervalField::Hour) => Interval::new(iv.months, iv.days, cut(USECS_PER_HOUR)),
            Some(IntervalField::Minute) => Interval::new(iv.months, iv.days, cut(USECS_PER_MINUTE)),
            Some(IntervalField::Second) | None => iv,
        };
        let Some(p) = self.precision else {
            return Ok(iv);
        };
        let unit = USECS_PER_SEC / 10i64.pow(u32::from(p));
        let half = unit / 2;
        let magnitude = iv
            .micros
            .unsigned_abs()
            .checked_add(half as u64)
            .map(|m| m / unit as u64 * unit as u64)
            .and_then(|m| i64::try_from(m).ok())
            .ok_or_else(super::overflow)?;
        let micros = if iv.micros < 0 { -magnitude } else { magnitude };
        Ok(Interval::new(iv.months, iv.days, micros))
    }
}

impl fmt::Display for IntervalTypmod {
    /// The type as PostgreSQL's format_type writes it (`interval day to second(2)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "interval")?;
        if let Some(fields) = self.fields {
            write!(f, " {fields}")?;
        }
        if let Some(p) = self.precision {
            write!(f, "({p})")?;
        }
        Ok(())
    }
}

/// Reads interval text, steered by `typmod` when given: PostgreSQL's own format, else ISO
/// 8601 (which no modifier steers).
pub(super) fn read(text: &str, typmod: Option<&IntervalTypmod>) -> Result<Interval, EvalError> {
    let fields = match input::parse(text, typmod) {
        Err(super::fields::Bad::Syntax) => iso8601::parse(text),
        read => read,
    };
    Ok(fields.map_err(|bad| bad.into_eval(text))?.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use IntervalFields::*;

    fn tm(fields: Option<IntervalFields>, precision: Option<u64>) -> IntervalTypmod {
        IntervalTypmod::new(fields, precision).unwrap()
    }

    fn text(iv: Interval) -> String {
        let mut out = String::new();
        iv.write_text(&mut out);
        out
    }

    #[test]
    fn typmods_as_postgres() {
        // Expected values are PostgreSQL 15's pg_attribute.atttypmod and format_type.
        for (t, typmod, name) in [
            (
                tm(Some(DayToSecond), Some(2)),
                470286338,
                "interval day to second(2)",
            ),
            (tm(None, Some(3)), 2147418115, "interval(3)"),
            (tm(Some(Year), None), 327679, "interval year"),
            (
                tm(Some(MinuteToSecond), None),
                402718719,
                "interval minute to second",
            ),
            (tm(Some(Second), Some(0)), 268435456, "interval second(0)"),
            (tm(Some(Second), None), 268500991, "interval second"),
            (tm(None, Some(9)), 2147418118, "interval(6)"),
        ] {
            assert_eq!(t.typmod(), typmod, "{name}");
            assert_eq!(t.to_string(), name);
            assert_eq!(IntervalTypmod::from_typmod(typmod), Some(t));
        }
        assert_eq!(
            IntervalTypmod::new(Some(Hour), Some(2)),
            Err(PrecisionWithoutSeconds)
        );
    }

    #[test]
    fn cuts_and_rounds_as_postgres() {
        // Expected texts are PostgreSQL 15's.
        let h = USECS_PER_HOUR;
        let iv = Interval::new(14, 3, 4 * h + 5 * USECS_PER_MINUTE + 6_789_000);
        for (fields, want) in [
            (Year, "1 year"),
            (Month, "1 year 2 mons"),
            (Day, "1 year 2 mons 3 days"),
            (DayToHour, "1 year 2 mons 3 days 04:00:00"),
            (HourToMinute, "1 year 2 mons 3 days 04:05:00"),
            (MinuteToSecond, "1 year 2 mons 3 days 04:05:06.789"),
        ] {
            assert_eq!(text(tm(Some(fields), None).apply(iv).unwrap()), want);
        }
        let neg = Interval::new(-18, 0, -(h + h / 2));
        assert_eq!(text(tm(Some(Year), None).apply(neg).unwrap()), "-1 years");
        assert_eq!(
            text(tm(Some(Hour), None).apply(neg).unwrap()),
            "-1 years -6 mons -01:00:00"
        );
        for (micros, p, want) in [
            (500_000, 0, "00:00:01"),
            (-500_000, 0, "-00:00:01"),
            (2_500_000, 0, "00:00:03"),
            (250_000, 1, "00:00:00.3"),
            (-250_000, 1, "-00:00:00.3"),
            (1_005_000, 2, "00:00:01.01"),
        ] {
            let r = tm(None, Some(p))
                .apply(Interval::new(0, 0, micros))
                .unwrap();
            assert_eq!(text(r), want, "{micros} ({p})");
        }
        assert!(tm(None, Some(0))
            .apply(Interval::new(0, 0, i64::MAX))
            .is_err());
    }

    #[test]
    fn qualifiers_steer_constants() {
        // Expected texts are PostgreSQL 15's.
        for (input, fields, want) in [
            ("1 2:03", MinuteToSecond, "1 day 00:02:03"),
            ("1:30", MinuteToSecond, "00:01:30"),
            ("1:60", MinuteToSecond, "00:02:00"),
            ("1:", MinuteToSecond, "00:01:00"),
            ("1:30:15", MinuteToSecond, "01:30:15"),
            ("1:30", HourToSecond, "01:30:00"),
            ("2", Hour, "02:00:00"),
            ("2", YearToMonth, "2 mons"),
            ("1.5", Year, "1 year"),
            ("1 2", Hour, "1 day 02:00:00"),
            ("1 2", DayToHour, "1 day 02:00:00"),
            ("1-2 3 4", Hour, "1 year 2 mons 3 days 04:00:00"),
            ("1-2 3", Year, "4 years"),
            ("1 day 2", Year, "2 years"),
            ("1 day 2:03:04", Hour, "1 day 02:00:00"),
        ] {
            let got = tm(Some(fields), None).parse(input).unwrap();
            assert_eq!(text(got), want, "'{input}' {fields}");
        }
        for (input, fields) in [
            ("1 2", DayToMinute),
            ("1 2", Day),
            ("1-2 3", Month),
            ("60:00", MinuteToSecond),
            ("-60:00", MinuteToSecond),
            ("1 2 hours 3", Hour),
        ] {
            assert!(
                tm(Some(fields), None).parse(input).is_err(),
                "'{input}' {fields}"
            );
        }
        let round = tm(None, Some(0)).parse("1 day 01:23:45.6789").unwrap();
        assert_eq!(text(round), "1 day 01:23:46");
    }
}
