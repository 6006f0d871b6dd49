//! Window functions over one partition: `row_number`, `rank`, `dense_rank`, `percent_rank`,
//! `cume_dist`, `ntile`, `lag`, `lead`, `first_value`, `last_value`, `nth_value`, and
//! aggregates over a frame (`ROWS` or `RANGE` between unbounded, offset or current-row bounds).
//!
//! `Plan::Window` appends one column per function to each input row. Its evaluation is a pure
//! function of the partition's rows (a multiset: a row with multiplicity n is n rows), which
//! is what lets the engine's reduce recompute a partition's output whenever its input changes
//! and emit only the difference, as it does for top-k. Rows are sorted by the window's ORDER
//! BY and then by `Row` order, so the numbering of rows PostgreSQL would order arbitrarily
//! (peers) is still a fixed function of the multiset.
//!
//! Peers are rows equal in the ORDER BY; `RANGE` frame bounds at CURRENT ROW extend to the
//! current row's peers, which is PostgreSQL's default frame (`RANGE BETWEEN UNBOUNDED
//! PRECEDING AND CURRENT ROW`; the whole partition without ORDER BY, where all rows are peers).
//! A `RANGE` bound with an offset (`RANGE BETWEEN 5 PRECEDING AND CURRENT ROW`) is a value:
//! the planner computes, for each row, its ORDER BY value in a comparable form (the `key`) and
//! the bound's value (the row's value minus or plus the offset, in the same form); the frame
//! starts at the first row whose key is not before the start value in the window's order, and
//! ends after the last row whose key is not after the end value. A row whose value is NULL has
//! its peers (the other NULLs) as such a frame, as in PostgreSQL.

use crate::agg::AggregateExpr;
use crate::datum::{Datum, Row};
use crate::error::EvalError;
use crate::packed::DatumRef;
use crate::plan::{compare_rows, ColumnOrder};
use ordered_float::OrderedFloat;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// What a window function computes; its arguments are columns of the input (`WindowExpr`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WindowFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    /// Argument: the number of buckets (read from the partition's first row, as PostgreSQL).
    Ntile,
    /// `lag(value, offset, default)`: arguments value, offset (int4), default.
    Lag,
    Lead,
    FirstValue,
    LastValue,
    /// Arguments: value, n (int4).
    NthValue,
    /// An aggregate over the frame; its expression reads the input row.
    Aggregate(AggregateExpr),
}

/// Where a frame starts or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(u64),
    CurrentRow,
    Following(u64),
    UnboundedFollowing,
    /// A RANGE bound with an offset: the column holding the bound's value for each row.
    Value(usize),
    /// A ROWS bound whose row count a column holds (a parameter's value, the same in every
    /// row; checked by `UnaryFunc::FrameOffset`).
    PrecedingBy(usize),
    FollowingBy(usize),
}

impl FrameBound {
    /// The bound with the column it reads (a RANGE value, a ROWS count) `by` further on.
    pub fn shift_column(&mut self, by: usize) {
        if let FrameBound::Value(c) | FrameBound::PrecedingBy(c) | FrameBound::FollowingBy(c) = self
        {
            *c += by;
        }
    }
}

/// How a RANGE frame with offsets compares rows: the column of each row's key, and the
/// window's order (DESC, NULLS LAST).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RangeKey {
    pub column: usize,
    pub desc: bool,
    pub nulls_last: bool,
}

/// A window frame: by rows, or by peers (`RANGE`, whose offsets kpg does not take).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WindowFrame {
    pub rows: bool,
    pub start: FrameBound,
    pub end: FrameBound,
    /// For `FrameBound::Value` bounds.
    pub range_key: Option<RangeKey>,
}

impl WindowFrame {
    /// PostgreSQL's default: `RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`.
    pub const DEFAULT: WindowFrame = WindowFrame {
        rows: false,
        start: FrameBound::UnboundedPreceding,
        end: FrameBound::CurrentRow,
        range_key: None,
    };
}

/// One window function call.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WindowExpr {
    pub func: WindowFunc,
    pub args: Vec<usize>,
    pub frame: WindowFrame,
}

