//! Queries: the parts of a `Query` around its body (ORDER BY, LIMIT, OFFSET), set operations
//! (UNION, EXCEPT, INTERSECT), and VALUES lists. SELECT bodies are planned in `select.rs`.
//!
//! A top-level query returns its plan together with a `RowSetFinishing` (order, limit, offset
//! and the columns to show), which the server applies to the rows it reads. Queries nested in
//! other statements (FROM subqueries, subqueries in expressions, WITH queries, materialized
//! views, INSERT ... SELECT, SUBSCRIBE) have no finishing: their ORDER BY alone has no effect
//! on a collection and is dropped, and with LIMIT/OFFSET it becomes a `Plan::TopK`, which the
//! runtime maintains incrementally. In a correlated subquery the top-k is taken per value of
//! the outer columns (its group key), since the subquery's rows are a collection per outer row.

use crate::catalog::Catalog;
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::names::fold;
use crate::recursive::plan_recursive_cte;
use crate::scope::{Scope, ScopeItem, UseMark};
use crate::select::{order_options, plan_select};
use crate::statement::{ColumnOrder, RowSetFinishing};
use crate::types::{coerce, coerce_all, common_type, resolve_unknown, CastContext, Typed};
use kpg_types::{ColumnType, Datum, Plan, Row, ScalarExpr, ScalarType};
use sqlparser::ast::{
    Expr, LimitClause, OrderByExpr, OrderByKind, Query, SelectItem, SetExpr, SetOperator,
    SetQuantifier, Value, Values, With,
};

/// What planning a query needs from its surroundings.
pub struct QueryContext<'a> {
    pub catalog: &'a dyn Catalog,
    /// For a correlated subquery: the domain of outer values it is evaluated for (see
    /// `subquery.rs`), which becomes the first relation of its FROM.
    pub outer: Option<Outer>,
    /// The WITH queries in scope, innermost last: a name reads a copy of its plan.
    pub ctes: Vec<Cte>,
    /// Whether subqueries stay nested in expressions, as bound (`EXPLAIN RAW`), instead of
    /// being decorrelated into joins.
    pub raw: bool,
}

/// A planned WITH query.
#[derive(Clone, Debug)]
pub struct Cte {
    pub name: String,
    pub plan: Plan,
    pub scope: Scope,
}

/// The outer values a correlated subquery is evaluated for: a plan of distinct rows, and the
/// scope naming its columns (at levels above 0).
#[derive(Clone, Debug)]
pub struct Outer {
    pub plan: Plan,
    pub scope: Scope,
}

impl<'a> QueryContext<'a> {
    pub fn new(catalog: &'a dyn Catalog) -> Self {
        QueryContext {
            catalog,
            outer: None,
            ctes: Vec::new(),
            raw: false,
        }
    }

    /// The context for binding a query without decorrelating its subqueries (`EXPLAIN RAW`).
    pub fn raw(catalog: &'a dyn Catalog) -> Self {
        QueryContext {
            raw: true,
            ..Self::new(catalog)
        }
    }

    /// The context for a query that cannot see enclosing queries' columns (a FROM
    /// subquery), but sees their WITH queries.
    pub fn uncorrelated(&self) -> QueryContext<'a> {
        QueryContext {
            catalog: self.catalog,
            outer: None,
            ctes: self.ctes.clone(),
            raw: self.raw,
        }
    }

    /// The WITH query named `name`, if one is in scope.
    pub fn cte(&self, name: &str) -> Option<&Cte> {
        self.ctes.iter().rev().find(|c| c.name == name)
    }
}

/// A planned top-level query.
#[derive(Debug)]
pub struct PlannedQuery {
    /// Computes the visible columns, followed by any ORDER BY-only columns.
    pub plan: Plan,
    /// The visible output columns.
    pub scope: Scope,
    pub finishing: RowSetFinishing,
    /// Which visible columns were untyped literals (see `SelectPlan::unknown`).
    pub unknown: Vec<bool>,
}

/// Plans an ad hoc SELECT: like `plan_query`, but a SELECT without ORDER BY that reads one
/// table row by row returns the rows in the order they were written (see `plan_select`).
pub fn plan_read(cx: &QueryContext<'_>, q: &Query) -> Result<PlannedQuery, PlanError> {
    plan_query_in(cx, q, true)
}

