//! Binding of make_date, justify_days, justify_hours, justify_interval and age, typed as
//! PostgreSQL 15 resolves them.
//!
//! age exists there for `timestamp` and for `timestamp with time zone`. kpg has only the
//! first, so a call PostgreSQL resolves to the second is refused with 0A000: two dates or
//! unknown literals (timestamptz is the preferred type of their category), as is age of one
//! argument, which measures from the current date. A call with a `timestamp` argument takes
//! `age(timestamp, timestamp)`, the other argument converted.

use super::strict;
use crate::builtin::implicit;
use crate::error::PlanError;
use crate::func::no_function;
use crate::types::Typed;
use kpg_types::{ScalarType, VariadicFunc};

/// Binds a call of one of this module's functions, or `None` if the name and argument count
/// are not one of them.
pub fn call(name: &str, args: Vec<Typed>) -> Result<Option<Typed>, PlanError> {
    let all = |ty: ScalarType| -> Result<Vec<Typed>, PlanError> {
        args.iter()
            .map(|a| implicit(a.clone(), &ty, name, &args))
            .collect()
    };
    Ok(Some(match (name, args.len()) {
        ("make_date", 3) => strict(
            VariadicFunc::MakeDate,
            all(ScalarType::Int32)?,
            ScalarType::Date,
        )?,
        ("justify_days" | "justify_hours" | "justify_interval", 1) => {
            let func = match name {
                "justify_days" => VariadicFunc::JustifyDays,
                "justify_hours" => VariadicFunc::JustifyHours,
                _ => VariadicFunc::JustifyInterval,
            };
            strict(func, all(ScalarType::Interval)?, ScalarType::Interval)?
        }
        ("age", 1 | 2) => {
            let datelike = |a: &Typed| {
                matches!(
                    a.ty,
                    None | Some(
                        ScalarType::Date | ScalarType::Timestamp | ScalarType::TimestampOf(_)
                    )
                )
            };
            let tstz = |a: &Typed| {
                matches!(
                    a.ty,
                    Some(ScalarType::TimestampTz | ScalarType::TimestampTzOf(_))
                )
            };
            if !args.iter().all(|a| datelike(a) || tstz(a)) {
                return Err(no_function(name, &args));
            }
            if args.len() == 1 {
                return Err(PlanError::unsupported(
                    "age of one argument (it measures from the current date)",
                ));
            }
            // PostgreSQL's resolution: age(timestamp, timestamp) when a timestamp argument
            // matches it exactly and nothing needs timestamptz; otherwise the timestamptz
            // form (timestamptz is the preferred type of dates and unknown literals).
            let timestamp = |a: &Typed| {
                matches!(
                    a.ty,
                    Some(ScalarType::Timestamp | ScalarType::TimestampOf(_))
                )
            };
            if !args.iter().any(timestamp) || args.iter().any(tstz) {
                let tz = |a: &Typed| implicit(a.clone(), &ScalarType::TimestampTz, name, &args);
                let nullable = args.iter().any(|a| a.nullable);
                let expr = crate::fold::node(kpg_types::ScalarExpr::Variadic {
                    func: VariadicFunc::Zoned(kpg_types::ZonedFunc::Age),
                    exprs: vec![
                        tz(&args[0])?.expr,
                        tz(&args[1])?.expr,
                        crate::session_zone::zone_literal(),
                    ],
                })?;
                return Ok(Some(Typed::new(expr, ScalarType::Interval, nullable)));
            }
            strict(
                VariadicFunc::Age,
                all(ScalarType::Timestamp)?,
                ScalarType::Interval,
            )?
        }
        _ => return Ok(None),
    }))
}
