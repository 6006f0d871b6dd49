//! Arithmetic on numbers, dates and intervals with PostgreSQL's results and errors.
//!
//! Owns: `+ - * / %` over every numeric type (integer overflow 22003 with PostgreSQL's type
//! names, division by zero 22012, float overflow and underflow). Numeric arithmetic, with its
//! result scales, is `numeric`'s.

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
        (Datum::Numeric(a), Datum::Numeric(b)) => Datum::Numeric(match func {
            Add => a.checked_add(&b)?,
            Sub => a.checked_sub(&b)?,
            Mul => a.checked_mul(&b)?,
            Div => a.checked_div(&b)?,
            Mod => a.checked_rem(&b)?,
            _ => unreachable!(),
        }),
        (l, r) => unreachable!("arithmetic over {l:?}, {r:?}"),
    })
}
