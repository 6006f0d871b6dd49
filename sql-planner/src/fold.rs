//! Constant folding: evaluating, at plan time, expressions that read no column, and plans that
//! read no collection.
//!
//! PostgreSQL folds constants while planning, so `SELECT 1/0 FROM t` fails when planned (22012)
//! even if no row would reach the expression, but its simplifier never reaches what a constant
//! makes unreachable: `coalesce(1, 1/0)` is 1, `CASE WHEN true THEN 1 ELSE 1/0 END` is 1,
//! `false AND 1/0 = 1` is false. kpg folds each expression node as the binder builds it
//! (children first); a node that fails to evaluate is left unfolded, and a conditional with a
//! constant condition keeps only the branch taken (likewise COALESCE after a non-NULL constant,
//! AND after FALSE, OR after TRUE). Once the plan is whole, `check` raises the error of every
//! unfolded constant left where PostgreSQL's simplifier would have evaluated it. Plans made
//! only of `Constant`, `Map`, `Filter` and `Project` (VALUES, SELECT without FROM, INSERT ...
//! VALUES) are evaluated into a single `Constant`.

use crate::error::PlanError;
use kpg_types::{BinaryFunc, Datum, Plan, Row, ScalarExpr, UnaryFunc, VariadicFunc};

/// Folds one node whose children are already folded. A constant that fails to evaluate is
/// left as it is, for `check` or the rows to raise.
pub fn node(e: ScalarExpr) -> Result<ScalarExpr, PlanError> {
    let all_literal = match &e {
        ScalarExpr::Column(_)
        | ScalarExpr::Literal(_)
        | ScalarExpr::Subquery(_)
        | ScalarExpr::Param(_) => return Ok(e),
        ScalarExpr::Unary { expr, .. } => is_literal(expr),
        ScalarExpr::Binary {
            func: func @ (BinaryFunc::And | BinaryFunc::Or),
            left,
            right,
        } => {
            let decisive = Datum::Bool(*func == BinaryFunc::Or);
            if left.as_ref() == &ScalarExpr::Literal(decisive.clone()) {
                return Ok(ScalarExpr::Literal(decisive));
            }
            is_literal(left) && is_literal(right)
        }
        ScalarExpr::Binary { left, right, .. } => is_literal(left) && is_literal(right),
        ScalarExpr::Variadic {
            func: VariadicFunc::Coalesce,
            exprs,
        } => {
            let first = exprs
                .iter()
                .find(|a| a != &&ScalarExpr::Literal(Datum::Null));
            if let Some(ScalarExpr::Literal(d)) = first {
                return Ok(ScalarExpr::Literal(d.clone()));
            }
            exprs.iter().all(is_literal)
        }
        ScalarExpr::Variadic { func, .. } if func.is_volatile() => return Ok(e),
        ScalarExpr::Variadic { func, exprs } if crate::zoned_casts::stays_zoned(func, exprs) => {
            return Ok(e)
        }
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
    Ok(match all_literal.then(|| e.eval(&[])) {
        Some(Ok(d)) => ScalarExpr::Literal(d),
        _ => e,
    })
}

/// Raises the error of a constant left unfolded because it fails (`node`), unless it sits
/// where a constant makes it unreachable: after the non-NULL constant of a COALESCE, after a
/// FALSE operand of AND or a TRUE one of OR (a CASE branch a constant rules out is already
/// gone). This is the order PostgreSQL's simplifier evaluates in.
pub fn check(e: &ScalarExpr) -> Result<(), PlanError> {
    match e {
        ScalarExpr::Column(_)
        | ScalarExpr::Literal(_)
        | ScalarExpr::Subquery(_)
        | ScalarExpr::Param(_) => Ok(()),
        ScalarExpr::Variadic {
            func: VariadicFunc::Coalesce,
            exprs,
        } => {
            for a in exprs {
                check(a)?;
                if matches!(a, ScalarExpr::Literal(d) if !d.is_null()) {
                    break;
                }
            }
            Ok(())
        }
        ScalarExpr::Binary {
            func: func @ (BinaryFunc::And | BinaryFunc::Or),
            left,
            right,
        } => {
            check(left)?;
            if left.as_ref() == &ScalarExpr::Literal(Datum::Bool(*func == BinaryFunc::Or)) {
                return Ok(());
            }
            check(right)
        }
        ScalarExpr::If { cond, then, els } => {
            check(cond)?;
            check(then)?;
            check(els)
        }
        // The planner's guard for a scalar subquery with several rows: an error by design,
        // raised by the rows that reach it.
        ScalarExpr::Unary {
            func: UnaryFunc::MultipleRowsError,
            ..
        } => Ok(()),
        ScalarExpr::Unary { expr, .. } => {
            check(expr)?;
            raise(e, [expr.as_ref()])
        }
        ScalarExpr::Binary { left, right, .. } => {
            check(left)?;
            check(right)?;
            raise(e, [left.as_ref(), right.as_ref()])
        }
        ScalarExpr::Variadic { exprs, .. } => {
            exprs.iter().try_for_each(check)?;
            raise(e, exprs.iter())
        }
    }
}

/// The error of `e` when its operands are all constants (it was left unfolded because it
/// fails).
fn raise<'a>(
    e: &ScalarExpr,
    operands: impl IntoIterator<Item = &'a ScalarExpr>,
) -> Result<(), PlanError> {
    if !e.is_volatile() && operands.into_iter().all(is_literal) {
        e.eval(&[])?;
    }
    Ok(())
}

