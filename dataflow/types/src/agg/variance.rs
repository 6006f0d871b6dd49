//! var_samp, var_pop, stddev_samp and stddev_pop (variance and stddev are the sample forms),
//! as PostgreSQL 15 computes them.
//!
//! Over exact numbers (smallint, integer, bigint, numeric) the result is numeric, from the
//! exact count N, sum ΣX and sum of squares ΣX² (`numeric_stddev_internal`): the numerator
//! N·ΣX² − (ΣX)² is exact (its scale twice the largest scale of the terms), zero or below
//! gives `0`, and otherwise it is divided by N·(N−1) (N² for the population forms) at
//! PostgreSQL's division scale, rounded; a standard deviation is the square root of that
//! rounded variance at the same scale. These three sums are accumulable (`accum.rs`), so a
//! view keeps them per group and a change costs the same whatever the group's size.
//!
//! Over real and double precision the result is double precision, accumulated as PostgreSQL's
//! `float8_accum` does with the Youngs-Cramer update, one value at a time: its last digits
//! depend on the order of the values, which in PostgreSQL is the order rows arrive and in kpg
//! the order of the group's values in the reduction, so they can differ where the values are
//! not exactly representable sums. Sample forms are NULL for fewer than two values, population
//! forms for none.

use ordered_float::OrderedFloat;
use serde::{Deserialize, Serialize};

use crate::datum::Datum;
use crate::error::EvalError;
use crate::numeric::Numeric;

/// Which measure of dispersion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dispersion {
    VarSamp,
    VarPop,
    StddevSamp,
    StddevPop,
}

impl Dispersion {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Dispersion::VarSamp => "var_samp",
            Dispersion::VarPop => "var_pop",
            Dispersion::StddevSamp => "stddev_samp",
            Dispersion::StddevPop => "stddev_pop",
        }
    }

    fn sample(self) -> bool {
        matches!(self, Dispersion::VarSamp | Dispersion::StddevSamp)
    }

    fn root(self) -> bool {
        matches!(self, Dispersion::StddevSamp | Dispersion::StddevPop)
    }
}

/// An exact number as a numeric.
pub(crate) fn exact(d: &Datum) -> Numeric {
    match d {
        Datum::Int16(v) => Numeric::from(i32::from(*v)),
        Datum::Int32(v) => Numeric::from(*v),
        Datum::Int64(v) => Numeric::from(*v),
        Datum::Numeric(v) => v.clone(),
        other => unreachable!("variance of exact numbers over {other:?}"),
    }
}

/// The measure over exact values with multiplicities.
pub(crate) fn eval_exact<'a>(
    kind: Dispersion,
    values: impl Iterator<Item = (&'a Datum, i64)>,
) -> Result<Datum, EvalError> {
    let (mut n, mut sum, mut squares) = (0i64, None::<Numeric>, None::<Numeric>);
    for (d, mult) in values {
        let x = exact(d);
        let times = Numeric::from(mult);
        let term = x.checked_mul(&times)?;
        let square = x.checked_mul(&x)?.checked_mul(&times)?;
        sum = Some(match sum {
            None => term,
            Some(s) => s.checked_add(&term)?,
        });
        squares = Some(match squares {
            None => square,
            Some(s) => s.checked_add(&square)?,
        });
        n += mult;
    }
    match (sum, squares) {
        (Some(sum), Some(squares)) => finish_exact(kind, n, &sum, &squares),
        _ => Ok(Datum::Null),
    }
}

/// PostgreSQL's `numeric_stddev_internal` from N, ΣX (with the largest scale of the terms)
/// and ΣX².
pub(crate) fn finish_exact(
    kind: Dispersion,
    n: i64,
    sum: &Numeric,
    squares: &Numeric,
) -> Result<Datum, EvalError> {
    if n <= 0 || (kind.sample() && n <= 1) {
        return Ok(Datum::Null);
    }
    // Any NaN or infinity among the values (PostgreSQL 15).
    if !sum.is_finite() || !squares.is_finite() {
        return Ok(Datum::Numeric(Numeric::NAN));
    }
    let count = Numeric::from(n);
    let numerator = count
        .checked_mul(squares)?
        .checked_sub(&sum.checked_mul(sum)?)?
        .with_min_scale(2 * sum.scale())?;
    if numerator.signum() <= 0 {
        return Ok(Datum::Numeric(Numeric::ZERO));
    }
    let n = i128::from(n);
    let denominator = Numeric::from_i128(n * if kind.sample() { n - 1 } else { n }, 0)?;
    let variance = numerator.checked_div(&denominator)?;
    if !kind.root() {
        return Ok(Datum::Numeric(variance));
    }
    let scale = variance.scale();
    Ok(Datum::Numeric(sqrt_at(&variance, scale)?))
}

