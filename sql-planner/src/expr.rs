//! Expression binding: sqlparser `Expr` → typed `ScalarExpr` over a scope.
//!
//! An `ExprContext` says what an expression may refer to: the columns of a scope, and, in a
//! grouped query, the grouping keys and aggregates (see `aggregate.rs`). In a grouped context
//! every subexpression that equals a GROUP BY key becomes a reference to that key's column of
//! the reduction's output, aggregate calls become references to their aggregate's column, and
//! any other column reference is PostgreSQL's 42803 grouping error.
//!
//! Every node is folded as it is built (`fold::node`), so constant subexpressions are values
//! by the time a plan is made, and errors in them are raised at plan time as in PostgreSQL.

use crate::aggregate::Grouping;
use crate::error::PlanError;
use crate::names::fold as fold_ident;
use crate::ops;
use crate::scope::Scope;
use crate::subquery::{self, Host};
use crate::types::{coerce, coerce_all, common_type, scalar_type, CastContext, Typed};
use crate::{builtin, fold, func, rows};
use kpg_types::numeric::{self, Numeric};
use kpg_types::{BinaryFunc, Datum, ScalarExpr, ScalarType, UnaryFunc};
use sqlparser::ast::{
    BinaryOperator, CastKind, CeilFloorKind, DateTimeField, Expr, UnaryOperator, Value,
};

/// What an expression may refer to, and where it stands (for error messages).
#[derive(Clone, Copy)]
pub struct ExprContext<'a> {
    pub scope: &'a Scope,
    /// The clause, as PostgreSQL names it in "aggregate functions are not allowed in ...".
    pub clause: &'static str,
    /// The grouping keys and aggregates of a grouped query, where aggregates are allowed.
    pub grouping: Option<&'a Grouping>,
    /// Inside an aggregate's arguments (where aggregates may not nest).
    pub in_aggregate: bool,
    /// Where subqueries are allowed: the relation their values are joined to.
    pub host: Option<&'a Host<'a>>,
    /// In a grouped query: the relation aggregate arguments are evaluated over (the FROM and
    /// WHERE), where the values of subqueries in them are joined.
    pub input_host: Option<&'a Host<'a>>,
    /// The catalog, for pg_catalog functions and `reg*` casts that look objects up.
    pub catalog: Option<&'a dyn crate::catalog::Catalog>,
    /// When the expression is evaluated only for rows where a condition holds (a CASE
    /// branch): that condition, over the same columns. A subquery here is computed only for
    /// the outer values of such rows, so it raises no error PostgreSQL would not.
    pub guard: Option<&'a ScalarExpr>,
    /// Where window functions are allowed (a SELECT block's list and ORDER BY): the block's
    /// calls, collected as they are bound.
    pub windows: Option<&'a crate::window::Windows>,
}

impl<'a> ExprContext<'a> {
    pub fn new(scope: &'a Scope, clause: &'static str) -> Self {
        ExprContext {
            scope,
            clause,
            grouping: None,
            in_aggregate: false,
            host: None,
            input_host: None,
            catalog: None,
            guard: None,
            windows: None,
        }
    }

    /// The same context, allowing subqueries whose values `host` joins in.
    pub fn with_host(self, host: &'a Host<'a>) -> Self {
        ExprContext {
            host: Some(host),
            catalog: Some(host.catalog()),
            ..self
        }
    }

    /// The same context, with `input_host` joining the values of subqueries in aggregate
    /// arguments to the grouped query's input.
    pub fn with_input_host(self, input_host: &'a Host<'a>) -> Self {
        ExprContext {
            input_host: Some(input_host),
            ..self
        }
    }

    /// The same context, able to look objects up in `catalog`.
    pub fn with_catalog(self, catalog: &'a dyn crate::catalog::Catalog) -> Self {
        ExprContext {
            catalog: Some(catalog),
            ..self
        }
    }

    pub fn grouped(scope: &'a Scope, clause: &'static str, grouping: &'a Grouping) -> Self {
        ExprContext {
            grouping: Some(grouping),
            ..Self::new(scope, clause)
        }
    }

