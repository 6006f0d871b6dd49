//! Binding of the formatting functions `to_char(value, text)`, `to_number(text, text)`,
//! `to_date(text, text)` and `to_timestamp(text, text)`,
//! resolved as PostgreSQL 15 resolves them.
//!
//! to_char exists there for integer, bigint, numeric, real, double precision, timestamp,
//! timestamp with time zone and interval: smallint takes the integer form; a date takes the
//! timestamp with time zone form (the preferred type of its category), as here, where that
//! form reads the session's `TimeZone` (for `TZ`, `OF`, and the local fields); an unknown
//! literal first argument is ambiguous (42725), as there. `to_date(text, text)` and
//! `to_timestamp(text, text)` read text through a picture; the latter reads a text without
//! an offset in the session's zone. A datetime with an empty picture gives NULL to to_char,
//! so those calls are nullable.

use super::strict;
use crate::builtin::implicit;
use crate::error::PlanError;
use crate::fold;
use crate::func::no_function;
use crate::session_zone::zone_literal;
use crate::types::Typed;
use kpg_types::{ScalarExpr, ScalarType, VariadicFunc, ZonedFunc};

/// Binds a call of one of this module's functions, or `None` if the name and argument count
/// are not one of them.
pub fn call(name: &str, args: Vec<Typed>) -> Result<Option<Typed>, PlanError> {
    let text = |i: usize| implicit(args[i].clone(), &ScalarType::Text, name, &args);
    let stringish = |i: usize| args[i].ty.is_none_or(|t| t.is_string());
    Ok(Some(match (name, args.len()) {
        ("to_number", 2) => {
            if !stringish(0) || !stringish(1) {
                return Err(no_function(name, &args));
            }
            let mut typed = strict(
                VariadicFunc::ToNumber,
                vec![text(0)?, text(1)?],
                ScalarType::NUMERIC,
            )?;
            // An empty picture gives NULL.
            typed.nullable = true;
            typed
        }
        ("to_char", 2) => {
            if !stringish(1) {
                return Err(no_function(name, &args));
            }
            let value_ty = match args[0].ty {
                None => {
                    return Err(PlanError::new(
                        "42725",
                        "function to_char(unknown, unknown) is not unique",
                    ))
                }
                Some(ScalarType::Int16 | ScalarType::Int32) => ScalarType::Int32,
                Some(ScalarType::Int64) => ScalarType::Int64,
                Some(ScalarType::Numeric { .. }) => ScalarType::NUMERIC,
                Some(ScalarType::Float32) => ScalarType::Float32,
                Some(ScalarType::Float64) => ScalarType::Float64,
                Some(ScalarType::Timestamp | ScalarType::TimestampOf(_)) => ScalarType::Timestamp,
                Some(ScalarType::Interval | ScalarType::IntervalOf(_)) => ScalarType::Interval,
                Some(ScalarType::Date | ScalarType::TimestampTz | ScalarType::TimestampTzOf(_)) => {
                    let value = implicit(args[0].clone(), &ScalarType::TimestampTz, name, &args)?;
                    let picture = text(1)?;
                    let expr = fold::node(ScalarExpr::Variadic {
                        func: VariadicFunc::Zoned(ZonedFunc::ToChar),
                        exprs: vec![value.expr, picture.expr, zone_literal()],
                    })?;
                    return Ok(Some(Typed::new(expr, ScalarType::Text, true)));
                }
                Some(_) => return Err(no_function(name, &args)),
            };
            let value = implicit(args[0].clone(), &value_ty, name, &args)?;
            let datetime = matches!(value_ty, ScalarType::Timestamp | ScalarType::Interval);
            let mut typed = strict(
                VariadicFunc::ToChar,
                vec![value, text(1)?],
                ScalarType::Text,
            )?;
            typed.nullable |= datetime;
            typed
        }
        ("to_date", 2) => {
            if !stringish(0) || !stringish(1) {
                return Err(no_function(name, &args));
            }
            strict(
                VariadicFunc::ToDate,
                vec![text(0)?, text(1)?],
                ScalarType::Date,
            )?
        }
        ("to_timestamp", 2) => {
            if !stringish(0) || !stringish(1) {
                return Err(no_function(name, &args));
            }
            let nullable = args.iter().any(|a| a.nullable);
            let expr = fold::node(ScalarExpr::Variadic {
                func: VariadicFunc::Zoned(ZonedFunc::ToTimestamp),
                exprs: vec![text(0)?.expr, text(1)?.expr, zone_literal()],
            })?;
            Typed::new(expr, ScalarType::TimestampTz, nullable)
        }
        _ => return Ok(None),
    }))
}
