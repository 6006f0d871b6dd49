//! `mz_now()` and temporal filters: the scalar side.
//!
//! `mz_now()` is the logical time at which a query is evaluated, in the dataflow's own unit
//! (u64 milliseconds since the Unix epoch). The planner compares it with an expression of the
//! row cast to that unit (`UnaryFunc::ToMzTimestamp`, here: whole milliseconds, rounded down,
//! as bigint). A conjunct of WHERE of that shape becomes a bound of a `Plan::TemporalFilter`,
//! which a maintained dataflow renders as updates scheduled for the times the row enters and
//! leaves (`presence` gives that interval); an ad hoc read instead binds every `mz_now()` to
//! its timestamp (`bind_mz_now`), which gives the same rows at that time.
//!
//! Bounds below the epoch are clamped to 0: times are unsigned, so `mz_now() >= -5` holds
//! always and `mz_now() < -5` never, which is what the comparison means.

use crate::datum::Datum;
use crate::error::EvalError;
use crate::expr::{ScalarExpr, VariadicFunc};
use crate::numeric::Rounding;
use crate::plan::Plan;

/// `mz_now()` as an expression.
pub fn mz_now() -> ScalarExpr {
    ScalarExpr::Variadic {
        func: VariadicFunc::MzNow,
        exprs: Vec::new(),
    }
}

/// A value as milliseconds since the Unix epoch (bigint): integers as they are, numerics
/// rounded down, timestamps (with or without zone, as UTC instants) and dates to their
/// millisecond, rounded down.
pub fn to_mz_timestamp(d: Datum) -> Result<Datum, EvalError> {
    let out_of_range = |value: String| EvalError::OutOfRangeValue {
        value,
        type_name: "mz_timestamp".into(),
    };
    Ok(Datum::Int64(match d {
        Datum::Null => return Ok(Datum::Null),
        Datum::Int16(i) => i64::from(i),
        Datum::Int32(i) => i64::from(i),
        Datum::Int64(i) => i,
        Datum::Numeric(n) => n
            .round(0, Rounding::Floor)
            .ok()
            .and_then(|r| r.to_i64_rounded())
            .ok_or_else(|| out_of_range(n.to_string()))?,
        Datum::Timestamp(t) | Datum::TimestampTz(t) => t.and_utc().timestamp_millis(),
        Datum::Date(d) => d
            .and_hms_opt(0, 0, 0)
            .map(|t| t.and_utc().timestamp_millis())
            .ok_or_else(|| out_of_range(d.to_string()))?,
        other => {
            return Err(EvalError::Internal(format!(
                "mz_timestamp of {other:?}, which the planner does not allow"
            )))
        }
    }))
}

/// The millisecond after `d` (an `mz_timestamp`, bigint), saturating at bigint's maximum.
pub fn mz_timestamp_next(d: Datum) -> Result<Datum, EvalError> {
    match d {
        Datum::Int64(ms) => Ok(Datum::Int64(ms.saturating_add(1))),
        other => Err(EvalError::Internal(format!(
            "the mz_timestamp after {other:?}, which is not one"
        ))),
    }
}

/// The times `[from, until)` at which a row whose bounds evaluate as given is present: at or
/// after every `lower` bound and before every `upper` one (`until` is `None` without upper
/// bounds). `None` when the interval is empty or a bound is NULL (a comparison with NULL is
/// never true).
pub fn presence(
    lower: &[ScalarExpr],
    upper: &[ScalarExpr],
    row: &[Datum],
) -> Result<Option<(u64, Option<u64>)>, EvalError> {
    let value = |e: &ScalarExpr| -> Result<Option<u64>, EvalError> {
        Ok(match e.eval(row)? {
            Datum::Null => None,
            Datum::Int64(ms) => Some(ms.max(0) as u64),
            other => {
                return Err(EvalError::Internal(format!(
                    "a temporal bound evaluated to {other:?}"
                )))
            }
        })
    };
    let mut from = 0u64;
    for e in lower {
        match value(e)? {
            Some(ms) => from = from.max(ms),
            None => return Ok(None),
        }
    }
    let mut until: Option<u64> = None;
    for e in upper {
        match value(e)? {
            Some(ms) => until = Some(until.map_or(ms, |u| u.min(ms))),
            None => return Ok(None),
        }
    }
    Ok(match until {
        Some(u) if u <= from => None,
        _ => Some((from, until)),
    })
}