    /// The same scope without grouping or subqueries: how an expression is matched against
    /// the GROUP BY keys (aggregate arguments add the input's host, see `bind_aggregate`).
    pub fn ungrouped(&self) -> Self {
        ExprContext {
            grouping: None,
            host: None,
            windows: None,
            ..*self
        }
    }

    /// Binds an expression.
    pub fn bind(&self, e: &Expr) -> Result<Typed, PlanError> {
        if let Some(g) = self.grouping {
            if !matches!(e, Expr::Value(_)) {
                if let Ok(t) = self.ungrouped().bind(e) {
                    if let Some(key) = g.key_column(&t.expr) {
                        return Ok(key);
                    }
                    // A key that folds to a constant (GROUP BY coalesce(DATE '...', d)) is
                    // matched by the same expression, which folds to the same constant.
                    if t.expr.is_constant()
                        && g.keys.iter().any(|k| k.expr == t.expr && k.ty == t.ty)
                    {
                        return Ok(t);
                    }
                }
            }
        }
        self.bind_inner(e)
    }

    /// Binds a boolean condition (WHERE, HAVING, ON), with PostgreSQL's 42804 otherwise.
    pub fn bind_condition(&self, e: &Expr) -> Result<Typed, PlanError> {
        let t = self.bind(e)?;
        ops::boolean(t, self.clause)
    }

    /// A column of the scope, by position.
    pub fn column(&self, i: usize) -> Result<Typed, PlanError> {
        if let Some(g) = self.grouping {
            return g.key_column(&ScalarExpr::Column(i)).ok_or_else(|| {
                PlanError::grouping(format!(
                    "column \"{}\" must appear in the GROUP BY clause or be used in an aggregate function",
                    self.scope.qualified_name(i)
                ))
            });
        }
        let item = &self.scope.items[i];
        Ok(Typed::new(
            ScalarExpr::Column(i),
            item.ty.scalar,
            item.ty.nullable,
        ))
    }

