//! `RowExprs`: a list of expressions evaluated over a packed row into a packed row — the key
//! of an arrangement, a join or a group — or handed out value by value (the arguments of
//! aggregates, added straight into their accumulators: `eval_each`).
//!
//! A key that names a column is copied as bytes (decoded only when it may need its canonical
//! form); other expressions read owned datums of only the columns they use, unpacked once per
//! row into a buffer reused across rows. Expressions are evaluated in order and the first
//! error, or (when NULLs are dropped) the first NULL, ends the row, as evaluating the list
//! over the unpacked row did. An expression that a later one contains whole (TPC-H Q1 sums
//! `price * (1 - discount)` and that times `(1 + tax)`) is evaluated once: the later one reads
//! its value from a slot after the row's columns. That is the value evaluating it again would
//! give — it is deterministic (volatile functions are never shared), and an error it raised
//! already ended the row.

use super::RowCtx;
use crate::datum::{Datum, Row};
use crate::error::EvalError;
use crate::expr::ScalarExpr;
use crate::packed::{DatumRef, RowPacker};

/// Expressions evaluated into a row; see the module doc.
#[derive(Clone, Debug)]
pub struct RowExprs {
    parts: Vec<Part>,
    /// `NULL` ends the row (`Ok(None)`): equi-join keys, which NULL never matches.
    drop_nulls: bool,
    /// Values are written in their canonical form (`Datum::canonical`), so SQL-equal keys meet.
    canonical: bool,
    /// The unpacked columns, then one slot per part whose value a later part reads.
    datums: Vec<Datum>,
    offsets: Vec<usize>,
    packer: RowPacker,
    /// `eval_each`: each expression part's value (unused for column parts and shared ones,
    /// whose value is in their slot).
    values: Vec<Datum>,
}

#[derive(Clone, Debug)]
enum Part {
    Column(usize),
    /// An expression, the columns to unpack before it that no earlier part unpacked, and the
    /// slot of `datums` its value is kept in for later parts, if any reads it.
    Expr(Vec<usize>, ScalarExpr, Option<usize>),
}