/// The rows of one partition (with multiplicities; others are ignored), each with the values
/// of `funcs` appended, in window order.
pub fn evaluate(
    rows: impl IntoIterator<Item = (Row, i64)>,
    order: &[ColumnOrder],
    funcs: &[WindowExpr],
) -> Result<Vec<Row>, EvalError> {
    let mut sorted: Vec<Row> = Vec::new();
    for (row, n) in rows {
        for _ in 0..n.max(0) {
            sorted.push(row.clone());
        }
    }
    sorted.sort_by(|a, b| compare_rows(a, b, order).then_with(|| a.cmp(b)));
    let n = sorted.len();
    // The first and one-past-last position of each row's peer group.
    let mut peers = vec![(0, 0); n];
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && compare_rows(&sorted[start], &sorted[end], order) == Ordering::Equal {
            end += 1;
        }
        peers[start..end].fill((start, end));
        start = end;
    }
    let mut columns: Vec<Vec<Datum>> = Vec::with_capacity(funcs.len());
    for f in funcs {
        columns.push(column(&sorted, &peers, f)?);
    }
    Ok(sorted
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let mut datums = row.into_datums();
            datums.extend(columns.iter().map(|c| c[i].clone()));
            Row::new(datums)
        })
        .collect())
}

/// One function's value for every row of the sorted partition.
fn column(rows: &[Row], peers: &[(usize, usize)], f: &WindowExpr) -> Result<Vec<Datum>, EvalError> {
    let n = rows.len();
    let arg = |i: usize, k: usize| rows[i].get(f.args[k]).to_datum();
    let int = |i: usize, k: usize| match rows[i].get(f.args[k]) {
        DatumRef::Int32(v) => Some(i64::from(v)),
        DatumRef::Int64(v) => Some(v),
        _ => None,
    };
    let float = |v: f64| Datum::Float64(OrderedFloat(v));
    let mut out = Vec::with_capacity(n);
    match &f.func {
        WindowFunc::RowNumber => out.extend((1..=n as i64).map(Datum::Int64)),
        WindowFunc::Rank => out.extend(peers.iter().map(|(s, _)| Datum::Int64(*s as i64 + 1))),
        WindowFunc::DenseRank => {
            let mut rank = 0;
            for (i, (s, _)) in peers.iter().enumerate() {
                if *s == i {
                    rank += 1;
                }
                out.push(Datum::Int64(rank));
            }
        }
        WindowFunc::PercentRank => out.extend(peers.iter().map(|(s, _)| {
            float(match n {
                1 => 0.0,
                _ => *s as f64 / (n - 1) as f64,
            })
        })),
        WindowFunc::CumeDist => out.extend(peers.iter().map(|(_, e)| float(*e as f64 / n as f64))),
        WindowFunc::Ntile => {
            let buckets = match n {
                0 => return Ok(out),
                _ => int(0, 0),
            };
            match buckets {
                None => out.extend((0..n).map(|_| Datum::Null)),
                Some(b) if b <= 0 => return Err(EvalError::NtileArgument),
                Some(b) => {
                    let b = b as usize;
                    let (size, extra) = (n / b, n % b);
                    let mut i = 0;
                    for bucket in 0..b.min(n) {
                        let len = size + usize::from(bucket < extra);
                        for _ in 0..len {
                            out.push(Datum::Int32(bucket as i32 + 1));
                            i += 1;
                        }
                    }
                    debug_assert_eq!(i, n);
                }
            }
        }
        WindowFunc::Lag | WindowFunc::Lead => {
            for i in 0..n {
                let offset = match f.args.get(1) {
                    None => Some(1),
                    Some(_) => int(i, 1),
                };
                let Some(offset) = offset else {
                    out.push(Datum::Null);
                    continue;
                };
                let offset = if f.func == WindowFunc::Lag {
                    -offset
                } else {
                    offset
                };
                let target = i as i64 + offset;
                out.push(if (0..n as i64).contains(&target) {
                    arg(target as usize, 0)
                } else {
                    match f.args.get(2) {
                        Some(_) => arg(i, 2),
                        None => Datum::Null,
                    }
                });
            }
        }
        WindowFunc::FirstValue | WindowFunc::LastValue | WindowFunc::NthValue => {
            for (i, &group) in peers.iter().enumerate() {
                let (lo, hi) = frame(f.frame, rows, i, group);
                let pick = match f.func {
                    WindowFunc::FirstValue => (lo < hi).then_some(lo),
                    WindowFunc::LastValue => (lo < hi).then(|| hi - 1),
                    _ => match int(i, 1) {
                        None => None,
                        Some(k) if k <= 0 => return Err(EvalError::NthValueArgument),
                        Some(k) => Some(lo + k as usize - 1).filter(|&p| p < hi),
                    },
                };
                out.push(pick.map_or(Datum::Null, |p| arg(p, 0)));
            }
        }
        WindowFunc::Aggregate(agg) => {
            let values: Vec<Datum> = rows
                .iter()
                .map(|r| agg.expr.eval(&r.datums()))
                .collect::<Result<_, _>>()?;
            for (i, &group) in peers.iter().enumerate() {
                let (lo, hi) = frame(f.frame, rows, i, group);
                let frame_values = values[lo..hi.max(lo)].iter().map(|d| (d, 1));
                out.push(agg.func.eval(frame_values, agg.distinct)?);
            }
        }
    }
    Ok(out)
}