    fn bind_inner(&self, e: &Expr) -> Result<Typed, PlanError> {
        match e {
            // A keyword in PostgreSQL, not a column, unless quoted.
            Expr::Identifier(ident)
                if ident.quote_style.is_none()
                    && ident.value.eq_ignore_ascii_case("current_role") =>
            {
                crate::pg_compat::function(self, "current_role", Vec::new())?
                    .ok_or_else(|| PlanError::new("XX000", "current_role is not planned"))
            }
            Expr::Identifier(ident) => {
                let i = self.scope.resolve(None, &fold_ident(ident))?;
                self.column(i)
            }
            Expr::CompoundIdentifier(parts) => {
                let names: Vec<String> = parts.iter().map(fold_ident).collect();
                let (table, col) = match names.as_slice() {
                    [t, c] => (t.as_str(), c.as_str()),
                    // Schema-qualified (`pg_catalog.pg_namespace.oid`, as SQLAlchemy writes),
                    // optionally database-qualified too.
                    [s, t, c] | [_, s, t, c]
                        if matches!(s.as_str(), "public" | "pg_catalog" | "information_schema") =>
                    {
                        if let [d, ..] = names.as_slice() {
                            if names.len() == 4 && d != "kpg" {
                                return Err(PlanError::unsupported(format!(
                                    "cross-database references: {e}"
                                )));
                            }
                        }
                        (t.as_str(), c.as_str())
                    }
                    [_, t, _] | [_, _, t, _] => {
                        return Err(PlanError::new(
                            "42P01",
                            format!("missing FROM-clause entry for table \"{t}\""),
                        ))
                    }
                    _ => return Err(PlanError::unsupported(format!("column reference {e}"))),
                };
                let i = self.scope.resolve(Some(table), col)?;
                self.column(i)
            }
            Expr::Value(v) => literal(&v.value, false),
            Expr::TypedString(ts) => {
                let ty = scalar_type(&ts.data_type)?;
                let t = literal(&ts.value.value, false)?;
                self.cast(t, &ty)
            }
            Expr::Nested(inner) => self.bind(inner),
            Expr::UnaryOp { op, expr } => match op {
                UnaryOperator::Minus => match signed_number(expr, true) {
                    Some((v, negative)) => literal(v, negative),
                    None => ops::negate(self.bind(expr)?),
                },
                UnaryOperator::Plus => {
                    let t = self.bind(expr)?;
                    match t.ty {
                        Some(ty) if ty.is_numeric_family() => Ok(t),
                        _ => Err(PlanError::undefined_function(format!(
                            "operator does not exist: + {}",
                            t.type_name()
                        ))),
                    }
                }
                UnaryOperator::Not => ops::not(ops::boolean(self.bind(expr)?, "NOT")?),
                other => Err(PlanError::unsupported(format!("operator {other}"))),
            },
            Expr::BinaryOp { left, op, right } => self.binary(left, op, right),
            Expr::IsNull(x) => ops::is_null(self.bind(x)?, false),
            Expr::IsNotNull(x) => ops::is_null(self.bind(x)?, true),
            Expr::IsTrue(x) => ops::is_bool(self.bind(x)?, true, false),
            Expr::IsNotTrue(x) => ops::is_bool(self.bind(x)?, true, true),
            Expr::IsFalse(x) => ops::is_bool(self.bind(x)?, false, false),
            Expr::IsNotFalse(x) => ops::is_bool(self.bind(x)?, false, true),
            Expr::IsUnknown(x) => ops::is_null(ops::boolean(self.bind(x)?, "IS UNKNOWN")?, false),
            Expr::IsNotUnknown(x) => {
                ops::is_null(ops::boolean(self.bind(x)?, "IS NOT UNKNOWN")?, true)
            }
            Expr::IsDistinctFrom(l, r) => ops::is_distinct(self.bind(l)?, self.bind(r)?, false),
            Expr::IsNotDistinctFrom(l, r) => ops::is_distinct(self.bind(l)?, self.bind(r)?, true),
            Expr::InList {
                expr,
                list,
                negated,
            } => self.in_list(expr, list, *negated),
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.bind(expr)?;
                let ge = ops::comparison(BinaryFunc::Gte, x.clone(), self.bind(low)?)?;
                let le = ops::comparison(BinaryFunc::Lte, x, self.bind(high)?)?;
                let both = ops::and_or(BinaryFunc::And, ge, le)?;
                if *negated {
                    ops::not(both)
                } else {
                    Ok(both)
                }
            }
            Expr::Like {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            }
            | Expr::ILike {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            } => {
                if *any {
                    return Err(PlanError::unsupported("LIKE ANY"));
                }
                let ci = matches!(e, Expr::ILike { .. });
                let mut pattern = self.bind(pattern)?;
                if let Some(escape) = escape_char {
                    pattern = ops::like_escape(pattern, self.bind(escape)?)?;
                }
                ops::like(ci, *negated, self.bind(expr)?, pattern)
            }
            Expr::Cast {
                kind,
                expr,
                data_type,
                format,
            } => {
                if format.is_some() || matches!(kind, CastKind::TryCast | CastKind::SafeCast) {
                    return Err(PlanError::unsupported(format!("cast {e}")));
                }
                if let Some(t) = crate::pg_compat::cast(self, expr, data_type) {
                    return t;
                }
                let ty = scalar_type(data_type)?;
                if let Expr::Array(a) = &**expr {
                    let t = crate::arrays::construct(self, &a.elem, Some(ty))?;
                    return self.cast(t, &ty);
                }
                let t = self.bind(expr)?;
                self.cast(t, &ty)
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.case(operand.as_deref(), conditions, else_result.as_deref()),
            Expr::Function(f) => func::bind_function(self, f),
            Expr::Subquery(q) => subquery::scalar(self, q),
            Expr::Exists { subquery, negated } => subquery::exists(self, subquery, *negated),
            Expr::InSubquery {
                expr,
                subquery,
                negated,
            } if rows::fields(expr).is_some() => rows::in_subquery(self, expr, subquery, *negated),
            Expr::InSubquery {
                expr,
                subquery,
                negated,
            } => subquery::in_subquery(self, expr, subquery, *negated),
            // `row = ANY (SELECT ...)` is IN, `row <> ALL (SELECT ...)` NOT IN.
            Expr::AnyOp {
                left,
                compare_op: BinaryOperator::Eq,
                right,
                ..
            }
            | Expr::AllOp {
                left,
                compare_op: BinaryOperator::NotEq,
                right,
            } if rows::fields(left).is_some() && matches!(&**right, Expr::Subquery(_)) => {
                let Expr::Subquery(q) = &**right else {
                    unreachable!("matched above")
                };
                rows::in_subquery(self, left, q, matches!(e, Expr::AllOp { .. }))
            }
            Expr::AnyOp { left, .. } | Expr::AllOp { left, .. } if rows::fields(left).is_some() => {
                Err(PlanError::unsupported(format!(
                    "row constructor in {e} (only = ANY and <> ALL)"
                )))
            }
            Expr::AnyOp {
                left,
                compare_op,
                right,
                ..
            } if !is_subquery(right) => {
                crate::arrays::quantified(self, left, compare_op, right, false)
            }
            Expr::AllOp {
                left,
                compare_op,
                right,
            } if !is_subquery(right) => {
                crate::arrays::quantified(self, left, compare_op, right, true)
            }
            Expr::AnyOp {
                left,
                compare_op,
                right,
                ..
            } => subquery::quantified(self, left, compare_op, right, false),
            Expr::AllOp {
                left,
                compare_op,
                right,
            } => subquery::quantified(self, left, compare_op, right, true),
            Expr::Extract { field, expr, .. } => builtin::extract(field, self.bind(expr)?),
            Expr::AtTimeZone {
                timestamp,
                time_zone,
            } => crate::zoned_funcs::timezone(self.bind(time_zone)?, self.bind(timestamp)?),
            Expr::Substring {
                expr,
                substring_from,
                substring_for,
                shorthand,
                ..
            } => {
                let name = if *shorthand { "substr" } else { "substring" };
                let from = substring_from
                    .as_deref()
                    .map(|e| self.bind(e))
                    .transpose()?;
                let count = substring_for.as_deref().map(|e| self.bind(e)).transpose()?;
                builtin::substring(name, self.bind(expr)?, from, count)
            }
            Expr::Trim {
                trim_where,
                trim_what,
                expr,
                trim_characters,
            } => {
                let chars = match (trim_what, trim_characters.as_deref()) {
                    (Some(w), None) => Some(self.bind(w)?),
                    (None, Some([c])) => Some(self.bind(c)?),
                    (None, None) => None,
                    _ => return Err(PlanError::unsupported(format!("{e}"))),
                };
                builtin::trim("btrim", trim_where.as_ref(), self.bind(expr)?, chars)
            }
            Expr::Position { expr, r#in } => {
                builtin::strpos("strpos", self.bind(r#in)?, self.bind(expr)?)
            }
            Expr::Ceil { expr, field } | Expr::Floor { expr, field } => {
                let (name, func) = match e {
                    Expr::Ceil { .. } => ("ceil", UnaryFunc::Ceil),
                    _ => ("floor", UnaryFunc::Floor),
                };
                match field {
                    CeilFloorKind::DateTimeField(DateTimeField::NoDateTime) => {
                        builtin::rounding(name, func, self.bind(expr)?)
                    }
                    _ => Err(PlanError::unsupported(format!("{e}"))),
                }
            }
            Expr::Interval(iv) => builtin::interval_literal(iv),
            Expr::SimilarTo { .. } => Err(PlanError::unsupported("SIMILAR TO")),
            Expr::Collate { expr, collation } => crate::pg_compat::collate(self, expr, collation),
            Expr::Array(a) => crate::arrays::construct(self, &a.elem, None),
            Expr::CompoundFieldAccess { root, access_chain } => {
                crate::arrays::subscript(self, root, access_chain)
            }
            Expr::Tuple(_) => Err(PlanError::unsupported("row constructors")),
            Expr::Wildcard(_) | Expr::QualifiedWildcard(..) => {
                Err(PlanError::syntax("\"*\" is not allowed here"))
            }
            other => Err(PlanError::unsupported(format!("expression {other}"))),
        }
    }

    /// An explicit cast (CAST or ::).
    pub fn cast(&self, t: Typed, ty: &ScalarType) -> Result<Typed, PlanError> {
        if t.ty == Some(ScalarType::Int2Vector) && matches!(ty, ScalarType::Array(_)) {
            // PostgreSQL's result keeps the subscripts from 0, which kpg's arrays cannot.
            return Err(PlanError::unsupported("casts of int2vector to arrays"));
        }
        let from = t.type_name();
        let cannot = || PlanError::new("42846", format!("cannot cast type {from} to {ty}"));
        let limit = match ty {
            ScalarType::VarChar {
                max_length: Some(n),
            } => Some(*n),
            ScalarType::Char { length: Some(n) } => Some(*n),
            _ => None,
        };
        let Some(n) = limit else {
            // A cast to a qualified interval cuts the value; the result is a plain interval
            // (`ScalarType::value_type`).
            let cast = coerce(t, ty, CastContext::Explicit)?.ok_or_else(cannot)?;
            return Ok(Typed {
                ty: cast.ty.map(|ty| ty.value_type()),
                ..cast
            });
        };
        // An explicit cast to varchar(n) or char(n) cuts the text to n characters where an
        // assignment would fail: the text's first n characters, then the conversion (which
        // pads a char(n)).
        let text = coerce(t, &ScalarType::Text, CastContext::Explicit)?.ok_or_else(cannot)?;
        let cut = text.expr.call_binary(
            BinaryFunc::Left,
            ScalarExpr::Literal(Datum::Int32(i32::try_from(n).unwrap_or(i32::MAX))),
        );
        let expr = ops::fold_deep(cut.call_unary(UnaryFunc::Cast(*ty)))?;
        Ok(Typed::new(expr, *ty, text.nullable))
    }

    fn binary(&self, left: &Expr, op: &BinaryOperator, right: &Expr) -> Result<Typed, PlanError> {
        let func = match op {
            BinaryOperator::And => BinaryFunc::And,
            BinaryOperator::Or => BinaryFunc::Or,
            BinaryOperator::Eq => BinaryFunc::Eq,
            BinaryOperator::NotEq => BinaryFunc::NotEq,
            BinaryOperator::Lt => BinaryFunc::Lt,
            BinaryOperator::LtEq => BinaryFunc::Lte,
            BinaryOperator::Gt => BinaryFunc::Gt,
            BinaryOperator::GtEq => BinaryFunc::Gte,
            BinaryOperator::Plus => BinaryFunc::Add,
            BinaryOperator::Minus => BinaryFunc::Sub,
            BinaryOperator::Multiply => BinaryFunc::Mul,
            BinaryOperator::Divide => BinaryFunc::Div,
            BinaryOperator::Modulo => BinaryFunc::Mod,
            BinaryOperator::StringConcat => BinaryFunc::Concat,
            BinaryOperator::BitwiseAnd | BinaryOperator::BitwiseOr => {
                let (l, r) = (self.bind(left)?, self.bind(right)?);
                return ops::bitwise(op, l, r);
            }
            other if crate::arrays::is_array_operator(other) => {
                let (l, r) = (self.bind(left)?, self.bind(right)?);
                if let Some(t) = crate::arrays::operator(l, other, r)? {
                    return Ok(t);
                }
                return crate::pg_compat::operator(self, left, other, right);
            }
            other => return crate::pg_compat::operator(self, left, other, right),
        };
        if rows::fields(left).is_some() || rows::fields(right).is_some() {
            return rows::compare(self, left, op, right);
        }
        let (l, r) = (self.bind(left)?, self.bind(right)?);
        match func {
            BinaryFunc::And | BinaryFunc::Or => ops::and_or(func, l, r),
            BinaryFunc::Add
            | BinaryFunc::Sub
            | BinaryFunc::Mul
            | BinaryFunc::Div
            | BinaryFunc::Mod => ops::arithmetic(func, l, r),
            BinaryFunc::Concat => ops::concat(l, r),
            _ => ops::comparison(func, l, r),
        }
    }

    /// `x [NOT] IN (a, b, ...)`: the OR of the equalities (of rows, when `x` is a row).
    fn in_list(&self, expr: &Expr, list: &[Expr], negated: bool) -> Result<Typed, PlanError> {
        let x = match rows::fields(expr) {
            Some(_) => None,
            None => Some(self.bind(expr)?),
        };
        if let Some(x) = x
            .as_ref()
            .filter(|x| x.expr.draws_per_call() && list.len() > 1)
        {
            // Drawn once, as in PostgreSQL (the comparisons below would each draw it):
            // `x = ANY (ARRAY[...])`, the list's unknown literals read as x's type.
            let any = crate::arrays::in_array(self, x.clone(), list)?;
            return if negated { ops::not(any) } else { Ok(any) };
        }
        let mut acc: Option<Typed> = None;
        for item in list {
            let eq = match &x {
                Some(x) => ops::comparison(BinaryFunc::Eq, x.clone(), self.bind(item)?)?,
                None => rows::compare(self, expr, &BinaryOperator::Eq, item)?,
            };
            acc = Some(match acc {
                None => eq,
                Some(a) => ops::and_or(BinaryFunc::Or, a, eq)?,
            });
        }
        let any = acc.ok_or_else(|| PlanError::syntax("syntax error at or near \")\""))?;
        if negated {
            ops::not(any)
        } else {
            Ok(any)
        }
    }

    /// This context, evaluated only where every one of `conds` is TRUE.
    fn with_guard(&self, conds: &[ScalarExpr]) -> Result<Guarded<'a>, PlanError> {
        let guard = conds
            .iter()
            .cloned()
            .reduce(|a, b| a.call_binary(BinaryFunc::And, b))
            .map(fold::node)
            .transpose()?;
        Ok(Guarded { cx: *self, guard })
    }

    fn case(
        &self,
        operand: Option<&Expr>,
        conditions: &[sqlparser::ast::CaseWhen],
        else_result: Option<&Expr>,
    ) -> Result<Typed, PlanError> {
        let operand = operand.map(|o| self.bind(o)).transpose()?;
        if operand.as_ref().is_some_and(|o| o.expr.draws_per_call()) {
            // PostgreSQL evaluates the operand once; the comparisons below would each draw
            // a new value, so some rows would match no WHEN (`CASE floor(random() * 3) ...`).
            let mut e = PlanError::unsupported(
                "CASE with an operand that draws a new value at each call (random(), \
                 gen_random_uuid(), clock_timestamp())",
            );
            e.detail = Some(
                "Compute the operand in a subquery: CASE x WHEN ... FROM (SELECT random() AS x ...)"
                    .into(),
            );
            return Err(e);
        }
        let mut conds = Vec::with_capacity(conditions.len());
        let mut results = Vec::with_capacity(conditions.len() + 1);
        // The conditions under which the branch at hand is evaluated: the enclosing guard,
        // every earlier WHEN not TRUE, and for a THEN its own WHEN.
        let mut passed: Vec<ScalarExpr> = self.guard.into_iter().cloned().collect();
        for w in conditions {
            let c = self.with_guard(&passed)?.bind(&w.condition)?;
            let c = match &operand {
                Some(o) => ops::comparison(BinaryFunc::Eq, o.clone(), c)?,
                None => ops::boolean(c, "CASE/WHEN")?,
            };
            let mut taken = passed.clone();
            taken.push(c.expr.clone());
            results.push(self.with_guard(&taken)?.bind(&w.result)?);
            passed.push(
                ScalarExpr::Variadic {
                    func: kpg_types::VariadicFunc::Coalesce,
                    exprs: vec![c.expr.clone(), ScalarExpr::Literal(Datum::Bool(false))],
                }
                .call_unary(UnaryFunc::Not),
            );
            conds.push(c);
        }
        let els = match else_result {
            Some(e) => self.with_guard(&passed)?.bind(e)?,
            None => Typed {
                expr: ScalarExpr::Literal(Datum::Null),
                ty: None,
                nullable: true,
            },
        };
        results.push(els);
        // PostgreSQL considers the ELSE branch first when choosing the result type.
        let types: Vec<_> = std::iter::once(results.last().expect("else").ty)
            .chain(results[..results.len() - 1].iter().map(|t| t.ty))
            .collect();
        // All-unknown branches resolve to text, as in PostgreSQL.
        let result = common_type(&types, "CASE")?;
        let results = coerce_all(results, &result, "CASE")?;
        let nullable = results.iter().any(|r| r.nullable);
        let mut results = results.into_iter().rev();
        let mut acc = results.next().expect("else branch").expr;
        for (c, r) in conds.into_iter().rev().zip(results) {
            acc = fold::node(ScalarExpr::If {
                cond: Box::new(c.expr),
                then: Box::new(r.expr),
                els: Box::new(acc),
            })?;
        }
        Ok(Typed::new(acc, result, nullable))
    }
}

/// An expression context with a guard it owns (see `ExprContext::guard`).
struct Guarded<'a> {
    cx: ExprContext<'a>,
    guard: Option<ScalarExpr>,
}

