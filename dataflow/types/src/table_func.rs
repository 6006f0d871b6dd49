//! Set-returning functions in FROM (`generate_series`): each call maps one row of arguments to
//! any number of values (of one column, or of two for `jsonb_each`). `Plan::FlatMap` evaluates
//! the arguments per input row and appends each value's columns (and, `WITH ORDINALITY`, its
//! 1-based position) to a copy of the row.
//!
//! `generate_series` follows PostgreSQL: a NULL argument yields no rows, a zero step is an
//! error, and each value is the previous one plus the step (so a month step from January 31st
//! goes to February 28th and then March 28th, and numeric values take the scale of the sum,
//! `1, 1.5, 2.0`). A series stops before a value that would overflow its type.

use crate::datum::Datum;
use crate::error::EvalError;
use crate::interval::Interval;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// The most values one call may produce (kpg holds a call's values in memory at once).
pub const MAX_VALUES: usize = 10_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TableFunc {
    /// `generate_series(start, stop[, step])` of int4, int8 or numeric (default step 1), or of
    /// timestamps with an interval step.
    GenerateSeries,
    /// `jsonb_array_elements(jsonb)` (`_text`: each element's `->>` text).
    JsonbArrayElements { as_text: bool },
    /// `unnest(array)`: its elements in order, NULLs included (none for a NULL array).
    Unnest,
    /// `generate_subscripts(array, dim)`: the subscripts of dimension `dim` in order (none for
    /// another dimension, an empty or a NULL array).
    GenerateSubscripts,
    /// `jsonb_each(jsonb)`: two columns, each key and its value (`_text`: the value's `->>`
    /// text), in the object's key order.
    JsonbEach { as_text: bool },
    /// `jsonb_object_keys(jsonb)`: each key of an object, in its order.
    JsonbObjectKeys,
}

impl TableFunc {
    /// How many columns each of its values adds to a row.
    pub fn columns(&self) -> usize {
        match self {
            TableFunc::JsonbEach { .. } => 2,
            _ => 1,
        }
    }

    /// Appends one of its values to a row: the columns of a record for a function of several
    /// columns, the value itself otherwise.
    pub fn append(&self, value: Datum, row: &mut Vec<Datum>) -> Result<(), EvalError> {
        match (self.columns(), value) {
            (1, value) => row.push(value),
            (n, Datum::Record(fields)) if fields.len() == n => row.extend(fields),
            (n, other) => {
                return Err(EvalError::Internal(format!(
                    "{self:?} gave {other:?} for {n} columns"
                )))
            }
        }
        Ok(())
    }

    /// The values for one row of arguments (for a function of several columns, a record of
    /// them each).
    pub fn eval(&self, args: &[Datum]) -> Result<Vec<Datum>, EvalError> {
        match self {
            TableFunc::JsonbEach { as_text } => {
                let name = if *as_text {
                    "jsonb_each_text"
                } else {
                    "jsonb_each"
                };
                Ok(
                    object_pairs(&args[0], || format!("cannot call {name} on a non-object"))?
                        .iter()
                        .map(|(k, v)| {
                            let value = match as_text {
                                false => Datum::Jsonb(Box::new(v.clone())),
                                true => v.as_text().map_or(Datum::Null, Datum::String),
                            };
                            Datum::Record(vec![Datum::String(k.clone()), value])
                        })
                        .collect(),
                )
            }
            TableFunc::JsonbObjectKeys => {
                let kind = match &args[0] {
                    Datum::Jsonb(j) if matches!(**j, crate::jsonb::Json::Array(_)) => "an array",
                    _ => "a scalar",
                };
                Ok(object_pairs(&args[0], || {
                    format!("cannot call jsonb_object_keys on {kind}")
                })?
                .iter()
                .map(|(k, _)| Datum::String(k.clone()))
                .collect())
            }
            TableFunc::GenerateSeries => generate_series(args),
            TableFunc::Unnest => match &args[0] {
                Datum::Null => Ok(Vec::new()),
                Datum::Array(a) => Ok(a.clone()),
                Datum::Int2Vector(v) => Ok(crate::array::int2vector::elements(v)),
                other => Err(EvalError::Internal(format!("unnest of {other:?}"))),
            },
            TableFunc::GenerateSubscripts => {
                let (n, lower) = match &args[0] {
                    Datum::Array(a) => (a.len() as i32, 1),
                    Datum::Int2Vector(v) => (v.len() as i32, 0),
                    _ => return Ok(Vec::new()),
                };
                if args[1] != Datum::Int32(1) {
                    return Ok(Vec::new());
                }
                Ok((lower..lower + n).map(Datum::Int32).collect())
            }
            TableFunc::JsonbArrayElements { as_text } => match &args[0] {
                Datum::Null => Ok(Vec::new()),
                Datum::Jsonb(j) => match j.as_ref() {
                    crate::jsonb::Json::Array(items) => Ok(items
                        .iter()
                        .map(|v| match as_text {
                            false => Datum::Jsonb(Box::new(v.clone())),
                            true => v.as_text().map_or(Datum::Null, Datum::String),
                        })
                        .collect()),
                    other => Err(EvalError::InvalidParameterValue(format!(
                        "cannot extract elements from {}",
                        match other {
                            crate::jsonb::Json::Object(_) => "an object",
                            _ => "a scalar",
                        }
                    ))),
                },
                other => Err(EvalError::Internal(format!(
                    "jsonb_array_elements of {other:?}"
                ))),
            },
        }
    }
}