/// Plans a top-level query: its plan and its finishing.
pub fn plan_query(cx: &QueryContext<'_>, q: &Query) -> Result<PlannedQuery, PlanError> {
    plan_query_in(cx, q, false)
}

fn plan_query_in(
    cx: &QueryContext<'_>,
    q: &Query,
    in_order: bool,
) -> Result<PlannedQuery, PlanError> {
    check_query(q)?;
    if let Some(with) = &q.with {
        let cx = with_ctes(cx, with)?;
        let mut body = q.clone();
        body.with = None;
        return plan_query_in(&cx, &body, in_order);
    }
    // A correlated subquery's rows are a collection per outer row: ORDER BY has no effect
    // unless a LIMIT/OFFSET makes it a top-k per outer row, or it picks DISTINCT ON's rows.
    let distinct_on = matches!(q.body.as_ref(),
        SetExpr::Select(s) if matches!(s.distinct, Some(sqlparser::ast::Distinct::On(_))));
    let order_by = match cx.outer {
        Some(_) if q.limit_clause.is_none() && !distinct_on => &[],
        _ => order_by_items(q)?,
    };
    let (plan, scope, order, arity, unknown) = match q.body.as_ref() {
        SetExpr::Select(s) => {
            let p = plan_select(cx, s, order_by, in_order)?;
            (p.plan, p.scope, p.order, p.arity, p.unknown)
        }
        body => {
            let (plan, scope) = plan_set_expr(cx, body)?;
            let order = set_order_by(&scope, order_by)?;
            let arity = scope.len();
            let unknown = vec![false; arity];
            (plan, scope, order, arity, unknown)
        }
    };
    let (limit, offset, counts) = limit_offset(q)?;
    let finishing = RowSetFinishing {
        order_by: order,
        limit,
        offset,
        counts,
        project: (0..scope.len()).collect(),
    };
    debug_assert!(arity >= scope.len());
    Ok(PlannedQuery {
        plan,
        scope,
        finishing,
        unknown,
    })
}

/// Plans a query whose result is a collection: ORDER BY is ignored, unless LIMIT/OFFSET
/// make the query a top-k.
pub fn plan_subquery(cx: &QueryContext<'_>, q: &Query) -> Result<(Plan, Scope), PlanError> {
    plan_subquery_with_unknowns(cx, q).map(|(plan, scope, _)| (plan, scope))
}

/// `plan_subquery`, also saying which output columns were untyped literals.
pub fn plan_subquery_with_unknowns(
    cx: &QueryContext<'_>,
    q: &Query,
) -> Result<(Plan, Scope, Vec<bool>), PlanError> {
    let planned = plan_query(cx, q)?;
    let arity = planned.scope.len();
    let finishing = &planned.finishing;
    // A subquery's LIMIT and OFFSET are planned into the dataflow; in a statement prepared
    // with parameters, as the expressions that read them (`bind_values` computes them).
    let plan = if finishing.limit.is_some() || finishing.offset > 0 || finishing.counts.is_some() {
        Plan::TopK {
            input: Box::new(planned.plan),
            group_key: (0..planned.scope.outer_prefix()).collect(),
            order_by: finishing.order_by.clone(),
            limit: finishing.limit,
            offset: finishing.offset,
            counts: finishing.counts.clone(),
        }
    } else {
        planned.plan
    };
    let plan = match plan {
        // Drop ORDER BY-only columns.
        p if planned.finishing.order_by.iter().any(|o| o.column >= arity) => Plan::Project {
            input: Box::new(p),
            outputs: (0..arity).collect(),
        },
        p => p,
    };
    Ok((plan, planned.scope, planned.unknown))
}

fn check_query(q: &Query) -> Result<(), PlanError> {
    if q.fetch.is_some() {
        return Err(PlanError::unsupported("FETCH"));
    }
    if !q.locks.is_empty() {
        return Err(PlanError::unsupported("FOR UPDATE/SHARE"));
    }
    if q.for_clause.is_some()
        || q.settings.is_some()
        || q.format_clause.is_some()
        || !q.pipe_operators.is_empty()
    {
        return Err(PlanError::unsupported(format!("query {q}")));
    }
    Ok(())
}