/// The positions `[lo, hi)` of row `i`'s frame in the sorted partition `rows`, `peers` being
/// the bounds of its peer group.
fn frame(f: WindowFrame, rows: &[Row], i: usize, peers: (usize, usize)) -> (usize, usize) {
    let n = rows.len();
    // The frame's edge `k` rows before or after row `i` (past it, for the end).
    let preceding = |k: u64, start: bool| {
        let k = k.min(i64::MAX as u64) as i64;
        (i as i64)
            .saturating_sub(k)
            .saturating_add(i64::from(!start))
            .clamp(0, n as i64) as usize
    };
    let following = |k: u64, start: bool| {
        (i as u64)
            .saturating_add(k)
            .saturating_add(u64::from(!start))
            .min(n as u64) as usize
    };
    let at = |b: FrameBound, start: bool| -> usize {
        match b {
            FrameBound::Value(column) => {
                let key = f.range_key.expect("a RANGE frame with offsets has a key");
                // A NULL value's frame is its peers.
                if rows[i].get(key.column).is_null() {
                    return if start { peers.0 } else { peers.1 };
                }
                let bound = rows[i].get(column);
                // The key's place relative to the bound, in the window's order.
                let place = |r: &Row| {
                    let k = r.get(key.column);
                    match (k.is_null(), key.nulls_last) {
                        (true, true) => Ordering::Greater,
                        (true, false) => Ordering::Less,
                        (false, _) if key.desc => bound.sql_cmp(k),
                        (false, _) => k.sql_cmp(bound),
                    }
                };
                if start {
                    rows.partition_point(|r| place(r) == Ordering::Less)
                } else {
                    rows.partition_point(|r| place(r) != Ordering::Greater)
                }
            }
            FrameBound::UnboundedPreceding => 0,
            FrameBound::UnboundedFollowing => n,
            FrameBound::CurrentRow if f.rows => i + usize::from(!start),
            FrameBound::CurrentRow if start => peers.0,
            FrameBound::CurrentRow => peers.1,
            FrameBound::Preceding(k) => preceding(k, start),
            FrameBound::Following(k) => following(k, start),
            FrameBound::PrecedingBy(c) => preceding(row_count(&rows[i], c), start),
            FrameBound::FollowingBy(c) => following(row_count(&rows[i], c), start),
        }
    };
    (at(f.start, true), at(f.end, false))
}

/// The row count a `PrecedingBy`/`FollowingBy` bound reads from `row` (checked when it was
/// computed: not NULL, not negative).
fn row_count(row: &Row, column: usize) -> u64 {
    match row.get(column) {
        crate::packed::DatumRef::Int64(k) => k.max(0) as u64,
        _ => 0,
    }
}

