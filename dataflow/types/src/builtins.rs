//! Evaluation of the built-in functions beyond the core operators: string functions
//! (substring, position, trim), rounding (round, floor, ceil) and date/time functions
//! (interval arithmetic, EXTRACT, date_part, date_trunc), following PostgreSQL 15.
//!
//! `expr.rs` dispatches here after handling NULL (every function here is strict: a NULL
//! argument gives NULL). The planner has typed the arguments, so each function meets only the
//! `Datum` variants it was planned for.

use crate::datetime::{self, DateUnit};
use crate::datum::Datum;
use crate::error::EvalError;
use crate::expr::{BinaryFunc, UnaryFunc};
use crate::numeric::Rounding;
use ordered_float::OrderedFloat;
use rust_decimal::prelude::*;

pub(crate) fn unary(func: &UnaryFunc, d: Datum) -> Result<Datum, EvalError> {
    Ok(match (func, d) {
        (UnaryFunc::QuoteIdent | UnaryFunc::EncodingToChar, d) => crate::pg_funcs::unary(func, d),
        (
            UnaryFunc::Sign
            | UnaryFunc::Sqrt
            | UnaryFunc::Cbrt
            | UnaryFunc::Exp
            | UnaryFunc::Ln
            | UnaryFunc::Log10,
            d,
        ) => crate::math::unary(func, d)?,
        (UnaryFunc::OctetLength, d) => crate::text_funcs::unary(func, d),
        (UnaryFunc::Extract(u), d) => Datum::Numeric(extract(*u, &d).into()),
        (UnaryFunc::DatePart(u), d) => {
            Datum::Float64(OrderedFloat(extract(*u, &d).to_f64().unwrap_or(f64::NAN)))
        }
        (UnaryFunc::DateTrunc(u), Datum::Timestamp(t)) => {
            Datum::Timestamp(datetime::trunc_timestamp(*u, &t))
        }
        (UnaryFunc::ToTimestamp, Datum::Float64(f)) => {
            Datum::TimestampTz(datetime::to_timestamp(f.0)?)
        }
        (UnaryFunc::DateTrunc(u), Datum::Interval(iv)) => {
            Datum::Interval(datetime::trunc_interval(*u, &iv))
        }
        (UnaryFunc::Round, Datum::Numeric(n)) => Datum::Numeric(n.round(0, Rounding::HalfAway)?),
        (UnaryFunc::Round, Datum::Float64(f)) => {
            Datum::Float64(OrderedFloat(f.0.round_ties_even()))
        }
        (UnaryFunc::Trunc, Datum::Numeric(n)) => Datum::Numeric(n.round(0, Rounding::Trunc)?),
        (UnaryFunc::Trunc, Datum::Float64(f)) => Datum::Float64(OrderedFloat(f.0.trunc())),
        (UnaryFunc::Floor, Datum::Numeric(n)) => Datum::Numeric(n.round(0, Rounding::Floor)?),
        (UnaryFunc::Floor, Datum::Float64(f)) => Datum::Float64(OrderedFloat(f.0.floor())),
        (UnaryFunc::Ceil, Datum::Numeric(n)) => Datum::Numeric(n.round(0, Rounding::Ceil)?),
        (UnaryFunc::Ceil, Datum::Float64(f)) => Datum::Float64(OrderedFloat(f.0.ceil())),
        (func, d) => unreachable!("planner typed {func:?} over {d:?}"),
    })
}

fn extract(u: DateUnit, d: &Datum) -> Decimal {
    match d {
        Datum::Date(d) => datetime::extract_date(u, d),
        Datum::Timestamp(t) => datetime::extract_timestamp(u, t),
        Datum::Interval(iv) => datetime::extract_interval(u, iv),
        Datum::Time(t) => datetime::extract_time(u, *t),
        other => unreachable!("EXTRACT over {other:?}"),
    }
}

pub(crate) fn binary(func: BinaryFunc, l: Datum, r: Datum) -> Result<Datum, EvalError> {
    use BinaryFunc::*;
    Ok(match (func, l, r) {
        (RegexMatch | RegexIMatch | FormatType | ArrayToString, l, r) => {
            crate::pg_funcs::binary(func, l, r)?
        }
        (Power, Datum::Float64(x), Datum::Float64(y)) => {
            Datum::Float64(OrderedFloat(crate::math::power(x.0, y.0)?))
        }
        (Left | Right, l, r) => crate::text_funcs::binary(func, l, r),
        (AddTimestampInterval, Datum::Timestamp(t), Datum::Interval(iv)) => {
            Datum::Timestamp(datetime::add_interval(t, &iv)?)
        }
        (SubTimestampInterval, Datum::Timestamp(t), Datum::Interval(iv)) => {
            Datum::Timestamp(datetime::add_interval(t, &iv.checked_neg()?)?)
        }
        (SubTimestamps, Datum::Timestamp(a), Datum::Timestamp(b))
        | (SubTimestamps, Datum::TimestampTz(a), Datum::TimestampTz(b)) => {
            Datum::Interval(datetime::sub_timestamps(a, b)?)
        }
        (AddTimeInterval, Datum::Time(t), Datum::Interval(iv)) => {
            Datum::Time(datetime::add_time_interval(t, &iv))
        }
        (SubTimeInterval, Datum::Time(t), Datum::Interval(iv)) => {
            Datum::Time(datetime::add_time_interval(t, &iv.checked_neg()?))
        }
        (SubTimes, Datum::Time(a), Datum::Time(b)) => Datum::Interval(datetime::sub_times(a, b)),
        (AddDateTime, Datum::Date(d), Datum::Time(t)) => {
            Datum::Timestamp(datetime::date_plus_time(d, t)?)
        }
        (AddIntervals, Datum::Interval(a), Datum::Interval(b)) => {
            Datum::Interval(a.checked_add(&b)?)
        }
        (SubIntervals, Datum::Interval(a), Datum::Interval(b)) => {
            Datum::Interval(a.checked_sub(&b)?)
        }
        (MulInterval, Datum::Interval(a), Datum::Float64(f)) => Datum::Interval(a.mul(f.0)?),
        (DivInterval, Datum::Interval(a), Datum::Float64(f)) => Datum::Interval(a.div(f.0)?),
        (RoundScale, Datum::Numeric(n), Datum::Int32(p)) => {
            Datum::Numeric(n.round(p.into(), Rounding::HalfAway)?)
        }
        (TruncScale, Datum::Numeric(n), Datum::Int32(p)) => {
            Datum::Numeric(n.round(p.into(), Rounding::Trunc)?)
        }
        (Position, Datum::String(s), Datum::String(sub)) => Datum::Int32(position(&s, &sub)),
        (Trim | LTrim | RTrim, Datum::String(s), Datum::String(chars)) => {
            let set: Vec<char> = chars.chars().collect();
            let is_trimmed = |c: char| set.contains(&c);
            Datum::String(
                match func {
                    Trim => s.trim_matches(is_trimmed),
                    LTrim => s.trim_start_matches(is_trimmed),
                    _ => s.trim_end_matches(is_trimmed),
                }
                .to_string(),
            )
        }
        (func, l, r) => unreachable!("planner typed {func:?} over {l:?}, {r:?}"),
    })
}