/// The context extended with a WITH clause's queries, each seeing the ones before it.
fn with_ctes<'a>(cx: &QueryContext<'a>, with: &With) -> Result<QueryContext<'a>, PlanError> {
    let mut inner = QueryContext {
        catalog: cx.catalog,
        outer: cx.outer.clone(),
        ctes: cx.ctes.clone(),
        raw: cx.raw,
    };
    let mut names: Vec<String> = Vec::new();
    for cte in &with.cte_tables {
        if cte.from.is_some() {
            return Err(PlanError::unsupported(format!("WITH query {cte}")));
        }
        let name = fold(&cte.alias.name);
        if names.contains(&name) {
            return Err(PlanError::new(
                "42712",
                format!("WITH query name \"{name}\" specified more than once"),
            ));
        }
        names.push(name.clone());
        if with.recursive {
            if let Some(planned) = plan_recursive_cte(&inner.uncorrelated(), cte)? {
                inner.ctes.push(planned);
                continue;
            }
        }
        // A WITH query does not see the enclosing query's columns here (kpg plans it once).
        let (plan, scope) = plan_subquery(&inner.uncorrelated(), &cte.query)?;
        let scope = crate::join::aliased(scope, Some(&cte.alias), &name)?;
        inner.ctes.push(Cte { name, plan, scope });
    }
    Ok(inner)
}

fn order_by_items(q: &Query) -> Result<&[OrderByExpr], PlanError> {
    match &q.order_by {
        None => Ok(&[]),
        Some(o) if o.interpolate.is_some() => Err(PlanError::unsupported("INTERPOLATE")),
        Some(o) => match &o.kind {
            OrderByKind::Expressions(items) => Ok(items),
            OrderByKind::All(_) => Err(PlanError::unsupported("ORDER BY ALL")),
        },
    }
}

/// ORDER BY of a set operation or VALUES: output columns by name or position only.
fn set_order_by(scope: &Scope, items: &[OrderByExpr]) -> Result<Vec<ColumnOrder>, PlanError> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let (desc, nulls_last) = order_options(item)?;
        let column = match &item.expr {
            Expr::Value(v) if matches!(v.value, Value::Number(..)) => {
                ordinal(&v.value, scope.len(), "ORDER BY")?
            }
            Expr::Identifier(id) => scope.resolve(None, &fold(id))?,
            _ => {
                return Err(PlanError::unsupported(
                    "invalid UNION/INTERSECT/EXCEPT ORDER BY clause: expressions",
                ))
            }
        };
        out.push(ColumnOrder {
            column,
            desc,
            nulls_last,
        });
    }
    Ok(out)
}

/// A 1-based position in a select list, as a column index.
pub fn ordinal(v: &Value, len: usize, clause: &str) -> Result<usize, PlanError> {
    let Value::Number(n, _) = v else {
        unreachable!("called on numbers")
    };
    match n.parse::<usize>() {
        Ok(k) if (1..=len).contains(&k) => Ok(k - 1),
        _ => Err(PlanError::new(
            "42P10",
            format!("{clause} position {n} is not in select list"),
        )),
    }
}

/// The query's LIMIT and OFFSET; if either reads a parameter, both as expressions instead.
type Counts = (Option<usize>, usize, Option<Box<[Option<ScalarExpr>; 2]>>);

fn limit_offset(q: &Query) -> Result<Counts, PlanError> {
    let (limit, offset) = match &q.limit_clause {
        None => (None, None),
        Some(LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) => {
            if !limit_by.is_empty() {
                return Err(PlanError::unsupported("LIMIT BY"));
            }
            (limit.as_ref(), offset.as_ref().map(|o| &o.value))
        }
        Some(LimitClause::OffsetCommaLimit { .. }) => {
            return Err(PlanError::syntax("LIMIT #,# syntax is not supported"))
        }
    };
    // Both are typed before either is evaluated (PostgreSQL's order: type errors first).
    let limit = limit.map(|e| count_expr(e, "LIMIT")).transpose()?;
    let offset = offset.map(|e| count_expr(e, "OFFSET")).transpose()?;
    let reads_param = |e: &Option<Typed>| {
        e.as_ref()
            .is_some_and(|t| crate::plan_params::has_param(&t.expr))
    };
    if reads_param(&limit) || reads_param(&offset) {
        let counts = [limit.map(|t| t.expr), offset.map(|t| t.expr)];
        return Ok((None, 0, Some(Box::new(counts))));
    }
    let (limit, offset) = count_values(limit.map(|t| t.expr), offset.map(|t| t.expr))?;
    Ok((limit, offset, None))
}

