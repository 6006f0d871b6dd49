//! Casts between SQL types with PostgreSQL's conversion rules: integer narrowing with range
//! checks, rounding half away from zero (numeric) or to even (floats) into integers, floats
//! into numeric through their significant digits, text input and output, and the date and
//! date, time and timestamp conversions (a `time(p)` or `timestamp(p)` target rounds to its
//! precision). Split from `expr.rs`, which evaluates expressions and calls these. Casts that
//! depend on the session's time zone are `ZonedFunc`s, not casts.

use crate::datetime;
use crate::datum::{float32, Datum};
use crate::error::EvalError;
use crate::numeric::Numeric;
use crate::scalar::ScalarType;
use ordered_float::OrderedFloat;

/// Casts a non-null datum to `ty`, following PostgreSQL's conversion rules.
pub fn cast(d: Datum, ty: &ScalarType) -> Result<Datum, EvalError> {
    let out_of_range = |name: &str| EvalError::NumericOutOfRange(name.to_string());
    Ok(match (d, ty) {
        (Datum::Null, _) => Datum::Null,
        (Datum::String(s), ScalarType::Text) => Datum::String(s),
        (Datum::Bool(b), ScalarType::Char { .. }) => {
            Datum::String(if b { "true" } else { "false" }.into()).cast_char(ty)?
        }
        // Text that is not a constant is read as a plain interval, then cut to the type (only
        // a constant's reading is steered by the qualifier, as in PostgreSQL).
        (Datum::String(s), ScalarType::IntervalOf(t)) => {
            Datum::Interval(t.apply(crate::Interval::parse(&s, None)?)?)
        }
        (Datum::String(s), _) => Datum::parse_text(&s, ty)?,
        (Datum::Bool(b), ScalarType::Text | ScalarType::VarChar { .. }) => {
            Datum::String(if b { "true" } else { "false" }.into()).cast_varchar(ty)?
        }
        (d, ScalarType::Text | ScalarType::VarChar { .. }) => {
            Datum::String(d.to_text().expect("not null")).cast_varchar(ty)?
        }
        (d, ScalarType::Char { .. }) => {
            Datum::String(d.to_text().expect("not null")).cast_char(ty)?
        }
        (Datum::Int2Vector(v), ScalarType::Int2Vector) => Datum::Int2Vector(v),
        (Datum::Int2Vector(v), ty @ ScalarType::Array(_)) => {
            cast(Datum::Array(crate::array::int2vector::elements(&v)), ty)?
        }
        (Datum::Array(a), ScalarType::Int2Vector) => Datum::Int2Vector(
            a.into_iter()
                .map(|e| match cast(e, &ScalarType::Int16)? {
                    Datum::Int16(i) => Ok(i),
                    _ => Err(EvalError::Unsupported("NULL in an int2vector".into())),
                })
                .collect::<Result<_, _>>()?,
        ),
        // An array converts element by element.
        (Datum::Array(a), ScalarType::Array(elem)) => Datum::Array(
            a.into_iter()
                .map(|e| cast(e, &elem.get()))
                .collect::<Result<_, _>>()?,
        ),
        (Datum::Jsonb(j), ScalarType::Jsonb) => Datum::Jsonb(j),
        (Datum::Jsonb(j), ScalarType::Bool) => Datum::Bool(j.as_bool()?),
        // A jsonb number converts as a numeric does (rounding to integers).
        (Datum::Jsonb(j), ty) => {
            let n = j.as_number(&ty.to_string())?.clone();
            cast(Datum::Numeric(n), ty)?
        }
        (Datum::Bool(b), ScalarType::Bool) => Datum::Bool(b),
        (Datum::Bool(b), ScalarType::Int32) => Datum::Int32(b as i32),
        (Datum::Int32(i), ScalarType::Bool) => Datum::Bool(i != 0),
        // smallint converts through integer; integers narrow to it with a range check.
        (Datum::Int16(i), ty) => cast(Datum::Int32(i.into()), ty)?,
        (Datum::Int32(i), ScalarType::Int16) => {
            Datum::Int16(i16::try_from(i).map_err(|_| out_of_range("smallint"))?)
        }
        (Datum::Int64(i), ScalarType::Int16) => {
            Datum::Int16(i16::try_from(i).map_err(|_| out_of_range("smallint"))?)
        }
        (Datum::Numeric(n), ScalarType::Int16 | ScalarType::Int32 | ScalarType::Int64)
            if !n.is_finite() =>
        {
            return Err(EvalError::NumericSpecialToInteger {
                what: if n.is_nan() { "NaN" } else { "infinity" }.into(),
                type_name: ty.to_string(),
            });
        }
        (d @ (Datum::Float32(_) | Datum::Float64(_) | Datum::Numeric(_)), ScalarType::Int16) => {
            match cast(d, &ScalarType::Int64)? {
                Datum::Int64(i) => {
                    Datum::Int16(i16::try_from(i).map_err(|_| out_of_range("smallint"))?)
                }
                other => other,
            }
        }
        (Datum::Int32(i), ScalarType::Int32) => Datum::Int32(i),
        (Datum::Int32(i), ScalarType::Int64) => Datum::Int64(i.into()),
        (Datum::Int32(i), ScalarType::Float32) => Datum::Float32(OrderedFloat(i as f32)),
        (Datum::Int32(i), ScalarType::Float64) => Datum::Float64(OrderedFloat(i.into())),
        (Datum::Int32(i), ScalarType::Numeric { .. }) => {
            Datum::Numeric(i.into()).cast_numeric(ty)?
        }
        (Datum::Int64(i), ScalarType::Int32) => {
            Datum::Int32(i32::try_from(i).map_err(|_| out_of_range("integer"))?)
        }
        (Datum::Int64(i), ScalarType::Int64) => Datum::Int64(i),
        (Datum::Int64(i), ScalarType::Float32) => Datum::Float32(OrderedFloat(i as f32)),
        (Datum::Int64(i), ScalarType::Float64) => Datum::Float64(OrderedFloat(i as f64)),
        (Datum::Int64(i), ScalarType::Numeric { .. }) => {
            Datum::Numeric(i.into()).cast_numeric(ty)?
        }
        (Datum::Numeric(n), ScalarType::Int32 | ScalarType::Int64) => {
            let v = n
                .to_i64_rounded()
                .ok_or_else(|| out_of_range(&ty.to_string()))?;
            cast(Datum::Int64(v), ty)?
        }
        (Datum::Numeric(n), ScalarType::Float32) => {
            Datum::Float32(OrderedFloat(numeric_float(&n, ty)?))
        }
        (Datum::Numeric(n), ScalarType::Float64) => {
            Datum::Float64(OrderedFloat(numeric_float(&n, ty)?))
        }
        (Datum::Numeric(n), ScalarType::Numeric { .. }) => Datum::Numeric(n).cast_numeric(ty)?,
        (Datum::Float64(f), ScalarType::Int32 | ScalarType::Int64) => {
            let r = f.0.round_ties_even();
            if !r.is_finite() || r < i64::MIN as f64 || r >= i64::MAX as f64 {
                return Err(out_of_range(&ty.to_string()));
            }
            cast(Datum::Int64(r as i64), ty)?
        }
        (Datum::Float64(f), ScalarType::Float64) => Datum::Float64(f),
        (Datum::Float64(f), ScalarType::Float32) => float32(f.0)?,
        (Datum::Float32(f), ScalarType::Float32) => Datum::Float32(f),
        (Datum::Float32(f), ScalarType::Float64) => Datum::Float64(OrderedFloat(f.0.into())),
        (Datum::Float32(f), ScalarType::Int32 | ScalarType::Int64) => {
            cast(Datum::Float64(OrderedFloat(f.0.into())), ty)?
        }
        (Datum::Float64(f), ScalarType::Numeric { .. }) => {
            Datum::Numeric(float_numeric(f.0, 15)?).cast_numeric(ty)?
        }
        (Datum::Float32(f), ScalarType::Numeric { .. }) => {
            Datum::Numeric(float_numeric(f.0.into(), 6)?).cast_numeric(ty)?
        }
        (Datum::Date(d), ScalarType::Date) => Datum::Date(d),
        (Datum::Date(d), ScalarType::Timestamp) => {
            Datum::Timestamp(d.and_time(chrono::NaiveTime::MIN))
        }
        (Datum::Timestamp(t), ScalarType::Timestamp) => Datum::Timestamp(t),
        (Datum::Timestamp(t), ScalarType::Date) => Datum::Date(t.date()),
        (Datum::Interval(iv), ScalarType::Interval) => Datum::Interval(iv),
        (Datum::Interval(iv), ScalarType::IntervalOf(t)) => Datum::Interval(t.apply(iv)?),
        (Datum::Date(d), ScalarType::TimestampOf(_)) => {
            Datum::Timestamp(d.and_time(chrono::NaiveTime::MIN))
        }
        (Datum::Timestamp(t), ScalarType::TimestampOf(p)) => {
            Datum::Timestamp(datetime::round_timestamp(t, *p)?)
        }
        (Datum::Timestamp(t), ScalarType::Time) => Datum::Time(datetime::time_of(&t)),
        (Datum::Timestamp(t), ScalarType::TimeOf(p)) => {
            Datum::Time(datetime::round_time(datetime::time_of(&t), *p))
        }
        (Datum::Time(t), ScalarType::Time) => Datum::Time(t),
        (Datum::Time(t), ScalarType::TimeOf(p)) => Datum::Time(datetime::round_time(t, *p)),
        (Datum::Time(t), ScalarType::Interval) => Datum::Interval(crate::Interval::new(0, 0, t)),
        (Datum::Time(t), ScalarType::IntervalOf(q)) => {
            Datum::Interval(q.apply(crate::Interval::new(0, 0, t))?)
        }
        (Datum::Interval(iv), ScalarType::Time) => Datum::Time(datetime::interval_time(&iv)),
        (Datum::Interval(iv), ScalarType::TimeOf(p)) => {
            Datum::Time(datetime::round_time(datetime::interval_time(&iv), *p))
        }
        // The planner reads the casts between timestamptz and the other date/time types in
        // the session's zone (`expr/tz_funcs.rs`); here, only the zone-free ones.
        (Datum::TimestampTz(t), ScalarType::TimestampTz) => Datum::TimestampTz(t),
        (Datum::TimestampTz(t), ScalarType::TimestampTzOf(p)) => {
            Datum::TimestampTz(datetime::round_timestamp(t, *p)?)
        }
        (Datum::Uuid(u), ScalarType::Uuid) => Datum::Uuid(u),
        (Datum::Bytes(b), ScalarType::Bytea) => Datum::Bytes(b),
        (d, ty) => unreachable!("planner allowed cast of {d:?} to {ty}"),
    })
}

/// A numeric as a float the way PostgreSQL converts it, through the text: beyond the type's
/// range, or so small it would read as zero, is an error.
fn numeric_float<F>(n: &Numeric, ty: &ScalarType) -> Result<F, EvalError>
where
    F: std::str::FromStr + Into<f64> + Copy,
{
    let text = n.to_string();
    if !n.is_finite() {
        // Rust reads PostgreSQL's NaN, Infinity and -Infinity.
        return text.parse().map_err(|_| EvalError::Internal(text.clone()));
    }
    let out_of_range = || EvalError::FloatInputOutOfRange {
        value: text.clone(),
        type_name: ty.to_string(),
    };
    let f: F = text.parse().map_err(|_| out_of_range())?;
    let wide: f64 = f.into();
    if wide.is_infinite() || (wide == 0.0 && !n.is_zero()) {
        return Err(out_of_range());
    }
    Ok(f)
}

/// A float as numeric the way PostgreSQL converts it: rounded to `digits` significant digits
/// (15 for float8, 6 for float4), so `(0.1 + 0.2)::numeric` is 0.3; NaN and the infinities
/// become numeric's.
fn float_numeric(f: f64, digits: usize) -> Result<Numeric, EvalError> {
    Numeric::from_f64(f, digits)
}
