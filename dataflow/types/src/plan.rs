//! The render plan: a relational expression tree the runtime turns into engine operators, and
//! the `DataflowDescription` that wraps it with imports, an `as_of` and an export.
//!
//! This is the whole contract between the planner and the runtime. Every node's output is a
//! collection of `Row`s with multiplicities; column positions are the only names. `Get` reads a
//! collection that already exists in the runtime as an arrangement (a table or a materialized
//! view), which the dataflow imports rather than rebuilds.

use crate::agg::AggregateExpr;
use crate::datum::Row;
use crate::expr::ScalarExpr;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// Identifies a catalog object whose collection the runtime maintains.
pub type GlobalId = u64;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Plan {
    /// The collection of a table or materialized view, imported from its arrangement.
    Get { id: GlobalId },
    /// The rows of table `id`, each followed by its position: an int8 that grows with the
    /// order in which the rows were written (a plain scan's order, as PostgreSQL's heap scan
    /// gives it). An ad hoc read of one table orders by it; `Get` leaves it out.
    GetWithPosition { id: GlobalId },
    /// The collection of `id`, read through the index `index`, an arrangement of it keyed by
    /// `key`. A join whose key equals `key` uses that arrangement as it is, building nothing.
    IndexedGet {
        id: GlobalId,
        index: GlobalId,
        key: Vec<ScalarExpr>,
    },
    /// Fixed rows with multiplicities.
    Constant { rows: Vec<(Row, i64)> },
    /// Appends one column per expression, each evaluated over the row so far (so later
    /// expressions may read earlier ones).
    Map {
        input: Box<Plan>,
        exprs: Vec<ScalarExpr>,
    },
    /// Keeps rows for which every predicate is TRUE.
    Filter {
        input: Box<Plan>,
        predicates: Vec<ScalarExpr>,
    },
    /// A temporal filter: each row is present at the times `T` with `lower(row) <= T` for every
    /// lower bound and `T < upper(row)` for every upper one, each bound a bigint of
    /// milliseconds (`temporal::presence`; a NULL bound keeps the row out). Rendered as the
    /// row's insertion at the time it enters and its retraction at the time it leaves, so a
    /// window is maintained without rescanning (`WHERE mz_now() <= ts + INTERVAL '1 minute'`).
    TemporalFilter {
        input: Box<Plan>,
        lower: Vec<ScalarExpr>,
        upper: Vec<ScalarExpr>,
    },
    /// Keeps the listed columns, in order (columns may repeat).
    Project {
        input: Box<Plan>,
        outputs: Vec<usize>,
    },
    /// Inner equi-join: pairs rows whose key expressions are equal (and not NULL); the output
    /// is the left row's columns followed by the right row's. Empty keys make a cross join.
    Join {
        left: Box<Plan>,
        right: Box<Plan>,
        left_key: Vec<ScalarExpr>,
        right_key: Vec<ScalarExpr>,
    },
    /// Groups by the key expressions and computes the aggregates per group; the output is the
    /// key columns followed by one column per aggregate. Groups with no rows produce nothing.
    /// Keys group by SQL equality (`3` with `3.00`); the key shown is one of the group's own.
    Reduce {
        input: Box<Plan>,
        group_key: Vec<ScalarExpr>,
        aggregates: Vec<AggregateExpr>,
    },
    /// One row of each class of SQL-equal rows present with positive multiplicity (one of the
    /// class's own rows: `3.00` and `3` give one of the two).
    Distinct { input: Box<Plan> },
    /// The sum of the inputs' multiplicities.
    Union { inputs: Vec<Plan> },
    /// Negated multiplicities.
    Negate { input: Box<Plan> },
    /// Per class of SQL-equal rows, as many rows as the class's multiplicity when positive,
    /// taken from its members that have them; none otherwise.
    Threshold { input: Box<Plan> },
    /// Per group of equal `group_key` columns (one group when empty), the rows that
    /// `ORDER BY order_by OFFSET offset LIMIT limit` keeps, multiplicities counted as copies.
    /// Rows equal in the order are taken in `Row` order, so the choice at a tie is stable.
    TopK {
        input: Box<Plan>,
        group_key: Vec<usize>,
        order_by: Vec<ColumnOrder>,
        limit: Option<usize>,
        offset: usize,
        /// In a statement prepared with parameters, the LIMIT and OFFSET expressions that
        /// read them (`limit` and `offset` are stand-ins until they are computed from the
        /// bound values, which sets this to `None`). A plan that runs has none.
        counts: Option<Box<[Option<ScalarExpr>; 2]>>,
    },
    /// A set-returning function in FROM: for each input row, one copy of it per value of
    /// `func` over `exprs` (evaluated on the row), followed by the value's columns (one, or
    /// `TableFunc::columns`) and, `ordinality`, its 1-based position.
    FlatMap {
        input: Box<Plan>,
        func: crate::table_func::TableFunc,
        exprs: Vec<ScalarExpr>,
        ordinality: bool,
    },
    /// Window functions: per partition of equal `partition_by` columns, the rows in
    /// `order_by` order, each followed by one column per function (`window::evaluate`).
    Window {
        input: Box<Plan>,
        partition_by: Vec<usize>,
        order_by: Vec<ColumnOrder>,
        funcs: Vec<crate::window::WindowExpr>,
    },
    /// WITH RECURSIVE: the least fixed point of `rows = base + step(rows)` (UNION ALL), or of
    /// `rows = distinct(base + step(rows))` (UNION, when `distinct`), where `RecursiveGet { id }`
    /// inside `step` reads `rows`. The planner only builds steps that are linear in `rows`
    /// (monotone for UNION), for which this is the table PostgreSQL's iteration builds.
    Recursive {
        id: u64,
        base: Box<Plan>,
        step: Box<Plan>,
        distinct: bool,
    },
    /// Inside the `step` of the `Recursive` node with this `id`: the rows computed so far.
    RecursiveGet { id: u64 },
    /// `body`, in which `LocalGet { id }` reads the rows of `value`: a subplan the body reads
    /// more than once, computed once (the planner binds repeated subtrees last, after every
    /// rewrite, so rewrites never see these).
    Let {
        id: u64,
        value: Box<Plan>,
        body: Box<Plan>,
    },
    /// Inside the `body` of the `Let` with this `id`: the rows of its `value`.
    LocalGet { id: u64 },
}

