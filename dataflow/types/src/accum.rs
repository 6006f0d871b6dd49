//! Accumulable aggregates: count, sums of exact numbers and of intervals, bool_and and bool_or,
//! and the variances and standard deviations of exact numbers (from the count, the sum and the
//! sum of squares), whose value over a group follows from a sum of per-row contributions. The runtime carries these
//! contributions in the *differences* of its updates, so adding or removing a row costs the same
//! whatever the group's size (instead of re-reading the whole group at every change).
//!
//! Every contribution lives in an abelian group, so that retractions cancel insertions exactly:
//! counts and sums of integers are `i128` (wrapping, which keeps the group laws; a true sum
//! beyond 2^127 would need 2^63 of the largest bigints), and numeric sums are kept per scale as
//! exact integer mantissas (`WideInt`: `i128` while it fits, a big integer beyond), so that the
//! result has the largest scale of its terms, as in PostgreSQL. A sum over no non-NULL term is
//! NULL; the result is checked against its type's range only when it is read. Numeric `NaN`,
//! `Infinity` and `-Infinity` terms are counted apart, each under a pseudo-scale above any real
//! one (as PostgreSQL's `NumericAggState` counts them), so retracting the last infinity gives
//! back the finite sum: while any is present the sum is NaN (a NaN, or infinities of both
//! signs) or that infinity.

use num_bigint::BigInt;
use num_traits::{ToPrimitive, Zero};
use serde::{Deserialize, Serialize};

use crate::agg::{AggregateExpr, AggregateFunc};
use crate::datum::Datum;
use crate::error::EvalError;
use crate::numeric::{Numeric, Special};
use crate::packed::{DatumRef, NumericRef};

/// The accumulated contribution of rows to one aggregate.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Accum {
    /// Non-NULL values (count).
    Count(i64),
    /// An integer sum and the number of its non-NULL terms.
    Int { sum: i128, count: i64 },
    /// A numeric sum: per scale (ascending), the sum of the terms' mantissas and their number.
    Numeric(Vec<(u32, WideInt, i64)>),
    /// bool_and / bool_or: TRUE values and non-NULL values.
    Bool { trues: i64, count: i64 },
    /// An interval sum: the sums of the terms' months, days and microseconds, and their number.
    Interval { fields: [i128; 3], count: i64 },
    /// The sum of the terms and the sum of their squares, each per scale as `Numeric` (the
    /// term counts of `sum` are the number of terms).
    Moments {
        sum: Vec<(u32, WideInt, i64)>,
        squares: Vec<(u32, WideInt, i64)>,
    },
}

/// What adding an argument in place reads of it, from a packed or an owned value alike.
enum Term {
    Null,
    Int(i128),
    /// A finite numeric whose mantissa fits an `i128`, and its scale.
    Numeric(i128, u32),
    Bool(bool),
    /// Anything else: its contribution is built whole (`AggregateFunc::accumulate`).
    Other,
}

impl Term {
    fn of_ref(value: DatumRef<'_>) -> Term {
        match value {
            DatumRef::Null => Term::Null,
            DatumRef::Int16(v) => Term::Int(i128::from(v)),
            DatumRef::Int32(v) => Term::Int(i128::from(v)),
            DatumRef::Int64(v) => Term::Int(i128::from(v)),
            DatumRef::Numeric(NumericRef::Small { mantissa, scale }) => {
                Term::Numeric(mantissa, u32::from(scale))
            }
            DatumRef::Bool(b) => Term::Bool(b),
            _ => Term::Other,
        }
    }

    fn of_datum(value: &Datum) -> Term {
        match value {
            Datum::Null => Term::Null,
            Datum::Int16(v) => Term::Int(i128::from(*v)),
            Datum::Int32(v) => Term::Int(i128::from(*v)),
            Datum::Int64(v) => Term::Int(i128::from(*v)),
            Datum::Numeric(n) => match n.small_parts() {
                Some((mantissa, scale)) => Term::Numeric(mantissa, scale),
                None => Term::Other,
            },
            Datum::Bool(b) => Term::Bool(*b),
            _ => Term::Other,
        }
    }
}