/// The key/value pairs of a jsonb object (none for NULL); `not_object` says why anything else
/// is an error.
fn object_pairs(
    d: &Datum,
    not_object: impl FnOnce() -> String,
) -> Result<&[(String, crate::jsonb::Json)], EvalError> {
    match d {
        Datum::Null => Ok(&[]),
        Datum::Jsonb(j) => match j.as_ref() {
            crate::jsonb::Json::Object(pairs) => Ok(pairs),
            _ => Err(EvalError::InvalidParameterValue(not_object())),
        },
        other => Err(EvalError::Internal(format!(
            "a jsonb function of {other:?}"
        ))),
    }
}

fn zero_step() -> EvalError {
    EvalError::InvalidParameterValue("step size cannot equal zero".into())
}

fn generate_series(args: &[Datum]) -> Result<Vec<Datum>, EvalError> {
    if args.iter().any(Datum::is_null) {
        return Ok(Vec::new());
    }
    let (start, stop) = (&args[0], &args[1]);
    let step = args.get(2);
    let mut out = Vec::new();
    let push = |d: Datum, out: &mut Vec<Datum>| -> Result<(), EvalError> {
        if out.len() >= MAX_VALUES {
            return Err(EvalError::ProgramLimitExceeded(format!(
                "generate_series would return more than {MAX_VALUES} rows"
            )));
        }
        out.push(d);
        Ok(())
    };
    match (start, stop) {
        (Datum::Int32(a), Datum::Int32(b)) => {
            let step = match step {
                Some(Datum::Int32(s)) => i64::from(*s),
                _ => 1,
            };
            ints(i64::from(*a), i64::from(*b), step, |v| {
                let v = i32::try_from(v).ok()?;
                Some(Datum::Int32(v))
            })?
            .into_iter()
            .try_for_each(|d| push(d, &mut out))?;
        }
        (Datum::Int64(a), Datum::Int64(b)) => {
            let step = match step {
                Some(Datum::Int64(s)) => *s,
                _ => 1,
            };
            ints(*a, *b, step, |v| Some(Datum::Int64(v)))?
                .into_iter()
                .try_for_each(|d| push(d, &mut out))?;
        }
        (Datum::Numeric(a), Datum::Numeric(b)) => {
            let one = crate::numeric::Numeric::from(1i64);
            let step = match step {
                Some(Datum::Numeric(s)) => s.clone(),
                _ => one,
            };
            for (what, v) in [("start value", a), ("stop value", b), ("step size", &step)] {
                if !v.is_finite() {
                    let kind = if v.is_nan() { "NaN" } else { "infinity" };
                    return Err(EvalError::InvalidParameterValue(format!(
                        "{what} cannot be {kind}"
                    )));
                }
            }
            if step.is_zero() {
                return Err(zero_step());
            }
            let up = step.signum() > 0;
            let mut v = a.clone();
            while match (
                up,
                Datum::Numeric(v.clone()).sql_cmp(&Datum::Numeric(b.clone())),
            ) {
                (true, o) => o != Ordering::Greater,
                (false, o) => o != Ordering::Less,
            } {
                push(Datum::Numeric(v.clone()), &mut out)?;
                v = v.checked_add(&step)?;
            }
        }
        (Datum::Timestamp(a), Datum::Timestamp(b)) => {
            let Some(Datum::Interval(step)) = step else {
                return Err(EvalError::Internal(
                    "generate_series of timestamps without an interval step".into(),
                ));
            };
            let zero = Interval {
                months: 0,
                days: 0,
                micros: 0,
            };
            let up = match Datum::Interval(*step).sql_cmp(&Datum::Interval(zero)) {
                Ordering::Equal => return Err(zero_step()),
                o => o == Ordering::Greater,
            };
            let mut v = *a;
            while (up && v <= *b) || (!up && v >= *b) {
                push(Datum::Timestamp(v), &mut out)?;
                match crate::datetime::add_interval(v, step) {
                    Ok(next) => v = next,
                    Err(_) => break,
                }
            }
        }
        (Datum::TimestampTz(a), Datum::TimestampTz(b)) => {
            // The planner passes the session's zone after the step: days and months are
            // added in it.
            let (Some(Datum::Interval(step)), Some(Datum::String(zone))) = (step, args.get(3))
            else {
                return Err(EvalError::Internal(
                    "generate_series of timestamptz without a step and a zone".into(),
                ));
            };
            let zone = crate::datetime::zone_arg(zone)?;
            let up = match Datum::Interval(*step).sql_cmp(&Datum::Interval(Interval::default())) {
                Ordering::Equal => return Err(zero_step()),
                o => o == Ordering::Greater,
            };
            let mut v = *a;
            while (up && v <= *b) || (!up && v >= *b) {
                push(Datum::TimestampTz(v), &mut out)?;
                match crate::datetime::add_interval_tz(v, step, &zone) {
                    Ok(next) => v = next,
                    Err(_) => break,
                }
            }
        }
        (a, b) => {
            return Err(EvalError::Internal(format!(
                "generate_series over {a:?} and {b:?}"
            )))
        }
    }
    Ok(out)
}

