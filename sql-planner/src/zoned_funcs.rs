//! The functions of `timestamptz` and of the current time, as PostgreSQL 15 types them.
//!
//! - `now()`, `current_timestamp[(p)]`, `transaction_timestamp()`: the transaction's start;
//!   `statement_timestamp()`: the statement's; `clock_timestamp()`: the wall clock at each
//!   evaluation; `localtimestamp[(p)]`, `localtime[(p)]` and `current_date`: the
//!   transaction's start as a local time of the session's zone. The coordinator binds the
//!   times when the statement runs (`ScalarExpr::bind_clock`); they are volatile, so a
//!   maintained view refuses them. `current_time` (a `time with time zone`) is refused.
//! - `timezone(zone, x)` and `x AT TIME ZONE zone`: timestamptz to the zone's local
//!   timestamp, timestamp to the timestamptz of the local time there.
//! - EXTRACT, `date_part` and `date_trunc` of a timestamptz read the local time in the
//!   session's zone; `date_trunc(unit, x, zone)` in the given one.
//! - `to_timestamp(double precision)`: seconds since the Unix epoch, a timestamptz.

use crate::builtin::UnitArgument;
use crate::error::PlanError;
use crate::fold;
use crate::func::no_function;
use crate::session_zone::zone_literal;
use crate::types::{coerce, CastContext, Typed};
use kpg_types::{DateUnit, ScalarExpr, ScalarType, UnaryFunc, VariadicFunc, ZonedFunc};
use sqlparser::ast::{Function, FunctionArguments};

fn variadic(func: VariadicFunc, exprs: Vec<ScalarExpr>) -> ScalarExpr {
    ScalarExpr::Variadic { func, exprs }
}

fn zoned(
    func: ZonedFunc,
    mut args: Vec<ScalarExpr>,
    zone: ScalarExpr,
) -> Result<ScalarExpr, PlanError> {
    args.push(zone);
    fold::node(variadic(VariadicFunc::Zoned(func), args))
}

/// The precision argument of `current_timestamp(p)` and friends: an integer constant.
fn precision(name: &str, f: &Function) -> Result<Option<u8>, PlanError> {
    let FunctionArguments::List(list) = &f.args else {
        return Ok(None);
    };
    let text = list.args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    match text.as_slice() {
        [] => Ok(None),
        [p] => match p.parse::<i64>() {
            Ok(p) if p < 0 => Err(PlanError::new(
                "22023",
                format!(
                    "{}({p}) precision must not be negative",
                    name.to_uppercase()
                ),
            )),
            Ok(p) => Ok(Some(p.min(6) as u8)),
            Err(_) => Err(PlanError::syntax(format!(
                "syntax error at or near \"{p}\""
            ))),
        },
        _ => Err(PlanError::syntax(format!("syntax error in {name}"))),
    }
}

/// The current-time functions by name, or `None` for another name.
pub fn statement_time(name: &str, f: &Function) -> Result<Option<Typed>, PlanError> {
    let txn = || variadic(VariadicFunc::TransactionTimestamp, Vec::new());
    let no_args = |f: &Function| match &f.args {
        FunctionArguments::None => true,
        FunctionArguments::List(l) => l.args.is_empty(),
        FunctionArguments::Subquery(_) => false,
    };
    let takes_parens = matches!(
        name,
        "now" | "transaction_timestamp" | "statement_timestamp" | "clock_timestamp"
    );
    if takes_parens && !no_args(f) {
        return Err(PlanError::undefined_function(format!(
            "function {name}() with arguments does not exist"
        )));
    }
    let local = || zoned(ZonedFunc::ToLocal, vec![txn()], zone_literal());
    let (expr, ty) = match name {
        "now" | "transaction_timestamp" => (txn(), ScalarType::TimestampTz),
        "statement_timestamp" => (
            variadic(VariadicFunc::StatementTimestamp, Vec::new()),
            ScalarType::TimestampTz,
        ),
        "clock_timestamp" => (
            variadic(VariadicFunc::ClockTimestamp, Vec::new()),
            ScalarType::TimestampTz,
        ),
        "current_timestamp" => match precision(name, f)? {
            None => (txn(), ScalarType::TimestampTz),
            Some(p) => (
                txn().call_unary(UnaryFunc::Cast(ScalarType::TimestampTzOf(p))),
                ScalarType::TimestampTz,
            ),
        },
        "localtimestamp" => match precision(name, f)? {
            None => (local()?, ScalarType::Timestamp),
            Some(p) => (
                local()?.call_unary(UnaryFunc::Cast(ScalarType::TimestampOf(p))),
                ScalarType::Timestamp,
            ),
        },
        "localtime" => {
            let to = precision(name, f)?.map_or(ScalarType::Time, ScalarType::TimeOf);
            (local()?.call_unary(UnaryFunc::Cast(to)), ScalarType::Time)
        }
        "current_date" => {
            if !no_args(f) {
                return Err(PlanError::syntax("syntax error at or near \"(\""));
            }
            (
                local()?.call_unary(UnaryFunc::Cast(ScalarType::Date)),
                ScalarType::Date,
            )
        }
        "current_time" => {
            return Err(PlanError::unsupported(
                "current_time (type time with time zone)",
            ))
        }
        _ => return Ok(None),
    };
    Ok(Some(Typed::new(expr, ty, false)))
}

