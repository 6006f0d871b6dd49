//! `MapFilterProject`: a chain of `Map`, `Filter` and `Project` plan nodes evaluated as one
//! step per row, over the packed row, without unpacking it.
//!
//! Evaluated node by node, a chain unpacks every row into owned datums (a `Vec` and a string
//! allocation per text column) and packs it again at each node. Fused, a row is read where it
//! lies: only the columns an expression reads are made owned datums, in a buffer reused across
//! rows; columns that pass through are copied as bytes; only computed values are packed, by a
//! packer reused across rows. A chain of filters whose output is its input passes the row on
//! untouched.
//!
//! Observable behaviour is the unfused chain's, errors included: expressions that can fail
//! (`ScalarExpr::cannot_fail`) run in plan order, so a row meets a failing map expression or a
//! predicate exactly when it would have reached that node; the first failure becomes the row's
//! error, as before. A map expression that cannot fail is evaluated only when something reads
//! it (a later expression or the output) — never if a filter drops the row first — and a map
//! that only copies a column is an alias of it, copied as bytes.
//!
//! A plan does not record arities, and map expressions number their columns after the input's,
//! so the chain is compiled into this form when the first row shows the input's arity (every
//! row of a collection has the same).
//!
//! `exprs.rs` evaluates lists of expressions (keys, aggregate arguments) the same way.

use crate::datum::{Datum, Row};
use crate::error::EvalError;
use crate::expr::ScalarExpr;
use crate::packed::{PackedSlice, RowPacker};

mod common;
mod exprs;
mod like_pattern;
mod packed_filter;
#[cfg(test)]
mod tests;

use packed_filter::PackedFilter;

pub use exprs::{RowExprs, ValueRef};

/// One node of the chain, in the plan's terms.
#[derive(Clone, Debug)]
enum Node {
    /// Drops the input's last column (only first in a chain).
    DropLast,
    Map(Vec<ScalarExpr>),
    Filter(Vec<ScalarExpr>),
    Project(Vec<usize>),
}

/// A chain of map, filter and project nodes, innermost first, and its evaluation state.
#[derive(Clone, Debug, Default)]
pub struct MapFilterProject {
    nodes: Vec<Node>,
    compiled: Option<Compiled>,
    /// The owned datums the expressions read: input columns, then computed values.
    datums: Vec<Datum>,
    /// Byte offsets of the current row's columns found so far (`offsets[i]` starts column i).
    offsets: Vec<usize>,
    packer: RowPacker,
    /// The two rows of a join's pair, side by side (`apply_concat`), reused across pairs.
    pair: RowPacker,
}

/// Where a column of the chain's current output lives.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Col {
    Input(usize),
    /// A slot of the datum buffer holding a computed value.
    Computed(usize),
}

/// What must be in the datum buffer before a step reads it.
#[derive(Clone, Debug)]
enum Prep {
    /// Unpack input column i into slot i.
    Unpack(usize),
    /// Evaluate an expression that cannot fail into a slot.
    Eval(usize, ScalarExpr),
}

#[derive(Clone, Debug)]
enum Action {
    /// Evaluate into a slot; an error is the row's.
    Map(usize, ScalarExpr),
    /// Drop the row unless TRUE; an error is the row's.
    Filter(ScalarExpr),
    /// A filter decided over the packed row (`packed_filter.rs`); the expression and what
    /// it needs unpacked, for a row the packed form cannot decide.
    PackedFilter(PackedFilter, Vec<Prep>, ScalarExpr),
}

#[derive(Clone, Debug)]
struct Step {
    prep: Vec<Prep>,
    action: Action,
}

/// The chain compiled for rows of one arity; expressions read the datum buffer's slots.
#[derive(Clone, Debug)]
struct Compiled {
    steps: Vec<Step>,
    /// Computed values the output needs that no step computed.
    out_prep: Vec<Prep>,
    output: Vec<Col>,
    /// The output is the input row unchanged.
    identity: bool,
    slots: usize,
}

impl MapFilterProject {
    /// The chain that changes nothing.
    pub fn new() -> MapFilterProject {
        MapFilterProject::default()
    }