/// The square root of a non-negative `x` rounded half away from zero to `scale` digits after
/// the point (PostgreSQL's `sqrt_var` at a given scale).
fn sqrt_at(x: &Numeric, scale: u32) -> Result<Numeric, EvalError> {
    let (m, s) = x.parts();
    // floor(sqrt(m · 10^(2·scale + 2 − s))) is the root with one more digit.
    let shift = 2 * scale + 2;
    let radicand = if shift >= s {
        m * num_bigint::BigInt::from(10u8).pow(shift - s)
    } else {
        m / num_bigint::BigInt::from(10u8).pow(s - shift)
    };
    let root = radicand.sqrt();
    let ten = num_bigint::BigInt::from(10u8);
    let (q, last) = num_integer::Integer::div_rem(&root, &ten);
    let q = if last >= num_bigint::BigInt::from(5u8) {
        q + 1
    } else {
        q
    };
    Numeric::from_parts(q, scale)
}

/// The measure over floats with multiplicities, by the Youngs-Cramer update in the order
/// given; an infinite sum of finite values is 22003 as in PostgreSQL.
pub(crate) fn eval_float<'a>(
    kind: Dispersion,
    values: impl Iterator<Item = (&'a Datum, i64)>,
) -> Result<Datum, EvalError> {
    let (mut n, mut sx, mut sxx) = (0.0f64, 0.0f64, 0.0f64);
    for (d, mult) in values {
        let x = match d {
            Datum::Float64(v) => v.0,
            Datum::Float32(v) => f64::from(v.0),
            other => unreachable!("variance of floats over {other:?}"),
        };
        for _ in 0..mult {
            let (old_n, old_sx) = (n, sx);
            n += 1.0;
            sx += x;
            if old_n > 0.0 {
                let tmp = x * n - sx;
                sxx += tmp * tmp / (n * old_n);
                if sx.is_infinite() || sxx.is_infinite() {
                    if !old_sx.is_infinite() && !x.is_infinite() {
                        return Err(EvalError::FloatOverflow);
                    }
                    sxx = f64::NAN;
                }
            } else if x.is_nan() || x.is_infinite() {
                sxx = f64::NAN;
            }
        }
    }
    if n == 0.0 || (kind.sample() && n <= 1.0) {
        return Ok(Datum::Null);
    }
    let variance = sxx / if kind.sample() { n - 1.0 } else { n };
    let v = if kind.root() {
        variance.sqrt()
    } else {
        variance
    };
    Ok(Datum::Float64(OrderedFloat(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact_text(kind: Dispersion, values: &[&str]) -> String {
        let ds: Vec<Datum> = values
            .iter()
            .map(|v| Datum::Numeric(v.parse().unwrap()))
            .collect();
        eval_exact(kind, ds.iter().map(|d| (d, 1)))
            .unwrap()
            .to_text()
            .unwrap_or_else(|| "NULL".into())
    }

    /// Expected values are PostgreSQL 15's.
    #[test]
    fn exact_dispersion_like_postgres() {
        use Dispersion::*;
        assert_eq!(
            exact_text(VarSamp, &["1", "2", "3", "4"]),
            "1.6666666666666667"
        );
        assert_eq!(
            exact_text(VarPop, &["1", "2", "3", "4"]),
            "1.2500000000000000"
        );
        assert_eq!(
            exact_text(StddevSamp, &["1", "2", "3", "4"]),
            "1.2909944487358056"
        );
        assert_eq!(
            exact_text(StddevPop, &["1", "2", "3", "4"]),
            "1.1180339887498948"
        );
        assert_eq!(exact_text(VarSamp, &["1.5", "1.5"]), "0");
        assert_eq!(exact_text(VarSamp, &["7"]), "NULL");
        assert_eq!(exact_text(VarPop, &["7"]), "0");
    }
}
