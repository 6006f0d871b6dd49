//! Aggregate functions and their evaluation over one group.
//!
//! A reduction hands each group's accumulated input to `AggregateExpr::eval` as values with
//! multiplicities (the consolidated contents of the group at one time). Evaluation is a pure
//! function of that multiset, which is what lets the engine's reduce recompute a group's output
//! whenever its input changes and emit only the difference.

use crate::datum::Datum;
use crate::error::EvalError;
use crate::expr::ScalarExpr;
use crate::interval::Interval;
use crate::numeric::Numeric;
use ordered_float::OrderedFloat;
use serde::{Deserialize, Serialize};

mod array_agg;
mod string_agg;
mod variance;

pub(crate) use string_agg::pack as pack_string_agg;
pub use string_agg::KeyOrder;
pub use variance::Dispersion;
pub(crate) use variance::{exact as exact_number, finish_exact as finish_variance};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AggregateFunc {
    /// count(*) when the argument is the literal TRUE, count(x) otherwise: non-null values.
    Count,
    /// sum(int4) → int8
    SumInt32,
    /// sum(int8) → numeric
    SumInt64,
    SumNumeric,
    /// sum(real) → real (accumulated in real, as PostgreSQL)
    SumFloat32,
    SumFloat64,
    Min,
    Max,
    BoolAnd,
    BoolOr,
    /// sum(interval): months, days and microseconds summed apart, as PostgreSQL's `+`.
    SumInterval,
    /// var_samp, var_pop, stddev_samp, stddev_pop of smallint, integer, bigint or numeric
    /// → numeric (`agg/variance.rs`).
    VarianceNumeric(Dispersion),
    /// The same of double precision → double precision.
    VarianceFloat(Dispersion),
    /// string_agg(text, text ORDER BY ...) over rows packed by `VariadicFunc::StringAggInput`
    /// (`agg/string_agg.rs`).
    StringAgg(KeyOrder),
    /// array_agg(x ORDER BY ...) over rows packed by `VariadicFunc::ArrayAggInput`
    /// (`agg/array_agg.rs`).
    ArrayAgg(KeyOrder),
}

/// An aggregate applied to an expression over the reduction's input.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AggregateExpr {
    pub func: AggregateFunc,
    pub expr: ScalarExpr,
    pub distinct: bool,
}

