//! The arithmetic operators of `timestamptz`: `± interval` adds days and months in the
//! session's zone (a `ZonedFunc`, `session_zone.rs`), and `timestamptz - timestamptz` is
//! the plain difference of the instants. A date or timestamp operand meets a timestamptz as
//! a timestamptz (PostgreSQL's implicit cast, read in the session's zone).

use crate::error::PlanError;
use crate::fold;
use crate::session_zone::zone_literal;
use crate::types::{coerce, CastContext, Typed};
use kpg_types::{BinaryFunc, ScalarExpr, ScalarType, VariadicFunc, ZonedFunc};

fn tstz(t: &Typed) -> Result<ScalarExpr, PlanError> {
    let name = t.type_name();
    coerce(t.clone(), &ScalarType::TimestampTz, CastContext::Implicit)?
        .map(|t| t.expr)
        .ok_or_else(|| {
            PlanError::datatype_mismatch(format!(
                "cannot convert type {name} to timestamp with time zone implicitly"
            ))
        })
}

/// `l op r` when it is a timestamptz operator, else `None`.
pub fn arithmetic(
    func: BinaryFunc,
    l: &Typed,
    r: &Typed,
    a: ScalarType,
    b: ScalarType,
) -> Result<Option<Typed>, PlanError> {
    use ScalarType::{Date, Interval, Timestamp, TimestampTz};
    let nullable = l.nullable || r.nullable;
    let zoned = |f: ZonedFunc, t: ScalarExpr, iv: ScalarExpr| -> Result<Typed, PlanError> {
        let e = fold::node(ScalarExpr::Variadic {
            func: VariadicFunc::Zoned(f),
            exprs: vec![t, iv, zone_literal()],
        })?;
        Ok(Typed::new(e, TimestampTz, nullable))
    };
    Ok(Some(match (a, b, func) {
        (TimestampTz, Interval, BinaryFunc::Add) => {
            zoned(ZonedFunc::AddInterval, l.expr.clone(), r.expr.clone())?
        }
        (Interval, TimestampTz, BinaryFunc::Add) => {
            zoned(ZonedFunc::AddInterval, r.expr.clone(), l.expr.clone())?
        }
        (TimestampTz, Interval, BinaryFunc::Sub) => {
            zoned(ZonedFunc::SubInterval, l.expr.clone(), r.expr.clone())?
        }
        (TimestampTz, Date | Timestamp | TimestampTz, BinaryFunc::Sub)
        | (Date | Timestamp, TimestampTz, BinaryFunc::Sub) => {
            let e = fold::node(tstz(l)?.call_binary(BinaryFunc::SubTimestamps, tstz(r)?))?;
            Typed::new(e, Interval, nullable)
        }
        _ => return Ok(None),
    }))
}