/// `UnaryFunc::FrameOffset`: `d` if it is a valid frame offset (of the frame's start if
/// `start`, of a ROWS frame if `rows`), else PostgreSQL's error.
pub fn check_offset(d: Datum, start: bool, rows: bool) -> Result<Datum, EvalError> {
    let which = if start { "starting" } else { "ending" };
    let negative = match &d {
        Datum::Null => return Err(EvalError::NullFrameOffset(which.to_string())),
        Datum::Int16(v) => *v < 0,
        Datum::Int32(v) => *v < 0,
        Datum::Int64(v) => *v < 0,
        Datum::Float32(v) => v.0 < 0.0 || v.0.is_nan(),
        Datum::Float64(v) => v.0 < 0.0 || v.0.is_nan(),
        Datum::Numeric(n) => {
            if n.signum() > 0 && !n.is_finite() {
                return Err(EvalError::Unsupported("an infinite RANGE offset".into()));
            }
            n.signum() < 0 || n.is_nan()
        }
        Datum::Interval(v) => v.months < 0 || v.days < 0 || v.micros < 0,
        _ => false,
    };
    match (negative, rows) {
        (false, _) => Ok(d),
        (true, true) => Err(EvalError::NegativeFrameOffset(format!(
            "frame {which} offset must not be negative"
        ))),
        (true, false) => Err(EvalError::NegativeFrameOffset(
            "invalid preceding or following size in window function".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[(i32, i32)]) -> Vec<(Row, i64)> {
        values
            .iter()
            .map(|(k, v)| (Row::new(vec![Datum::Int32(*k), Datum::Int32(*v)]), 1))
            .collect()
    }

    fn call(func: WindowFunc, args: Vec<usize>, frame: WindowFrame) -> WindowExpr {
        WindowExpr { func, args, frame }
    }

    #[test]
    fn ranks_number_peers_as_postgres() {
        let order = [ColumnOrder {
            column: 1,
            desc: false,
            nulls_last: true,
        }];
        let funcs = [
            call(WindowFunc::RowNumber, vec![], WindowFrame::DEFAULT),
            call(WindowFunc::Rank, vec![], WindowFrame::DEFAULT),
            call(WindowFunc::DenseRank, vec![], WindowFrame::DEFAULT),
        ];
        let out = evaluate(rows(&[(1, 10), (2, 20), (3, 10), (4, 30)]), &order, &funcs).unwrap();
        let got: Vec<Vec<i64>> = out
            .iter()
            .map(|r| {
                r.datums()[2..]
                    .iter()
                    .map(|d| match d {
                        Datum::Int64(v) => *v,
                        other => panic!("{other:?}"),
                    })
                    .collect()
            })
            .collect();
        assert_eq!(
            got,
            vec![vec![1, 1, 1], vec![2, 1, 1], vec![3, 3, 2], vec![4, 4, 3]]
        );
    }

    #[test]
    fn frames_by_rows_and_by_peers() {
        // Rows 0..5 with peers {0,1}, {2}, {3,4}.
        let peers = [(0, 2), (0, 2), (2, 3), (3, 5), (3, 5)];
        let rows_frame = WindowFrame {
            rows: true,
            start: FrameBound::Preceding(1),
            end: FrameBound::Following(1),
            range_key: None,
        };
        let five: Vec<Row> = (0..5).map(|i| Row::new(vec![Datum::Int32(i)])).collect();
        let got: Vec<_> = (0..5)
            .map(|i| frame(rows_frame, &five, i as usize, peers[i as usize]))
            .collect();
        assert_eq!(got, vec![(0, 2), (0, 3), (1, 4), (2, 5), (3, 5)]);
        let got: Vec<_> = (0..5)
            .map(|i| frame(WindowFrame::DEFAULT, &five, i, peers[i]))
            .collect();
        assert_eq!(got, vec![(0, 2), (0, 2), (0, 3), (0, 5), (0, 5)]);
        let empty = WindowFrame {
            rows: true,
            start: FrameBound::Following(2),
            end: FrameBound::Following(1),
            range_key: None,
        };
        let (lo, hi) = frame(empty, &five, 0, peers[0]);
        assert!(lo >= hi);
    }
}