/// `start, start + step, ...` while not past `stop`, each made a datum by `make` (`None` when
/// it leaves the type's range, which ends the series).
fn ints(
    start: i64,
    stop: i64,
    step: i64,
    make: impl Fn(i64) -> Option<Datum>,
) -> Result<Vec<Datum>, EvalError> {
    if step == 0 {
        return Err(zero_step());
    }
    let mut out = Vec::new();
    let mut v = start;
    while (step > 0 && v <= stop) || (step < 0 && v >= stop) {
        let Some(d) = make(v) else { break };
        if out.len() >= MAX_VALUES {
            return Err(EvalError::ProgramLimitExceeded(format!(
                "generate_series would return more than {MAX_VALUES} rows"
            )));
        }
        out.push(d);
        match v.checked_add(step) {
            Some(next) => v = next,
            None => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints_of(args: &[Datum]) -> Vec<i64> {
        TableFunc::GenerateSeries
            .eval(args)
            .unwrap()
            .into_iter()
            .map(|d| match d {
                Datum::Int32(v) => i64::from(v),
                Datum::Int64(v) => v,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn integer_series_stop_at_bounds_and_overflow() {
        assert_eq!(ints_of(&[Datum::Int32(1), Datum::Int32(3)]), vec![1, 2, 3]);
        assert_eq!(
            ints_of(&[Datum::Int32(10), Datum::Int32(1), Datum::Int32(-4)]),
            vec![10, 6, 2]
        );
        assert!(ints_of(&[Datum::Int32(3), Datum::Int32(1)]).is_empty());
        assert_eq!(
            ints_of(&[Datum::Int32(i32::MAX - 1), Datum::Int32(i32::MAX)]),
            vec![i64::from(i32::MAX) - 1, i64::from(i32::MAX)]
        );
        assert_eq!(
            ints_of(&[
                Datum::Int64(i64::MAX - 1),
                Datum::Int64(i64::MAX),
                Datum::Int64(5)
            ]),
            vec![i64::MAX - 1]
        );
        assert!(ints_of(&[Datum::Null, Datum::Int32(3)]).is_empty());
        let err = TableFunc::GenerateSeries
            .eval(&[Datum::Int32(1), Datum::Int32(3), Datum::Int32(0)])
            .unwrap_err();
        assert_eq!(err.sqlstate(), "22023");
    }
}
