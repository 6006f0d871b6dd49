//! Grouping and aggregates: GROUP BY keys, aggregate calls, and the `Reduce` they become.
//!
//! A grouped query is bound in two layers. GROUP BY keys and aggregate arguments are bound over
//! the FROM scope; everything after the grouping (SELECT list, HAVING, ORDER BY) is bound over
//! the output of a `Reduce` whose columns are the keys followed by the aggregates, which the
//! `Grouping` collects as the expressions are bound (identical calls share one column).
//!
//! A reduction with no keys emits nothing for an empty input, but SQL's global aggregates
//! return one row (count = 0, sum = NULL). `reduce_plan` renders them as
//! `Reduce ∪ (Constant(defaults) − defaults-of-Reduce)`: the constant row of defaults is
//! cancelled exactly when the reduction has a row.

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::func::{no_function, Args, AGGREGATES};
use crate::ops;
use crate::types::{coerce, CastContext, Typed};
use kpg_types::agg::Dispersion;
use kpg_types::{
    AggregateExpr, AggregateFunc, BinaryFunc, Datum, Plan, Row, ScalarExpr, ScalarType, UnaryFunc,
};
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, OrderByExpr};
use std::cell::RefCell;

mod array_agg;
mod string_agg;

/// One aggregate column of the reduction.
#[derive(Clone, Debug, PartialEq)]
pub struct AggSlot {
    pub agg: AggregateExpr,
    pub ty: ScalarType,
    pub nullable: bool,
}

/// The keys of a grouped query (bound over the FROM scope) and the aggregates found so far.
#[derive(Debug, Default)]
pub struct Grouping {
    pub keys: Vec<Typed>,
    pub aggs: RefCell<Vec<AggSlot>>,
    /// Aggregates that subqueries read as outer columns: the scope column standing for each
    /// (see `OUTER_AGGREGATE`), and its column of the reduction.
    pub outer: RefCell<Vec<(usize, Typed)>>,
    /// With GROUPING SETS, ROLLUP or CUBE: the sets (the last key is the set's number).
    pub sets: Option<crate::grouping_sets::Sets>,
}

/// The names of the hidden scope columns through which subqueries read an aggregate of the
/// enclosing query start with this, followed by the aggregate's SQL text.
pub const OUTER_AGGREGATE: &str = "?aggregate ";

/// The name of the hidden scope column standing for the aggregate call `call`.
pub fn outer_aggregate_column(call: &str) -> String {
    format!("{OUTER_AGGREGATE}{call}")
}

impl Grouping {
    pub fn new(keys: Vec<Typed>) -> Self {
        Grouping {
            keys,
            aggs: RefCell::new(Vec::new()),
            outer: RefCell::new(Vec::new()),
            sets: None,
        }
    }

    /// If `e` (over the FROM scope) is a grouping key, the key's column of the reduction.
    pub fn key_column(&self, e: &ScalarExpr) -> Option<Typed> {
        if e.is_constant() {
            return None;
        }
        if let ScalarExpr::Column(c) = e {
            let outer = self.outer.borrow();
            if let Some((_, t)) = outer.iter().find(|(o, _)| o == c) {
                return Some(t.clone());
            }
        }
        let i = self.keys.iter().position(|k| &k.expr == e)?;
        let k = &self.keys[i];
        Some(Typed {
            expr: ScalarExpr::Column(i),
            ty: k.ty,
            nullable: k.nullable,
        })
    }

    /// Adds an aggregate (or finds an identical one) and returns its column. Identical means
    /// of the same type too: `max(NULL::date)` and `max(d - NULL::date)` both fold to `max` of
    /// a NULL literal, but one is a date and the other an integer.
    fn add(&self, slot: AggSlot) -> Typed {
        let mut aggs = self.aggs.borrow_mut();
        let i = match aggs
            .iter()
            .position(|a| a.agg == slot.agg && a.ty == slot.ty)
        {
            Some(i) => i,
            None => {
                aggs.push(slot.clone());
                aggs.len() - 1
            }
        };
        Typed::new(
            ScalarExpr::Column(self.keys.len() + i),
            aggs[i].ty,
            aggs[i].nullable,
        )
    }
}

