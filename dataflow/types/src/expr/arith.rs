//! Arithmetic on numbers, dates and intervals with PostgreSQL's results and errors.
//!
//! Owns: `+ - * / %` over every numeric type (integer overflow 22003 with PostgreSQL's type
//! names, division by zero 22012, numeric results at PostgreSQL's scales, float overflow and
//! underflow), and numeric division's choice of scale (`numeric_div`).

use super::*;

/// Applies an arithmetic operator to two non-NULL operands of matching types.
pub(super) fn arith(func: BinaryFunc, l: Datum, r: Datum) -> Result<Datum, EvalError> {
    use BinaryFunc::*;
    let int_err = |name: &str| EvalError::NumericOutOfRange(name.to_string());
    Ok(match (l, r) {
        // In integer, then narrowed: smallint's results are integer's where they fit.
        (Datum::Int16(a), Datum::Int16(b)) => {
            match arith(func, Datum::Int32(a.into()), Datum::Int32(b.into()))? {
                Datum::Int32(v) => Datum::Int16(i16::try_from(v).map_err(|_| int_err("smallint"))?),
                other => other,
            }
        }
        (Datum::Int32(a), Datum::Int32(b)) => Datum::Int32(
            match func {
                Add => a.checked_add(b),
                Sub => a.checked_sub(b),
                Mul => a.checked_mul(b),
                Div if b == 0 => return Err(EvalError::DivisionByZero),
                Div => a.checked_div(b),
                Mod if b == 0 => return Err(EvalError::DivisionByZero),
                Mod => Some(a.checked_rem(b).unwrap_or(0)),
                _ => unreachable!(),
            }
            .ok_or_else(|| int_err("integer"))?,
        ),
        (Datum::Int64(a), Datum::Int64(b)) => Datum::Int64(
            match func {
                Add => a.checked_add(b),
                Sub => a.checked_sub(b),
                Mul => a.checked_mul(b),
                Div if b == 0 => return Err(EvalError::DivisionByZero),
                Div => a.checked_div(b),
                Mod if b == 0 => return Err(EvalError::DivisionByZero),
                Mod => Some(a.checked_rem(b).unwrap_or(0)),
                _ => unreachable!(),
            }
            .ok_or_else(|| int_err("bigint"))?,
        ),
        // Computed exactly enough in double precision and rounded once, which gives float4
        // arithmetic's result; `float32` raises PostgreSQL's overflow and underflow errors.
        (Datum::Float32(a), Datum::Float32(b)) => {
            match arith(func, Datum::Float64(a.into()), Datum::Float64(b.into()))? {
                Datum::Float64(v) => float32(v.0)?,
                other => other,
            }
        }
        (Datum::Float64(a), Datum::Float64(b)) => {
            let v = match func {
                Add => a.0 + b.0,
                Sub => a.0 - b.0,
                Mul => a.0 * b.0,
                Div if b.0 == 0.0 => return Err(EvalError::DivisionByZero),
                Div => a.0 / b.0,
                Mod if b.0 == 0.0 => return Err(EvalError::DivisionByZero),
                Mod => a.0 % b.0,
                _ => unreachable!(),
            };
            if v.is_infinite() && a.0.is_finite() && b.0.is_finite() {
                return Err(EvalError::FloatOverflow);
            }
            Datum::Float64(OrderedFloat(v))
        }
        (Datum::Numeric(a), Datum::Numeric(b)) => {
            let overflow = || EvalError::NumericOverflow;
            // PostgreSQL's result scales: max of the inputs' for + and -, their sum for *.
            let with_scale = |mut d: Decimal, scale: u32| {
                if d.scale() < scale {
                    d.rescale(scale.min(28));
                }
                d
            };
            Datum::Numeric(match func {
                Add => with_scale(
                    a.checked_add(b).ok_or_else(overflow)?,
                    a.scale().max(b.scale()),
                ),
                Sub => with_scale(
                    a.checked_sub(b).ok_or_else(overflow)?,
                    a.scale().max(b.scale()),
                ),
                Mul => with_scale(
                    a.checked_mul(b).ok_or_else(overflow)?,
                    a.scale() + b.scale(),
                ),
                Div if b.is_zero() => return Err(EvalError::DivisionByZero),
                Div => numeric_div(a, b).ok_or_else(overflow)?,
                Mod if b.is_zero() => return Err(EvalError::DivisionByZero),
                Mod => a.checked_rem(b).ok_or_else(overflow)?,
                _ => unreachable!(),
            })
        }
        (l, r) => unreachable!("arithmetic over {l:?}, {r:?}"),
    })
}

/// Numeric division with PostgreSQL's choice of result scale (`select_div_scale`): at least
/// 16 significant digits, and no fewer fractional digits than either input.
pub(crate) fn numeric_div(a: Decimal, b: Decimal) -> Option<Decimal> {
    // Weight and first digit of each operand in base 10000, as PostgreSQL stores numerics.
    fn weight_first(d: Decimal) -> (i32, u32) {
        let abs = d.abs();
        if abs.is_zero() {
            return (0, 0);
        }
        let digits_before_point = {
            let t = abs.trunc();
            if t.is_zero() {
                0
            } else {
                t.to_string().len() as i32
            }
        };
        if digits_before_point > 0 {
            let w = (digits_before_point - 1) / 4;
            let first = (abs / Decimal::from(10000u64.pow(w as u32))).trunc();
            (w, first.to_u32().unwrap_or(0))
        } else {
            // Count leading zero groups after the point.
            let mut w = -1;
            let mut scaled = abs * Decimal::from(10000);
            while scaled.trunc().is_zero() {
                w -= 1;
                scaled *= Decimal::from(10000);
            }
            (w, scaled.trunc().to_u32().unwrap_or(0))
        }
    }
    let (w1, f1) = weight_first(a);
    let (w2, f2) = weight_first(b);
    let mut qweight = w1 - w2;
    if f1 <= f2 {
        qweight -= 1;
    }
    let mut rscale = 16 - qweight * 4;
    rscale = rscale
        .max(a.scale() as i32)
        .max(b.scale() as i32)
        .clamp(0, 1000);
    let q = a.checked_div(b)?;
    let int_digits = {
        let t = q.abs().trunc();
        if t.is_zero() {
            0
        } else {
            t.to_string().len() as u32
        }
    };
    let max_scale = 28u32.saturating_sub(int_digits);
    let scale = (rscale as u32).min(max_scale);
    let mut r = q.round_dp_with_strategy(scale, RoundingStrategy::MidpointAwayFromZero);
    r.rescale(scale);
    Some(r)
}