/// A numeric sum kept per scale: the sum of the terms' mantissas and their number.
type ScaledSum = Vec<(u32, WideInt, i64)>;

/// The pseudo-scale under which the terms that are `special` are counted (the real scales end
/// at 16383).
fn special_scale(special: Special) -> u32 {
    match special {
        Special::NegInf => u32::MAX - 2,
        Special::PosInf => u32::MAX - 1,
        Special::NaN => u32::MAX,
    }
}

/// The contribution of `diff` copies of the numeric `d` to a [`ScaledSum`].
fn scaled_term(d: &Numeric, diff: i64) -> ScaledSum {
    if let Some(special) = d.special() {
        return vec![(special_scale(special), WideInt::Small(0), diff)];
    }
    let term = match d.small_parts() {
        Some((m, _)) => match m.checked_mul(i128::from(diff)) {
            Some(v) => WideInt::Small(v),
            None => WideInt::product(&m.into(), diff),
        },
        None => WideInt::product(&d.parts().0, diff),
    };
    vec![(d.scale(), term, diff)]
}

fn scaled_add(a: &mut ScaledSum, b: &ScaledSum) {
    for (scale, m, n) in b {
        match a.binary_search_by_key(scale, |(s, _, _)| *s) {
            Ok(i) => {
                a[i].1.add_assign(m);
                a[i].2 += n;
            }
            Err(i) => a.insert(i, (*scale, m.clone(), *n)),
        }
    }
    a.retain(|(_, m, n)| !m.is_zero() || *n != 0);
}

/// `scaled_add` of one term: `n` terms summing to the mantissa `m` at `scale`.
fn scaled_add_term(a: &mut ScaledSum, scale: u32, m: WideInt, n: i64) {
    match a.binary_search_by_key(&scale, |(s, _, _)| *s) {
        Ok(i) => {
            a[i].1.add_assign(&m);
            a[i].2 += n;
            if a[i].1.is_zero() && a[i].2 == 0 {
                a.remove(i);
            }
        }
        Err(i) if !m.is_zero() || n != 0 => a.insert(i, (scale, m, n)),
        Err(_) => {}
    }
}

fn scaled_negate(a: &mut ScaledSum) {
    for (_, m, n) in a {
        m.negate();
        *n = -*n;
    }
}

/// The sum at the largest scale of its terms, and the number of terms; `None` without terms.
fn scaled_total(by_scale: &ScaledSum) -> Result<Option<(Numeric, i64)>, EvalError> {
    let specials = |s: Special| {
        by_scale
            .iter()
            .find(|(scale, _, _)| *scale == special_scale(s))
            .map_or(0, |(_, _, n)| *n)
    };
    let (neg, pos, nan) = (
        specials(Special::NegInf),
        specials(Special::PosInf),
        specials(Special::NaN),
    );
    let present = by_scale
        .iter()
        .filter(|(s, _, n)| *n != 0 && *s < special_scale(Special::NegInf));
    let finite = present.clone().map(|(_, _, n)| n).sum::<i64>();
    let special = match (neg != 0, pos != 0, nan != 0) {
        (_, _, true) | (true, true, _) => Some(Special::NaN),
        (true, false, false) => Some(Special::NegInf),
        (false, true, false) => Some(Special::PosInf),
        (false, false, false) => None,
    };
    if let Some(special) = special {
        let value = Numeric::special_value(special);
        return Ok(Some((value, finite + neg + pos + nan)));
    }
    let Some(scale) = present.clone().map(|(s, _, _)| *s).max() else {
        return Ok(None);
    };
    let mut total = Numeric::ZERO;
    let mut count = 0;
    for (s, m, n) in present {
        let part = match m {
            WideInt::Small(v) => Numeric::from_i128(*v, *s)?,
            WideInt::Big(b) => Numeric::from_parts(b.clone(), *s)?,
        };
        total = total.checked_add(&part)?;
        count += n;
    }
    Ok(Some((total.with_min_scale(scale)?, count)))
}