impl Guarded<'_> {
    fn bind(&self, e: &Expr) -> Result<Typed, PlanError> {
        ExprContext {
            guard: self.guard.as_ref(),
            ..self.cx
        }
        .bind(e)
    }
}

/// A literal value: numbers are int4, int8 or numeric by their text; strings and NULL are of
/// unknown type until their context gives them one.
pub fn literal(v: &Value, negative: bool) -> Result<Typed, PlanError> {
    match v {
        Value::Number(s, _) => number(s, negative),
        Value::SingleQuotedString(s)
        | Value::EscapedStringLiteral(s)
        | Value::UnicodeStringLiteral(s)
        | Value::NationalStringLiteral(s) => Ok(Typed {
            expr: ScalarExpr::Literal(Datum::String(s.clone())),
            ty: None,
            nullable: false,
        }),
        Value::DollarQuotedString(d) => Ok(Typed {
            expr: ScalarExpr::Literal(Datum::String(d.value.clone())),
            ty: None,
            nullable: false,
        }),
        Value::Boolean(b) => Ok(Typed::literal(Datum::Bool(*b), ScalarType::Bool)),
        Value::Null => Ok(Typed {
            expr: ScalarExpr::Literal(Datum::Null),
            ty: None,
            nullable: true,
        }),
        Value::Placeholder(p) => crate::plan_params::reference(p),
        other => Err(PlanError::unsupported(format!("literal {other}"))),
    }
}