/// One ORDER BY item over a column: DESC and NULLS FIRST/LAST as PostgreSQL writes them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ColumnOrder {
    pub column: usize,
    pub desc: bool,
    pub nulls_last: bool,
}

/// Compares rows as PostgreSQL's ORDER BY does: item by item, NULLs placed by `nulls_last`
/// (independently of DESC), other values by SQL's order (`Datum::sql_cmp`: `'1 mon'` and
/// `'30 days'` tie, for the next item to decide), reversed for DESC.
pub fn compare_rows(a: &Row, b: &Row, order: &[ColumnOrder]) -> Ordering {
    for o in order {
        let (x, y) = (a.get(o.column), b.get(o.column));
        let ord = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) if o.nulls_last => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, true) if o.nulls_last => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) if o.desc => y.sql_cmp(x),
            (false, false) => x.sql_cmp(y),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

/// The rows `ORDER BY order OFFSET offset LIMIT limit` keeps from one group's rows (with
/// multiplicities; rows with none or fewer are ignored), with the number of copies of each.
/// `rows` must be sorted by `Row`, which breaks ties in the order.
pub fn top_k<'r>(
    rows: impl IntoIterator<Item = (&'r Row, i64)>,
    order: &[ColumnOrder],
    limit: Option<usize>,
    offset: usize,
) -> Vec<(&'r Row, i64)> {
    let mut rows: Vec<(&Row, i64)> = rows.into_iter().filter(|(_, n)| *n > 0).collect();
    // Stable: rows equal in the order keep their `Row` order.
    rows.sort_by(|(a, _), (b, _)| compare_rows(a, b, order));
    let mut skip = offset as i64;
    let mut take = limit.map_or(i64::MAX, |l| l as i64);
    let mut out = Vec::new();
    for (row, n) in rows {
        if take == 0 {
            break;
        }
        let skipped = n.min(skip);
        skip -= skipped;
        let kept = (n - skipped).min(take);
        if kept > 0 {
            take -= kept;
            out.push((row, kept));
        }
    }
    out
}

