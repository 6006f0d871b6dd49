//! Window function calls (`f(...) OVER (PARTITION BY ... ORDER BY ... frame)`) of one SELECT
//! block, and the `Plan::Window` nodes that compute them.
//!
//! Window functions run after grouping and HAVING and before DISTINCT and ORDER BY, so their
//! arguments, PARTITION BY and ORDER BY are bound like select-list expressions (over the
//! grouped scope in a grouped query: `rank() OVER (ORDER BY sum(x))`). While the select list
//! is bound, each call is registered in `Windows` and stands for a placeholder column numbered
//! from `WINDOW_COLUMNS`; `Windows::finish` then appends one `Plan::Window` per function to
//! the block's plan (its expressions mapped in first and projected away after), and
//! `Windows::place` moves the placeholders to the columns they land in.
//!
//! An aggregate with OVER is bound by `aggregate::bind_aggregate` against arguments that are
//! columns of a scratch scope: its slots (avg is a sum and a count) become window functions
//! over the frame, and the expression it returns over them is the call's value.

use std::cell::{Cell, RefCell};

use kpg_types::plan::ColumnOrder;
use kpg_types::window::{WindowExpr, WindowFrame, WindowFunc};
use kpg_types::{Plan, ScalarExpr, ScalarType};
use sqlparser::ast::{Expr, Function, Ident, WindowType};

mod frame;

use crate::aggregate::Grouping;
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::func::{call_args, no_function, Args, AGGREGATES};
use crate::scope::{Scope, ScopeItem, UseMark};
use crate::select::order_options;
use crate::types::{coerce, coerce_all, common_type, resolve_unknown, CastContext, Typed};

/// Placeholder columns for window values are numbered from here (below the subquery columns
/// of `subquery::SUBQUERY_COLUMNS`, above any real column).
pub const WINDOW_COLUMNS: usize = 1 << 22;

/// One window function column: the window's PARTITION BY and ORDER BY, and the function's
/// arguments, all over the block's rows before the window.
struct Node {
    partition: Vec<ScalarExpr>,
    order: Vec<(ScalarExpr, bool, bool)>,
    args: Vec<ScalarExpr>,
    /// For an aggregate, its expression reads `args` as columns `0..args.len()`.
    func: WindowFunc,
    frame: WindowFrame,
}

/// The window function calls of one SELECT block.
#[derive(Default)]
pub struct Windows {
    nodes: RefCell<Vec<Node>>,
    binding: Cell<bool>,
}

impl Windows {
    pub fn is_empty(&self) -> bool {
        self.nodes.borrow().is_empty()
    }

    /// Appends the window columns to `plan` (of `arity` columns, whose expressions were bound
    /// with subquery columns placed after `base_arity`); returns the plan and its arity. In a
    /// correlated subquery the first `nd` columns are the outer values: every window is
    /// partitioned by them too, since the subquery runs once per outer row.
    pub fn finish(
        &self,
        mut plan: Plan,
        arity: usize,
        base_arity: usize,
        nd: usize,
    ) -> (Plan, usize) {
        let nodes = self.nodes.borrow();
        for (i, node) in nodes.iter().enumerate() {
            let at = arity + i;
            let mut exprs: Vec<ScalarExpr> = node
                .partition
                .iter()
                .chain(node.order.iter().map(|(e, _, _)| e))
                .chain(&node.args)
                .cloned()
                .collect();
            for e in &mut exprs {
                crate::subquery::place(e, base_arity);
                self.place(e, arity);
            }
            let np = node.partition.len();
            let no = node.order.len();
            let first_arg = at + np + no;
            let func = match &node.func {
                WindowFunc::Aggregate(agg) => {
                    let mut agg = agg.clone();
                    agg.expr.map_columns(&|c| first_arg + c);
                    WindowFunc::Aggregate(agg)
                }
                f => f.clone(),
            };
            // RANGE offsets' columns are among the arguments too.
            let mut frame = node.frame;
            for b in [&mut frame.start, &mut frame.end] {
                b.shift_column(first_arg);
            }
            if let Some(k) = &mut frame.range_key {
                k.column += first_arg;
            }
            let mapped = exprs.len();
            plan = Plan::Window {
                input: Box::new(Plan::Map {
                    input: Box::new(plan),
                    exprs,
                }),
                partition_by: (0..nd).chain(at..at + np).collect(),
                order_by: node
                    .order
                    .iter()
                    .enumerate()
                    .map(|(j, (_, desc, nulls_last))| ColumnOrder {
                        column: at + np + j,
                        desc: *desc,
                        nulls_last: *nulls_last,
                    })
                    .collect(),
                funcs: vec![WindowExpr {
                    func,
                    args: (first_arg..first_arg + node.args.len()).collect(),
                    frame,
                }],
            };
            plan = Plan::Project {
                input: Box::new(plan),
                outputs: (0..at).chain([at + mapped]).collect(),
            };
        }
        (plan, arity + nodes.len())
    }