/// The values of constant LIMIT and OFFSET expressions (NULL means none).
pub(crate) fn count_values(
    limit: Option<ScalarExpr>,
    offset: Option<ScalarExpr>,
) -> Result<(Option<usize>, usize), PlanError> {
    let limit = limit
        .map(|e| count_value(e, "LIMIT", "2201W"))
        .transpose()?
        .flatten();
    let offset = offset
        .map(|e| count_value(e, "OFFSET", "2201X"))
        .transpose()?
        .flatten()
        .unwrap_or(0);
    Ok((limit, offset))
}

/// A LIMIT or OFFSET expression, as a bigint.
fn count_expr(e: &Expr, what: &'static str) -> Result<Typed, PlanError> {
    let empty = Scope::empty();
    let t = ExprContext::new(&empty, what).bind(e)?;
    match t.ty {
        None
        | Some(
            ScalarType::Int16
            | ScalarType::Int32
            | ScalarType::Int64
            | ScalarType::Numeric { .. }
            | ScalarType::Float32
            | ScalarType::Float64,
        ) => Ok(coerce(t, &ScalarType::Int64, CastContext::Assignment)?.expect("numbers convert")),
        Some(other) => Err(PlanError::datatype_mismatch(format!(
            "argument of {what} must be type bigint, not type {other}"
        ))),
    }
}