/// An aggregate call inside a subquery whose arguments read only enclosing queries' columns
/// belongs to an enclosing query, as in PostgreSQL: the nearest one whose columns it reads
/// (`aggregate_level`). It is computed per group there and the subquery reads its value like
/// an outer column. The first time, this raises an error that `select::plan_select` of that
/// query catches: it plans itself again with a hidden column for the aggregate (named
/// `OUTER_AGGREGATE` and the call's text), which this then finds. `None` for an aggregate of
/// this query.
pub fn outer_aggregate(
    cx: &ExprContext<'_>,
    call: &sqlparser::ast::Function,
    args: &Args<'_>,
) -> Result<Option<Typed>, PlanError> {
    let text = call.to_string();
    let name = outer_aggregate_column(&text);
    // Once the enclosing query computes it, its column is in scope (and the columns the
    // arguments read may no longer be).
    if let Some(i) = (0..cx.scope.len())
        .filter(|&i| cx.scope.items[i].is_outer() && cx.scope.items[i].name == name)
        .min_by_key(|&i| cx.scope.items[i].level)
    {
        let item = &cx.scope.items[i];
        item.used.set();
        return Ok(Some(Typed::new(
            ScalarExpr::Column(i),
            item.ty.scalar,
            item.ty.nullable,
        )));
    }
    let Some(level) = aggregate_level(cx, args, call.filter.as_deref()) else {
        return Ok(None);
    };
    Err(PlanError {
        outer_aggregate: Some((text.clone(), level)),
        ..PlanError::unsupported(format!("{text} of an enclosing query"))
    })
}

/// The query an aggregate call belongs to, by PostgreSQL's rule: the nearest level whose
/// columns its arguments or FILTER read, looking into their subqueries too (a column a nested
/// subquery reads from its own FROM items does not count). `None` when that is this query:
/// it reads one of this query's columns, or no column at all. The arguments are bound once
/// over a copy of the scope whose columns carry fresh use marks, against a throwaway host.
fn aggregate_level(cx: &ExprContext<'_>, args: &Args<'_>, filter: Option<&Expr>) -> Option<usize> {
    if !cx.scope.items.iter().any(|item| item.is_outer()) {
        return None;
    }
    let exprs: Vec<&Expr> = match args {
        Args::Star => Vec::new(),
        Args::Exprs(exprs) => exprs.clone(),
    };
    let exprs: Vec<&Expr> = exprs.into_iter().chain(filter).collect();
    let scope = crate::scope::Scope {
        items: cx
            .scope
            .items
            .iter()
            .map(|item| crate::scope::ScopeItem {
                used: crate::scope::UseMark::tracked(),
                ..item.clone()
            })
            .collect(),
    };
    let host = cx.input_host.or(cx.host).map(|h| h.probe());
    let probe = ExprContext {
        scope: &scope,
        in_aggregate: true,
        host: host.as_ref(),
        input_host: None,
        guard: None,
        ..cx.ungrouped()
    };
    for e in exprs {
        // An argument that does not bind raises its error when bound for real.
        probe.bind(e).ok()?;
    }
    scope
        .items
        .iter()
        .filter(|item| item.used.is_set())
        .map(crate::scope::ScopeItem::query_level)
        .min()
        .filter(|&level| level > 0)
}

/// Binds an aggregate call in a grouped context. With `FILTER (WHERE cond)`, the argument is
/// NULL (which every aggregate here skips) on rows where `cond` is not TRUE.
pub fn bind_aggregate(
    cx: &ExprContext<'_>,
    name: &str,
    args: Args<'_>,
    distinct: bool,
    filter: Option<&Expr>,
) -> Result<Typed, PlanError> {
    bind_ordered_aggregate(cx, name, args, distinct, filter, &[])
}

