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
//! of that relation). Not `char`/`bpchar`, whose comparison ignores trailing blanks that the
//! values keep. Not when any other conjunct of the WHERE or an ON condition reads a subquery:
//! its values are computed for the rows of the FROM, and a semi-join applied first would
//! compute them for fewer rows and could skip an error PostgreSQL raises (it evaluates them
//! while scanning). Not a subquery reading a recursive query's own name (PostgreSQL refuses
//! that, as the general plan does). A FROM that is one table read with its row positions (an
//! ad hoc scan returning rows in written order) keeps the general plan, so its rows keep that
//! order. The rewritten conjuncts become TRUE in the WHERE left to bind, so the rest binds
//! (and fails) exactly as written.

use super::*;
use crate::query::plan_subquery_with_unknowns;
use sqlparser::ast::BinaryOperator;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Tokenizer};

/// A semi-join found for an IN conjunct: the relation it filters, the key over that
/// relation's columns, and the subquery's plan.
struct SemiJoin {
    rel: usize,
    key: ScalarExpr,
    values: Plan,
}

impl FromBuilder<'_> {
    /// Applies the conjuncts of `selection` that can be semi-joins, when all its `IN
    /// (subquery)` conjuncts can and nothing else in the WHERE or ON reads a subquery; returns
    /// the WHERE left to bind (`selection` itself when none applies).
    pub(super) fn semi_joins(&mut self, selection: &Expr) -> Option<Expr> {
        if self.cx.raw || !self.deferred_on.is_empty() {
            return Some(selection.clone());
        }
        // Most WHEREs have no IN conjunct: they are left alone without looking further.
        let conjuncts = and_operands(selection);
        let is_in = |c: &&Expr| matches!(c, Expr::InSubquery { negated: false, .. });
        if !conjuncts.iter().any(is_in)
            || conjuncts.iter().any(|c| !is_in(c) && mentions_subquery(c))
        {
            return Some(selection.clone());
        }
        let mut found = Vec::new();
        for conjunct in conjuncts.iter().copied().filter(|c| is_in(c)) {
            match self.semi_join(conjunct) {
                Some(semi) => found.push(semi),
                None => return Some(selection.clone()),
            }
        }
        for SemiJoin { rel, key, values } in found {
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
        }
        // Every IN conjunct was rewritten (one that was not reads a subquery: none applied).
        let mut rest = selection.clone();
        for conjunct in and_operands_mut(&mut rest) {
            if matches!(conjunct, Expr::InSubquery { negated: false, .. }) {
                *conjunct = Expr::Value(sqlparser::ast::Value::Boolean(true).into());
            }
        }
        Some(rest)
    }

    /// The semi-join `conjunct` can be, if it is such an `x IN (subquery)` (see the module's
    /// conditions).
    fn semi_join(&self, conjunct: &Expr) -> Option<SemiJoin> {
        let Expr::InSubquery {
            expr,
            subquery,
            negated: false,
        } = conjunct
        else {
            return None;
        };
        let x = ExprContext::new(&self.scope, "WHERE")
            .with_catalog(self.cx.catalog)
            .bind(expr)
            .ok()?;
        let ty = x.ty?;
        if ty.equal_values_differ_in_text()
            || matches!(ty, ScalarType::Char { .. })
            || !x.expr.cannot_fail()
        {
            return None;
        }
        let (rel, start) = self.only_relation(&x.expr.support())?;
        if self.domain && rel == 0 {
            return None;
        }
        let standalone = QueryContext {
            catalog: self.cx.catalog,
            outer: None,
            ctes: self.cx.ctes.clone(),
            raw: false,
        };
        let (values, scope, unknowns) = plan_subquery_with_unknowns(&standalone, subquery).ok()?;
        if scope.len() != 1 || unknowns.first() != Some(&false) || scope.items[0].ty.scalar != ty {
            return None;
        }
        let mut recursive = false;
        values.visit(&mut |p| recursive |= matches!(p, Plan::RecursiveGet { .. }));
        if recursive {
            return None;
        }
        let mut key = x.expr;
        key.map_columns(&|c| c - start);
        Some(SemiJoin { rel, key, values })
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

/// `and_operands`, mutably.
fn and_operands_mut(e: &mut Expr) -> Vec<&mut Expr> {
    let and = |e: &Expr| {
        matches!(
            e,
            Expr::BinaryOp {
                op: BinaryOperator::And,
                ..
            }
        )
    };
    let nested_and = matches!(e, Expr::Nested(inner) if and(inner));
    match (and(e), nested_and, e) {
        (true, _, Expr::BinaryOp { left, right, .. }) => {
            let mut out = and_operands_mut(left);
            out.extend(and_operands_mut(right));
            out
        }
        (_, true, Expr::Nested(inner)) => and_operands_mut(inner),
        (_, _, other) => vec![other],
    }
}

/// Whether `e`'s text has a query in it (a `SELECT`, `VALUES`, `TABLE` or `WITH` keyword
/// outside quotes): conservative, as text that cannot be tokenized counts too.
fn mentions_subquery(e: &Expr) -> bool {
    let text = e.to_string();
    match Tokenizer::new(&PostgreSqlDialect {}, &text).tokenize() {
        Ok(tokens) => tokens.iter().any(|t| {
            matches!(t, Token::Word(w) if w.quote_style.is_none()
                && matches!(w.keyword, Keyword::SELECT | Keyword::VALUES | Keyword::TABLE | Keyword::WITH))
        }),
        Err(_) => true,
    }
}
