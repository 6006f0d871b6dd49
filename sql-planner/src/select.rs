//! SELECT: the select list (with `*` expansion and PostgreSQL's default column names), grouping,
//! HAVING, DISTINCT and ORDER BY, over the FROM/WHERE plan of `join.rs`.
//!
//! The output of the plan is the select list followed by ORDER BY expressions that are not in
//! it; `arity` counts both, and the query's finishing hides the extra columns. ORDER BY follows
//! PostgreSQL: a number is a select-list position, a bare name matching an output column is
//! that column, anything else is an expression over the FROM scope (or the grouped scope).

use crate::aggregate::{contains_aggregate, contains_own_aggregate, reduce_plan, Grouping};
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::func::function_name;
use crate::join::{conjuncts, filter, plan_from_where, POSITION};
use crate::names::{fold, object_name};
use crate::query::{ordinal, project_exprs, resolve_outputs, QueryContext};
use crate::scope::{Scope, ScopeItem, UseMark};
use crate::statement::ColumnOrder;
use crate::subquery::{place, Host};
use crate::types::{internal_name, resolve_unknown, scalar_type, Typed};
use crate::window::Windows;
use kpg_types::{ColumnType, Plan, ScalarType};
use sqlparser::ast::{
    Distinct, Expr, GroupByExpr, OrderByExpr, OrderBySort, Select, SelectFlavor, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, TrimWhereField, Value, WildcardAdditionalOptions,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;

/// A planned SELECT.
pub struct SelectPlan {
    /// Computes the select list, then the ORDER BY-only columns.
    pub plan: Plan,
    /// The select list's columns.
    pub scope: Scope,
    pub order: Vec<ColumnOrder>,
    /// Number of columns of `plan`.
    pub arity: usize,
    /// Which select-list columns were untyped literals (resolved to text), which INSERT ...
    /// SELECT may still convert to the target column's type as PostgreSQL does.
    pub unknown: Vec<bool>,
}

/// One entry of the select list after `*` expansion.
enum Target<'e> {
    Expr(&'e Expr),
    Column(usize),
}

/// Plans a SELECT block. With `in_order` (an ad hoc SELECT without ORDER BY), a SELECT that reads one table whole
/// and computes each output row from one of its rows (no grouping, no DISTINCT) is ordered by
/// the rows' positions: a plain scan returns rows in the order they were written, as
/// PostgreSQL's heap scan does (see `join::plan_from_where`).
pub fn plan_select(
    cx: &QueryContext<'_>,
    s: &Select,
    order_by: &[OrderByExpr],
    in_order: bool,
) -> Result<SelectPlan, PlanError> {
    // Aggregates of this query found inside its subqueries (`aggregate::outer_aggregate`):
    // each makes the query plan itself again, with the aggregate as a hidden column.
    let expanded = crate::arrays::rewrite_expandarray(s)?;
    let s = expanded.as_ref().unwrap_or(s);
    let rewritten = crate::select_srf::rewrite(s)?;
    let s = rewritten.as_ref().unwrap_or(s);
    let mut outer_aggs: Vec<String> = Vec::new();
    loop {
        let planned = match plan_select_block(cx, s, order_by, in_order, &outer_aggs) {
            Err(e) if crate::empty_from::may_skip(&e) => crate::empty_from::empty_select(cx, s, e),
            other => other,
        };
        match planned {
            Err(mut e) if e.outer_aggregate.is_some() => {
                let (call, levels) = e.outer_aggregate.take().expect("checked");
                if levels > 0 {
                    // Raised in this query's own expressions: it belongs further out.
                    e.outer_aggregate = Some((call, levels - 1));
                    return Err(e);
                }
                if outer_aggs.contains(&call) || outer_aggs.len() >= 64 {
                    return Err(e);
                }
                outer_aggs.push(call);
            }
            other => return other,
        }
    }
}

fn plan_select_block(
    cx: &QueryContext<'_>,
    s: &Select,
    order_by: &[OrderByExpr],
    in_order: bool,
    outer_aggs: &[String],
) -> Result<SelectPlan, PlanError> {
    check_select(s)?;
    let per_row = outer_aggs.is_empty()
        && s.group_by == GroupByExpr::Expressions(vec![], vec![])
        && s.having.is_none()
        && s.distinct.is_none()
        && !s.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                contains_aggregate(e) || crate::aggregate::contains_window(e)
            }
            _ => false,
        });
    let positions = in_order && order_by.is_empty() && per_row;
    let (input, from_scope) = plan_from_where(cx, &s.from, s.selection.as_ref(), positions)?;
    let position = from_scope
        .items
        .last()
        .filter(|i| i.name == POSITION)
        .map(|_| from_scope.len() - 1);
    // A correlated subquery's outer columns lead its FROM scope, and its output.
    let nd = from_scope.outer_prefix();
    let mut targets: Vec<(Target<'_>, String)> = (0..nd)
        .map(|i| (Target::Column(i), from_scope.items[i].name.clone()))
        .collect();
    targets.extend(expand_targets(s, &from_scope)?);
    let names: Vec<String> = targets.iter().map(|(_, n)| n.clone()).collect();
    let written = match &s.group_by {
        GroupByExpr::Expressions(exprs, mods) if mods.is_empty() => exprs,
        _ => {
            return Err(PlanError::unsupported(
                "GROUP BY ALL and WITH ROLLUP/CUBE/TOTALS",
            ))
        }
    };
    // `()` is the empty grouping set: with nothing else, one group of every row.
    let keys: Vec<Expr> = written
        .iter()
        .filter(|e| !matches!(e, Expr::Tuple(t) if t.is_empty()))
        .cloned()
        .collect();
    let group_by = keys.as_slice();
    let expanded = crate::grouping_sets::expand(group_by)?;
    let grouped = !outer_aggs.is_empty()
        || !written.is_empty()
        || s.having.is_some()
        || targets.iter().any(
            |(t, _)| matches!(t, Target::Expr(e) if contains_own_aggregate(e, &from_scope, 1)),
        )
        || order_by
            .iter()
            .any(|o| contains_own_aggregate(&o.expr, &from_scope, 1));
    let (distinct, distinct_on) = match &s.distinct {
        None | Some(Distinct::All) => (false, None),
        Some(Distinct::Distinct) => (true, None),
        Some(Distinct::On(exprs)) => (false, Some(exprs)),
    };

    let grouping;
    let host;
    let input_host = Host::new(cx, None);
    let windows = Windows::default();
    let grouped_scope;
    let (cx_select, cx_order, base, base_arity, having) = if grouped {
        let mut keys: Vec<Typed> = (0..nd)
            .map(|i| ExprContext::new(&from_scope, "GROUP BY").column(i))
            .collect::<Result<_, _>>()?;
        let mut sets = None;
        match &expanded {
            None => {
                for k in group_keys(group_by, &targets[nd..], &from_scope)? {
                    if !keys.iter().any(|x| x.expr == k.expr) {
                        keys.push(k);
                    }
                }
            }
            Some(expanded) => {
                // Each written expression becomes a key (equal ones once), NULL in the sets
                // that lack it; the set's number is the last key.
                let first = keys.len();
                let mut of_expr = Vec::with_capacity(expanded.exprs.len());
                for e in &expanded.exprs {
                    let k = group_keys(std::slice::from_ref(*e), &targets[nd..], &from_scope)?
                        .remove(0);
                    of_expr.push(match keys[first..].iter().position(|x| x.expr == k.expr) {
                        Some(i) => i,
                        None => {
                            keys.push(k);
                            keys.len() - 1 - first
                        }
                    });
                }
                let n = keys.len() - first;
                let members: Vec<Vec<bool>> = expanded
                    .sets
                    .iter()
                    .map(|set| {
                        (0..n)
                            .map(|j| set.iter().any(|&e| of_expr[e] == j))
                            .collect()
                    })
                    .collect();
                for (j, k) in keys[first..].iter_mut().enumerate() {
                    if members.iter().any(|m| !m[j]) {
                        k.nullable = true;
                    }
                }
                keys.push(crate::grouping_sets::set_key());
                sets = Some(crate::grouping_sets::Sets { members, first });
            }
        }
        grouping = Grouping {
            sets,
            ..Grouping::new(keys)
        };
        grouped_scope = with_outer_aggregates(cx, &from_scope, &grouping, &input_host, outer_aggs)?;
        host = Host::new(cx, Some(&grouping));
        let sel = ExprContext::grouped(&grouped_scope, "SELECT", &grouping)
            .with_host(&host)
            .with_input_host(&input_host);
        let having = s
            .having
            .as_ref()
            .map(|h| {
                ExprContext::grouped(&grouped_scope, "HAVING", &grouping)
                    .with_host(&host)
                    .with_input_host(&input_host)
                    .bind_condition(h)
            })
            .transpose()?;
        (sel, sel, None, 0, having)
    } else {
        host = Host::new(cx, None);
        let sel = ExprContext::new(&from_scope, "SELECT").with_host(&host);
        (sel, sel, Some(input.clone()), from_scope.len(), None)
    };
    let cx_select = ExprContext {
        windows: Some(&windows),
        ..cx_select
    };
    let cx_order = ExprContext {
        windows: Some(&windows),
        ..cx_order
    };
    let mut exprs = Vec::with_capacity(targets.len());
    for (t, _) in &targets {
        exprs.push(match t {
            Target::Expr(e) => cx_select.bind(e)?,
            Target::Column(i) => cx_select.column(*i)?,
        });
    }
    let unknown: Vec<bool> = exprs.iter().map(|t| t.ty.is_none()).collect();
    let mut exprs = resolve_outputs(exprs)?;
    let visible = exprs.len();
    // The select list as written: an ORDER BY or DISTINCT ON expression written as an item is
    // that item (binding it again would not make an equal expression of a subquery).
    let syntax: Vec<Option<&Expr>> = targets
        .iter()
        .map(|(t, _)| match t {
            Target::Expr(e) => Some(*e),
            Target::Column(_) => None,
        })
        .collect();
    let outputs = Outputs {
        names: &names,
        syntax: &syntax,
        nd,
    };
    let mut order = order_by_columns(&cx_order, order_by, &outputs, &mut exprs, distinct)?;
    // DISTINCT ON's own columns come last, so dropping them keeps ORDER BY's.
    let before_on = exprs.len();
    let distinct_on = distinct_on
        .map(|on| distinct_on_columns(&cx_order, on, &outputs, &mut exprs, &order))
        .transpose()?;
    if let Some(p) = position {
        exprs.push(cx_select.column(p)?);
        order.push(ColumnOrder {
            column: exprs.len() - 1,
            desc: false,
            nulls_last: true,
        });
    }

    let (plan, arity) = match base {
        Some(plan) => host.finish(plan, base_arity),
        None => {
            let grouping = cx_select.grouping.expect("grouped");
            let arity = grouping.keys.len() + grouping.aggs.borrow().len();
            let domain = cx.outer.as_ref().map(|o| (o.plan.clone(), nd));
            // The values of subqueries in aggregate arguments join the input first.
            let (input, input_arity) = input_host.finish(input, from_scope.len());
            for slot in grouping.aggs.borrow_mut().iter_mut() {
                place(&mut slot.agg.expr, from_scope.len());
            }
            let reduced = match &grouping.sets {
                None => reduce_plan(input, grouping, domain),
                Some(sets) => {
                    let (input, keys) =
                        crate::grouping_sets::repeat_input(input, input_arity, grouping, sets);
                    let aggs = grouping.aggs.borrow();
                    let defaults: Vec<_> =
                        aggs.iter().map(|a| a.agg.func.default_value()).collect();
                    let reduce = Plan::Reduce {
                        input: Box::new(input),
                        group_key: keys,
                        aggregates: aggs.iter().map(|a| a.agg.clone()).collect(),
                    };
                    crate::grouping_sets::empty_set_rows(
                        reduce,
                        sets,
                        grouping.keys.len(),
                        &defaults,
                        domain,
                    )
                }
            };
            let (reduced, arity_with) = host.finish(reduced, arity);
            let mut preds = having.map(|h| conjuncts(vec![h.expr])).unwrap_or_default();
            preds.iter_mut().for_each(|p| place(p, arity));
            (filter(reduced, preds), arity_with)
        }
    };
    let base_arity = match cx_select.grouping {
        Some(g) => g.keys.len() + g.aggs.borrow().len(),
        None => base_arity,
    };
    for t in &mut exprs {
        place(&mut t.expr, base_arity);
    }
    // Window functions see the rows after grouping and HAVING.
    let (plan, arity) = if windows.is_empty() {
        (plan, arity)
    } else {
        let (plan, with) = windows.finish(plan, arity, base_arity, nd);
        for t in &mut exprs {
            windows.place(&mut t.expr, arity);
        }
        (plan, with)
    };
    let scope = Scope {
        items: names
            .into_iter()
            .zip(&exprs)
            .enumerate()
            .map(|(i, (name, t))| match i < nd {
                true => from_scope.items[i].clone(),
                false => ScopeItem {
                    table: None,
                    name,
                    ty: ColumnType::new(t.ty.expect("resolved"), t.nullable),
                    level: 0,
                    used: UseMark::default(),
                },
            })
            .collect(),
    };
    let total = exprs.len();
    let mut plan = project_exprs(plan, arity, exprs.into_iter().map(|t| t.expr).collect());
    if distinct {
        debug_assert_eq!(total, visible);
        plan = Plan::Distinct {
            input: Box::new(plan),
        };
    }
    if let Some(on) = distinct_on {
        // The first row of each group in ORDER BY order (a correlated subquery's: per outer
        // value too).
        plan = Plan::TopK {
            input: Box::new(plan),
            group_key: (0..nd).chain(on).collect(),
            order_by: order.clone(),
            limit: Some(1),
            offset: 0,
            counts: None,
        };
        if total > before_on {
            plan = Plan::Project {
                input: Box::new(plan),
                outputs: (0..before_on).collect(),
            };
        }
    }
    Ok(SelectPlan {
        plan: crate::fold::plan(plan)?,
        scope,
        order,
        arity: total.min(before_on),
        unknown,
    })
}