/// An exact integer: inline while it fits `i128`, a big integer beyond. The form is canonical,
/// so the derived equality is by value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum WideInt {
    Small(i128),
    Big(BigInt),
}

impl WideInt {
    fn from_big(b: BigInt) -> WideInt {
        match b.to_i128() {
            Some(v) => WideInt::Small(v),
            None => WideInt::Big(b),
        }
    }

    fn to_big(&self) -> BigInt {
        match self {
            WideInt::Small(v) => BigInt::from(*v),
            WideInt::Big(b) => b.clone(),
        }
    }

    /// `m · n`.
    fn product(m: &BigInt, n: i64) -> WideInt {
        match m.to_i128().and_then(|m| m.checked_mul(i128::from(n))) {
            Some(v) => WideInt::Small(v),
            None => WideInt::from_big(m * n),
        }
    }

    fn add_assign(&mut self, other: &WideInt) {
        if let (WideInt::Small(a), WideInt::Small(b)) = (&*self, other) {
            if let Some(v) = a.checked_add(*b) {
                *self = WideInt::Small(v);
                return;
            }
        }
        *self = WideInt::from_big(self.to_big() + other.to_big());
    }

    fn negate(&mut self) {
        *self = match self {
            WideInt::Small(v) => match v.checked_neg() {
                Some(n) => WideInt::Small(n),
                None => WideInt::from_big(-BigInt::from(*v)),
            },
            WideInt::Big(b) => WideInt::from_big(-std::mem::take(b)),
        };
    }

    fn is_zero(&self) -> bool {
        match self {
            WideInt::Small(v) => *v == 0,
            WideInt::Big(b) => b.is_zero(),
        }
    }
}

impl AggregateExpr {
    /// Whether a reduction computing `aggregates` keeps one accumulated contribution per group
    /// instead of the group's values: each is accumulable and none is DISTINCT.
    pub fn all_accumulable(aggregates: &[AggregateExpr]) -> bool {
        !aggregates.is_empty()
            && aggregates
                .iter()
                .all(|a| a.func.accumulable() && !a.distinct)
    }
}

impl AggregateFunc {
    /// Whether the aggregate is computed from accumulated contributions ([`Accum`]).
    pub fn accumulable(&self) -> bool {
        matches!(
            self,
            AggregateFunc::Count
                | AggregateFunc::SumInt32
                | AggregateFunc::SumInt64
                | AggregateFunc::SumNumeric
                | AggregateFunc::BoolAnd
                | AggregateFunc::BoolOr
                | AggregateFunc::SumInterval
                | AggregateFunc::VarianceNumeric(_)
        )
    }

