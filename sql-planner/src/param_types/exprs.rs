//! The expression rules of parameter type inference (see `param_types.rs`): the type of an
//! operand, and the type a parameter takes from the operands around it.

use super::{placeholder, Infer};
use crate::names::fold;
use crate::types::{numeric_promotion, scalar_type};
use kpg_types::ScalarType;
use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Query, UnaryOperator,
    Value,
};

/// The type an unknown operand of an operator resolves to: the other operand's, with string
/// types as text.
fn operand_type(t: ScalarType) -> ScalarType {
    match t {
        ScalarType::VarChar { .. } => ScalarType::Text,
        other => other,
    }
}

fn is_comparison(op: &BinaryOperator) -> bool {
    use BinaryOperator::*;
    matches!(op, Eq | NotEq | Lt | LtEq | Gt | GtEq | And | Or)
}

impl Infer<'_> {
    /// The type of an operand, if it can be told without the parameters still unknown.
    pub(super) fn type_of(&self, e: &Expr) -> Option<ScalarType> {
        if let Some(i) = placeholder(e) {
            return self.types.get(i).copied().flatten();
        }
        match e {
            Expr::Identifier(id) => self.column(None, &fold(id)),
            Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [.., rel, col] => self.column(Some(&fold(rel)), &fold(col)),
                _ => None,
            },
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => Some(if n.parse::<i32>().is_ok() {
                    ScalarType::Int32
                } else if n.parse::<i64>().is_ok() {
                    ScalarType::Int64
                } else {
                    ScalarType::NUMERIC
                }),
                Value::Boolean(_) => Some(ScalarType::Bool),
                _ => None,
            },
            Expr::Cast { data_type, .. } => scalar_type(data_type).ok().map(|t| t.value_type()),
            Expr::TypedString(ts) => scalar_type(&ts.data_type).ok(),
            Expr::Nested(e) => self.type_of(e),
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                ..
            } => Some(ScalarType::Bool),
            Expr::UnaryOp { expr, .. } => self.type_of(expr),
            Expr::BinaryOp { left, op, right } => {
                if is_comparison(op) {
                    return Some(ScalarType::Bool);
                }
                if *op == BinaryOperator::StringConcat {
                    return Some(ScalarType::Text);
                }
                match (self.type_of(left), self.type_of(right)) {
                    (Some(a), Some(b)) => numeric_promotion(&a, &b).or(Some(a)),
                    (Some(a), None) | (None, Some(a)) => Some(a),
                    (None, None) => None,
                }
            }
            Expr::IsNull(_)
            | Expr::IsNotNull(_)
            | Expr::IsTrue(_)
            | Expr::IsFalse(_)
            | Expr::IsNotTrue(_)
            | Expr::IsNotFalse(_)
            | Expr::IsDistinctFrom(..)
            | Expr::IsNotDistinctFrom(..)
            | Expr::InList { .. }
            | Expr::InSubquery { .. }
            | Expr::Between { .. }
            | Expr::Like { .. }
            | Expr::ILike { .. }
            | Expr::Exists { .. } => Some(ScalarType::Bool),
            Expr::Subquery(q) => self.subquery_type(q),
            _ => self.probe(e),
        }
    }

    /// The type of the single column of a subquery, by planning it.
    pub(super) fn subquery_type(&self, q: &Query) -> Option<ScalarType> {
        if q.to_string().contains('$') {
            return None;
        }
        let cols = self.probe_columns(&format!("{}{q}", self.with_prefix()))?;
        match cols.as_slice() {
            [(_, t)] => Some(*t),
            _ => None,
        }
    }

    /// The type of an operand, by planning `SELECT operand FROM <the current FROM>`.
    fn probe(&self, e: &Expr) -> Option<ScalarType> {
        let text = e.to_string();
        if text.contains('$') {
            return None;
        }
        let (with, from) = self.frames.last()?.probe.as_ref()?;
        let sql = if from.is_empty() {
            format!("{with}SELECT {text}")
        } else {
            format!("{with}SELECT {text} FROM {from}")
        };
        match self.probe_columns(&sql)?.as_slice() {
            [(_, t)] => Some(*t),
            _ => None,
        }
    }

    /// Whether one operand of `+` is a parameter and the other a timestamp or a time.
    fn adds_interval(&self, left: &Expr, right: &Expr) -> bool {
        let datetime = |e: &Expr| {
            matches!(
                self.type_of(e).map(|t| t.base()),
                Some(ScalarType::Timestamp | ScalarType::Time)
            )
        };
        (placeholder(left).is_some() && datetime(right))
            || (placeholder(right).is_some() && datetime(left))
    }

    /// Gives every parameter among `exprs` the type of the first of them that has one.
    fn unify(&mut self, exprs: &[&Expr]) {
        let ty = exprs
            .iter()
            .filter(|e| placeholder(e).is_none())
            .find_map(|e| self.type_of(e))
            .or_else(|| exprs.iter().find_map(|e| self.type_of(e)));
        if let Some(ty) = ty {
            for e in exprs {
                if let Some(i) = placeholder(e) {
                    self.set(i, operand_type(ty));
                }
            }
        }
    }

    pub(super) fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Nested(e) => self.expr(e),
            Expr::BinaryOp { left, op, right } => {
                match op {
                    BinaryOperator::And | BinaryOperator::Or => {
                        for side in [left, right] {
                            if let Some(i) = placeholder(side) {
                                self.set(i, ScalarType::Bool);
                            }
                        }
                    }
                    BinaryOperator::StringConcat => {
                        // bytea || $1 is bytea || bytea; otherwise text.
                        let bytea = [left, right]
                            .iter()
                            .any(|e| self.type_of(e) == Some(ScalarType::Bytea));
                        for side in [left, right] {
                            if let Some(i) = placeholder(side) {
                                let ty = if bytea {
                                    ScalarType::Bytea
                                } else {
                                    ScalarType::Text
                                };
                                self.set(i, ty);
                            }
                        }
                    }
                    // timestamp + $1 and time + $1 add an interval, PostgreSQL's choice.
                    BinaryOperator::Plus if self.adds_interval(left, right) => {
                        for side in [left, right] {
                            if let Some(i) = placeholder(side) {
                                self.set(i, ScalarType::Interval);
                            }
                        }
                    }
                    _ => self.unify(&[left, right]),
                }
                self.expr(left);
                self.expr(right);
            }
            Expr::IsDistinctFrom(a, b) | Expr::IsNotDistinctFrom(a, b) => {
                self.unify(&[a, b]);
                self.expr(a);
                self.expr(b);
            }
            Expr::InList { expr, list, .. } => {
                let all: Vec<&Expr> = std::iter::once(expr.as_ref()).chain(list).collect();
                self.unify(&all);
                for e in all {
                    self.expr(e);
                }
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                self.unify(&[expr, low, high]);
                for e in [expr, low, high] {
                    self.expr(e);
                }
            }
            Expr::Like {
                expr,
                pattern,
                escape_char,
                ..
            }
            | Expr::ILike {
                expr,
                pattern,
                escape_char,
                ..
            } => {
                for e in [Some(expr), Some(pattern), escape_char.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    match placeholder(e) {
                        Some(i) => self.set(i, ScalarType::Text),
                        None => self.expr(e),
                    }
                }
            }
            Expr::Cast {
                expr, data_type, ..
            } => match (placeholder(expr), scalar_type(data_type)) {
                // `$1::interval hour`: the parameter is a plain interval, cut by the cast.
                (Some(i), Ok(ty)) => self.set(i, ty.value_type()),
                _ => self.expr(expr),
            },
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            }
            | Expr::IsTrue(expr)
            | Expr::IsFalse(expr)
            | Expr::IsNotTrue(expr)
            | Expr::IsNotFalse(expr) => match placeholder(expr) {
                Some(i) => self.set(i, ScalarType::Bool),
                None => self.expr(expr),
            },
            Expr::UnaryOp { expr, .. } | Expr::IsNull(expr) | Expr::IsNotNull(expr) => {
                self.expr(expr)
            }
            Expr::InSubquery { expr, subquery, .. } => {
                if let Some(i) = placeholder(expr) {
                    if let Some(ty) = self.subquery_type(subquery) {
                        self.set(i, operand_type(ty));
                    }
                }
                self.expr(expr);
                self.query(subquery);
            }
            Expr::Exists { subquery, .. } | Expr::Subquery(subquery) => self.query(subquery),
            Expr::AnyOp { left, right, .. } | Expr::AllOp { left, right, .. } => {
                self.expr(left);
                self.expr(right);
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                match operand {
                    Some(op) => {
                        let mut all: Vec<&Expr> = vec![op];
                        all.extend(conditions.iter().map(|c| &c.condition));
                        self.unify(&all);
                        self.expr(op);
                    }
                    None => {
                        for c in conditions {
                            if let Some(i) = placeholder(&c.condition) {
                                self.set(i, ScalarType::Bool);
                            }
                        }
                    }
                }
                let results: Vec<&Expr> = conditions
                    .iter()
                    .map(|c| &c.result)
                    .chain(else_result.as_deref())
                    .collect();
                self.unify(&results);
                for c in conditions {
                    self.expr(&c.condition);
                    self.expr(&c.result);
                }
                if let Some(e) = else_result {
                    self.expr(e);
                }
            }
            Expr::Function(f) => {
                let args: Vec<&Expr> = match &f.args {
                    FunctionArguments::List(list) => list
                        .args
                        .iter()
                        .filter_map(|a| match a {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
                            | FunctionArg::Named {
                                arg: FunctionArgExpr::Expr(e),
                                ..
                            } => Some(e),
                            _ => None,
                        })
                        .collect(),
                    FunctionArguments::Subquery(q) => {
                        self.query(q);
                        Vec::new()
                    }
                    FunctionArguments::None => Vec::new(),
                };
                let name = f.name.to_string().to_lowercase();
                if matches!(name.as_str(), "coalesce" | "nullif" | "greatest" | "least") {
                    self.unify(&args);
                }
                for a in args {
                    self.expr(a);
                }
            }
            Expr::Tuple(items) => {
                for e in items {
                    self.expr(e);
                }
            }
            _ => {}
        }
    }
}