    /// Moves window placeholders to the columns `finish` put them in after `arity` columns.
    pub fn place(&self, e: &mut ScalarExpr, arity: usize) {
        e.map_columns(&|c| {
            if (WINDOW_COLUMNS..crate::subquery::SUBQUERY_COLUMNS).contains(&c) {
                arity + (c - WINDOW_COLUMNS)
            } else {
                c
            }
        });
    }

    fn add(&self, node: Node, ty: ScalarType, nullable: bool) -> Typed {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(node);
        Typed::new(
            ScalarExpr::Column(WINDOW_COLUMNS + nodes.len() - 1),
            ty,
            nullable,
        )
    }
}

/// PostgreSQL's window functions that are not aggregates (they require OVER).
pub const WINDOW_FUNCTIONS: &[&str] = &[
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
];

/// Binds `f(...) OVER (...)`.
pub fn bind_window(cx: &ExprContext<'_>, f: &Function, name: &str) -> Result<Typed, PlanError> {
    if cx.in_aggregate {
        return Err(PlanError::grouping(
            "aggregate function calls cannot contain window function calls",
        ));
    }
    let Some(windows) = cx.windows else {
        return Err(PlanError::new(
            "42P20",
            format!("window functions are not allowed in {}", cx.clause),
        ));
    };
    if windows.binding.get() {
        return Err(PlanError::new(
            "42P20",
            "window function calls cannot be nested",
        ));
    }
    windows.binding.set(true);
    let bound = bind_call(cx, windows, f, name);
    windows.binding.set(false);
    bound
}