/// A function of a timestamptz that reads the session's zone, with one argument.
pub fn session_zoned(func: ZonedFunc, x: Typed, ty: ScalarType) -> Result<Typed, PlanError> {
    let nullable = x.nullable;
    Ok(Typed::new(zoned_session(func, vec![x.expr])?, ty, nullable))
}

/// `func` over `args` in the session's zone.
pub fn zoned_session(func: ZonedFunc, args: Vec<ScalarExpr>) -> Result<ScalarExpr, PlanError> {
    zoned(func, args, zone_literal())
}

fn zone_argument(zone: Typed, name: &str, all: &[Typed]) -> Result<ScalarExpr, PlanError> {
    match zone.ty {
        None | Some(ScalarType::Text | ScalarType::VarChar { .. } | ScalarType::Char { .. }) => {
            Ok(coerce(zone, &ScalarType::Text, CastContext::Implicit)?
                .expect("strings coerce to text")
                .expr)
        }
        Some(ScalarType::Interval) => Err(PlanError::unsupported(format!(
            "{name} with an interval as the time zone"
        ))),
        _ => Err(no_function(name, all)),
    }
}

/// `timezone(zone, x)`, also `x AT TIME ZONE zone`.
pub fn timezone(zone: Typed, x: Typed) -> Result<Typed, PlanError> {
    let all = [zone.clone(), x.clone()];
    let nullable = zone.nullable || x.nullable;
    let z = zone_argument(zone, "timezone", &all)?;
    let x = match x.ty {
        // An unknown literal is a timestamptz, PostgreSQL's preferred type here.
        None => coerce(x, &ScalarType::TimestampTz, CastContext::Implicit)?.expect("unknown"),
        Some(ScalarType::Date) => {
            coerce(x, &ScalarType::TimestampTz, CastContext::Implicit)?.expect("date")
        }
        _ => x,
    };
    let (func, ty) = match x.ty {
        Some(ScalarType::TimestampTz) => (ZonedFunc::ToLocal, ScalarType::Timestamp),
        Some(ScalarType::Timestamp) => (ZonedFunc::FromLocal, ScalarType::TimestampTz),
        Some(ScalarType::Time) => {
            return Err(PlanError::unsupported(
                "AT TIME ZONE of a time (type time with time zone)",
            ))
        }
        _ => return Err(no_function("timezone", &all)),
    };
    Ok(Typed::new(zoned(func, vec![x.expr], z)?, ty, nullable))
}

/// The functions of this module called by name with arguments, or `None`.
pub fn call(name: &str, args: Vec<Typed>) -> Result<Option<Typed>, PlanError> {
    Ok(Some(match (name, args.len()) {
        ("timezone", 2) => {
            let [zone, x] = <[Typed; 2]>::try_from(args).expect("two");
            timezone(zone, x)?
        }
        ("to_timestamp", 1) => {
            let x = args.into_iter().next().expect("one");
            let all = [x.clone()];
            let nullable = x.nullable;
            let x = match x.ty {
                Some(t) if t.is_string() => return Ok(None),
                _ => coerce(x, &ScalarType::Float64, CastContext::Implicit)?
                    .ok_or_else(|| no_function("to_timestamp", &all))?,
            };
            let e = fold::node(x.expr.call_unary(UnaryFunc::ToTimestamp))?;
            Typed::new(e, ScalarType::TimestampTz, nullable)
        }
        ("date_trunc", 3) => {
            let [u, x, zone] = <[Typed; 3]>::try_from(args.clone()).expect("three");
            let unit = crate::builtin::unit_argument("date_trunc", &u, &args)?;
            let nullable = x.nullable || zone.nullable || u.nullable;
            let x = match x.ty {
                None | Some(ScalarType::TimestampTz | ScalarType::Timestamp | ScalarType::Date) => {
                    coerce(x, &ScalarType::TimestampTz, CastContext::Implicit)?.expect("datetime")
                }
                _ => return Err(no_function("date_trunc", &args)),
            };
            let z = zone_argument(zone, "date_trunc", &args)?;
            let e = match unit {
                UnitArgument::Named(unit) => {
                    let u = DateUnit::for_trunc(&unit, kpg_types::DateKind::TimestampTz)?;
                    zoned(ZonedFunc::Trunc(u), vec![x.expr], z)?
                }
                UnitArgument::Read(u) => zoned(ZonedFunc::TruncBy, vec![u.expr, x.expr], z)?,
            };
            Typed::new(e, ScalarType::TimestampTz, nullable)
        }
        _ => return Ok(None),
    }))
}
