//! Row constructors in comparisons: `(a, b) = (c, d)`, `ROW(a, b) < ROW(c, d)`,
//! `(a, b) IN ((1, 2), (3, 4))` (see `ExprContext::in_list`) and `(a, b) [NOT] IN (SELECT x, y ...)`.
//!
//! kpg has no row type: a row constructor is only accepted where PostgreSQL compares it with
//! another row, and the comparison is expanded into comparisons of the fields, with
//! PostgreSQL's three-valued results. Equality is the AND of the fields' equalities, `<>` the
//! OR of their differences; an ordering compares the first pair that is not equal (NULL when
//! that pair has a NULL). A row IN a subquery becomes two EXISTS tests over the subquery (is
//! some row equal? is some row possibly equal, with NULLs?), written as SQL text and bound
//! like any other expression, so the subquery is decorrelated as usual.

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::func::function_name;
use crate::ops;
use crate::types::Typed;
use kpg_types::BinaryFunc;
use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Query,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;

/// The fields of a row constructor, `(a, b, ...)` or `ROW(...)`, or `None` for another
/// expression.
pub fn fields(e: &Expr) -> Option<Vec<&Expr>> {
    match e {
        Expr::Tuple(items) => Some(items.iter().collect()),
        Expr::Nested(inner) => fields(inner),
        Expr::Function(f) if function_name(f).is_ok_and(|n| n == "row") => match &f.args {
            FunctionArguments::List(l) if l.clauses.is_empty() && f.filter.is_none() => l
                .args
                .iter()
                .map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect(),
            FunctionArguments::None => Some(Vec::new()),
            _ => None,
        },
        _ => None,
    }
}

/// `left op right` where at least one side is a row constructor.
pub fn compare(
    cx: &ExprContext<'_>,
    left: &Expr,
    op: &BinaryOperator,
    right: &Expr,
) -> Result<Typed, PlanError> {
    let (Some(l), Some(r)) = (fields(left), fields(right)) else {
        if matches!(right, Expr::Subquery(_)) || matches!(left, Expr::Subquery(_)) {
            return Err(PlanError::unsupported(
                "comparison of a row constructor with a subquery",
            ));
        }
        // A row and a value of another type: no such operator, as PostgreSQL says.
        let name = |e: &Expr| match fields(e) {
            Some(_) => Ok("record".to_string()),
            None => cx.bind(e).map(|t| t.type_name()),
        };
        return Err(PlanError::undefined_function(format!(
            "operator does not exist: {} {op} {}",
            name(left)?,
            name(right)?
        )));
    };
    if l.len() != r.len() {
        return Err(PlanError::syntax(
            "unequal number of entries in row expressions",
        ));
    }
    let l = l
        .into_iter()
        .map(|e| cx.bind(e))
        .collect::<Result<Vec<_>, _>>()?;
    let r = r
        .into_iter()
        .map(|e| cx.bind(e))
        .collect::<Result<Vec<_>, _>>()?;
    compare_fields(op, l, r)
}

/// The comparison of rows given as bound fields (of equal number).
fn compare_fields(op: &BinaryOperator, l: Vec<Typed>, r: Vec<Typed>) -> Result<Typed, PlanError> {
    let pairs = l.into_iter().zip(r);
    let fold = |func: BinaryFunc, join: BinaryFunc| -> Result<Typed, PlanError> {
        let mut acc: Option<Typed> = None;
        for (a, b) in pairs.clone() {
            let c = ops::comparison(func, a, b)?;
            acc = Some(match acc {
                None => c,
                Some(acc) => ops::and_or(join, acc, c)?,
            });
        }
        acc.ok_or_else(|| PlanError::unsupported("comparison of empty rows"))
    };
    let (strict, last) = match op {
        BinaryOperator::Eq => return fold(BinaryFunc::Eq, BinaryFunc::And),
        BinaryOperator::NotEq => return fold(BinaryFunc::NotEq, BinaryFunc::Or),
        BinaryOperator::Lt => (BinaryFunc::Lt, BinaryFunc::Lt),
        BinaryOperator::LtEq => (BinaryFunc::Lt, BinaryFunc::Lte),
        BinaryOperator::Gt => (BinaryFunc::Gt, BinaryFunc::Gt),
        BinaryOperator::GtEq => (BinaryFunc::Gt, BinaryFunc::Gte),
        other => {
            return Err(PlanError::unsupported(format!(
                "operator {other} on row constructors"
            )))
        }
    };
    // a1 < b1 OR (a1 = b1 AND (a2 < b2 OR ...)), built from the last pair outwards.
    let pairs: Vec<(Typed, Typed)> = pairs.collect();
    let n = pairs.len();
    let mut acc: Option<Typed> = None;
    for (i, (a, b)) in pairs.into_iter().enumerate().rev() {
        acc = Some(match acc {
            None => ops::comparison(if i + 1 == n { last } else { strict }, a, b)?,
            Some(rest) => {
                let before = ops::comparison(strict, a.clone(), b.clone())?;
                let tie = ops::comparison(BinaryFunc::Eq, a, b)?;
                ops::and_or(
                    BinaryFunc::Or,
                    before,
                    ops::and_or(BinaryFunc::And, tie, rest)?,
                )?
            }
        });
    }
    acc.ok_or_else(|| PlanError::unsupported("comparison of empty rows"))
}

/// `row [NOT] IN (SELECT ...)`: TRUE when some row of the subquery equals it, else NULL when
/// some row may (a NULL field decides), else FALSE; NOT IN negates that.
pub fn in_subquery(
    cx: &ExprContext<'_>,
    row: &Expr,
    q: &Query,
    negated: bool,
) -> Result<Typed, PlanError> {
    let fields = fields(row).expect("a row constructor");
    // The subquery's columns are renamed so that the row's own names resolve outside it.
    let names: Vec<String> = (1..=fields.len())
        .map(|i| format!("\"?row_in_{i}\""))
        .collect();
    let eq = fields
        .iter()
        .zip(&names)
        .map(|(f, n)| format!("{n} = ({f})"))
        .collect::<Vec<_>>()
        .join(" AND ");
    let from = format!("({q}) AS \"?row_in\" ({})", names.join(", "));
    let sql = format!(
        "CASE WHEN EXISTS (SELECT 1 FROM {from} WHERE {eq}) THEN true \
         WHEN EXISTS (SELECT 1 FROM {from} WHERE ({eq}) IS NOT FALSE) THEN NULL::boolean \
         ELSE false END"
    );
    let width = crate::subquery::output_width(cx, q)?;
    if width != fields.len() {
        return Err(PlanError::syntax(if width > fields.len() {
            "subquery has too many columns"
        } else {
            "subquery has too few columns"
        }));
    }
    let e = Parser::new(&PostgreSqlDialect {})
        .try_with_sql(&sql)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| PlanError::new("XX000", format!("row IN rewrite does not parse: {e}")))?;
    let t = cx.bind(&e)?;
    if negated {
        ops::not(t)
    } else {
        Ok(t)
    }
}