/// `bind_aggregate` with the ORDER BY given inside the call (only string_agg has one).
pub fn bind_ordered_aggregate(
    cx: &ExprContext<'_>,
    name: &str,
    args: Args<'_>,
    distinct: bool,
    filter: Option<&Expr>,
    order_by: &[OrderByExpr],
) -> Result<Typed, PlanError> {
    if cx.in_aggregate {
        return Err(PlanError::grouping(
            "aggregate function calls cannot be nested",
        ));
    }
    let Some(grouping) = cx.grouping else {
        return Err(PlanError::grouping(format!(
            "aggregate functions are not allowed in {}",
            cx.clause
        )));
    };
    // The arguments are evaluated over the grouped query's input, where the values of their
    // subqueries are joined.
    let inner = ExprContext {
        in_aggregate: true,
        host: cx.input_host,
        ..cx.ungrouped()
    };
    let only_if = filter
        .map(|f| {
            ExprContext {
                clause: "FILTER",
                host: cx.input_host,
                ..cx.ungrouped()
            }
            .bind_condition(f)
        })
        .transpose()?;
    let filtered = |e: ScalarExpr| match &only_if {
        None => e,
        Some(cond) => ScalarExpr::If {
            cond: Box::new(cond.expr.clone()),
            then: Box::new(e),
            els: Box::new(ScalarExpr::Literal(Datum::Null)),
        },
    };
    if matches!(
        name,
        "string_agg" | "array_agg" | "jsonb_agg" | "jsonb_object_agg"
    ) {
        let Args::Exprs(exprs) = args else {
            return Err(PlanError::undefined_function(format!(
                "function {name}() does not exist"
            )));
        };
        if name.starts_with("jsonb") && distinct {
            // The values are aggregated as jsonb, whose order and equality are not their
            // own (arrays, NaN, dates past 9999 order differently).
            return Err(PlanError::unsupported(format!("{name}(DISTINCT ...)")));
        }
        let mut args: Vec<Typed> = exprs
            .iter()
            .map(|e| inner.bind(e))
            .collect::<Result<_, _>>()?;
        let to_jsonb = |t: Typed| {
            crate::scalar_funcs::call("to_jsonb", vec![t])
                .map(|j| j.expect("to_jsonb takes one argument"))
        };
        let (func, input, ty) = match name {
            "string_agg" => {
                crate::types::refuse_bytea(name, &args.iter().collect::<Vec<_>>())?;
                let (func, input) = string_agg::input(&inner, args, distinct, order_by)?;
                (func, input, ScalarType::Text)
            }
            _ => {
                if name == "jsonb_agg" {
                    // to_jsonb(array_agg(to_jsonb(x))): a NULL input is a JSON null, no
                    // rows NULL.
                    let [x] = <[Typed; 1]>::try_from(args.clone())
                        .map_err(|_| no_function(name, &args))?;
                    args = vec![to_jsonb(x)?];
                }
                if name == "jsonb_object_agg" {
                    // The [key, value] pairs aggregated, made an object at the end.
                    if args.len() != 2 {
                        return Err(no_function(name, &args));
                    }
                    let key = crate::scalar_funcs::jsonb_build::object_key(name, args.remove(0))?;
                    let pair =
                        crate::scalar_funcs::call("jsonb_build_array", vec![key, args.remove(0)])?
                            .expect("jsonb_build_array takes any arguments");
                    args = vec![pair];
                }
                array_agg::input(&inner, args, distinct, order_by)?
            }
        };
        let slot = grouping.add(AggSlot {
            agg: AggregateExpr {
                func,
                expr: filtered(input),
                distinct,
            },
            ty,
            nullable: true,
        });
        return match name {
            "jsonb_agg" => to_jsonb(slot),
            "jsonb_object_agg" => {
                crate::builtin::unary(slot, UnaryFunc::JsonbObjectOfPairs, ScalarType::Jsonb)
            }
            _ => Ok(slot),
        };
    }
    let arg = match args {
        Args::Star if name == "count" => {
            return Ok(grouping.add(AggSlot {
                agg: AggregateExpr {
                    func: AggregateFunc::Count,
                    expr: filtered(ScalarExpr::literal_true()),
                    distinct: false,
                },
                ty: ScalarType::Int64,
                nullable: false,
            }))
        }
        Args::Star => {
            return Err(PlanError::undefined_function(format!(
                "function {name}(*) does not exist"
            )))
        }
        Args::Exprs(exprs) => {
            let args: Vec<Typed> = exprs
                .iter()
                .map(|e| inner.bind(e))
                .collect::<Result<_, _>>()?;
            if args.len() != 1 {
                return Err(no_function(name, &args));
            }
            let arg = args.into_iter().next().expect("one argument");
            match only_if {
                None => arg,
                Some(_) => Typed {
                    expr: filtered(arg.expr),
                    nullable: true,
                    ..arg
                },
            }
        }
    };
    let slot = |func, arg: Typed, ty, nullable| AggSlot {
        agg: AggregateExpr {
            func,
            expr: arg.expr,
            distinct,
        },
        ty,
        nullable,
    };
    let not_unique = || PlanError::new("42725", format!("function {name}(unknown) is not unique"));
    match name {
        "count" => Ok(grouping.add(slot(AggregateFunc::Count, arg, ScalarType::Int64, false))),
        "sum" => {
            let arg = widened(arg, ScalarType::Int16, ScalarType::Int32)?;
            // A time is summed as the interval it converts to implicitly, as in PostgreSQL.
            let arg = widened(arg, ScalarType::Time, ScalarType::Interval)?;
            let (func, ty) = match arg.ty {
                Some(ScalarType::Int32) => (AggregateFunc::SumInt32, ScalarType::Int64),
                Some(ScalarType::Int64) => (AggregateFunc::SumInt64, ScalarType::NUMERIC),
                Some(ScalarType::Numeric { .. }) => {
                    (AggregateFunc::SumNumeric, ScalarType::NUMERIC)
                }
                Some(ScalarType::Float32) => (AggregateFunc::SumFloat32, ScalarType::Float32),
                Some(ScalarType::Float64) => (AggregateFunc::SumFloat64, ScalarType::Float64),
                Some(ScalarType::Interval) => (AggregateFunc::SumInterval, ScalarType::Interval),
                None => return Err(not_unique()),
                Some(_) => return Err(no_function(name, &[arg])),
            };
            Ok(grouping.add(slot(func, arg, ty, true)))
        }
        "min" | "max" => {
            let arg = match arg.ty {
                None => coerce(arg, &ScalarType::Text, CastContext::Implicit)?.expect("unknown"),
                // PostgreSQL 15 has no min or max of these.
                Some(ScalarType::Bool | ScalarType::Uuid | ScalarType::Bytea) => {
                    return Err(no_function(name, &[arg]))
                }
                Some(_) => arg,
            };
            let func = if name == "min" {
                AggregateFunc::Min
            } else {
                AggregateFunc::Max
            };
            // PostgreSQL's min/max take the base type: varchar becomes text, typmods vanish.
            let ty = arg.ty.expect("typed").base();
            Ok(grouping.add(slot(func, arg, ty, true)))
        }
        "bool_and" | "bool_or" | "every" => {
            let arg = match arg.ty {
                None => coerce(arg, &ScalarType::Bool, CastContext::Implicit)?.expect("unknown"),
                Some(ScalarType::Bool) => arg,
                Some(_) => return Err(no_function(name, &[arg])),
            };
            let func = if name == "bool_or" {
                AggregateFunc::BoolOr
            } else {
                AggregateFunc::BoolAnd
            };
            Ok(grouping.add(slot(func, arg, ScalarType::Bool, true)))
        }
        "avg" => avg(grouping, arg, distinct),
        "stddev" | "stddev_samp" | "stddev_pop" | "variance" | "var_samp" | "var_pop" => {
            let kind = match name {
                "stddev" | "stddev_samp" => Dispersion::StddevSamp,
                "stddev_pop" => Dispersion::StddevPop,
                "variance" | "var_samp" => Dispersion::VarSamp,
                _ => Dispersion::VarPop,
            };
            // Exact numbers give numeric, floats double precision (real computed in it). Every
            // form takes a number, so an unknown literal is double precision, the preferred one.
            let arg = match arg.ty {
                None => coerce(arg, &ScalarType::Float64, CastContext::Implicit)?.expect("unknown"),
                _ => widened(arg, ScalarType::Float32, ScalarType::Float64)?,
            };
            let (func, ty) = match arg.ty {
                Some(ScalarType::Int16 | ScalarType::Int32 | ScalarType::Int64) => {
                    (AggregateFunc::VarianceNumeric(kind), ScalarType::NUMERIC)
                }
                Some(ScalarType::Numeric { .. }) => {
                    (AggregateFunc::VarianceNumeric(kind), ScalarType::NUMERIC)
                }
                Some(ScalarType::Float64) => {
                    (AggregateFunc::VarianceFloat(kind), ScalarType::Float64)
                }
                None => return Err(not_unique()),
                Some(_) => return Err(no_function(name, &[arg])),
            };
            Ok(grouping.add(slot(func, arg, ty, true)))
        }
        other => unreachable!("{other} is listed in AGGREGATES and bound above"),
    }
}

