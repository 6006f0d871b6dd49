//! Constant folding: evaluating, at plan time, expressions that read no column, and plans that
//! read no collection.
//!
//! PostgreSQL folds constants while planning, so `SELECT 1/0` fails when planned (22012) even
//! if no row would reach the expression; kpg does the same by folding each expression node as
//! the binder builds it (children first). A conditional with a constant condition keeps only
//! the branch taken, so `CASE WHEN true THEN 1 ELSE x END` is `1`. Plans made only of
//! `Constant`, `Map`, `Filter` and `Project` (VALUES, SELECT without FROM, INSERT ... VALUES)
//! are evaluated into a single `Constant`.

use crate::error::PlanError;
use kpg_types::{Datum, Plan, Row, ScalarExpr};

/// Folds one node whose children are already folded.
pub fn node(e: ScalarExpr) -> Result<ScalarExpr, PlanError> {
    let all_literal = match &e {
        ScalarExpr::Column(_) | ScalarExpr::Literal(_) | ScalarExpr::Subquery(_) => return Ok(e),
        ScalarExpr::Unary { expr, .. } => is_literal(expr),
        ScalarExpr::Binary { left, right, .. } => is_literal(left) && is_literal(right),
        ScalarExpr::Variadic { exprs, .. } => exprs.iter().all(is_literal),
        ScalarExpr::If { cond, then, els } => {
            if let ScalarExpr::Literal(c) = cond.as_ref() {
                let taken = if *c == Datum::Bool(true) { then } else { els };
                return Ok(taken.as_ref().clone());
            }
            if is_literal(then) && then == els {
                return Ok(then.as_ref().clone());
            }
            false
        }
    };
    if all_literal {
        Ok(ScalarExpr::Literal(e.eval(&[])?))
    } else {
        Ok(e)
    }
}

fn is_literal(e: &ScalarExpr) -> bool {
    matches!(e, ScalarExpr::Literal(_))
}

/// Evaluates a plan that reads no collection into its rows, or returns it unchanged.
pub fn plan(p: Plan) -> Result<Plan, PlanError> {
    match constant_rows(&p)? {
        Some(rows) => Ok(Plan::Constant { rows }),
        None => Ok(p),
    }
}

fn constant_rows(p: &Plan) -> Result<Option<Vec<(Row, i64)>>, PlanError> {
    Ok(Some(match p {
        Plan::Constant { rows } => rows.clone(),
        Plan::Map { input, exprs } => {
            let Some(rows) = constant_rows(input)? else {
                return Ok(None);
            };
            let mut out = Vec::with_capacity(rows.len());
            for (row, diff) in rows {
                let mut datums = row.into_datums();
                for e in exprs {
                    let d = e.eval(&datums)?;
                    datums.push(d);
                }
                out.push((Row::new(datums), diff));
            }
            out
        }
        Plan::Filter { input, predicates } => {
            let Some(rows) = constant_rows(input)? else {
                return Ok(None);
            };
            let mut out = Vec::with_capacity(rows.len());
            'rows: for (row, diff) in rows {
                for p in predicates {
                    if !p.eval_predicate(row.datums())? {
                        continue 'rows;
                    }
                }
                out.push((row, diff));
            }
            out
        }
        Plan::Project { input, outputs } => {
            let Some(rows) = constant_rows(input)? else {
                return Ok(None);
            };
            rows.into_iter()
                .map(|(row, diff)| (row.project(outputs), diff))
                .collect()
        }
        _ => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::BinaryFunc;

    #[test]
    fn folds_literals_and_reports_errors() {
        let e = ScalarExpr::Literal(Datum::Int32(1))
            .call_binary(BinaryFunc::Add, ScalarExpr::Literal(Datum::Int32(2)));
        assert_eq!(node(e).unwrap(), ScalarExpr::Literal(Datum::Int32(3)));
        let e = ScalarExpr::Literal(Datum::Int32(1))
            .call_binary(BinaryFunc::Div, ScalarExpr::Literal(Datum::Int32(0)));
        assert_eq!(node(e).unwrap_err().code, "22012");
        let e = ScalarExpr::Column(0)
            .call_binary(BinaryFunc::Add, ScalarExpr::Literal(Datum::Int32(2)));
        assert_eq!(node(e.clone()).unwrap(), e);
    }

    #[test]
    fn evaluates_constant_plans() {
        let p = Plan::Filter {
            input: Box::new(Plan::Map {
                input: Box::new(Plan::Constant {
                    rows: vec![
                        (Row::new(vec![Datum::Int32(1)]), 1),
                        (Row::new(vec![Datum::Int32(5)]), 1),
                    ],
                }),
                exprs: vec![ScalarExpr::Column(0)
                    .call_binary(BinaryFunc::Mul, ScalarExpr::Literal(Datum::Int32(2)))],
            }),
            predicates: vec![ScalarExpr::Column(1)
                .call_binary(BinaryFunc::Gt, ScalarExpr::Literal(Datum::Int32(3)))],
        };
        let Plan::Constant { rows } = plan(p).unwrap() else {
            panic!("not folded")
        };
        assert_eq!(
            rows,
            vec![(Row::new(vec![Datum::Int32(5), Datum::Int32(10)]), 1)]
        );
    }
}