fn bind_call(
    cx: &ExprContext<'_>,
    windows: &Windows,
    f: &Function,
    name: &str,
) -> Result<Typed, PlanError> {
    let spec = match &f.over {
        Some(WindowType::WindowSpec(spec)) => spec,
        _ => return Err(PlanError::unsupported("named windows (WINDOW clause)")),
    };
    if spec.window_name.is_some() {
        return Err(PlanError::unsupported("a window that names another window"));
    }
    let inner = ExprContext {
        clause: "window definition",
        ..*cx
    };
    let partition = spec
        .partition_by
        .iter()
        .map(|e| inner.bind(e).and_then(resolve_unknown).map(|t| t.expr))
        .collect::<Result<Vec<_>, _>>()?;
    let order_typed = spec
        .order_by
        .iter()
        .map(|o| {
            let (desc, nulls_last) = order_options(o)?;
            let t = resolve_unknown(inner.bind(&o.expr)?)?;
            Ok((t, desc, nulls_last))
        })
        .collect::<Result<Vec<_>, PlanError>>()?;
    let order: Vec<(ScalarExpr, bool, bool)> = order_typed
        .iter()
        .map(|(t, d, n)| (t.expr.clone(), *d, *n))
        .collect();
    let (mut frame, offsets) = frame::frame(spec)?;
    if let (Some(k), [(_, desc, nulls_last)]) = (&mut frame.range_key, order_typed.as_slice()) {
        k.desc = *desc;
        k.nulls_last = *nulls_last;
    }
    // RANGE offsets (the key and the bounds' values) or ROWS counts computed as the query runs,
    // appended to every node's arguments.
    let range_exprs = match frame.rows {
        true => frame::rows_offsets(&inner, &offsets)?,
        false => frame::range_offsets(&inner, &order_typed, &offsets)?,
    };
    let mut plain = f.clone();
    plain.over = None;
    plain.filter = None;
    let (args, distinct) = call_args(&plain)?;
    let node = |func, mut args: Vec<ScalarExpr>| {
        let base = args.len();
        args.extend(range_exprs.iter().cloned());
        let mut frame = frame;
        for b in [&mut frame.start, &mut frame.end] {
            b.shift_column(base);
        }
        if let Some(k) = &mut frame.range_key {
            k.column += base;
        }
        Node {
            partition: partition.clone(),
            order: order.clone(),
            args,
            func,
            frame,
        }
    };
    if AGGREGATES.contains(&name) {
        if name.starts_with("jsonb") {
            return Err(PlanError::unsupported(format!(
                "{name} as a window function"
            )));
        }
        if distinct {
            return Err(PlanError::unsupported(
                "DISTINCT is not implemented for window functions; DISTINCT",
            ));
        }
        return aggregate(&inner, windows, name, args, f.filter.as_deref(), &node);
    }
    if f.filter.is_some() {
        return Err(PlanError::unsupported(
            "FILTER is not implemented for non-aggregate window functions; FILTER",
        ));
    }
    if distinct {
        return Err(PlanError::wrong_object_type(format!(
            "DISTINCT specified, but {name} is not an aggregate function"
        )));
    }
    let args: Vec<Typed> = match args {
        Args::Star => {
            return Err(PlanError::undefined_function(format!(
                "function {name}(*) does not exist"
            )))
        }
        Args::Exprs(exprs) => exprs
            .iter()
            .map(|e| inner.bind(e))
            .collect::<Result<_, _>>()?,
    };
    let int4 = |t: Typed| -> Result<ScalarExpr, PlanError> {
        match t.ty {
            None | Some(ScalarType::Int16) | Some(ScalarType::Int32) => {
                Ok(coerce(t, &ScalarType::Int32, CastContext::Implicit)?
                    .expect("integers convert")
                    .expr)
            }
            _ => Err(no_function(name, &[t])),
        }
    };
    let ranking = |func, ty| -> Result<Typed, PlanError> {
        if !args.is_empty() {
            return Err(no_function(name, &args));
        }
        Ok(windows.add(node(func, vec![]), ty, false))
    };
    match (name, args.len()) {
        ("row_number", _) => ranking(WindowFunc::RowNumber, ScalarType::Int64),
        ("rank", _) => ranking(WindowFunc::Rank, ScalarType::Int64),
        ("dense_rank", _) => ranking(WindowFunc::DenseRank, ScalarType::Int64),
        ("percent_rank", _) => ranking(WindowFunc::PercentRank, ScalarType::Float64),
        ("cume_dist", _) => ranking(WindowFunc::CumeDist, ScalarType::Float64),
        ("ntile", 1) => {
            let n = int4(args.into_iter().next().expect("one"))?;
            Ok(windows.add(node(WindowFunc::Ntile, vec![n]), ScalarType::Int32, true))
        }
        ("lag" | "lead", 1..=3) => {
            let func = if name == "lag" {
                WindowFunc::Lag
            } else {
                WindowFunc::Lead
            };
            let mut args = args.into_iter();
            let mut value = args.next().expect("one");
            let offset = args.next().map(int4).transpose()?;
            let mut default = args.next();
            if let Some(d) = default.take() {
                // lag(anycompatible, integer, anycompatible): one common type.
                let types = [value.ty, d.ty];
                let ty = match types {
                    [None, None] => ScalarType::Text,
                    _ => common_type(&types, name)?,
                };
                let mut both = coerce_all(vec![value, d], &ty, name)?.into_iter();
                value = both.next().expect("two");
                default = both.next();
            }
            let value = resolve_unknown(value)?;
            let ty = value.ty.expect("resolved");
            let mut exprs = vec![value.expr];
            exprs.push(offset.unwrap_or(ScalarExpr::Literal(kpg_types::Datum::Int32(1))));
            exprs.extend(default.map(|d| d.expr));
            Ok(windows.add(node(func, exprs), ty, true))
        }
        ("first_value" | "last_value", 1) => {
            let func = if name == "first_value" {
                WindowFunc::FirstValue
            } else {
                WindowFunc::LastValue
            };
            let value = resolve_unknown(args.into_iter().next().expect("one"))?;
            let ty = value.ty.expect("resolved");
            Ok(windows.add(node(func, vec![value.expr]), ty, true))
        }
        ("nth_value", 2) => {
            let mut args = args.into_iter();
            let value = resolve_unknown(args.next().expect("two"))?;
            let n = int4(args.next().expect("two"))?;
            let ty = value.ty.expect("resolved");
            Ok(windows.add(node(WindowFunc::NthValue, vec![value.expr, n]), ty, true))
        }
        ("ntile" | "lag" | "lead" | "first_value" | "last_value" | "nth_value", _) => {
            Err(no_function(name, &args))
        }
        _ => Err(PlanError::new(
            "42809",
            format!(
                "OVER specified, but {name} is not a window function nor an aggregate function"
            ),
        )),
    }
}