/// `check` of every expression of a plan.
pub fn check_plan(p: &Plan) -> Result<(), PlanError> {
    let mut result = Ok(());
    p.visit(&mut |node| {
        if result.is_ok() {
            result = node.own_exprs().into_iter().try_for_each(check);
        }
    });
    result
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
        // Volatile expressions (random(), the statement's time) are evaluated when it runs,
        // and so is what reads the session's zone (a view's reader's, `zoned_casts.rs`) or a
        // parameter (once bound, `plan_params.rs`).
        Plan::Map { exprs, .. }
        | Plan::Filter {
            predicates: exprs, ..
        } if exprs.iter().any(|e| {
            e.is_volatile()
                || crate::zoned_casts::has_late_zone(e)
                || crate::plan_params::has_param(e)
        }) =>
        {
            return Ok(None)
        }
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
                let datums = row.datums();
                for p in predicates {
                    if !p.eval_predicate(&datums)? {
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
        let lit = |i| ScalarExpr::Literal(Datum::Int32(i));
        let fails = lit(1).call_binary(BinaryFunc::Div, lit(0));
        // Left unfolded for `check`, which raises it.
        assert_eq!(node(fails.clone()).unwrap(), fails);
        assert_eq!(check(&fails).unwrap_err().code, "22012");
        let e = ScalarExpr::Column(0).call_binary(BinaryFunc::Add, lit(2));
        assert_eq!(node(e.clone()).unwrap(), e);
        // Unreachable after a constant: not raised, as PostgreSQL's simplifier never gets there.
        let coalesce = |exprs| ScalarExpr::Variadic {
            func: kpg_types::VariadicFunc::Coalesce,
            exprs,
        };
        let c = node(coalesce(vec![lit(1), fails.clone()])).unwrap();
        assert_eq!(c, lit(1));
        let c = node(coalesce(vec![ScalarExpr::Column(0), lit(1), fails.clone()])).unwrap();
        assert!(check(&c).is_ok());
        let c = coalesce(vec![ScalarExpr::Column(0), fails.clone(), lit(1)]);
        assert_eq!(check(&c).unwrap_err().code, "22012");
        let cmp = fails.clone().call_binary(BinaryFunc::Eq, lit(1));
        let f = ScalarExpr::Literal(Datum::Bool(false));
        let and = node(f.clone().call_binary(BinaryFunc::And, cmp.clone())).unwrap();
        assert_eq!(and, f);
        let and = cmp.call_binary(BinaryFunc::And, f);
        assert_eq!(check(&and).unwrap_err().code, "22012");
        // A scalar subquery's guard (psql's \d found it raising at plan time).
        let guard = ScalarExpr::If {
            cond: Box::new(ScalarExpr::Column(0)),
            then: Box::new(
                ScalarExpr::Literal(Datum::Null).call_unary(UnaryFunc::MultipleRowsError),
            ),
            els: Box::new(ScalarExpr::Column(1)),
        };
        assert!(check(&guard).is_ok());
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