impl AggregateFunc {
    /// The SQL name of the aggregate (EXPLAIN shows it).
    pub fn name(&self) -> &'static str {
        match self {
            AggregateFunc::Count => "count",
            AggregateFunc::SumInt32
            | AggregateFunc::SumInt64
            | AggregateFunc::SumNumeric
            | AggregateFunc::SumFloat32
            | AggregateFunc::SumFloat64
            | AggregateFunc::SumInterval => "sum",
            AggregateFunc::Min => "min",
            AggregateFunc::Max => "max",
            AggregateFunc::BoolAnd => "bool_and",
            AggregateFunc::BoolOr => "bool_or",
            AggregateFunc::VarianceNumeric(kind) | AggregateFunc::VarianceFloat(kind) => {
                kind.name()
            }
            AggregateFunc::StringAgg(_) => "string_agg",
            AggregateFunc::ArrayAgg(_) => "array_agg",
        }
    }

    /// The value over an empty group (count is 0, everything else NULL).
    pub fn default_value(&self) -> Datum {
        match self {
            AggregateFunc::Count => Datum::Int64(0),
            _ => Datum::Null,
        }
    }

    /// Aggregates values with multiplicities. Negative multiplicities cannot occur in a
    /// consistent collection; they are treated as absent. A value may come more than once
    /// (a reduction's input rows carry the arguments of all its aggregates, so rows that
    /// differ elsewhere repeat this one's value): `distinct` counts each value once.
    pub fn eval<'a>(
        &self,
        values: impl Iterator<Item = (&'a Datum, i64)>,
        distinct: bool,
    ) -> Result<Datum, EvalError> {
        let mut values: Vec<(&Datum, i64)> =
            values.filter(|(d, n)| *n > 0 && !d.is_null()).collect();
        if distinct {
            // SQL-equal values count once; of `3` and `3.00` the smaller scale is kept (the
            // first in `Datum`'s order), where PostgreSQL keeps the first it sorts.
            values.sort_by(|a, b| a.0.cmp(b.0));
            values.dedup_by(|a, b| a.0.sql_cmp(b.0).is_eq());
            values.iter_mut().for_each(|v| v.1 = 1);
        }
        let values = values.into_iter();
        Ok(match self {
            AggregateFunc::Count => Datum::Int64(values.map(|(_, n)| n).sum()),
            AggregateFunc::SumInt32 => {
                let mut acc: Option<i64> = None;
                for (d, n) in values {
                    let Datum::Int32(v) = d else {
                        unreachable!("sum(int4) over {d:?}")
                    };
                    let term = i64::from(*v)
                        .checked_mul(n)
                        .ok_or_else(|| EvalError::NumericOutOfRange("bigint".into()))?;
                    acc = Some(
                        acc.unwrap_or(0)
                            .checked_add(term)
                            .ok_or_else(|| EvalError::NumericOutOfRange("bigint".into()))?,
                    );
                }
                acc.map_or(Datum::Null, Datum::Int64)
            }
            AggregateFunc::SumInt64 | AggregateFunc::SumNumeric => {
                // PostgreSQL's sum has the scale of its terms (their products by a count keep it).
                let mut acc: Option<Numeric> = None;
                for (d, n) in values {
                    let v = match d {
                        Datum::Int64(v) => Numeric::from(*v),
                        Datum::Numeric(v) => v.clone(),
                        other => unreachable!("sum over {other:?}"),
                    };
                    let term = v.checked_mul(&Numeric::from(n))?;
                    acc = Some(match acc {
                        None => term,
                        Some(a) => a.checked_add(&term)?,
                    });
                }
                acc.map_or(Datum::Null, Datum::Numeric)
            }
            AggregateFunc::SumFloat32 => float_sum(values, |d| match d {
                Datum::Float32(v) => v.0,
                other => unreachable!("sum(float4) over {other:?}"),
            })?
            .map_or(Datum::Null, |f| Datum::Float32(OrderedFloat(f))),
            AggregateFunc::SumFloat64 => float_sum(values, |d| match d {
                Datum::Float64(v) => v.0,
                other => unreachable!("sum(float8) over {other:?}"),
            })?
            .map_or(Datum::Null, |f| Datum::Float64(OrderedFloat(f))),
            AggregateFunc::SumInterval => {
                // Summed wide and checked once, as the accumulated form is: the result does
                // not depend on the order of the terms.
                let mut acc: Option<[i128; 3]> = None;
                for (d, n) in values {
                    let Datum::Interval(v) = d else {
                        unreachable!("sum(interval) over {d:?}")
                    };
                    let (m, days, us) = v.fields();
                    let sum = acc.get_or_insert([0; 3]);
                    for (a, f) in sum.iter_mut().zip([i64::from(m), i64::from(days), us]) {
                        *a += i128::from(f) * i128::from(n);
                    }
                }
                match acc {
                    None => Datum::Null,
                    Some([m, d, us]) => Datum::Interval(Interval::from_wide(m, d, us)?),
                }
            }
            AggregateFunc::VarianceNumeric(kind) => variance::eval_exact(*kind, values)?,
            AggregateFunc::VarianceFloat(kind) => variance::eval_float(*kind, values)?,
            AggregateFunc::StringAgg(order) => string_agg::eval(*order, values)?,
            AggregateFunc::ArrayAgg(order) => array_agg::eval(*order, values)?,
            AggregateFunc::Min => values.map(|(d, _)| d).min().cloned().unwrap_or(Datum::Null),
            AggregateFunc::Max => values.map(|(d, _)| d).max().cloned().unwrap_or(Datum::Null),
            AggregateFunc::BoolAnd => values
                .map(|(d, _)| d == &Datum::Bool(true))
                .reduce(|a, b| a && b)
                .map_or(Datum::Null, Datum::Bool),
            AggregateFunc::BoolOr => values
                .map(|(d, _)| d == &Datum::Bool(true))
                .reduce(|a, b| a || b)
                .map_or(Datum::Null, Datum::Bool),
        })
    }
}