fn check_select(s: &Select) -> Result<(), PlanError> {
    let unsupported = |what: &str| Err(PlanError::unsupported(what.to_string()));
    if s.top.is_some() {
        return unsupported("TOP");
    }
    if s.into.is_some() {
        return unsupported("SELECT INTO");
    }
    if !s.named_window.is_empty() {
        return unsupported("window functions");
    }
    if s.flavor != SelectFlavor::Standard
        || !s.lateral_views.is_empty()
        || s.prewhere.is_some()
        || !s.connect_by.is_empty()
        || !s.cluster_by.is_empty()
        || !s.distribute_by.is_empty()
        || !s.sort_by.is_empty()
        || s.qualify.is_some()
        || s.value_table_mode.is_some()
        || s.exclude.is_some()
        || s.select_modifiers.is_some()
        || !s.optimizer_hints.is_empty()
    {
        return Err(PlanError::unsupported(format!("SELECT clause in {s}")));
    }
    Ok(())
}

/// The select list with `*` and `t.*` expanded, each entry with its output name.
fn expand_targets<'e>(
    s: &'e Select,
    scope: &Scope,
) -> Result<Vec<(Target<'e>, String)>, PlanError> {
    let mut out = Vec::new();
    for item in &s.projection {
        match item {
            SelectItem::UnnamedExpr(e) => out.push((Target::Expr(e), default_name(e))),
            SelectItem::ExprWithAlias { expr, alias } => {
                out.push((Target::Expr(expr), fold(alias)))
            }
            SelectItem::Wildcard(opts) => {
                check_wildcard(opts)?;
                if s.from.is_empty() {
                    return Err(PlanError::syntax(
                        "SELECT * with no tables specified is not valid",
                    ));
                }
                for (i, item) in scope.items.iter().enumerate() {
                    // Not the FROM item a select list's set-returning function was moved to.
                    let moved_srf = item.table.as_deref() == Some(crate::select_srf::ALIAS);
                    if item.level == 0 && !moved_srf {
                        out.push((Target::Column(i), item.name.clone()));
                    }
                }
            }
            SelectItem::QualifiedWildcard(kind, opts) => {
                check_wildcard(opts)?;
                let SelectItemQualifiedWildcardKind::ObjectName(name) = kind else {
                    return Err(PlanError::unsupported(format!("select item {item}")));
                };
                let table = object_name(name)?;
                let merged_away = scope.items.iter().any(|i| {
                    i.level == crate::using::HIDDEN && i.table.as_deref() == Some(table.as_str())
                });
                if !scope.has_own_table(&table) && !merged_away {
                    return Err(PlanError::new(
                        "42P01",
                        format!("missing FROM-clause entry for table \"{table}\""),
                    ));
                }
                for (i, item) in scope.items.iter().enumerate() {
                    // `t.*` includes t's columns merged away by USING (see `using.rs`).
                    let own = item.level == 0 || item.level == crate::using::HIDDEN;
                    if own && item.table.as_deref() == Some(table.as_str()) {
                        out.push((Target::Column(i), item.name.clone()));
                    }
                }
            }
            SelectItem::ExprWithAliases { .. } => {
                return Err(PlanError::unsupported(format!("select item {item}")))
            }
        }
    }
    Ok(out)
}