/// An aggregate over the window frame: bound by `bind_aggregate` over a scratch scope whose
/// columns are the arguments (and the FILTER condition), each of its slots one window column.
fn aggregate(
    cx: &ExprContext<'_>,
    windows: &Windows,
    name: &str,
    args: Args<'_>,
    filter: Option<&Expr>,
    node: &dyn Fn(WindowFunc, Vec<ScalarExpr>) -> Node,
) -> Result<Typed, PlanError> {
    let mut bound: Vec<Typed> = match &args {
        Args::Star => Vec::new(),
        Args::Exprs(exprs) => exprs.iter().map(|e| cx.bind(e)).collect::<Result<_, _>>()?,
    };
    if let Some(f) = filter {
        bound.push(
            ExprContext {
                clause: "FILTER",
                ..*cx
            }
            .bind_condition(f)?,
        );
    }
    let scratch = Scope {
        items: bound
            .iter()
            .enumerate()
            .map(|(i, t)| ScopeItem {
                table: None,
                name: format!("?window argument {i}"),
                ty: kpg_types::ColumnType::new(t.ty.unwrap_or(ScalarType::Text), t.nullable),
                level: 0,
                used: UseMark::default(),
            })
            .collect(),
    };
    let idents: Vec<Expr> = (0..bound.len())
        .map(|i| Expr::Identifier(Ident::with_quote('"', format!("?window argument {i}"))))
        .collect();
    let (arg_idents, filter_ident) = match filter {
        Some(_) => (&idents[..idents.len() - 1], idents.last()),
        None => (&idents[..], None),
    };
    // An untyped literal argument stays untyped, for the aggregate's own resolution.
    let scratch_args = match args {
        Args::Star => Args::Star,
        Args::Exprs(exprs) => Args::Exprs(
            exprs
                .iter()
                .zip(arg_idents)
                .map(|(e, ident)| match e {
                    Expr::Value(_) => *e,
                    _ => ident,
                })
                .collect(),
        ),
    };
    let grouping = Grouping::new(Vec::new());
    let scratch_cx = ExprContext {
        grouping: Some(&grouping),
        windows: None,
        host: None,
        input_host: None,
        in_aggregate: false,
        ..ExprContext::new(&scratch, "window function")
    };
    let value =
        crate::aggregate::bind_aggregate(&scratch_cx, name, scratch_args, false, filter_ident)?;
    let mut columns = Vec::new();
    for slot in grouping.aggs.borrow().iter() {
        let exprs: Vec<ScalarExpr> = bound.iter().map(|t| t.expr.clone()).collect();
        let func = WindowFunc::Aggregate(slot.agg.clone());
        columns.push(windows.add(node(func, exprs), slot.ty, slot.nullable));
    }
    let mut expr = value.expr;
    expr.map_columns(&|c| match &columns[c].expr {
        ScalarExpr::Column(w) => *w,
        _ => unreachable!("window columns are columns"),
    });
    Ok(Typed { expr, ..value })
}