/// `arg` converted to `to` when it is a `from`.
fn widened(arg: Typed, from: ScalarType, to: ScalarType) -> Result<Typed, PlanError> {
    if arg.ty == Some(from) {
        Ok(coerce(arg, &to, CastContext::Implicit)?.expect("numbers widen"))
    } else {
        Ok(arg)
    }
}

/// avg(x) = sum(x) / count(x), NULL over no rows; numeric for exact inputs (with PostgreSQL's
/// division scale), double precision for floats, interval for intervals.
fn avg(grouping: &Grouping, arg: Typed, distinct: bool) -> Result<Typed, PlanError> {
    // avg(smallint) is avg(integer); avg(real) is computed, and returned, in double precision.
    let arg = widened(arg, ScalarType::Int16, ScalarType::Int32)?;
    let arg = widened(arg, ScalarType::Float32, ScalarType::Float64)?;
    let arg = widened(arg, ScalarType::Time, ScalarType::Interval)?;
    let (sum_func, sum_ty, out) = match arg.ty {
        Some(ScalarType::Int32) => (
            AggregateFunc::SumInt32,
            ScalarType::Int64,
            ScalarType::NUMERIC,
        ),
        Some(ScalarType::Int64) => (
            AggregateFunc::SumInt64,
            ScalarType::NUMERIC,
            ScalarType::NUMERIC,
        ),
        Some(ScalarType::Numeric { .. }) => (
            AggregateFunc::SumNumeric,
            ScalarType::NUMERIC,
            ScalarType::NUMERIC,
        ),
        Some(ScalarType::Float64) => (
            AggregateFunc::SumFloat64,
            ScalarType::Float64,
            ScalarType::Float64,
        ),
        Some(ScalarType::Interval) => (
            AggregateFunc::SumInterval,
            ScalarType::Interval,
            ScalarType::Interval,
        ),
        None => {
            return Err(PlanError::new(
                "42725",
                "function avg(unknown) is not unique",
            ))
        }
        Some(_) => return Err(no_function("avg", &[arg])),
    };
    let count = grouping.add(AggSlot {
        agg: AggregateExpr {
            func: AggregateFunc::Count,
            expr: arg.expr.clone(),
            distinct,
        },
        ty: ScalarType::Int64,
        nullable: false,
    });
    let sum = grouping.add(AggSlot {
        agg: AggregateExpr {
            func: sum_func,
            expr: arg.expr,
            distinct,
        },
        ty: sum_ty,
        nullable: true,
    });
    let as_out = |e: ScalarExpr, ty: ScalarType| {
        if ty == out {
            e
        } else {
            e.call_unary(UnaryFunc::Cast(out))
        }
    };
    // avg(interval) divides the sum by the count in double precision, as PostgreSQL.
    let quotient = if out == ScalarType::Interval {
        sum.expr.call_binary(
            BinaryFunc::DivInterval,
            count
                .expr
                .clone()
                .call_unary(UnaryFunc::Cast(ScalarType::Float64)),
        )
    } else {
        as_out(sum.expr, sum_ty).call_binary(
            BinaryFunc::Div,
            as_out(count.expr.clone(), ScalarType::Int64),
        )
    };
    let expr = ScalarExpr::If {
        cond: Box::new(
            count
                .expr
                .call_binary(BinaryFunc::Eq, ScalarExpr::Literal(Datum::Int64(0))),
        ),
        then: Box::new(ScalarExpr::Literal(Datum::Null)),
        els: Box::new(quotient),
    };
    Ok(Typed::new(ops::fold_deep(expr)?, out, true))
}