fn check_wildcard(opts: &WildcardAdditionalOptions) -> Result<(), PlanError> {
    if *opts != WildcardAdditionalOptions::default() {
        return Err(PlanError::unsupported(format!("wildcard options {opts}")));
    }
    Ok(())
}

/// PostgreSQL's name for an unaliased select-list expression (`FigureColname`).
pub fn default_name(e: &Expr) -> String {
    figure_name(e).map_or_else(|| "?column?".to_string(), |(name, _)| name)
}

/// A name for `e` with its strength, as PostgreSQL's `FigureColnameInternal` ranks them: 2 for
/// names of columns, functions and subqueries; 1 for the weak names of casts (the type) and
/// CASE (`case`), which a strong name inside them wins over.
fn figure_name(e: &Expr) -> Option<(String, u8)> {
    let strong = |name: &str| Some((name.to_string(), 2));
    match e {
        Expr::Identifier(i) => Some((fold(i), 2)),
        Expr::CompoundIdentifier(parts) => parts.last().map(|p| (fold(p), 2)),
        Expr::Function(f) => function_name(f).ok().map(|n| (n, 2)),
        Expr::Nested(inner) => figure_name(inner),
        Expr::Cast {
            expr, data_type, ..
        } => match figure_name(expr) {
            Some((name, 2)) => Some((name, 2)),
            // A type named by its internal name is named as written (`_int4`, `name`).
            _ => match data_type {
                sqlparser::ast::DataType::Custom(name, _) if scalar_type(data_type).is_ok() => {
                    match name.0.last() {
                        Some(sqlparser::ast::ObjectNamePart::Identifier(i)) => Some((fold(i), 1)),
                        _ => None,
                    }
                }
                _ => scalar_type(data_type)
                    .ok()
                    .map(|t| (internal_name(&t).to_string(), 1)),
            },
        },
        Expr::TypedString(ts) => scalar_type(&ts.data_type)
            .ok()
            .map(|t| (internal_name(&t).to_string(), 1)),
        Expr::Case { else_result, .. } => match else_result.as_deref().and_then(figure_name) {
            Some((name, 2)) => Some((name, 2)),
            _ => Some(("case".into(), 1)),
        },
        // NOT EXISTS is an operator over EXISTS, unnamed like other operators.
        Expr::Exists { negated: false, .. } => strong("exists"),
        // A scalar subquery is named after its (first) output column.
        Expr::Subquery(q) => first_output_name(q).map(|n| (n, 2)),
        Expr::Substring { shorthand, .. } => {
            strong(if *shorthand { "substr" } else { "substring" })
        }
        Expr::Trim { trim_where, .. } => strong(match trim_where {
            Some(TrimWhereField::Leading) => "ltrim",
            Some(TrimWhereField::Trailing) => "rtrim",
            _ => "btrim",
        }),
        Expr::Ceil { .. } => strong("ceil"),
        Expr::Floor { .. } => strong("floor"),
        Expr::Interval(_) => Some(("interval".into(), 1)),
        Expr::Extract { .. } => strong("extract"),
        Expr::AtTimeZone { .. } => strong("timezone"),
        Expr::Position { .. } => strong("position"),
        Expr::Array(_) => strong("array"),
        Expr::CompoundFieldAccess { root, .. } => figure_name(root),
        _ => None,
    }
}

