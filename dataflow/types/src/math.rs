//! Evaluation of the mathematical functions beyond arithmetic: sign, sqrt, cbrt, exp, ln,
//! log10 and power, with PostgreSQL 15's results and errors.
//!
//! The float forms follow PostgreSQL's `float.c`: the C library computes the value (Rust's
//! `f64` methods call the same libm), and arguments without a real result or results out of
//! the double range are errors, not NaN or infinity — 2201F for square roots and powers, 2201E
//! for logarithms, 22003 for overflow and underflow. Of the numeric forms kpg computes sign and
//! sqrt (`Numeric::sqrt`); the planner refuses the others.

use crate::datum::Datum;
use crate::error::EvalError;
use crate::expr::UnaryFunc;
use ordered_float::OrderedFloat;

pub(crate) fn unary(func: &UnaryFunc, d: Datum) -> Result<Datum, EvalError> {
    let float = |f: f64| Datum::Float64(OrderedFloat(f));
    Ok(match (func, d) {
        (UnaryFunc::Sign, Datum::Numeric(n)) => Datum::Numeric(n.sign()),
        (UnaryFunc::Sign, Datum::Float64(f)) => float(if f.0 > 0.0 {
            1.0
        } else if f.0 < 0.0 {
            -1.0
        } else {
            0.0
        }),
        (UnaryFunc::Sqrt, Datum::Numeric(n)) => Datum::Numeric(n.sqrt()?),
        (UnaryFunc::Sqrt, Datum::Float64(f)) => {
            if f.0 < 0.0 {
                return Err(EvalError::InvalidPowerArgument(
                    "cannot take square root of a negative number".into(),
                ));
            }
            float(f.0.sqrt())
        }
        (UnaryFunc::Cbrt, Datum::Float64(f)) => float(f.0.cbrt()),
        (UnaryFunc::Exp, Datum::Float64(f)) => float(exp(f.0)?),
        (UnaryFunc::Ln, Datum::Float64(f)) => float(log(f.0, f64::ln)?),
        (UnaryFunc::Log10, Datum::Float64(f)) => float(log(f.0, f64::log10)?),
        (func, d) => unreachable!("planner typed {func:?} over {d:?}"),
    })
}

fn exp(x: f64) -> Result<f64, EvalError> {
    if x.is_nan() || x.is_infinite() {
        // exp(-Infinity) is 0 and exp(Infinity) Infinity, without error.
        return Ok(x.exp());
    }
    let r = x.exp();
    if r.is_infinite() {
        Err(EvalError::FloatOverflow)
    } else if r == 0.0 {
        Err(EvalError::FloatUnderflow)
    } else {
        Ok(r)
    }
}

fn log(x: f64, f: fn(f64) -> f64) -> Result<f64, EvalError> {
    if x == 0.0 {
        return Err(EvalError::InvalidLogArgument(
            "cannot take logarithm of zero".into(),
        ));
    }
    if x < 0.0 {
        return Err(EvalError::InvalidLogArgument(
            "cannot take logarithm of a negative number".into(),
        ));
    }
    Ok(f(x))
}

/// power(x, y) of doubles (PostgreSQL's `dpow`).
pub(crate) fn power(x: f64, y: f64) -> Result<f64, EvalError> {
    if x == 0.0 && y < 0.0 {
        return Err(EvalError::InvalidPowerArgument(
            "zero raised to a negative power is undefined".into(),
        ));
    }
    if x < 0.0 && y.floor() != y {
        return Err(EvalError::InvalidPowerArgument(
            "a negative number raised to a non-integer power yields a complex result".into(),
        ));
    }
    // NaN and infinite arguments get C99's answers (pow(NaN, 0) = 1, pow(0.5, Inf) = 0, ...).
    let r = x.powf(y);
    if x.is_finite() && y.is_finite() {
        if r.is_infinite() {
            return Err(EvalError::FloatOverflow);
        }
        if r == 0.0 && x != 0.0 {
            return Err(EvalError::FloatUnderflow);
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::Numeric;

    fn num(s: &str) -> Numeric {
        s.parse().unwrap()
    }

    #[test]
    fn numeric_sqrt_has_postgres_scale() {
        // Expected texts are PostgreSQL 15's.
        for (x, root) in [
            ("0", "0.000000000000000"),
            ("0.0000", "0.000000000000000"),
            ("2.0", "1.414213562373095"),
            ("100", "10.000000000000000"),
            ("1e-10", "0.000010000000000000000"),
            ("12345678901234567890", "3513641828.8201443"),
        ] {
            assert_eq!(num(x).sqrt().unwrap().to_string(), root, "sqrt({x})");
        }
        assert_eq!(num("-2.0").sqrt().unwrap_err().sqlstate(), "2201F");
    }

    #[test]
    fn float_errors_like_postgres() {
        let code = |r: Result<f64, EvalError>| r.unwrap_err().sqlstate();
        assert_eq!(code(power(10.0, 400.0)), "22003");
        assert_eq!(code(power(10.0, -400.0)), "22003");
        assert_eq!(code(power(0.0, -1.0)), "2201F");
        assert_eq!(code(power(-8.0, 1.0 / 3.0)), "2201F");
        assert_eq!(power(-2.0, 3.0).unwrap(), -8.0);
        assert_eq!(power(f64::NAN, 0.0).unwrap(), 1.0);
        assert_eq!(power(0.5, f64::INFINITY).unwrap(), 0.0);
        assert_eq!(code(exp(1000.0)), "22003");
        assert_eq!(code(exp(-1000.0)), "22003");
        assert_eq!(exp(f64::NEG_INFINITY).unwrap(), 0.0);
        assert_eq!(code(log(0.0, f64::ln)), "2201E");
        assert_eq!(code(log(-1.0, f64::log10)), "2201E");
    }
}