impl Plan {
    /// The ids of the collections this plan reads (through indexes or not).
    pub fn imports(&self) -> Vec<GlobalId> {
        let mut ids = Vec::new();
        self.visit(&mut |p| match p {
            Plan::Get { id } | Plan::GetWithPosition { id } | Plan::IndexedGet { id, .. } => {
                ids.push(*id)
            }
            _ => {}
        });
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The indexes this plan reads.
    pub fn index_imports(&self) -> Vec<GlobalId> {
        let mut ids = Vec::new();
        self.visit(&mut |p| {
            if let Plan::IndexedGet { index, .. } = p {
                ids.push(*index);
            }
        });
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The index this plan reads whole when it is exactly an index keyed by `key`: a join
    /// input for which that holds uses the index's arrangement as it is instead of arranging.
    pub fn reads_index_keyed_by(&self, key: &[ScalarExpr]) -> Option<GlobalId> {
        match self {
            Plan::IndexedGet {
                index,
                key: index_key,
                ..
            } if index_key.as_slice() == key => Some(*index),
            _ => None,
        }
    }

    /// The node with each direct input replaced by `f(input)`, everything else kept: the one
    /// place that knows where each variant keeps its inputs, so rewrites need not restate it.
    pub fn map_inputs(self, mut f: impl FnMut(Plan) -> Plan) -> Plan {
        let mut boxed = |b: Box<Plan>| Box::new(f(*b));
        match self {
            leaf @ (Plan::Get { .. }
            | Plan::GetWithPosition { .. }
            | Plan::IndexedGet { .. }
            | Plan::Constant { .. }
            | Plan::RecursiveGet { .. }
            | Plan::LocalGet { .. }) => leaf,
            Plan::Map { input, exprs } => Plan::Map {
                input: boxed(input),
                exprs,
            },
            Plan::Filter { input, predicates } => Plan::Filter {
                input: boxed(input),
                predicates,
            },
            Plan::TemporalFilter {
                input,
                lower,
                upper,
            } => Plan::TemporalFilter {
                input: boxed(input),
                lower,
                upper,
            },
            Plan::Project { input, outputs } => Plan::Project {
                input: boxed(input),
                outputs,
            },
            Plan::Join {
                left,
                right,
                left_key,
                right_key,
            } => Plan::Join {
                left: boxed(left),
                right: boxed(right),
                left_key,
                right_key,
            },
            Plan::Reduce {
                input,
                group_key,
                aggregates,
            } => Plan::Reduce {
                input: boxed(input),
                group_key,
                aggregates,
            },
            Plan::Distinct { input } => Plan::Distinct {
                input: boxed(input),
            },
            Plan::Union { inputs } => Plan::Union {
                inputs: inputs.into_iter().map(f).collect(),
            },
            Plan::Negate { input } => Plan::Negate {
                input: boxed(input),
            },
            Plan::Threshold { input } => Plan::Threshold {
                input: boxed(input),
            },
            Plan::TopK {
                input,
                group_key,
                order_by,
                limit,
                offset,
                counts,
            } => Plan::TopK {
                input: boxed(input),
                group_key,
                order_by,
                limit,
                offset,
                counts,
            },
            Plan::FlatMap {
                input,
                func,
                exprs,
                ordinality,
            } => Plan::FlatMap {
                input: boxed(input),
                func,
                exprs,
                ordinality,
            },
            Plan::Window {
                input,
                partition_by,
                order_by,
                funcs,
            } => Plan::Window {
                input: boxed(input),
                partition_by,
                order_by,
                funcs,
            },
            Plan::Recursive {
                id,
                base,
                step,
                distinct,
            } => Plan::Recursive {
                id,
                base: boxed(base),
                step: boxed(step),
                distinct,
            },
            Plan::Let { id, value, body } => Plan::Let {
                id,
                value: boxed(value),
                body: boxed(body),
            },
        }
    }

    /// The scalar expressions this node evaluates itself (not its inputs').
    pub fn own_exprs(&self) -> Vec<&ScalarExpr> {
        match self {
            Plan::IndexedGet { key, .. } => key.iter().collect(),
            Plan::Map { exprs, .. } | Plan::FlatMap { exprs, .. } => exprs.iter().collect(),
            Plan::Filter { predicates, .. } => predicates.iter().collect(),
            Plan::TemporalFilter { lower, upper, .. } => lower.iter().chain(upper).collect(),
            Plan::Join {
                left_key,
                right_key,
                ..
            } => left_key.iter().chain(right_key).collect(),
            Plan::Reduce {
                group_key,
                aggregates,
                ..
            } => group_key
                .iter()
                .chain(aggregates.iter().map(|a| &a.expr))
                .collect(),
            Plan::TopK {
                counts: Some(counts),
                ..
            } => counts.iter().flatten().collect(),
            Plan::Window { funcs, .. } => funcs
                .iter()
                .filter_map(|f| match &f.func {
                    crate::window::WindowFunc::Aggregate(a) => Some(&a.expr),
                    _ => None,
                })
                .collect(),
            Plan::Get { .. }
            | Plan::GetWithPosition { .. }
            | Plan::Constant { .. }
            | Plan::Project { .. }
            | Plan::Distinct { .. }
            | Plan::Negate { .. }
            | Plan::Threshold { .. }
            | Plan::Union { .. }
            | Plan::TopK { .. }
            | Plan::Recursive { .. }
            | Plan::RecursiveGet { .. }
            | Plan::Let { .. }
            | Plan::LocalGet { .. } => Vec::new(),
        }
    }

    /// Writes the statement's time into every expression (`ScalarExpr::bind_statement_time`).
    pub fn bind_statement_time(&mut self, now: chrono::NaiveDateTime) {
        self.bind_clock(now, now)
    }

    /// Writes the transaction's and the statement's start into every expression
    /// (`ScalarExpr::bind_clock`).
    pub fn bind_clock(&mut self, txn: chrono::NaiveDateTime, stmt: chrono::NaiveDateTime) {
        self.visit_exprs_mut(&mut |e| e.bind_clock(txn, stmt));
    }

    /// Calls `f` on every expression of every node (each expression once, at its root).
    pub fn visit_exprs_mut(&mut self, f: &mut dyn FnMut(&mut ScalarExpr)) {
        match self {
            Plan::IndexedGet { key, .. } => key.iter_mut().for_each(&mut *f),
            Plan::Map { exprs, .. } | Plan::FlatMap { exprs, .. } => {
                exprs.iter_mut().for_each(&mut *f)
            }
            Plan::Filter { predicates, .. } => predicates.iter_mut().for_each(&mut *f),
            Plan::TemporalFilter { lower, upper, .. } => {
                lower.iter_mut().chain(upper.iter_mut()).for_each(&mut *f)
            }
            Plan::Join {
                left_key,
                right_key,
                ..
            } => left_key
                .iter_mut()
                .chain(right_key.iter_mut())
                .for_each(&mut *f),
            Plan::Reduce {
                group_key,
                aggregates,
                ..
            } => group_key
                .iter_mut()
                .chain(aggregates.iter_mut().map(|a| &mut a.expr))
                .for_each(&mut *f),
            Plan::TopK {
                counts: Some(counts),
                ..
            } => counts.iter_mut().flatten().for_each(&mut *f),
            Plan::Window { funcs, .. } => {
                for w in funcs {
                    if let crate::window::WindowFunc::Aggregate(a) = &mut w.func {
                        f(&mut a.expr);
                    }
                }
            }
            _ => {}
        }
        let this = std::mem::replace(self, Plan::Constant { rows: Vec::new() });
        *self = this.map_inputs(|mut input| {
            input.visit_exprs_mut(f);
            input
        });
    }

    /// Whether some expression of the plan is volatile (`ScalarExpr::is_volatile`).
    pub fn is_volatile(&self) -> bool {
        let mut volatile = false;
        self.visit(&mut |p| {
            if p.own_exprs().iter().any(|e| e.is_volatile()) {
                volatile = true;
            }
        });
        volatile
    }

    /// Visits every node, parents before children.
    pub fn visit(&self, f: &mut impl FnMut(&Plan)) {
        f(self);
        for child in self.children() {
            child.visit(f);
        }
    }

    /// The direct inputs of this node, in the order `map_inputs` visits them.
    pub fn children(&self) -> Vec<&Plan> {
        match self {
            Plan::Get { .. }
            | Plan::GetWithPosition { .. }
            | Plan::IndexedGet { .. }
            | Plan::Constant { .. }
            | Plan::RecursiveGet { .. }
            | Plan::LocalGet { .. } => Vec::new(),
            Plan::Map { input, .. }
            | Plan::Filter { input, .. }
            | Plan::TemporalFilter { input, .. }
            | Plan::Project { input, .. }
            | Plan::Reduce { input, .. }
            | Plan::Distinct { input }
            | Plan::Negate { input }
            | Plan::Threshold { input }
            | Plan::TopK { input, .. }
            | Plan::FlatMap { input, .. }
            | Plan::Window { input, .. } => vec![input],
            Plan::Join { left, right, .. } => vec![left, right],
            Plan::Recursive { base, step, .. } => vec![base, step],
            Plan::Let { value, body, .. } => vec![value, body],
            Plan::Union { inputs } => inputs.iter().collect(),
        }
    }

    fn fmt_indent(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        let pad = "  ".repeat(depth);
        match self {
            Plan::Get { id } => writeln!(f, "{pad}Get u{id}"),
            Plan::GetWithPosition { id } => writeln!(f, "{pad}Get u{id} with positions"),
            Plan::IndexedGet { id, index, key } => {
                writeln!(f, "{pad}Get u{id} through index u{index} on {key:?}")
            }
            Plan::Constant { rows } => writeln!(f, "{pad}Constant ({} rows)", rows.len()),
            Plan::Map { input, exprs } => {
                writeln!(f, "{pad}Map {exprs:?}")?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::Filter { input, predicates } => {
                writeln!(f, "{pad}Filter {predicates:?}")?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::TemporalFilter {
                input,
                lower,
                upper,
            } => {
                writeln!(f, "{pad}TemporalFilter lower={lower:?} upper={upper:?}")?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::Project { input, outputs } => {
                writeln!(f, "{pad}Project {outputs:?}")?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::Join {
                left,
                right,
                left_key,
                right_key,
            } => {
                writeln!(f, "{pad}Join on {left_key:?} = {right_key:?}")?;
                left.fmt_indent(f, depth + 1)?;
                right.fmt_indent(f, depth + 1)
            }
            Plan::Reduce {
                input,
                group_key,
                aggregates,
            } => {
                writeln!(f, "{pad}Reduce key={group_key:?} aggs={aggregates:?}")?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::Distinct { input } => {
                writeln!(f, "{pad}Distinct")?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::Union { inputs } => {
                writeln!(f, "{pad}Union")?;
                inputs.iter().try_for_each(|i| i.fmt_indent(f, depth + 1))
            }
            Plan::Negate { input } => {
                writeln!(f, "{pad}Negate")?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::Threshold { input } => {
                writeln!(f, "{pad}Threshold")?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::TopK {
                input,
                group_key,
                order_by,
                limit,
                offset,
                counts,
            } => {
                writeln!(
                    f,
                    "{pad}TopK group={group_key:?} order={order_by:?} limit={limit:?} offset={offset}{}",
                    match counts {
                        Some(counts) => format!(" counts={counts:?}"),
                        None => String::new(),
                    }
                )?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::FlatMap {
                input,
                func,
                exprs,
                ordinality,
            } => {
                writeln!(f, "{pad}FlatMap {func:?} {exprs:?} ordinality={ordinality}")?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::Window {
                input,
                partition_by,
                order_by,
                funcs,
            } => {
                writeln!(
                    f,
                    "{pad}Window partition={partition_by:?} order={order_by:?} funcs={funcs:?}"
                )?;
                input.fmt_indent(f, depth + 1)
            }
            Plan::Recursive {
                id,
                base,
                step,
                distinct,
            } => {
                let kind = if *distinct { "UNION" } else { "UNION ALL" };
                writeln!(f, "{pad}Recursive r{id} ({kind})")?;
                base.fmt_indent(f, depth + 1)?;
                step.fmt_indent(f, depth + 1)
            }
            Plan::RecursiveGet { id } => writeln!(f, "{pad}RecursiveGet r{id}"),
            Plan::Let { id, value, body } => {
                writeln!(f, "{pad}Let l{id} =")?;
                value.fmt_indent(f, depth + 1)?;
                writeln!(f, "{pad}In")?;
                body.fmt_indent(f, depth + 1)
            }
            Plan::LocalGet { id } => writeln!(f, "{pad}Get l{id}"),
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_indent(f, 0)
    }
}

/// What a dataflow does with the collection its plan computes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DataflowSink {
    /// Arrange the result by whole rows and export the arrangement under this id (a
    /// materialized view), so that later dataflows import it.
    Materialize { id: GlobalId },
    /// Arrange the result by `key` and export the arrangement under this id (an index).
    Index { id: GlobalId, key: Vec<ScalarExpr> },
    /// Accumulate the result at `timestamp` and answer the coordinator (an ad hoc SELECT).
    Peek { peek_id: u64, timestamp: u64 },
    /// Stream every change, from the snapshot at `as_of` on, to the coordinator.
    Subscribe { subscribe_id: u64 },
}

/// A dataflow to build on every worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataflowDescription {
    pub name: String,
    pub plan: Plan,
    /// Imported collections are read as of this time: their history before it is collapsed.
    pub as_of: u64,
    pub sink: DataflowSink,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datum::Datum;

    /// `top_k` against the plain definition: expand copies, sort, skip, take.
    #[test]
    fn top_k_matches_sort_skip_take() {
        let v = |x: Option<i32>, y: i32| {
            Row::new(vec![x.map_or(Datum::Null, Datum::Int32), Datum::Int32(y)])
        };
        let mut rows = [
            (v(Some(3), 1), 2),
            (v(None, 2), 1),
            (v(Some(1), 3), 3),
            (v(Some(3), 0), 1),
            (v(Some(2), 9), 0),
            (v(None, 1), 2),
        ];
        rows.sort();
        for desc in [false, true] {
            for nulls_last in [false, true] {
                let order = vec![ColumnOrder {
                    column: 0,
                    desc,
                    nulls_last,
                }];
                let mut expanded: Vec<&Row> = rows
                    .iter()
                    .flat_map(|(r, n)| std::iter::repeat_n(r, (*n).max(0) as usize))
                    .collect();
                expanded.sort_by(|a, b| compare_rows(a, b, &order));
                for offset in 0..10 {
                    for limit in [None, Some(0), Some(1), Some(2), Some(4), Some(20)] {
                        let want: Vec<&Row> = expanded
                            .iter()
                            .copied()
                            .skip(offset)
                            .take(limit.unwrap_or(usize::MAX))
                            .collect();
                        let got: Vec<&Row> =
                            top_k(rows.iter().map(|(r, n)| (r, *n)), &order, limit, offset)
                                .into_iter()
                                .flat_map(|(r, n)| std::iter::repeat_n(r, n as usize))
                                .collect();
                        assert_eq!(
                            got, want,
                            "desc={desc} nulls_last={nulls_last} offset={offset} limit={limit:?}"
                        );
                    }
                }
            }
        }
    }
}