impl ScalarExpr {
    /// Whether this is `mz_now()` itself.
    pub fn is_mz_now(&self) -> bool {
        matches!(
            self,
            ScalarExpr::Variadic {
                func: VariadicFunc::MzNow,
                ..
            }
        )
    }

    /// Whether `mz_now()` occurs in the expression.
    pub fn contains_mz_now(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= e.is_mz_now());
        found
    }

    /// Replaces every `mz_now()` by the time `t` (an ad hoc read's timestamp).
    pub fn bind_mz_now(&mut self, t: u64) {
        self.visit_mut(&mut |e| {
            if e.is_mz_now() {
                *e = ScalarExpr::Literal(Datum::Int64(t as i64));
            }
        });
    }
}

impl Plan {
    /// Whether some expression of the plan reads `mz_now()`.
    pub fn contains_mz_now(&self) -> bool {
        let mut found = false;
        self.visit(&mut |p| found |= p.own_exprs().iter().any(|e| e.contains_mz_now()));
        found
    }

    /// Replaces every `mz_now()` of the plan by the time `t`.
    pub fn bind_mz_now(&mut self, t: u64) {
        self.visit_exprs_mut(&mut |e| e.bind_mz_now(t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{BinaryFunc, UnaryFunc};
    use chrono::NaiveDate;

    #[test]
    fn conversions_round_down_to_milliseconds() {
        let ts = NaiveDate::from_ymd_opt(2024, 1, 2)
            .unwrap()
            .and_hms_micro_opt(3, 4, 5, 678_901)
            .unwrap();
        let want = ts.and_utc().timestamp() * 1000 + 678;
        assert_eq!(
            to_mz_timestamp(Datum::Timestamp(ts)),
            Ok(Datum::Int64(want))
        );
        assert_eq!(
            to_mz_timestamp(Datum::TimestampTz(ts)),
            Ok(Datum::Int64(want))
        );
        let before_epoch = NaiveDate::from_ymd_opt(1969, 12, 31)
            .unwrap()
            .and_hms_micro_opt(23, 59, 59, 999_500)
            .unwrap();
        assert_eq!(
            to_mz_timestamp(Datum::Timestamp(before_epoch)),
            Ok(Datum::Int64(-1))
        );
        assert_eq!(to_mz_timestamp(Datum::Int32(7)), Ok(Datum::Int64(7)));
        let n = crate::numeric::Numeric::parse("12.9").unwrap();
        assert_eq!(to_mz_timestamp(Datum::Numeric(n)), Ok(Datum::Int64(12)));
        assert_eq!(to_mz_timestamp(Datum::Null), Ok(Datum::Null));
    }

    /// `presence` against the comparisons it stands for, evaluated at every time.
    #[test]
    fn presence_matches_the_comparisons_at_every_time() {
        let col = |i| ScalarExpr::Column(i).call_unary(UnaryFunc::ToMzTimestamp);
        let lower = vec![col(0), col(1)];
        let upper = vec![col(2)];
        let values = [None, Some(-3i64), Some(0), Some(2), Some(5), Some(9)];
        for a in values {
            for b in values {
                for c in values {
                    let d = |v: Option<i64>| v.map_or(Datum::Null, Datum::Int64);
                    let row = vec![d(a), d(b), d(c)];
                    let got = presence(&lower, &upper, &row).unwrap();
                    for t in 0u64..12 {
                        let mut present = mz_now()
                            .call_binary(BinaryFunc::Gte, col(0))
                            .call_binary(
                                BinaryFunc::And,
                                mz_now().call_binary(BinaryFunc::Gte, col(1)),
                            )
                            .call_binary(
                                BinaryFunc::And,
                                mz_now().call_binary(BinaryFunc::Lt, col(2)),
                            );
                        present.bind_mz_now(t);
                        let want = present.eval(&row).unwrap() == Datum::Bool(true);
                        let inside = got
                            .is_some_and(|(from, until)| from <= t && until.is_none_or(|u| t < u));
                        assert_eq!(inside, want, "row {row:?} at {t}: {got:?}");
                    }
                }
            }
        }
    }
}