/// The reduction of a grouped query; with no keys, one row of defaults over empty input.
///
/// In a correlated subquery (`domain` is its plan of outer values and their number), the
/// outer values are the leading keys; when they are the only keys, every outer value gets a
/// row of defaults when it has no input rows.
pub fn reduce_plan(input: Plan, grouping: &Grouping, domain: Option<(Plan, usize)>) -> Plan {
    let aggs: Vec<AggSlot> = grouping.aggs.borrow().clone();
    let reduce = Plan::Reduce {
        input: Box::new(input),
        group_key: grouping.keys.iter().map(|k| k.expr.clone()).collect(),
        aggregates: aggs.iter().map(|a| a.agg.clone()).collect(),
    };
    let defaults: Vec<Datum> = aggs.iter().map(|a| a.agg.func.default_value()).collect();
    if let Some((domain, nd)) = domain {
        if grouping.keys.len() == nd {
            let missing = Plan::Union {
                inputs: vec![
                    domain,
                    Plan::Negate {
                        input: Box::new(Plan::Project {
                            input: Box::new(reduce.clone()),
                            outputs: (0..nd).collect(),
                        }),
                    },
                ],
            };
            return Plan::Union {
                inputs: vec![
                    reduce,
                    Plan::Map {
                        input: Box::new(missing),
                        exprs: defaults.into_iter().map(ScalarExpr::Literal).collect(),
                    },
                ],
            };
        }
    }
    if !grouping.keys.is_empty() {
        return reduce;
    }
    let n = aggs.len();
    let defaults_of_reduce = Plan::Project {
        input: Box::new(Plan::Map {
            input: Box::new(reduce.clone()),
            exprs: defaults.iter().cloned().map(ScalarExpr::Literal).collect(),
        }),
        outputs: (n..2 * n).collect(),
    };
    Plan::Union {
        inputs: vec![
            reduce,
            Plan::Constant {
                rows: vec![(Row::new(defaults), 1)],
            },
            Plan::Negate {
                input: Box::new(defaults_of_reduce),
            },
        ],
    }
}

