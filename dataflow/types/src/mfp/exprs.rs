//! `RowExprs`: a list of expressions evaluated over a packed row into a packed row — the key
//! of an arrangement, a join or a group, the arguments of aggregates.
//!
//! A key that names a column is copied as bytes (decoded only when it may need its canonical
//! form); other expressions read owned datums of only the columns they use, unpacked once per
//! row into a buffer reused across rows. Expressions are evaluated in order and the first
//! error, or (when NULLs are dropped) the first NULL, ends the row, as evaluating the list
//! over the unpacked row did.

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
    datums: Vec<Datum>,
    offsets: Vec<usize>,
    packer: RowPacker,
}

#[derive(Clone, Debug)]
enum Part {
    Column(usize),
    /// An expression, and the columns to unpack before it that no earlier part unpacked.
    Expr(Vec<usize>, ScalarExpr),
}

impl RowExprs {
    pub fn new(exprs: Vec<ScalarExpr>, drop_nulls: bool, canonical: bool) -> RowExprs {
        let mut unpacked: Vec<usize> = Vec::new();
        let mut width = 0;
        let parts = exprs
            .into_iter()
            .map(|e| match e {
                ScalarExpr::Column(c) => Part::Column(c),
                e => {
                    let new: Vec<usize> = e
                        .support()
                        .into_iter()
                        .filter(|c| !unpacked.contains(c))
                        .collect();
                    unpacked.extend(&new);
                    width = width.max(new.iter().map(|c| c + 1).max().unwrap_or(0));
                    Part::Expr(new, e)
                }
            })
            .collect();
        RowExprs {
            parts,
            drop_nulls,
            canonical,
            datums: vec![Datum::Null; width],
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
                Part::Expr(unpack, e) => {
                    for c in unpack {
                        ctx.scan_to(*c);
                        ctx.datums[*c] = ctx.slice.read_at(ctx.offsets[*c]).0.to_datum();
                    }
                    let d = e.eval(ctx.datums)?;
                    if d.is_null() && self.drop_nulls {
                        return Ok(None);
                    }
                    // Only canonical lists pay for the canonical form (a numeric product's
                    // trailing zeros trimmed into a new value).
                    match self.canonical.then(|| d.canonical()).flatten() {
                        Some(c) => self.packer.push(&c),
                        None => self.packer.push(&d),
                    }
                }
            }
        }
        Ok(Some(Row::from_packed(self.packer.finish())))
    }
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
        ];
        for exprs in &lists {
            for (drop_nulls, canonical) in [(false, false), (true, true), (false, true)] {
                // One evaluator across rows: its buffers carry nothing from row to row.
                let mut k = RowExprs::new(exprs.clone(), drop_nulls, canonical);
                for a in &ints {
                    for b in &ints {
                        for s in &others {
                            let row = Row::new(vec![a.clone(), b.clone(), s.clone()]);
                            assert_eq!(
                                k.eval(&row),
                                reference(exprs, &row, drop_nulls, canonical),
                                "{exprs:?} {row:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