/// strpos: the 1-based character position of `sub` in `s`, 0 if absent.
fn position(s: &str, sub: &str) -> i32 {
    match s.find(sub) {
        Some(byte) => s[..byte].chars().count() as i32 + 1,
        None => 0,
    }
}

/// substring(s FROM start [FOR count]) on characters, with PostgreSQL's rules: positions
/// before 1 count towards the length but select nothing; a negative count is 22011.
pub(crate) fn substring(s: &str, start: i32, count: Option<i32>) -> Result<Datum, EvalError> {
    let start = i64::from(start);
    let end = match count {
        Some(c) if c < 0 => return Err(EvalError::NegativeSubstringLength),
        Some(c) => Some(start + i64::from(c)),
        None => None,
    };
    let from = start.max(1);
    if end.is_some_and(|e| e <= from) {
        return Ok(Datum::String(String::new()));
    }
    // The byte where each character starts, then the end: character `p` (1-based) spans
    // `bytes[p - 1]..bytes[p]`. Only the characters up to the last one taken are walked.
    let mut bytes = s
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(s.len()));
    let Some(begin) = usize::try_from(from - 1).ok().and_then(|n| bytes.nth(n)) else {
        return Ok(Datum::String(String::new()));
    };
    let finish = match end {
        None => s.len(),
        Some(e) => usize::try_from(e - from - 1)
            .ok()
            .and_then(|n| bytes.nth(n))
            .unwrap_or(s.len()),
    };
    Ok(Datum::String(s[begin..finish].to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(s: &str, a: i32, b: Option<i32>) -> String {
        match substring(s, a, b).unwrap() {
            Datum::String(s) => s,
            other => panic!("{other:?}"),
        }
    }

    /// The definition: the characters whose 1-based position is at least `start` and below
    /// `start + count`.
    fn reference(s: &str, start: i32, count: Option<i32>) -> String {
        let end = count.map(|c| i64::from(start) + i64::from(c));
        s.chars()
            .enumerate()
            .map(|(i, c)| (i as i64 + 1, c))
            .filter(|(pos, _)| *pos >= i64::from(start) && end.is_none_or(|e| *pos < e))
            .map(|(_, c)| c)
            .collect()
    }

    #[test]
    fn substring_agrees_with_its_definition() {
        let mut rng = crate::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        let chars = ['a', 'é', '€', '𝄞', ' '];
        let points = [i32::MIN, -3, -1, 0, 1, 2, 3, 5, 8, i32::MAX];
        for _ in 0..5000 {
            let s: String = (0..rng.below(7)).map(|_| chars[rng.below(5)]).collect();
            let start = points[rng.below(points.len())];
            let count = match rng.below(4) {
                0 => None,
                _ => Some(points[rng.below(points.len())].max(0)),
            };
            assert_eq!(
                sub(&s, start, count),
                reference(&s, start, count),
                "{s:?} {start} {count:?}"
            );
        }
    }

    #[test]
    fn substring_positions_like_postgres() {
        // Expected values are PostgreSQL 15's.
        assert_eq!(sub("hello", 2, Some(3)), "ell");
        assert_eq!(sub("hello", 0, Some(2)), "h");
        assert_eq!(sub("hello", -1, Some(2)), "");
        assert_eq!(sub("hello", 3, None), "llo");
        assert_eq!(sub("héllo", 2, Some(2)), "él");
        assert_eq!(
            substring("hello", 1, Some(-1)).unwrap_err().sqlstate(),
            "22011"
        );
        assert_eq!(sub("héllo", 5, Some(9)), "o");
        assert_eq!(sub("héllo", 6, Some(1)), "");
        assert_eq!(sub("héllo", 2, Some(0)), "");
        assert_eq!(sub("", 1, Some(2)), "");
        assert_eq!(sub("héllo", i32::MIN, Some(i32::MAX)), "");
        assert_eq!(sub("héllo", i32::MAX, None), "");
        assert_eq!(position("hello", "l"), 3);
        assert_eq!(position("hello", ""), 1);
        assert_eq!(position("héllo", "l"), 3);
    }
}
