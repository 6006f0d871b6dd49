//! Binding of array_agg(value [ORDER BY ...]): the aggregate's argument is the value and the
//! ORDER BY keys of a row packed into one array datum that is never NULL, so NULL values are
//! kept as elements (see `kpg_types::agg` for the evaluation). array_agg of an array would
//! build a two-dimensional array and is refused (0A000).

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::func::no_function;
use crate::ops;
use crate::types::{coerce, CastContext, Typed};
use kpg_types::agg::KeyOrder;
use kpg_types::{AggregateFunc, ScalarExpr, ScalarType, VariadicFunc};
use sqlparser::ast::OrderByExpr;

/// array_agg's aggregate, argument and result type.
pub(super) fn input(
    inner: &ExprContext<'_>,
    args: Vec<Typed>,
    distinct: bool,
    order_by: &[OrderByExpr],
) -> Result<(AggregateFunc, ScalarExpr, ScalarType), PlanError> {
    let [value] =
        <[Typed; 1]>::try_from(args.clone()).map_err(|_| no_function("array_agg", &args))?;
    let value = match value.ty {
        None => coerce(value, &ScalarType::Text, CastContext::Implicit)?.expect("unknown"),
        Some(ScalarType::Array(_)) => {
            return Err(PlanError::unsupported(
                "array_agg of arrays (multidimensional arrays)",
            ))
        }
        Some(_) => value,
    };
    let elem = value.ty.expect("typed").value_type();
    let mut exprs = vec![value.expr.clone()];
    let mut directions = Vec::with_capacity(order_by.len().max(1));
    for item in order_by {
        let (desc, nulls_last) = crate::select::order_options(item)?;
        let key = inner.bind(&item.expr)?;
        if distinct && key.expr != value.expr {
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
    // DISTINCT sorts by the value (PostgreSQL removes duplicates by sorting), NULL last.
    if distinct && order_by.is_empty() {
        exprs.push(value.expr);
        directions.push((false, false));
    }
    let order = KeyOrder::new(&directions).ok_or_else(|| {
        PlanError::unsupported(format!(
            "more than {} ORDER BY keys in array_agg",
            KeyOrder::MAX_KEYS
        ))
    })?;
    let input = ops::fold_deep(ScalarExpr::Variadic {
        func: VariadicFunc::ArrayAggInput,
        exprs,
    })?;
    Ok((
        AggregateFunc::ArrayAgg(order),
        input,
        ScalarType::array_of(elem),
    ))
}