/// A float sum as PostgreSQL's float4pl and float8pl make it: the terms added one at a time in
/// their own type, so the result depends on their order (here `Datum` order, each value as
/// many times as it occurs: ten 0.1s give 1.0000001 as reals and 0.9999999999999999 as
/// doubles, as there); an infinite result of finite terms overflowed. `None` for no terms.
fn float_sum<'a, F: num_traits::Float + std::ops::AddAssign>(
    values: impl Iterator<Item = (&'a Datum, i64)>,
    float: impl Fn(&Datum) -> F,
) -> Result<Option<F>, EvalError> {
    let mut acc: Option<F> = None;
    let mut infinite_term = false;
    for (d, n) in values {
        let v = float(d);
        infinite_term |= v.is_infinite();
        let sum = acc.get_or_insert(F::zero());
        (0..n).for_each(|_| *sum += v);
    }
    if acc.is_some_and(F::is_infinite) && !infinite_term {
        return Err(EvalError::FloatOverflow);
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PostgreSQL adds float terms one at a time in their own type.
    #[test]
    fn float_sums_add_each_term_in_their_type() {
        let tenth32 = [(Datum::Float32(OrderedFloat(0.1)), 10)];
        let sum = AggregateFunc::SumFloat32.eval(tenth32.iter().map(|(d, n)| (d, *n)), false);
        assert_eq!(sum.unwrap(), Datum::Float32(OrderedFloat(1.000_000_1)));
        let tenth64 = [(Datum::Float64(OrderedFloat(0.1)), 10)];
        let sum = AggregateFunc::SumFloat64.eval(tenth64.iter().map(|(d, n)| (d, *n)), false);
        assert_eq!(
            sum.unwrap(),
            Datum::Float64(OrderedFloat(0.999_999_999_999_999_9))
        );
        let big = [(Datum::Float32(OrderedFloat(1e38)), 10)];
        let sum = AggregateFunc::SumFloat32.eval(big.iter().map(|(d, n)| (d, *n)), false);
        assert_eq!(sum, Err(EvalError::FloatOverflow));
    }

    #[test]
    fn sums_respect_multiplicity_and_nulls() {
        let vals = [
            (Datum::Int32(5), 2),
            (Datum::Null, 3),
            (Datum::Int32(-1), 1),
        ];
        let it = || vals.iter().map(|(d, n)| (d, *n));
        assert_eq!(
            AggregateFunc::SumInt32.eval(it(), false).unwrap(),
            Datum::Int64(9)
        );
        assert_eq!(
            AggregateFunc::Count.eval(it(), false).unwrap(),
            Datum::Int64(3)
        );
        assert_eq!(
            AggregateFunc::Count.eval(it(), true).unwrap(),
            Datum::Int64(2)
        );
        assert_eq!(
            AggregateFunc::Min.eval(it(), false).unwrap(),
            Datum::Int32(-1)
        );
        assert_eq!(
            AggregateFunc::Max.eval(it(), false).unwrap(),
            Datum::Int32(5)
        );
        // The same value in several input rows (rows that differ in another aggregate's
        // argument) counts once for DISTINCT.
        let repeated = [
            (Datum::Int32(5), 1),
            (Datum::Int32(5), 1),
            (Datum::Int32(3), 2),
        ];
        let it = || repeated.iter().map(|(d, n)| (d, *n));
        assert_eq!(
            AggregateFunc::Count.eval(it(), true).unwrap(),
            Datum::Int64(2)
        );
        assert_eq!(
            AggregateFunc::SumInt32.eval(it(), true).unwrap(),
            Datum::Int64(8)
        );
        assert_eq!(
            AggregateFunc::SumInt32.eval(it(), false).unwrap(),
            Datum::Int64(16)
        );
        // Sums keep the largest scale of their terms, also when they are zero.
        let dec = |s: &str| Datum::Numeric(s.parse().unwrap());
        for (vals, want) in [
            (vec![(dec("0.00"), 2)], "0.00"),
            (vec![(dec("1.50"), 1), (dec("-1.5"), 1)], "0.00"),
            (vec![(dec("2"), 1), (dec("0.125"), 1)], "2.125"),
        ] {
            let sum = AggregateFunc::SumNumeric
                .eval(vals.iter().map(|(d, n)| (d, *n)), false)
                .unwrap();
            assert_eq!(sum.to_text().unwrap(), want);
        }
        let empty: [(Datum, i64); 1] = [(Datum::Null, 1)];
        assert_eq!(
            AggregateFunc::SumInt64
                .eval(empty.iter().map(|(d, n)| (d, *n)), false)
                .unwrap(),
            Datum::Null
        );
    }
}