/// The value of a constant LIMIT or OFFSET; NULL means none.
fn count_value(
    e: ScalarExpr,
    what: &'static str,
    negative_code: &'static str,
) -> Result<Option<usize>, PlanError> {
    match e.eval(&[])? {
        Datum::Null => Ok(None),
        Datum::Int64(n) if n < 0 => Err(PlanError::new(
            negative_code,
            format!("{what} must not be negative"),
        )),
        Datum::Int64(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
        other => unreachable!("bigint evaluated to {other:?}"),
    }
}

/// Plans the body of a query that is not a plain SELECT with ORDER BY.
pub fn plan_set_expr(cx: &QueryContext<'_>, e: &SetExpr) -> Result<(Plan, Scope), PlanError> {
    match e {
        SetExpr::Select(s) => {
            let p = plan_select(cx, s, &[], false)?;
            Ok((p.plan, p.scope))
        }
        SetExpr::Query(q) => plan_subquery(cx, q),
        SetExpr::Values(v) => match &cx.outer {
            Some(outer) => plan_values_over(Some(outer), v),
            None => plan_values(v),
        },
        SetExpr::SetOperation {
            left,
            op,
            set_quantifier,
            right,
        } => {
            let (lp, ls) = plan_set_expr(cx, left)?;
            let (rp, rs) = plan_set_expr(cx, right)?;
            let unknowns = [unknown_literals(left)?, unknown_literals(right)?];
            set_operation(*op, *set_quantifier, (lp, ls), (rp, rs), unknowns)
        }
        SetExpr::Table(_) => Err(PlanError::unsupported("TABLE statement in a query")),
        _ => Err(PlanError::unsupported(format!("query body {e}"))),
    }
}

/// The output columns of a set operation's operand that are literals of unknown type (`'2'`,
/// NULL), bound. PostgreSQL leaves them unknown in a plain SELECT operand (without DISTINCT),
/// so that the other operand decides their type: `SELECT 1 UNION SELECT '2'` is integer, and
/// `SELECT 1 UNION SELECT 'a'` fails to read 'a' as one. Other operands had their unknowns
/// resolved to text.
fn unknown_literals(e: &SetExpr) -> Result<Vec<Option<Typed>>, PlanError> {
    let select = match e {
        SetExpr::Select(s) => s,
        SetExpr::Query(q) if q.order_by.is_none() && q.with.is_none() => {
            return unknown_literals(&q.body)
        }
        _ => return Ok(Vec::new()),
    };
    if select.distinct.is_some() {
        return Ok(Vec::new());
    }
    let empty = Scope::empty();
    let cx = ExprContext::new(&empty, "SELECT");
    select
        .projection
        .iter()
        .map(|item| {
            let (SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) = item
            else {
                return Ok(None);
            };
            let mut e = e;
            while let Expr::Nested(inner) = e {
                e = inner;
            }
            if !matches!(e, Expr::Value(_)) {
                return Ok(None);
            }
            let t = cx.bind(e)?;
            Ok(t.ty.is_none().then_some(t))
        })
        .collect()
}

fn set_operation(
    op: SetOperator,
    quantifier: SetQuantifier,
    (lp, ls): (Plan, Scope),
    (rp, rs): (Plan, Scope),
    [lu, ru]: [Vec<Option<Typed>>; 2],
) -> Result<(Plan, Scope), PlanError> {
    let name = match op {
        SetOperator::Union => "UNION",
        SetOperator::Except => "EXCEPT",
        SetOperator::Intersect => "INTERSECT",
        SetOperator::Minus => return Err(PlanError::unsupported("MINUS")),
    };
    let all = match quantifier {
        SetQuantifier::All => true,
        SetQuantifier::Distinct | SetQuantifier::None => false,
        _ => return Err(PlanError::unsupported(format!("{name} BY NAME"))),
    };
    if ls.len() != rs.len() {
        return Err(PlanError::syntax(format!(
            "each {name} query must have the same number of columns"
        )));
    }
    let mut lcasts = Vec::new();
    let mut rcasts = Vec::new();
    let mut items = Vec::new();
    for (i, (l, r)) in ls.items.iter().zip(&rs.items).enumerate() {
        if l.level > 0 {
            // A correlated subquery's outer columns, the same on both sides.
            lcasts.push(ScalarExpr::Column(i));
            rcasts.push(ScalarExpr::Column(i));
            items.push(l.clone());
            continue;
        }
        let unknown = |u: &[Option<Typed>]| u.get(i).cloned().flatten();
        let (lu, ru) = (unknown(&lu), unknown(&ru));
        let type_of = |item: &ScopeItem, u: &Option<Typed>| u.is_none().then_some(item.ty.scalar);
        let ty = common_type(&[type_of(l, &lu), type_of(r, &ru)], name)?;
        // An unknown literal becomes a constant of the common type (failing here if it does
        // not read as one); other columns are converted.
        let cast = |item: &ScopeItem, u: Option<Typed>| -> Result<ScalarExpr, PlanError> {
            let t = u.unwrap_or_else(|| {
                Typed::new(ScalarExpr::Column(i), item.ty.scalar, item.ty.nullable)
            });
            Ok(coerce_all(vec![t], &ty, name)?.remove(0).expr)
        };
        lcasts.push(cast(l, lu)?);
        rcasts.push(cast(r, ru)?);
        items.push(ScopeItem {
            table: None,
            name: l.name.clone(),
            ty: ColumnType::new(ty, l.ty.nullable || r.ty.nullable),
            level: 0,
            used: UseMark::default(),
        });
    }
    let (l, r) = (
        project_exprs(lp, ls.len(), lcasts),
        project_exprs(rp, rs.len(), rcasts),
    );
    let distinct = |p: Plan| Plan::Distinct { input: Box::new(p) };
    let negate = |p: Plan| Plan::Negate { input: Box::new(p) };
    let threshold = |p: Plan| Plan::Threshold { input: Box::new(p) };
    let union = |a: Plan, b: Plan| Plan::Union { inputs: vec![a, b] };
    let plan = match (op, all) {
        (SetOperator::Union, true) => union(l, r),
        (SetOperator::Union, false) => distinct(union(l, r)),
        (SetOperator::Except, true) => threshold(union(l, negate(r))),
        (SetOperator::Except, false) => threshold(union(distinct(l), negate(distinct(r)))),
        (SetOperator::Intersect, all) => {
            // min(l, r) = l - max(l - r, 0)
            let min = union(l.clone(), negate(threshold(union(l, negate(r)))));
            if all {
                min
            } else {
                distinct(min)
            }
        }
        (SetOperator::Minus, _) => unreachable!("refused above"),
    };
    Ok((plan, Scope { items }))
}

/// VALUES (...), (...): constant rows, each column converted to the columns' common type.
pub fn plan_values(v: &Values) -> Result<(Plan, Scope), PlanError> {
    plan_values_over(None, v)
}

/// VALUES in a correlated subquery (a LATERAL item, `EXISTS (VALUES (o.x))`): its rows may
/// read the enclosing queries' columns, so they are computed per outer value, the plan leading
/// with the domain's columns as a correlated query's does.
fn plan_values_over(outer: Option<&Outer>, v: &Values) -> Result<(Plan, Scope), PlanError> {
    let empty = Scope::empty();
    let scope = outer.map_or(&empty, |o| &o.scope);
    let cx = ExprContext::new(scope, "VALUES");
    let mut rows: Vec<Vec<Typed>> = Vec::with_capacity(v.rows.len());
    for row in &v.rows {
        let bound: Vec<Typed> = row
            .content
            .iter()
            .map(|e| cx.bind(e))
            .collect::<Result<_, _>>()?;
        if let Some(first) = rows.first() {
            if first.len() != bound.len() {
                return Err(PlanError::syntax(
                    "VALUES lists must all be the same length",
                ));
            }
        }
        rows.push(bound);
    }
    let width = rows.first().map_or(0, Vec::len);
    let mut items = Vec::with_capacity(width);
    let mut columns: Vec<Vec<Typed>> = vec![Vec::new(); width];
    for row in rows {
        for (c, t) in row.into_iter().enumerate() {
            columns[c].push(t);
        }
    }
    let mut converted = Vec::with_capacity(width);
    for (c, col) in columns.into_iter().enumerate() {
        let types: Vec<_> = col.iter().map(|t| t.ty).collect();
        let ty = common_type(&types, "VALUES")?;
        let col = coerce_all(col, &ty, "VALUES")?;
        items.push(ScopeItem {
            table: None,
            name: format!("column{}", c + 1),
            ty: ColumnType::new(ty, col.iter().any(|t| t.nullable)),
            level: 0,
            used: UseMark::default(),
        });
        converted.push(col);
    }
    let nrows = v.rows.len();
    if let Some(outer) = outer {
        let inputs = (0..nrows)
            .map(|r| Plan::Map {
                input: Box::new(outer.plan.clone()),
                exprs: converted.iter().map(|col| col[r].expr.clone()).collect(),
            })
            .collect();
        let items = outer.scope.items.iter().cloned().chain(items).collect();
        return Ok((Plan::Union { inputs }, Scope { items }));
    }
    if converted.iter().flatten().any(|t| t.expr.is_volatile()) {
        // random() or the statement's time: each row is computed when the query runs.
        let one = Plan::Constant {
            rows: vec![(Row::empty(), 1)],
        };
        let inputs = (0..nrows)
            .map(|r| Plan::Map {
                input: Box::new(one.clone()),
                exprs: converted.iter().map(|col| col[r].expr.clone()).collect(),
            })
            .collect();
        return Ok((Plan::Union { inputs }, Scope { items }));
    }
    let mut out = Vec::with_capacity(nrows);
    for r in 0..nrows {
        let datums = converted
            .iter()
            .map(|col| col[r].expr.eval(&[]))
            .collect::<Result<Vec<_>, _>>()?;
        out.push((Row::new(datums), 1));
    }
    Ok((Plan::Constant { rows: out }, Scope { items }))
}

/// The plan computing `exprs` over `plan` (of arity `arity`): plain column references are
/// projected, other expressions mapped first.
pub fn project_exprs(plan: Plan, arity: usize, exprs: Vec<ScalarExpr>) -> Plan {
    let mut maps = Vec::new();
    let mut outputs = Vec::with_capacity(exprs.len());
    for e in exprs {
        match e {
            ScalarExpr::Column(c) => outputs.push(c),
            other => {
                outputs.push(arity + maps.len());
                maps.push(other);
            }
        }
    }
    let plan = if maps.is_empty() {
        plan
    } else {
        Plan::Map {
            input: Box::new(plan),
            exprs: maps,
        }
    };
    if outputs.iter().copied().eq(0..arity) {
        plan
    } else {
        Plan::Project {
            input: Box::new(plan),
            outputs,
        }
    }
}

/// Resolves unknown-typed outputs to text.
pub fn resolve_outputs(exprs: Vec<Typed>) -> Result<Vec<Typed>, PlanError> {
    exprs.into_iter().map(resolve_unknown).collect()
}