/// A number under `-` signs and parentheses, and whether an odd count of signs negates it
/// (starting from `negative`): PostgreSQL's parser negates such a constant's text in place, so
/// `-(-2147483648)` is the bigint 2147483648, not a negation of an int4 that overflows.
fn signed_number(e: &Expr, negative: bool) -> Option<(&Value, bool)> {
    match e {
        Expr::Value(v) if matches!(v.value, Value::Number(..)) => Some((&v.value, negative)),
        Expr::Nested(inner) => signed_number(inner, negative),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => signed_number(expr, !negative),
        _ => None,
    }
}

fn number(s: &str, negative: bool) -> Result<Typed, PlanError> {
    let text = if negative {
        format!("-{s}")
    } else {
        s.to_string()
    };
    let invalid = || PlanError::syntax(format!("invalid number {text}"));
    if s.chars().all(|c| c.is_ascii_digit()) {
        if let Ok(i) = text.parse::<i32>() {
            return Ok(Typed::literal(Datum::Int32(i), ScalarType::Int32));
        }
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Typed::literal(Datum::Int64(i), ScalarType::Int64));
        }
    } else if !s
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return Err(invalid());
    }
    let d = Numeric::parse(&text).map_err(|e| match e {
        numeric::ParseError::Overflow => PlanError::new("22003", "value overflows numeric format"),
        _ => invalid(),
    })?;
    Ok(Typed::literal(Datum::Numeric(d), ScalarType::NUMERIC))
}

/// Whether `e` is a subquery (in parentheses or not): `x = ANY (SELECT ...)`, not an array.
fn is_subquery(e: &Expr) -> bool {
    match e {
        Expr::Subquery(_) => true,
        Expr::Nested(inner) => is_subquery(inner),
        _ => false,
    }
}