/// A value `eval_each` hands out: read in place from the row, or computed.
#[derive(Clone, Copy, Debug)]
pub enum ValueRef<'a> {
    Packed(DatumRef<'a>),
    Owned(&'a Datum),
}

impl RowExprs {
    pub fn new(exprs: Vec<ScalarExpr>, drop_nulls: bool, canonical: bool) -> RowExprs {
        // Slots for shared values start after every column any expression reads.
        let base = exprs
            .iter()
            .flat_map(|e| e.support())
            .max()
            .map_or(0, |c| c + 1);
        let (exprs, shared) = share_subexpressions(exprs, base);
        let mut unpacked: Vec<usize> = Vec::new();
        let parts = exprs
            .into_iter()
            .enumerate()
            .map(|(i, e)| match e {
                // (A column at or after `base` is an earlier expression's slot.)
                ScalarExpr::Column(c) if c < base => Part::Column(c),
                e => {
                    let new: Vec<usize> = e
                        .support()
                        .into_iter()
                        .filter(|c| *c < base && !unpacked.contains(c))
                        .collect();
                    unpacked.extend(&new);
                    Part::Expr(new, e, shared[i].then_some(base + i))
                }
            })
            .collect::<Vec<_>>();
        let slots = shared.iter().rposition(|s| *s).map_or(0, |i| i + 1);
        RowExprs {
            values: vec![Datum::Null; parts.len()],
            parts,
            drop_nulls,
            canonical,
            datums: vec![Datum::Null; base + slots],
            offsets: Vec::new(),
            packer: RowPacker::new(),
        }
    }

    /// The expressions' values over `row` as a row; `Ok(None)` at a NULL when NULLs are dropped.
    pub fn eval(&mut self, row: &Row) -> Result<Option<Row>, EvalError> {
        self.offsets.clear();
        self.offsets.push(0);
        self.packer.clear();
        let mut ctx = RowCtx {
            slice: row.packed().as_slice(),
            offsets: &mut self.offsets,
            datums: &mut self.datums,
        };
        for part in &self.parts {
            match part {
                Part::Column(c) => {
                    ctx.scan_to(*c);
                    let (start, end) = (ctx.offsets[*c], ctx.offsets[*c + 1]);
                    let d = ctx.slice.read_at(start).0;
                    if d.is_null() && self.drop_nulls {
                        return Ok(None);
                    }
                    if self.canonical && may_be_noncanonical(d) {
                        let d = d.to_datum();
                        self.packer.push(d.canonical().as_ref().unwrap_or(&d));
                    } else {
                        self.packer.extend_packed(ctx.slice.between(start, end));
                    }
                }
                Part::Expr(unpack, e, slot) => {
                    let d = eval_part(&mut ctx, unpack, e)?;
                    if d.is_null() && self.drop_nulls {
                        return Ok(None);
                    }
                    // Only canonical lists pay for the canonical form (a numeric product's
                    // trailing zeros trimmed into a new value).
                    match self.canonical.then(|| d.canonical()).flatten() {
                        Some(c) => self.packer.push(&c),
                        None => self.packer.push(&d),
                    }
                    if let Some(slot) = slot {
                        ctx.datums[*slot] = d;
                    }
                }
            }
        }
        Ok(Some(Row::from_packed(self.packer.finish())))
    }

    /// Evaluates the expressions over `row`, then hands each value to `f` with its position,
    /// in order: nothing reaches `f` unless every expression evaluated (the first error is
    /// returned). Values are not made canonical, and NULLs are handed out, not dropped.
    pub fn eval_each(
        &mut self,
        row: &Row,
        mut f: impl FnMut(usize, ValueRef<'_>),
    ) -> Result<(), EvalError> {
        debug_assert!(!self.canonical && !self.drop_nulls);
        self.offsets.clear();
        self.offsets.push(0);
        let mut ctx = RowCtx {
            slice: row.packed().as_slice(),
            offsets: &mut self.offsets,
            datums: &mut self.datums,
        };
        for (part, value) in self.parts.iter().zip(&mut self.values) {
            match part {
                Part::Column(c) => ctx.scan_to(*c),
                Part::Expr(unpack, e, slot) => {
                    let d = eval_part(&mut ctx, unpack, e)?;
                    // A shared value is kept in its slot only, and handed out from there.
                    match slot {
                        Some(slot) => ctx.datums[*slot] = d,
                        None => *value = d,
                    }
                }
            }
        }
        let slice = row.packed().as_slice();
        for (i, (part, value)) in self.parts.iter().zip(&self.values).enumerate() {
            match part {
                Part::Column(c) => f(i, ValueRef::Packed(slice.read_at(self.offsets[*c]).0)),
                Part::Expr(_, _, Some(slot)) => f(i, ValueRef::Owned(&self.datums[*slot])),
                Part::Expr(..) => f(i, ValueRef::Owned(value)),
            }
        }
        Ok(())
    }
}

/// Unpacks the columns `e` is the first to read, then evaluates it.
fn eval_part(ctx: &mut RowCtx<'_>, unpack: &[usize], e: &ScalarExpr) -> Result<Datum, EvalError> {
    for c in unpack {
        ctx.scan_to(*c);
        ctx.datums[*c] = ctx.slice.read_at(ctx.offsets[*c]).0.to_datum();
    }
    e.eval(ctx.datums)
}

/// Replaces, in each expression, every subexpression equal to a whole earlier expression by a
/// read of that expression's slot (`base` + its position); says which expressions' values are
/// read so. Columns, literals and volatile expressions are not shared.
fn share_subexpressions(mut exprs: Vec<ScalarExpr>, base: usize) -> (Vec<ScalarExpr>, Vec<bool>) {
    let mut shared = vec![false; exprs.len()];
    for j in 1..exprs.len() {
        for i in 0..j {
            let earlier = &exprs[i];
            if matches!(
                earlier,
                ScalarExpr::Column(_) | ScalarExpr::Literal(_) | ScalarExpr::Param(_)
            ) || earlier.is_volatile()
            {
                continue;
            }
            let earlier = earlier.clone();
            let mut found = false;
            exprs[j].visit_mut(&mut |e| {
                if *e == earlier {
                    *e = ScalarExpr::Column(base + i);
                    found = true;
                }
            });
            shared[i] |= found;
        }
    }
    (exprs, shared)
}

/// Whether `d` is of a type whose values have several representations of one SQL value
/// (`Datum::canonical`).
fn may_be_noncanonical(d: DatumRef<'_>) -> bool {
    matches!(
        d,
        DatumRef::Numeric(_)
            | DatumRef::Interval(_)
            | DatumRef::Float32(_)
            | DatumRef::Float64(_)
            | DatumRef::Array(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::BinaryFunc;

    /// The list evaluated over the unpacked row, as the renderer did before.
    fn reference(
        exprs: &[ScalarExpr],
        row: &Row,
        drop_nulls: bool,
        canonical: bool,
    ) -> Result<Option<Row>, EvalError> {
        let datums = row.datums();
        let mut out = Vec::new();
        for e in exprs {
            let d = e.eval(&datums)?;
            if d.is_null() && drop_nulls {
                return Ok(None);
            }
            out.push(if canonical {
                d.canonical().unwrap_or(d)
            } else {
                d
            });
        }
        Ok(Some(Row::new(out)))
    }

    #[test]
    fn keys_agree_with_evaluation_over_unpacked_rows() {
        let num = |s: &str| Datum::Numeric(s.parse().unwrap());
        let ints = [
            Datum::Null,
            Datum::Int64(0),
            Datum::Int64(i64::MAX),
            Datum::Int64(7),
        ];
        let others = [
            Datum::Null,
            num("3.00"),
            num("3"),
            Datum::String("x".repeat(130)),
            Datum::String("y".into()),
            Datum::Float64((-0.0).into()),
            Datum::Int64(1),
        ];
        let c = ScalarExpr::Column;
        let lists: Vec<Vec<ScalarExpr>> = vec![
            vec![c(0)],
            vec![c(2), c(0)],
            vec![c(1).call_binary(BinaryFunc::Add, c(1)), c(2)],
            vec![c(0), c(1).call_binary(BinaryFunc::Div, c(0)), c(2)],
            vec![c(2).call_binary(BinaryFunc::Eq, c(2)), c(1)],
            // Shared: a later expression contains an earlier one whole, or is one again.
            vec![
                c(1).call_binary(BinaryFunc::Mul, c(0)),
                c(1).call_binary(BinaryFunc::Mul, c(0))
                    .call_binary(BinaryFunc::Add, c(1)),
                c(2),
                c(1).call_binary(BinaryFunc::Mul, c(0)),
            ],
            // Shared, and failing (division by zero) before or after what reads it.
            vec![
                c(1).call_binary(BinaryFunc::Div, c(0)),
                c(1).call_binary(BinaryFunc::Div, c(0))
                    .call_binary(BinaryFunc::Eq, c(1)),
            ],
        ];
        for exprs in &lists {
            for (drop_nulls, canonical) in [(false, false), (true, true), (false, true)] {
                // One evaluator across rows: its buffers carry nothing from row to row.
                let mut k = RowExprs::new(exprs.clone(), drop_nulls, canonical);
                let mut e = RowExprs::new(exprs.clone(), drop_nulls, canonical);
                for a in &ints {
                    for b in &ints {
                        for s in &others {
                            let row = Row::new(vec![a.clone(), b.clone(), s.clone()]);
                            let expected = reference(exprs, &row, drop_nulls, canonical);
                            assert_eq!(k.eval(&row), expected, "{exprs:?} {row:?}");
                            if drop_nulls || canonical {
                                continue;
                            }
                            // Value by value: the same values, or the error and no value.
                            let mut each = Vec::new();
                            let result = e.eval_each(&row, |i, v| {
                                let d = match v {
                                    ValueRef::Packed(d) => d.to_datum(),
                                    ValueRef::Owned(d) => d.clone(),
                                };
                                each.push((i, d));
                            });
                            match expected {
                                Ok(expected) => {
                                    assert!(result.is_ok(), "{exprs:?} {row:?}");
                                    let expected = expected.expect("NULLs are not dropped");
                                    let got: Vec<Datum> =
                                        each.iter().map(|(_, d)| d.clone()).collect();
                                    assert_eq!(got, expected.datums(), "{exprs:?} {row:?}");
                                    assert!(each.iter().enumerate().all(|(n, (i, _))| n == *i));
                                }
                                Err(err) => {
                                    assert_eq!(result, Err(err), "{exprs:?} {row:?}");
                                    assert!(each.is_empty(), "{exprs:?} {row:?}: {each:?}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
