//! Values made into `jsonb`: `to_jsonb(x)`, `jsonb_build_array(...)`, `jsonb_build_object(...)`
//! and the result of the aggregate `jsonb_object_agg`, as PostgreSQL builds them — numbers stay numbers (with their
//! scale: `1.50`), booleans booleans, NULL `null`; `NaN` and the infinities, text, dates
//! (`2024-01-02`), times, timestamps (ISO 8601 with a `T`) and uuids become strings; arrays become
//! arrays of their converted elements, and a `jsonb` is itself.
//!
//! Which types convert is decided when a query is planned (`convertible`): the others (time
//! zones and intervals, whose text depends on the session; bytea, records) are refused there, so evaluation only meets values
//! of convertible types. An object's keys are converted the same way (a float key arrives as
//! its text, which the planner makes it, since PostgreSQL writes `1e+20` and `-0` there) and
//! must come out as scalars (a `jsonb` or array key is refused when planned); a NULL key is an
//! error, as in PostgreSQL.

use crate::datum::Datum;
use crate::error::EvalError;
use crate::jsonb::Json;
use crate::numeric::Numeric;
use crate::ScalarType;

/// Whether values of `ty` convert to `jsonb`.
pub fn convertible(ty: &ScalarType) -> bool {
    match ty {
        ScalarType::Bool
        | ScalarType::Int16
        | ScalarType::Int32
        | ScalarType::Int64
        | ScalarType::Float32
        | ScalarType::Float64
        | ScalarType::Numeric { .. }
        | ScalarType::Text
        | ScalarType::VarChar { .. }
        | ScalarType::Char { .. }
        | ScalarType::Date
        | ScalarType::Time
        | ScalarType::TimeOf(_)
        | ScalarType::Timestamp
        | ScalarType::TimestampOf(_)
        | ScalarType::Uuid
        | ScalarType::Jsonb => true,
        _ => ty.element().is_some_and(|e| convertible(&e)),
    }
}

/// The `jsonb` of one value (`to_jsonb`); NULL is `null`.
pub fn to_json(d: &Datum) -> Result<Json, EvalError> {
    Ok(match d {
        Datum::Null => Json::Null,
        Datum::Bool(b) => Json::Bool(*b),
        Datum::Int16(i) => Json::Number(Numeric::from(i32::from(*i))),
        Datum::Int32(i) => Json::Number(Numeric::from(*i)),
        Datum::Int64(i) => Json::Number(Numeric::from(*i)),
        Datum::Numeric(n) if n.special().is_some() => Json::String(n.to_string()),
        Datum::Numeric(n) => Json::Number(n.clone()),
        Datum::Float32(_) | Datum::Float64(_) => {
            let text = d.to_text().unwrap_or_default();
            match Numeric::parse(&text) {
                Ok(n) if n.special().is_none() => Json::Number(n),
                // NaN, Infinity and -Infinity; a finite float beyond numeric's range.
                Ok(_) => Json::String(text),
                Err(_) => return Err(EvalError::NumericOverflow),
            }
        }
        Datum::String(s) => Json::String(s.clone()),
        Datum::Date(_) | Datum::Time(_) | Datum::Uuid(_) => {
            Json::String(d.to_text().unwrap_or_default())
        }
        Datum::Timestamp(_) => {
            let text = d.to_text().unwrap_or_default();
            Json::String(text.replacen(' ', "T", 1))
        }
        Datum::Jsonb(j) => (**j).clone(),
        Datum::Array(items) => Json::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        other => {
            return Err(EvalError::Internal(format!(
                "to_jsonb of {other:?}, a type planning refuses"
            )))
        }
    })
}

/// `jsonb_build_array(...)` of its arguments (each already `to_json`'s input).
pub fn build_array(args: &[Datum]) -> Result<Datum, EvalError> {
    let items = args.iter().map(to_json).collect::<Result<_, _>>()?;
    Ok(Datum::Jsonb(Box::new(Json::Array(items))))
}

/// `jsonb_build_object(k1, v1, ...)`: keys by their JSON text (a string's own text, a number's
/// digits, `true`/`false`), a later equal key replacing an earlier one.
pub fn build_object(args: &[Datum]) -> Result<Datum, EvalError> {
    if !args.len().is_multiple_of(2) {
        return Err(EvalError::InvalidParameterValue(
            "argument list must have even number of elements".into(),
        ));
    }
    let mut pairs = Vec::with_capacity(args.len() / 2);
    for (i, pair) in args.chunks(2).enumerate() {
        let key = key_text(to_json(&pair[0])?, || {
            format!("argument {}: key must not be null", 2 * i + 1)
        })?;
        pairs.push((key, to_json(&pair[1])?));
    }
    Ok(Datum::Jsonb(Box::new(Json::object(pairs))))
}

/// `jsonb_object_agg(k, v)`'s result from the aggregated `[k, v]` pairs (`jsonb_build_array`
/// of each row's key and value): an object, a later equal key replacing an earlier one.
pub fn object_of_pairs(d: &Datum) -> Result<Datum, EvalError> {
    let Datum::Array(items) = d else {
        return Err(EvalError::Internal(format!("jsonb_object_agg of {d:?}")));
    };
    let mut pairs = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Datum::Jsonb(pair) => match pair.as_ref() {
                Json::Array(kv) if kv.len() == 2 => {
                    let key = key_text(kv[0].clone(), || "field name must not be null".into())?;
                    pairs.push((key, kv[1].clone()));
                }
                other => return Err(EvalError::Internal(format!("a key/value pair {other:?}"))),
            },
            other => return Err(EvalError::Internal(format!("a key/value pair {other:?}"))),
        }
    }
    Ok(Datum::Jsonb(Box::new(Json::object(pairs))))
}

/// An object key: a string's own text, a number's digits, `true`/`false`; `null` is the error
/// `if_null` says, an array or object is not a key.
fn key_text(key: Json, if_null: impl FnOnce() -> String) -> Result<String, EvalError> {
    match key {
        Json::Null => Err(EvalError::InvalidParameterValue(if_null())),
        Json::String(s) => Ok(s),
        Json::Bool(b) => Ok(b.to_string()),
        Json::Number(n) => Ok(n.to_string()),
        Json::Array(_) | Json::Object(_) => Err(EvalError::InvalidParameterValue(
            "key value must be scalar, not array, composite, or json".into(),
        )),
    }
}
