//! `x IN (subquery)` as a conjunct of WHERE, planned as a semi-join: the one FROM relation `x`
//! reads is joined with the subquery's distinct values on `x` before it meets the other
//! relations, instead of by decorrelation (`subquery.rs`), which computes the whole FROM's join
//! first, takes the distinct values of `x` from it, marks each and joins the marks back.
//!
//! In WHERE a NULL condition drops the row as FALSE does, so `x IN (subquery)` keeps exactly
//! the rows whose `x` equals a value of the subquery: NULL `x` and NULL values never match, as
//! join keys never do. That holds for a conjunct of the WHERE, not under NOT, OR or CASE.
//! The rewrite is taken only where it is plainly the same query, and the general plan
//! otherwise: the subquery reads no enclosing column (it plans on its own); it has one column
//! of exactly `x`'s type, a type whose equal values are one value (so its distinct values are
//! distinct keys and a row meets at most one); `x` reads one relation of the FROM (not a
//! correlated subquery's domain of outer values) and cannot fail (it is evaluated on every row
//! of that relation). A FROM that is one table read with its row positions (an ad hoc scan
//! returning rows in written order) keeps the general plan, so its rows keep that order.

use super::*;
use crate::query::plan_subquery_with_unknowns;
use sqlparser::ast::BinaryOperator;

impl FromBuilder<'_> {
    /// Applies every conjunct of `selection` that can be a semi-join to the relation it reads;
    /// returns the WHERE left to bind (`selection` itself when none applies, so that it binds
    /// exactly as written).
    pub(super) fn semi_joins(&mut self, selection: &Expr) -> Option<Expr> {
        if self.cx.raw {
            return Some(selection.clone());
        }
        let mut rest = Vec::new();
        let mut applied = false;
        for conjunct in and_operands(selection) {
            if self.semi_join(conjunct) {
                applied = true;
            } else {
                rest.push(conjunct.clone());
            }
        }
        if !applied {
            return Some(selection.clone());
        }
        rest.into_iter().reduce(|left, right| Expr::BinaryOp {
            left: Box::new(left),
            op: BinaryOperator::And,
            right: Box::new(right),
        })
    }

    /// Joins the relation `x` reads with the values of `subquery` if the conjunct is such an
    /// `x IN (subquery)` (see the module's conditions); whether it did.
    fn semi_join(&mut self, conjunct: &Expr) -> bool {
        let Expr::InSubquery {
            expr,
            subquery,
            negated: false,
        } = conjunct
        else {
            return false;
        };
        let Ok(x) = ExprContext::new(&self.scope, "WHERE")
            .with_catalog(self.cx.catalog)
            .bind(expr)
        else {
            return false;
        };
        let Some(ty) = x.ty else {
            return false;
        };
        if ty.equal_values_differ_in_text() || !x.expr.cannot_fail() {
            return false;
        }
        let Some((rel, start)) = self.only_relation(&x.expr.support()) else {
            return false;
        };
        if self.domain && rel == 0 {
            return false;
        }
        let standalone = QueryContext {
            catalog: self.cx.catalog,
            outer: None,
            ctes: self.cx.ctes.clone(),
            raw: false,
        };
        let Ok((values, scope, unknowns)) = plan_subquery_with_unknowns(&standalone, subquery)
        else {
            return false;
        };
        if scope.len() != 1 || unknowns.first() != Some(&false) || scope.items[0].ty.scalar != ty {
            return false;
        }
        let mut key = x.expr;
        key.map_columns(&|c| c - start);
        let (plan, arity) = self.rels[rel].clone();
        let values = Plan::Distinct {
            input: Box::new(Plan::Project {
                input: Box::new(values),
                outputs: vec![0],
            }),
        };
        self.rels[rel].0 = Plan::Project {
            input: Box::new(Plan::Join {
                left: Box::new(plan),
                right: Box::new(values),
                left_key: vec![key],
                right_key: vec![ScalarExpr::Column(0)],
            }),
            outputs: (0..arity).collect(),
        };
        true
    }

    /// The one relation whose columns hold all of `columns` (none for an empty list), with the
    /// position of its first column.
    fn only_relation(&self, columns: &[usize]) -> Option<(usize, usize)> {
        let mut start = 0;
        for (i, (_, arity)) in self.rels.iter().enumerate() {
            let range = start..start + arity;
            if !columns.is_empty() && columns.iter().all(|c| range.contains(c)) {
                return Some((i, start));
            }
            start += arity;
        }
        None
    }
}

/// The operands of a chain of ANDs (parenthesized or not), left to right.
fn and_operands(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut out = and_operands(left);
            out.extend(and_operands(right));
            out
        }
        Expr::Nested(inner)
            if matches!(
                **inner,
                Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            and_operands(inner)
        }
        other => vec![other],
    }
}