    /// The contribution of `diff` copies of a row whose argument is `value`.
    pub fn accumulate(&self, value: &Datum, diff: i64) -> Accum {
        let present = i64::from(!value.is_null()) * diff;
        match self {
            AggregateFunc::SumInt32 | AggregateFunc::SumInt64 => {
                let v = match value {
                    Datum::Int16(v) => i128::from(*v),
                    Datum::Int32(v) => i128::from(*v),
                    Datum::Int64(v) => i128::from(*v),
                    _ => 0,
                };
                Accum::Int {
                    sum: v.wrapping_mul(i128::from(diff)),
                    count: present,
                }
            }
            AggregateFunc::SumNumeric => match value {
                Datum::Numeric(d) => Accum::Numeric(scaled_term(d, diff)),
                _ => Accum::Numeric(Vec::new()),
            },
            AggregateFunc::VarianceNumeric(_) => match value {
                Datum::Null => Accum::Moments {
                    sum: Vec::new(),
                    squares: Vec::new(),
                },
                d if matches!(d, Datum::Numeric(n) if !n.is_finite()) => {
                    let x = crate::agg::exact_number(d);
                    Accum::Moments {
                        sum: scaled_term(&x, diff),
                        squares: scaled_term(&x, diff),
                    }
                }
                d => {
                    let x = crate::agg::exact_number(d);
                    // The square's mantissa and scale, exact: a scale beyond numeric's is an
                    // error when the result is read.
                    let (m, scale) = x.parts();
                    let square = vec![(2 * scale, WideInt::product(&(&m * &m), diff), diff)];
                    Accum::Moments {
                        sum: scaled_term(&x, diff),
                        squares: square,
                    }
                }
            },
            AggregateFunc::SumInterval => {
                let (m, d, us) = match value {
                    Datum::Interval(v) => v.fields(),
                    _ => (0, 0, 0),
                };
                let n = i128::from(diff);
                Accum::Interval {
                    fields: [i128::from(m) * n, i128::from(d) * n, i128::from(us) * n],
                    count: present,
                }
            }
            AggregateFunc::BoolAnd | AggregateFunc::BoolOr => Accum::Bool {
                trues: i64::from(value == &Datum::Bool(true)) * diff,
                count: present,
            },
            _ => Accum::Count(present),
        }
    }

    /// Adds the contribution of `diff` copies of a row whose argument is `value` to `acc` (a
    /// contribution of this aggregate): `acc.plus_equals(&self.accumulate(..))` without
    /// allocating or decoding the value for counts, integer, numeric and boolean arguments.
    pub fn accumulate_into(&self, acc: &mut Accum, value: DatumRef<'_>, diff: i64) {
        if !self.add_term(acc, Term::of_ref(value), diff) {
            acc.plus_equals(&self.accumulate(&value.to_datum(), diff));
        }
    }

    /// [`accumulate_into`](Self::accumulate_into) for an owned value (an argument computed by
    /// an expression rather than read from a row).
    pub fn accumulate_datum_into(&self, acc: &mut Accum, value: &Datum, diff: i64) {
        if !self.add_term(acc, Term::of_datum(value), diff) {
            acc.plus_equals(&self.accumulate(value, diff));
        }
    }

    /// Adds `term` in place where its kind allows; `false` when the caller must build the
    /// contribution (`accumulate`) instead.
    fn add_term(&self, acc: &mut Accum, term: Term, diff: i64) -> bool {
        let present = i64::from(!matches!(term, Term::Null)) * diff;
        match (self, acc, term) {
            (AggregateFunc::Count, Accum::Count(n), _) => *n += present,
            (AggregateFunc::SumInt32 | AggregateFunc::SumInt64, Accum::Int { sum, count }, t) => {
                let v = match t {
                    Term::Int(v) => v,
                    _ => 0,
                };
                *sum = sum.wrapping_add(v.wrapping_mul(i128::from(diff)));
                *count += present;
            }
            (AggregateFunc::SumNumeric, Accum::Numeric(_), Term::Null) => {}
            (
                AggregateFunc::SumNumeric,
                Accum::Numeric(by_scale),
                Term::Numeric(mantissa, scale),
            ) => {
                let term = match mantissa.checked_mul(i128::from(diff)) {
                    Some(v) => WideInt::Small(v),
                    None => WideInt::product(&mantissa.into(), diff),
                };
                scaled_add_term(by_scale, scale, term, diff);
            }
            (AggregateFunc::BoolAnd | AggregateFunc::BoolOr, Accum::Bool { trues, count }, t) => {
                *trues += i64::from(matches!(t, Term::Bool(true))) * diff;
                *count += present;
            }
            _ => return false,
        }
        true
    }

