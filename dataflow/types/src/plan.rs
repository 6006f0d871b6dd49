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
use std::fmt;

/// Identifies a catalog object whose collection the runtime maintains.
pub type GlobalId = u64;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Plan {
    /// The collection of a table or materialized view, imported from its arrangement.
    Get { id: GlobalId },
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
    Reduce {
        input: Box<Plan>,
        group_key: Vec<ScalarExpr>,
        aggregates: Vec<AggregateExpr>,
    },
    /// One copy of each row present with positive multiplicity.
    Distinct { input: Box<Plan> },
    /// The sum of the inputs' multiplicities.
    Union { inputs: Vec<Plan> },
    /// Negated multiplicities.
    Negate { input: Box<Plan> },
    /// Keeps rows with positive multiplicity, dropping the others.
    Threshold { input: Box<Plan> },
}

impl Plan {
    /// The ids of the collections this plan reads (through indexes or not).
    pub fn imports(&self) -> Vec<GlobalId> {
        let mut ids = Vec::new();
        self.visit(&mut |p| match p {
            Plan::Get { id } | Plan::IndexedGet { id, .. } => ids.push(*id),
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

    /// Visits every node, parents before children.
    pub fn visit(&self, f: &mut impl FnMut(&Plan)) {
        f(self);
        match self {
            Plan::Get { .. } | Plan::IndexedGet { .. } | Plan::Constant { .. } => {}
            Plan::Map { input, .. }
            | Plan::Filter { input, .. }
            | Plan::Project { input, .. }
            | Plan::Reduce { input, .. }
            | Plan::Distinct { input }
            | Plan::Negate { input }
            | Plan::Threshold { input } => input.visit(f),
            Plan::Join { left, right, .. } => {
                left.visit(f);
                right.visit(f);
            }
            Plan::Union { inputs } => inputs.iter().for_each(|i| i.visit(f)),
        }
    }

    fn fmt_indent(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        let pad = "  ".repeat(depth);
        match self {
            Plan::Get { id } => writeln!(f, "{pad}Get u{id}"),
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