    /// Whether the chain changes nothing (no nodes).
    pub fn is_identity(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Appends a `Map` node: each expression reads the columns so far.
    pub fn map(mut self, exprs: Vec<ScalarExpr>) -> Self {
        self.nodes.push(Node::Map(exprs));
        self.compiled = None;
        self
    }

    /// The chain over input rows that carry one more column at the end, which it drops first
    /// (a table's stored rows end with their positions): the column is never read, and the
    /// columns kept are copied as bytes.
    pub fn after_dropping_last(mut self) -> Self {
        self.nodes.insert(0, Node::DropLast);
        self.compiled = None;
        self
    }

    /// Appends a `Filter` node: predicates in order, the first not TRUE drops the row.
    pub fn filter(mut self, predicates: Vec<ScalarExpr>) -> Self {
        self.nodes.push(Node::Filter(predicates));
        self.compiled = None;
        self
    }

    /// Appends a `Project` node.
    pub fn project(mut self, outputs: Vec<usize>) -> Self {
        self.nodes.push(Node::Project(outputs));
        self.compiled = None;
        self
    }

    /// The chain's output for `row`: `None` when a filter drops it, the first error an
    /// expression raises, or the output row.
    pub fn apply(&mut self, row: Row) -> Option<Result<Row, EvalError>> {
        match self.evaluate(&row)? {
            Ok(Some(out)) => Some(Ok(out)),
            Ok(None) => Some(Ok(row)),
            Err(e) => Some(Err(e)),
        }
    }

    /// As `apply`, for a borrowed row (copied only when the output is the row itself).
    pub fn apply_ref(&mut self, row: &Row) -> Option<Result<Row, EvalError>> {
        match self.evaluate(row)? {
            Ok(Some(out)) => Some(Ok(out)),
            Ok(None) => Some(Ok(row.clone())),
            Err(e) => Some(Err(e)),
        }
    }

    /// The chain's output for the concatenation of `left` and `right` (a join's pair), as
    /// `apply_ref`'s for `left.concat(right)`, without packing the concatenation: the two rows'
    /// bytes are put side by side in a buffer reused across pairs, and read there.
    pub fn apply_concat(&mut self, left: &Row, right: &Row) -> Option<Result<Row, EvalError>> {
        let mut pair = std::mem::take(&mut self.pair);
        pair.clear();
        pair.extend_packed(left.packed().as_slice());
        pair.extend_packed(right.packed().as_slice());
        let slice = pair.as_slice();
        let result = self.evaluate_slice(slice).map(|r| match r {
            Ok(Some(out)) => Ok(out),
            Ok(None) => Ok(Row::from_packed(slice.to_owned_row())),
            Err(e) => Err(e),
        });
        self.pair = pair;
        result
    }

    /// The chain's output for `row` as `apply`'s, with `Ok(None)` for the row itself.
    fn evaluate(&mut self, row: &Row) -> Option<Result<Option<Row>, EvalError>> {
        self.evaluate_slice(row.packed().as_slice())
    }

    /// `evaluate` over a borrowed packed row.
    fn evaluate_slice(&mut self, slice: PackedSlice<'_>) -> Option<Result<Option<Row>, EvalError>> {
        if self.compiled.is_none() {
            let compiled = compile(&self.nodes, slice.len());
            self.datums = vec![Datum::Null; compiled.slots];
            self.compiled = Some(compiled);
        }
        let c = self.compiled.as_ref().expect("compiled above");
        self.offsets.clear();
        self.offsets.push(0);
        let mut ctx = RowCtx {
            slice,
            offsets: &mut self.offsets,
            datums: &mut self.datums,
        };
        for step in &c.steps {
            if let Err(e) = ctx.prepare(&step.prep) {
                return Some(Err(e));
            }
            match &step.action {
                Action::Map(slot, e) => match e.eval(ctx.datums) {
                    Ok(d) => ctx.datums[*slot] = d,
                    Err(e) => return Some(Err(e)),
                },
                Action::Filter(p) => match p.eval_predicate(ctx.datums) {
                    Ok(true) => {}
                    Ok(false) => return None,
                    Err(e) => return Some(Err(e)),
                },
                Action::PackedFilter(f, prep, p) => match f.passes(&mut ctx) {
                    Some(true) => {}
                    Some(false) => return None,
                    None => {
                        if let Err(e) = ctx.prepare(prep) {
                            return Some(Err(e));
                        }
                        match p.eval_predicate(ctx.datums) {
                            Ok(true) => {}
                            Ok(false) => return None,
                            Err(e) => return Some(Err(e)),
                        }
                    }
                },
            }
        }
        if c.identity {
            return Some(Ok(None));
        }
        if let Err(e) = ctx.prepare(&c.out_prep) {
            return Some(Err(e));
        }
        // Runs of consecutive input columns are copied as one byte range.
        let mut run: Option<(usize, usize)> = None;
        for col in &c.output {
            match *col {
                Col::Input(i) => {
                    run = match run {
                        Some((start, end)) if end == i => Some((start, i + 1)),
                        Some((start, end)) => {
                            ctx.copy(&mut self.packer, start, end);
                            Some((i, i + 1))
                        }
                        None => Some((i, i + 1)),
                    }
                }
                Col::Computed(slot) => {
                    if let Some((start, end)) = run.take() {
                        ctx.copy(&mut self.packer, start, end);
                    }
                    self.packer.push(&ctx.datums[slot]);
                }
            }
        }
        if let Some((start, end)) = run {
            ctx.copy(&mut self.packer, start, end);
        }
        Some(Ok(Some(Row::from_packed(self.packer.finish()))))
    }
}

/// One row being evaluated: its bytes, the column offsets found so far, the datum buffer.
struct RowCtx<'r> {
    slice: PackedSlice<'r>,
    offsets: &'r mut Vec<usize>,
    datums: &'r mut Vec<Datum>,
}