    /// The aggregate's value from the accumulated contributions of a group's rows.
    pub fn finish(&self, accum: &Accum) -> Result<Datum, EvalError> {
        let out_of_range = || EvalError::NumericOutOfRange("bigint".into());
        Ok(match (self, accum) {
            (AggregateFunc::Count, Accum::Count(n)) => Datum::Int64(*n),
            (_, Accum::Int { count: 0, .. }) => Datum::Null,
            (AggregateFunc::SumInt32, Accum::Int { sum, .. }) => {
                Datum::Int64(i64::try_from(*sum).map_err(|_| out_of_range())?)
            }
            (AggregateFunc::SumInt64, Accum::Int { sum, .. }) => {
                Datum::Numeric(Numeric::from_i128(*sum, 0)?)
            }
            (AggregateFunc::SumNumeric, Accum::Numeric(by_scale)) => {
                match scaled_total(by_scale)? {
                    None => Datum::Null,
                    Some((total, _)) => Datum::Numeric(total),
                }
            }
            (AggregateFunc::VarianceNumeric(kind), Accum::Moments { sum, squares }) => {
                match (scaled_total(sum)?, scaled_total(squares)?) {
                    (Some((sum, n)), Some((squares, _))) => {
                        crate::agg::finish_variance(*kind, n, &sum, &squares)?
                    }
                    _ => Datum::Null,
                }
            }
            (_, Accum::Interval { count: 0, .. }) => Datum::Null,
            (
                AggregateFunc::SumInterval,
                Accum::Interval {
                    fields: [m, d, us], ..
                },
            ) => Datum::Interval(crate::Interval::from_wide(*m, *d, *us)?),
            (_, Accum::Bool { count: 0, .. }) => Datum::Null,
            (AggregateFunc::BoolAnd, Accum::Bool { trues, count }) => Datum::Bool(trues == count),
            (AggregateFunc::BoolOr, Accum::Bool { trues, .. }) => Datum::Bool(*trues > 0),
            (func, accum) => {
                return Err(EvalError::Internal(format!(
                    "{func:?} cannot be computed from {accum:?}"
                )))
            }
        })
    }
}

impl Accum {
    /// Adds `other`'s contribution (of the same aggregate).
    pub fn plus_equals(&mut self, other: &Accum) {
        match (self, other) {
            (Accum::Count(a), Accum::Count(b)) => *a += b,
            (Accum::Int { sum, count }, Accum::Int { sum: s, count: c }) => {
                *sum = sum.wrapping_add(*s);
                *count += c;
            }
            (Accum::Bool { trues, count }, Accum::Bool { trues: t, count: c }) => {
                *trues += t;
                *count += c;
            }
            (Accum::Numeric(a), Accum::Numeric(b)) => scaled_add(a, b),
            (Accum::Moments { sum, squares }, Accum::Moments { sum: s, squares: q }) => {
                scaled_add(sum, s);
                scaled_add(squares, q);
            }
            (
                Accum::Interval { fields, count },
                Accum::Interval {
                    fields: f,
                    count: c,
                },
            ) => {
                for (a, b) in fields.iter_mut().zip(f) {
                    *a = a.wrapping_add(*b);
                }
                *count += c;
            }
            (a, b) => panic!("accumulations of different aggregates: {a:?} and {b:?}"),
        }
    }

    /// Replaces the contribution by its inverse.
    pub fn negate(&mut self) {
        match self {
            Accum::Count(n) => *n = -*n,
            Accum::Int { sum, count } => {
                *sum = sum.wrapping_neg();
                *count = -*count;
            }
            Accum::Bool { trues, count } => {
                *trues = -*trues;
                *count = -*count;
            }
            Accum::Interval { fields, count } => {
                fields.iter_mut().for_each(|f| *f = f.wrapping_neg());
                *count = -*count;
            }
            Accum::Numeric(by_scale) => scaled_negate(by_scale),
            Accum::Moments { sum, squares } => {
                scaled_negate(sum);
                scaled_negate(squares);
            }
        }
    }