/// Whether an expression calls an aggregate (not looking into subqueries: their aggregates
/// are their own).
pub fn contains_aggregate(e: &Expr) -> bool {
    calls_aggregate(e, &|_| false)
}

/// Whether an expression calls a window function (`f(...) OVER (...)`), not looking into
/// subqueries.
pub fn contains_window(e: &Expr) -> bool {
    calls(e, &|f| f.over.is_some())
}

/// Whether an expression calls an aggregate of its own query: not one that the enclosing
/// query computes (a column of `scope` at `level`, the enclosing query's level seen from
/// the expression, stands for it: see `outer_aggregate`).
pub fn contains_own_aggregate(e: &Expr, scope: &crate::scope::Scope, level: usize) -> bool {
    let outer = |f: &sqlparser::ast::Function| {
        let name = outer_aggregate_column(&f.to_string());
        scope
            .items
            .iter()
            .any(|i| i.level >= level && i.level < crate::using::HIDDEN && i.name == name)
    };
    calls_aggregate(e, &outer)
}

/// Whether an expression calls an aggregate for which `skip` is false.
fn calls_aggregate(e: &Expr, skip: &dyn Fn(&sqlparser::ast::Function) -> bool) -> bool {
    calls(e, &|f| {
        let name = crate::func::function_name(f).unwrap_or_default();
        AGGREGATES.contains(&name.as_str()) && f.over.is_none() && !skip(f)
    })
}