/// The name of a query's first output column, when the AST alone tells it (not for `*`).
fn first_output_name(q: &sqlparser::ast::Query) -> Option<String> {
    let mut body = q.body.as_ref();
    loop {
        match body {
            SetExpr::Select(s) => {
                return match s.projection.first()? {
                    SelectItem::ExprWithAlias { alias, .. } => Some(fold(alias)),
                    SelectItem::UnnamedExpr(e) => Some(default_name(e)),
                    _ => None,
                }
            }
            SetExpr::SetOperation { left, .. } => body = left.as_ref(),
            SetExpr::Query(inner) => body = inner.body.as_ref(),
            _ => return None,
        }
    }
}

/// The FROM scope and a hidden column for each aggregate subqueries take from this query
/// (see `aggregate::outer_aggregate`), registered with the grouping.
fn with_outer_aggregates(
    cx: &QueryContext<'_>,
    from_scope: &Scope,
    grouping: &Grouping,
    input_host: &Host<'_>,
    calls: &[String],
) -> Result<Scope, PlanError> {
    let mut scope = from_scope.clone();
    for call in calls {
        let e = Parser::new(&PostgreSqlDialect {})
            .try_with_sql(call)
            .and_then(|mut p| p.parse_expr())
            .map_err(|e| {
                PlanError::new("XX000", format!("aggregate {call} does not parse: {e}"))
            })?;
        let t = ExprContext::grouped(from_scope, "SELECT", grouping)
            .with_catalog(cx.catalog)
            .with_input_host(input_host)
            .bind(&e)?;
        grouping.outer.borrow_mut().push((scope.len(), t.clone()));
        scope.items.push(ScopeItem {
            table: None,
            name: crate::aggregate::outer_aggregate_column(call),
            ty: ColumnType::new(t.ty.unwrap_or(ScalarType::Text), t.nullable),
            level: 0,
            used: UseMark::default(),
        });
    }
    Ok(scope)
}

