//! `ARRAY(subquery)`: the subquery's one column as an array, in the subquery's ORDER BY order,
//! `{}` when it returns no row. It becomes a scalar subquery over the original one:
//! `(SELECT coalesce(array_agg(v ORDER BY k...), '{}') FROM (q') AS s(v, k...))`, where `q'` is
//! `q` with its ORDER BY keys added as columns (so its LIMIT still applies to the same rows),
//! and decorrelation, grouping and maintenance in views are those of any scalar subquery.
//! An ORDER BY over a set operation (UNION ... ORDER BY) is refused with 0A000.

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::types::Typed;
use sqlparser::ast::{Expr, Ident, OrderByKind, Query, SelectItem, SetExpr, Value, ValueWithSpan};
use sqlparser::dialect::PostgreSqlDialect;

/// Binds `ARRAY(q)`.
pub fn bind(cx: &ExprContext<'_>, q: &Query) -> Result<Typed, PlanError> {
    let mut inner = q.clone();
    let mut keys = Vec::new();
    if let Some(order_by) = &q.order_by {
        let OrderByKind::Expressions(items) = &order_by.kind else {
            return Err(PlanError::unsupported("ARRAY(subquery) with ORDER BY ALL"));
        };
        let SetExpr::Select(select) = inner.body.as_mut() else {
            return Err(PlanError::unsupported(
                "ARRAY(subquery) over a set operation with ORDER BY",
            ));
        };
        let (first, alias) = match select.projection.as_slice() {
            [SelectItem::UnnamedExpr(e)] => (e.clone(), None),
            [SelectItem::ExprWithAlias { expr, alias }] => (expr.clone(), Some(alias.clone())),
            _ => {
                return Err(PlanError::new(
                    "42601",
                    "subquery must return only one column",
                ))
            }
        };
        for (i, item) in items.iter().enumerate() {
            // A key naming the output column (by position or alias) is that column's value.
            let key = match &item.expr {
                Expr::Value(ValueWithSpan {
                    value: Value::Number(n, _),
                    ..
                }) if n == "1" => first.clone(),
                Expr::Identifier(id)
                    if alias
                        .as_ref()
                        .is_some_and(|a| crate::names::fold(a) == crate::names::fold(id)) =>
                {
                    first.clone()
                }
                e => e.clone(),
            };
            select.projection.push(SelectItem::ExprWithAlias {
                expr: key,
                alias: Ident::with_quote('"', format!("?k{i}")),
            });
            let mut outer = item.clone();
            outer.expr = Expr::Identifier(Ident::with_quote('"', format!("?k{i}")));
            keys.push(outer.to_string());
        }
    }
    let mut columns = vec!["\"?v\"".to_string()];
    columns.extend((0..keys.len()).map(|i| format!("\"?k{i}\"")));
    let order = if keys.is_empty() {
        String::new()
    } else {
        format!(" ORDER BY {}", keys.join(", "))
    };
    let text = format!(
        "(SELECT coalesce(array_agg(\"?v\"{order}), '{{}}') FROM ({inner}) AS \"?array\" ({}))",
        columns.join(", ")
    );
    let e = sqlparser::parser::Parser::new(&PostgreSqlDialect {})
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| PlanError::new("XX000", format!("{text} does not parse: {e}")))?;
    cx.bind(&e)
}