impl RowCtx<'_> {
    /// Finds where columns up to `i` end (column i is `offsets[i]..offsets[i + 1]`).
    #[inline]
    fn scan_to(&mut self, i: usize) {
        while self.offsets.len() <= i + 1 {
            let start = *self.offsets.last().expect("offsets start with 0");
            self.offsets.push(self.slice.skip_at(start));
        }
    }

    fn prepare(&mut self, prep: &[Prep]) -> Result<(), EvalError> {
        for p in prep {
            match p {
                Prep::Unpack(i) => {
                    self.scan_to(*i);
                    self.datums[*i] = self.slice.read_at(self.offsets[*i]).0.to_datum();
                }
                Prep::Eval(slot, e) => {
                    let d = e.eval(self.datums)?;
                    self.datums[*slot] = d;
                }
            }
        }
        Ok(())
    }

    /// Copies input columns `start..end` into `packer` as bytes.
    fn copy(&mut self, packer: &mut RowPacker, start: usize, end: usize) {
        self.scan_to(end - 1);
        packer.extend_packed(self.slice.between(self.offsets[start], self.offsets[end]));
    }
}

/// Compiles `nodes` for input rows of `arity` columns.
fn compile(nodes: &[Node], arity: usize) -> Compiled {
    let mut cols: Vec<Col> = (0..arity).map(Col::Input).collect();
    let mut slots = arity;
    // Expressions in slot terms, in plan order: (slot for maps, expr, is a filter).
    let mut actions: Vec<(Option<usize>, ScalarExpr)> = Vec::new();
    for node in nodes {
        match node {
            Node::Map(exprs) => {
                for e in exprs {
                    if let ScalarExpr::Column(j) = e {
                        cols.push(cols[*j]);
                        continue;
                    }
                    let mut e = e.clone();
                    e.map_columns(&|j| slot_of(cols[j]));
                    actions.push((Some(slots), e));
                    cols.push(Col::Computed(slots));
                    slots += 1;
                }
            }
            Node::Filter(preds) => {
                for p in preds {
                    let mut p = p.clone();
                    p.map_columns(&|j| slot_of(cols[j]));
                    actions.push((None, p));
                }
            }
            Node::Project(outputs) => cols = outputs.iter().map(|o| cols[*o]).collect(),
            Node::DropLast => {
                cols.pop();
            }
        }
    }
    let shared = common::hoist(&mut actions, &mut slots);
    // Expressions that cannot fail wait until something reads them.
    let mut lazy: Vec<Option<ScalarExpr>> = vec![None; slots];
    for (s, e) in shared {
        lazy[s] = Some(e);
    }
    let mut ready = vec![false; slots];
    let mut steps = Vec::new();
    for (slot, e) in actions {
        match slot {
            Some(s) if e.cannot_fail() => lazy[s] = Some(e),
            Some(s) => {
                let mut prep = Vec::new();
                need(&e, arity, &lazy, &mut ready, &mut prep);
                ready[s] = true;
                steps.push(Step {
                    prep,
                    action: Action::Map(s, e),
                });
            }
            // Reads input columns only, where they lie: nothing is unpacked for later steps.
            None => match PackedFilter::compile(&e, arity) {
                Some(f) => {
                    let fallback = e.support().into_iter().map(Prep::Unpack).collect();
                    steps.push(Step {
                        prep: Vec::new(),
                        action: Action::PackedFilter(f, fallback, e),
                    });
                }
                None => {
                    let mut prep = Vec::new();
                    need(&e, arity, &lazy, &mut ready, &mut prep);
                    steps.push(Step {
                        prep,
                        action: Action::Filter(e),
                    });
                }
            },
        }
    }
    let mut out_prep = Vec::new();
    for col in &cols {
        if let Col::Computed(s) = *col {
            need_slot(s, arity, &lazy, &mut ready, &mut out_prep);
        }
    }
    let identity = cols.len() == arity && cols.iter().enumerate().all(|(i, c)| *c == Col::Input(i));
    Compiled {
        steps,
        out_prep,
        output: cols,
        identity,
        slots,
    }
}

fn slot_of(col: Col) -> usize {
    match col {
        Col::Input(i) | Col::Computed(i) => i,
    }
}

/// Adds to `prep` what must happen before `e` can be evaluated: unpacking the input columns
/// it reads and evaluating the deferred expressions it reads, once each.
fn need(
    e: &ScalarExpr,
    arity: usize,
    lazy: &[Option<ScalarExpr>],
    ready: &mut [bool],
    prep: &mut Vec<Prep>,
) {
    for s in e.support() {
        need_slot(s, arity, lazy, ready, prep);
    }
}

fn need_slot(
    s: usize,
    arity: usize,
    lazy: &[Option<ScalarExpr>],
    ready: &mut [bool],
    prep: &mut Vec<Prep>,
) {
    if ready[s] {
        return;
    }
    ready[s] = true;
    if s < arity {
        prep.push(Prep::Unpack(s));
    } else if let Some(e) = &lazy[s] {
        need(e, arity, lazy, ready, prep);
        prep.push(Prep::Eval(s, e.clone()));
    }
}