/// GROUP BY items: output positions, output names not naming an input column, or
/// expressions over the FROM scope.
fn group_keys(
    group_by: &[Expr],
    targets: &[(Target<'_>, String)],
    scope: &Scope,
) -> Result<Vec<Typed>, PlanError> {
    let cx = ExprContext::new(scope, "GROUP BY");
    let bind_target = |t: &Target<'_>| match t {
        Target::Expr(e) => cx.bind(e),
        Target::Column(i) => cx.column(*i),
    };
    let mut keys: Vec<Typed> = Vec::new();
    for g in group_by {
        non_integer_constant(g, "GROUP BY")?;
        let key = match g {
            Expr::Value(v) if matches!(v.value, Value::Number(..)) => {
                let i = ordinal(&v.value, targets.len(), "GROUP BY")?;
                bind_target(&targets[i].0)?
            }
            Expr::Identifier(id) => match cx.bind(g) {
                Err(e) if e.code == "42703" => {
                    let name = fold(id);
                    match targets.iter().find(|(_, n)| *n == name) {
                        Some((t, _)) => bind_target(t)?,
                        None => return Err(e),
                    }
                }
                other => other?,
            },
            _ => cx.bind(g)?,
        };
        let key = resolve_unknown(key)?;
        if !keys.iter().any(|k| k.expr == key.expr) {
            keys.push(key);
        }
    }
    Ok(keys)
}

/// PostgreSQL refuses a constant other than a position in GROUP BY and ORDER BY.
fn non_integer_constant(e: &Expr, clause: &str) -> Result<(), PlanError> {
    match e {
        // A parameter is an expression there (a constant sort key), as in PostgreSQL.
        Expr::Value(v) if !matches!(v.value, Value::Number(..) | Value::Placeholder(_)) => Err(
            PlanError::syntax(format!("non-integer constant in {clause}")),
        ),
        _ => Ok(()),
    }
}

/// ASC/DESC and NULLS FIRST/LAST, with PostgreSQL's default (NULLS LAST for ASC).
pub fn order_options(item: &OrderByExpr) -> Result<(bool, bool), PlanError> {
    if item.with_fill.is_some() {
        return Err(PlanError::unsupported("WITH FILL"));
    }
    let desc = match &item.options.sort {
        None | Some(OrderBySort::Asc) => false,
        Some(OrderBySort::Desc) => true,
        Some(OrderBySort::Using(_)) => return Err(PlanError::unsupported("ORDER BY ... USING")),
    };
    let nulls_first = item.options.nulls_first.unwrap_or(desc);
    Ok((desc, !nulls_first))
}

/// The columns of `SELECT DISTINCT ON (exprs)`, resolved as ORDER BY items are (appended to
/// `exprs` when not in the select list). As in PostgreSQL, the leading ORDER BY items must be
/// among them (42P10): the order then picks one row per group.
fn distinct_on_columns(
    cx: &ExprContext<'_>,
    on: &[Expr],
    outputs: &Outputs<'_>,
    exprs: &mut Vec<Typed>,
    order: &[ColumnOrder],
) -> Result<Vec<usize>, PlanError> {
    let items: Vec<OrderByExpr> = on
        .iter()
        .map(|e| OrderByExpr {
            expr: e.clone(),
            options: sqlparser::ast::OrderByOptions {
                sort: None,
                nulls_first: None,
            },
            with_fill: None,
        })
        .collect();
    let mut columns: Vec<usize> = Vec::new();
    for o in order_by_columns(cx, &items, outputs, exprs, false)? {
        if !columns.contains(&o.column) {
            columns.push(o.column);
        }
    }
    if order
        .iter()
        .take(columns.len())
        .any(|o| !columns.contains(&o.column))
    {
        return Err(PlanError::new(
            "42P10",
            "SELECT DISTINCT ON expressions must match initial ORDER BY expressions",
        ));
    }
    Ok(columns)
}

/// The output columns ORDER BY and DISTINCT ON items refer to: their names, their select-list
/// expressions as written (`None` for a `*` column), and how many leading columns (a
/// correlated subquery's domain) names and positions do not see.
struct Outputs<'a> {
    names: &'a [String],
    syntax: &'a [Option<&'a Expr>],
    nd: usize,
}

