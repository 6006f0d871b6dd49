//! Binding of string_agg(value, delimiter [ORDER BY ...]): the aggregate's argument is the
//! value, the delimiter and the ORDER BY keys of a row packed into one datum, which
//! `kpg_types::agg::KeyOrder` sorts by (see `kpg_types::agg` for the evaluation).

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::func::no_function;
use crate::ops;
use crate::types::{coerce, CastContext, Typed};
use kpg_types::agg::KeyOrder;
use kpg_types::{AggregateFunc, ScalarExpr, ScalarType, VariadicFunc};
use sqlparser::ast::OrderByExpr;

/// string_agg's aggregate and argument: the value and the delimiter as text (the only form
/// besides bytea, which kpg lacks) and the ORDER BY keys, packed into one datum per row
/// (`kpg_types::agg::KeyOrder`). With DISTINCT, rows equal in value and delimiter count once
/// (their packed texts are equal, the keys being among the arguments).
pub(super) fn input(
    inner: &ExprContext<'_>,
    args: Vec<Typed>,
    distinct: bool,
    order_by: &[OrderByExpr],
) -> Result<(AggregateFunc, ScalarExpr), PlanError> {
    let as_text = |a: &Typed| match a.ty {
        None => Ok(coerce(a.clone(), &ScalarType::Text, CastContext::Implicit)?.expect("unknown")),
        Some(t) if t.is_string() => {
            Ok(coerce(a.clone(), &ScalarType::Text, CastContext::Implicit)?.expect("a string"))
        }
        Some(_) => Err(no_function("string_agg", &args)),
    };
    if args.len() != 2 {
        return Err(no_function("string_agg", &args));
    }
    let mut exprs = vec![as_text(&args[0])?.expr, as_text(&args[1])?.expr];
    let mut directions = Vec::with_capacity(order_by.len().max(2));
    for item in order_by {
        let (desc, nulls_last) = crate::select::order_options(item)?;
        let key = inner.bind(&item.expr)?;
        if distinct && !args.iter().any(|a| a.expr == key.expr) {
            return Err(PlanError::new(
                "42P10",
                "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list",
            ));
        }
        let key = match key.ty {
            None => coerce(key, &ScalarType::Text, CastContext::Implicit)?.expect("unknown"),
            Some(_) => key,
        };
        exprs.push(key.expr);
        directions.push((desc, !nulls_last));
    }
    // PostgreSQL removes duplicates by sorting on the arguments, so without an ORDER BY a
    // DISTINCT string_agg meets its values in ascending order.
    if distinct && order_by.is_empty() {
        exprs.extend([exprs[0].clone(), exprs[1].clone()]);
        directions.extend([(false, false), (false, false)]);
    }
    let order = KeyOrder::new(&directions).ok_or_else(|| {
        PlanError::unsupported(format!(
            "more than {} ORDER BY keys in string_agg",
            KeyOrder::MAX_KEYS
        ))
    })?;
    let input = ops::fold_deep(ScalarExpr::Variadic {
        func: VariadicFunc::StringAggInput,
        exprs,
    })?;
    Ok((AggregateFunc::StringAgg(order), input))
}