    /// Whether the contribution is nothing (rows that cancel out).
    pub fn is_zero(&self) -> bool {
        match self {
            Accum::Count(n) => *n == 0,
            Accum::Int { sum, count } => *sum == 0 && *count == 0,
            Accum::Bool { trues, count } => *trues == 0 && *count == 0,
            Accum::Interval { fields, count } => *fields == [0; 3] && *count == 0,
            Accum::Numeric(by_scale) => by_scale.is_empty(),
            Accum::Moments { sum, squares } => sum.is_empty() && squares.is_empty(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Row;

    fn num(s: &str) -> Datum {
        Datum::Numeric(s.parse().unwrap())
    }

    /// Aggregates over values of every kind an accumulation meets: NULLs, sums beyond their
    /// type, the numeric special values, trailing zeros.
    fn cases() -> Vec<(AggregateFunc, Vec<Datum>)> {
        vec![
            (
                AggregateFunc::Count,
                vec![Datum::Int32(1), Datum::Null, Datum::Int32(3)],
            ),
            (
                AggregateFunc::SumInt32,
                vec![Datum::Int32(i32::MAX), Datum::Int32(i32::MAX), Datum::Null],
            ),
            (
                AggregateFunc::SumInt64,
                vec![
                    Datum::Int64(i64::MAX),
                    Datum::Int64(i64::MAX),
                    Datum::Int64(-5),
                ],
            ),
            (
                AggregateFunc::SumNumeric,
                vec![num("1.50"), num("2"), num("-0.125"), Datum::Null],
            ),
            (AggregateFunc::SumNumeric, vec![num("0.00"), num("0")]),
            (
                AggregateFunc::SumNumeric,
                vec![num("Infinity"), num("1.5"), num("-Infinity"), Datum::Null],
            ),
            (AggregateFunc::SumNumeric, vec![num("2"), num("-inf")]),
            (AggregateFunc::SumNumeric, vec![num("NaN"), num("inf")]),
            (
                AggregateFunc::VarianceNumeric(crate::agg::Dispersion::VarPop),
                vec![num("Infinity"), num("2")],
            ),
            (AggregateFunc::SumNumeric, vec![Datum::Null]),
            (
                AggregateFunc::BoolAnd,
                vec![Datum::Bool(true), Datum::Null, Datum::Bool(false)],
            ),
            (AggregateFunc::BoolOr, vec![Datum::Bool(false), Datum::Null]),
            (
                AggregateFunc::SumInterval,
                vec![
                    Datum::Interval(crate::Interval::new(1, -3, 5_000_000)),
                    Datum::Null,
                    Datum::Interval(crate::Interval::new(i32::MAX / 2, 2, -7)),
                    Datum::Interval(crate::Interval::new(-1, 0, i64::MIN / 2 + 8)),
                ],
            ),
            (AggregateFunc::SumInterval, vec![Datum::Null]),
            (AggregateFunc::BoolAnd, vec![Datum::Null]),
            (
                AggregateFunc::VarianceNumeric(crate::agg::Dispersion::VarSamp),
                vec![num("1.5"), Datum::Null, num("-2.25"), num("3")],
            ),
            (
                AggregateFunc::VarianceNumeric(crate::agg::Dispersion::StddevPop),
                vec![Datum::Int64(i64::MAX), Datum::Int64(-7), Datum::Null],
            ),
            (
                AggregateFunc::VarianceNumeric(crate::agg::Dispersion::VarPop),
                vec![Datum::Null],
            ),
            (
                AggregateFunc::SumNumeric,
                vec![
                    num("79228162514264337593543950335"),
                    num("79228162514264337593543950335"),
                    num("-0.0000000000000000000000000001"),
                    num("123456789012345678901234567890123.5"),
                ],
            ),
        ]
    }

    /// Accumulating then finishing gives what evaluating over the values gives, also after
    /// insertions are retracted in another order.
    #[test]
    fn accumulations_agree_with_evaluation() {
        for (func, values) in cases() {
            let expected = func.eval(values.iter().map(|v| (v, 2)), false).unwrap();
            let mut acc = func.accumulate(&values[0], 2);
            for v in &values[1..] {
                acc.plus_equals(&func.accumulate(v, 3));
            }
            // Take one copy of each later value away again.
            for v in values[1..].iter().rev() {
                let mut back = func.accumulate(v, 1);
                back.negate();
                acc.plus_equals(&back);
            }
            assert_eq!(
                func.finish(&acc).unwrap(),
                expected,
                "{func:?} over {values:?}"
            );
            // Removing everything leaves nothing.
            for (v, n) in values
                .iter()
                .zip(std::iter::once(2).chain(std::iter::repeat(2)))
            {
                let mut back = func.accumulate(v, n);
                back.negate();
                acc.plus_equals(&back);
            }
            assert!(acc.is_zero(), "{func:?}: {acc:?}");
        }
    }

    /// Adding a value's contribution in place, packed or owned, is adding the contribution
    /// made of the owned value, whatever the multiplicity.
    #[test]
    fn accumulating_in_place_is_adding_the_contribution() {
        for (func, values) in cases() {
            let mut by_value = func.accumulate(&values[0], 1);
            let mut in_place = by_value.clone();
            let mut owned_in_place = by_value.clone();
            for (i, v) in values.iter().enumerate().cycle().take(3 * values.len()) {
                let diff = [3, -1, 1 << 40, 1, -7][i % 5];
                by_value.plus_equals(&func.accumulate(v, diff));
                let row = Row::new(vec![v.clone()]);
                let packed = row.iter().next().expect("one column");
                func.accumulate_into(&mut in_place, packed, diff);
                assert_eq!(in_place, by_value, "{func:?} after {v:?} x {diff}");
                func.accumulate_datum_into(&mut owned_in_place, v, diff);
                assert_eq!(
                    owned_in_place, by_value,
                    "{func:?} after owned {v:?} x {diff}"
                );
            }
        }
    }

    /// Retracting the infinities and NaNs of a numeric sum gives back the finite sum.
    #[test]
    fn special_terms_retract_to_the_finite_sum() {
        let f = AggregateFunc::SumNumeric;
        let mut acc = f.accumulate(&num("1.25"), 1);
        for (v, want) in [("inf", "Infinity"), ("-inf", "NaN"), ("NaN", "NaN")] {
            acc.plus_equals(&f.accumulate(&num(v), 1));
            assert_eq!(f.finish(&acc).unwrap(), num(want), "after {v}");
        }
        for (v, want) in [("inf", "NaN"), ("NaN", "-Infinity"), ("-inf", "1.25")] {
            acc.plus_equals(&f.accumulate(&num(v), -1));
            assert_eq!(
                f.finish(&acc).unwrap().to_text().unwrap(),
                want,
                "without {v}"
            );
        }
    }

    #[test]
    fn sums_out_of_range_are_errors_when_read() {
        let mut acc = AggregateFunc::SumInt32.accumulate(&Datum::Int32(1), 1);
        for _ in 0..3 {
            acc.plus_equals(
                &AggregateFunc::SumInt32.accumulate(&Datum::Int32(i32::MAX), i64::MAX / 4),
            );
        }
        assert!(AggregateFunc::SumInt32.finish(&acc).is_err());
        // Numeric sums are exact far beyond i128, and retract back to nothing.
        let big = num("170141183460469231731687303715884105727.5");
        let mut acc = AggregateFunc::SumNumeric.accumulate(&big, 1 << 40);
        acc.plus_equals(&AggregateFunc::SumNumeric.accumulate(&big, 1 << 40));
        assert_eq!(
            AggregateFunc::SumNumeric.finish(&acc).unwrap(),
            num("374144419156711147060143317175368453030819219374080.0")
        );
        acc.plus_equals(&AggregateFunc::SumNumeric.accumulate(&big, -(1 << 41)));
        assert!(acc.is_zero(), "{acc:?}");
    }
}