/// Resolves ORDER BY items to output columns, appending hidden columns to `exprs` as needed.
fn order_by_columns(
    cx: &ExprContext<'_>,
    items: &[OrderByExpr],
    outputs: &Outputs<'_>,
    exprs: &mut Vec<Typed>,
    distinct: bool,
) -> Result<Vec<ColumnOrder>, PlanError> {
    let (names, nd) = (outputs.names, outputs.nd);
    let visible = names.len();
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        non_integer_constant(&item.expr, "ORDER BY")?;
        let (desc, nulls_last) = order_options(item)?;
        let by_name = match &item.expr {
            Expr::Identifier(id) => {
                let name = fold(id);
                let matches: Vec<usize> = (nd..visible).filter(|&i| names[i] == name).collect();
                match matches.as_slice() {
                    [] => None,
                    [first, rest @ ..] => {
                        if rest.iter().any(|&i| exprs[i].expr != exprs[*first].expr) {
                            return Err(PlanError::new(
                                "42702",
                                format!("ORDER BY \"{name}\" is ambiguous"),
                            ));
                        }
                        Some(*first)
                    }
                }
            }
            _ => None,
        };
        let column =
            match (&item.expr, by_name) {
                (_, Some(i)) => i,
                (Expr::Value(v), None) if matches!(v.value, Value::Number(..)) => {
                    nd + ordinal(&v.value, visible - nd, "ORDER BY")?
                }
                (e, None) if (nd..visible).any(|i| outputs.syntax.get(i) == Some(&Some(e))) => (nd
                    ..visible)
                    .find(|&i| outputs.syntax.get(i) == Some(&Some(e)))
                    .expect("found"),
                (e, None) => {
                    let t = resolve_unknown(cx.bind(e)?)?;
                    match exprs.iter().position(|x| x.expr == t.expr) {
                        Some(i) => i,
                        None if distinct => return Err(PlanError::new(
                            "42P10",
                            "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                        )),
                        None => {
                            exprs.push(t);
                            exprs.len() - 1
                        }
                    }
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