/// Whether an expression holds a call for which `found` is true (not looking into
/// subqueries).
fn calls(e: &Expr, found: &dyn Fn(&sqlparser::ast::Function) -> bool) -> bool {
    let contains_aggregate = |e: &Expr| calls(e, found);
    let any = |es: &[&Expr]| es.iter().any(|e| contains_aggregate(e));
    match e {
        Expr::Function(f) => {
            if found(f) {
                return true;
            }
            match &f.args {
                FunctionArguments::List(l) => l.args.iter().any(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => contains_aggregate(e),
                    _ => false,
                }),
                _ => false,
            }
        }
        Expr::BinaryOp { left, right, .. } => any(&[left, right]),
        Expr::UnaryOp { expr, .. }
        | Expr::Nested(expr)
        | Expr::Cast { expr, .. }
        | Expr::Ceil { expr, .. }
        | Expr::Floor { expr, .. }
        | Expr::Extract { expr, .. }
        | Expr::Collate { expr, .. }
        | Expr::InSubquery { expr, .. }
        | Expr::IsNull(expr)
        | Expr::IsNotNull(expr)
        | Expr::IsTrue(expr)
        | Expr::IsNotTrue(expr)
        | Expr::IsFalse(expr)
        | Expr::IsNotFalse(expr)
        | Expr::IsUnknown(expr)
        | Expr::IsNotUnknown(expr) => contains_aggregate(expr),
        Expr::IsDistinctFrom(l, r) | Expr::IsNotDistinctFrom(l, r) => any(&[l, r]),
        Expr::AnyOp { left, right, .. } | Expr::AllOp { left, right, .. } => any(&[left, right]),
        Expr::AtTimeZone {
            timestamp,
            time_zone,
        } => any(&[timestamp, time_zone]),
        Expr::Position { expr, r#in } => any(&[expr, r#in]),
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            contains_aggregate(expr)
                || substring_from.as_deref().is_some_and(contains_aggregate)
                || substring_for.as_deref().is_some_and(contains_aggregate)
        }
        Expr::Trim {
            expr, trim_what, ..
        } => contains_aggregate(expr) || trim_what.as_deref().is_some_and(contains_aggregate),
        Expr::InList { expr, list, .. } => {
            contains_aggregate(expr) || list.iter().any(contains_aggregate)
        }
        Expr::Tuple(items) => items.iter().any(contains_aggregate),
        Expr::Between {
            expr, low, high, ..
        } => any(&[expr, low, high]),
        Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
            any(&[expr, pattern])
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_deref().is_some_and(contains_aggregate)
                || else_result.as_deref().is_some_and(contains_aggregate)
                || conditions
                    .iter()
                    .any(|w| contains_aggregate(&w.condition) || contains_aggregate(&w.result))
        }
        _ => false,
    }
}
