//! Row estimates: how many rows a plan gives, for choosing among join orders that build the
//! same arrangements (`join_order.rs`). Estimates steer only the order, never a result.
//!
//! What the catalog says of a collection (`Catalog::statistics`): its rows, the column sets
//! no two of its rows agree on (a table's PRIMARY KEY and UNIQUE constraints, a generator's
//! keys), and for some columns how many distinct values their domain has. From these, as
//! PostgreSQL's planner does without gathered statistics: a filter keeps a fixed share of rows
//! per predicate (an equality with a constant `1 / distinct`, else 0.5%; a range a third; LIKE
//! 5%); an equi-join gives `|L| * |R| / max(distinct(l), distinct(r))` per key pair, and when
//! one side's key columns cover a unique key, `|L| * |R| / distinct(key)` — a foreign key
//! meeting its primary key gives as many rows as the referencing side keeps. A column's
//! `distinct` is its domain's, not shrunk by filters, so a filtered dimension table keeps
//! fewer of the fact rows that reference it. A grouping has one row per distinct key.
//! Anything the catalog knows nothing of is unknown (`None`), and callers then keep their
//! order.

use kpg_types::{BinaryFunc, Datum, Plan, ScalarExpr, UnaryFunc};

use crate::catalog::Catalog;

/// PostgreSQL's defaults: distinct values of a column with no statistics, and the shares of
/// rows an equality with a constant, a range bound, and anything else keep.
const DEFAULT_DISTINCT: f64 = 200.0;
const EQ_SHARE: f64 = 0.005;
const RANGE_SHARE: f64 = 1.0 / 3.0;
const LIKE_SHARE: f64 = 0.05;
const OTHER_SHARE: f64 = 1.0 / 3.0;

/// What the catalog knows of a collection's contents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Statistics {
    /// How many rows it holds (about).
    pub rows: f64,
    /// Column sets no two rows agree on.
    pub unique: Vec<Vec<usize>>,
    /// Per column, how many distinct values its domain has, where known (a unique column's is
    /// `rows`, and need not be given).
    pub distinct: Vec<Option<f64>>,
}

/// An estimate of a plan's rows, and what joins and filters above it need of its columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub rows: f64,
    /// Per column, its domain's distinct values where known.
    distinct: Vec<Option<f64>>,
    /// Column sets no two rows agree on, each with its number of distinct values.
    keys: Vec<(Vec<usize>, f64)>,
}

impl Estimate {
    fn of_collection(stats: &Statistics, arity: usize) -> Estimate {
        let rows = stats.rows.max(1.0);
        let mut distinct: Vec<Option<f64>> = (0..arity)
            .map(|c| stats.distinct.get(c).copied().flatten())
            .collect();
        for key in &stats.unique {
            if let [c] = key.as_slice() {
                if let Some(d) = distinct.get_mut(*c) {
                    *d = Some(rows);
                }
            }
        }
        Estimate {
            rows,
            distinct,
            keys: stats.unique.iter().map(|k| (k.clone(), rows)).collect(),
        }
    }

    pub fn arity(&self) -> usize {
        self.distinct.len()
    }

    /// This estimate with its columns numbered from `offset`, in `width` columns (a chain's
    /// input among the chain's columns; the others unknown).
    pub fn placed(&self, offset: usize, width: usize) -> Estimate {
        let mut distinct = vec![None; width];
        for (c, d) in self.distinct.iter().enumerate() {
            if let Some(slot) = distinct.get_mut(offset + c) {
                *slot = *d;
            }
        }
        Estimate {
            rows: self.rows,
            distinct,
            keys: self
                .keys
                .iter()
                .map(|(k, d)| (k.iter().map(|c| c + offset).collect(), *d))
                .collect(),
        }
    }

    /// The distinct values of `e` if it is a column (through casts), where known.
    fn distinct_of(&self, e: &ScalarExpr) -> Option<f64> {
        column_of(e).and_then(|c| self.distinct.get(c).copied().flatten())
    }

    /// The unique key that `columns` cover with the most distinct values: its distinct
    /// values and its columns.
    fn covered_key(&self, columns: &[Option<usize>]) -> Option<(f64, &[usize])> {
        self.keys
            .iter()
            .filter(|(k, _)| k.iter().all(|c| columns.contains(&Some(*c))))
            .map(|(k, d)| (*d, k.as_slice()))
            .reduce(|a, b| if b.0 > a.0 { b } else { a })
    }

    /// The rows of this relation kept by `predicates`.
    pub fn filtered(mut self, predicates: &[ScalarExpr]) -> Estimate {
        let share: f64 = predicates.iter().map(|p| self.share(p)).product();
        self.rows = (self.rows * share).max(1.0);
        self
    }

    /// The share of rows a predicate keeps.
    fn share(&self, p: &ScalarExpr) -> f64 {
        match p {
            ScalarExpr::Literal(Datum::Bool(true)) => 1.0,
            ScalarExpr::Literal(_) => 0.0,
            ScalarExpr::Binary { func, left, right } => match func {
                BinaryFunc::And => self.share(left) * self.share(right),
                BinaryFunc::Or => {
                    let (a, b) = (self.share(left), self.share(right));
                    a + b - a * b
                }
                BinaryFunc::Eq => self.equality_share(left, right),
                BinaryFunc::NotEq => 1.0 - self.equality_share(left, right),
                BinaryFunc::Lt | BinaryFunc::Lte | BinaryFunc::Gt | BinaryFunc::Gte => RANGE_SHARE,
                BinaryFunc::Like | BinaryFunc::ILike => LIKE_SHARE,
                _ => OTHER_SHARE,
            },
            ScalarExpr::Unary {
                func: UnaryFunc::Not,
                expr,
            } => 1.0 - self.share(expr),
            ScalarExpr::Unary {
                func: UnaryFunc::IsNull,
                ..
            } => EQ_SHARE,
            ScalarExpr::Unary {
                func: UnaryFunc::IsNotNull,
                ..
            } => 1.0 - EQ_SHARE,
            _ => OTHER_SHARE,
        }
    }

    fn equality_share(&self, left: &ScalarExpr, right: &ScalarExpr) -> f64 {
        let constant = |e: &ScalarExpr| e.support().is_empty();
        match (constant(left), constant(right)) {
            (false, true) => self.distinct_of(left).map_or(EQ_SHARE, |d| 1.0 / d),
            (true, false) => self.distinct_of(right).map_or(EQ_SHARE, |d| 1.0 / d),
            _ => 1.0 / self.pair_distinct(left, self, right),
        }
    }

    /// The larger distinct count of two sides of an equality (`DEFAULT_DISTINCT`, but no more
    /// than its relation's rows, for a side not known).
    fn pair_distinct(&self, left: &ScalarExpr, other: &Estimate, right: &ScalarExpr) -> f64 {
        let l = self
            .distinct_of(left)
            .unwrap_or(DEFAULT_DISTINCT.min(self.rows));
        let r = other
            .distinct_of(right)
            .unwrap_or(DEFAULT_DISTINCT.min(other.rows));
        l.max(r).max(1.0)
    }
}

/// The estimate of an equi-join of `left` and `right` (in the same column numbering, over
/// disjoint columns) on the pairs of key expressions.
pub fn join(left: &Estimate, right: &Estimate, keys: &[(&ScalarExpr, &ScalarExpr)]) -> Estimate {
    let columns = |side: usize| -> Vec<Option<usize>> {
        keys.iter()
            .map(|pair| column_of(if side == 0 { pair.0 } else { pair.1 }))
            .collect()
    };
    let (left_columns, right_columns) = (columns(0), columns(1));
    let (left_key, right_key) = (
        left.covered_key(&left_columns),
        right.covered_key(&right_columns),
    );
    // The larger covered key decides for its pairs; the other pairs are independent of it.
    let decided = match (left_key, right_key) {
        (Some(l), Some(r)) if r.0 > l.0 => Some((r, &right_columns)),
        (Some(l), _) => Some((l, &left_columns)),
        (None, r) => r.map(|r| (r, &right_columns)),
    };
    let share = keys
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            decided.is_none_or(|((_, key), side)| side[*i].is_none_or(|c| !key.contains(&c)))
        })
        .map(|(_, (l, r))| 1.0 / left.pair_distinct(l, right, r))
        .product::<f64>()
        / decided.map_or(1.0, |((d, _), _)| d.max(1.0));
    let distinct = left
        .distinct
        .iter()
        .zip(&right.distinct)
        .map(|(l, r)| l.or(*r))
        .collect();
    // Each row of a side meets at most one row of a side whose key it meets: its keys stay.
    let mut unique = Vec::new();
    if right_key.is_some() {
        unique.extend(left.keys.iter().cloned());
    }
    if left_key.is_some() {
        unique.extend(right.keys.iter().cloned());
    }
    Estimate {
        rows: (left.rows * right.rows * share).max(1.0),
        distinct,
        keys: unique,
    }
}

/// A column read directly or through casts (which keep its distinct values).
fn column_of(e: &ScalarExpr) -> Option<usize> {
    match e {
        ScalarExpr::Column(c) => Some(*c),
        ScalarExpr::Unary {
            func: UnaryFunc::Cast(_) | UnaryFunc::BpcharToText,
            expr,
        } => column_of(expr),
        _ => None,
    }
}

/// The estimate of `plan`'s rows, or `None` where it reads something the catalog has no
/// statistics of (or a plan shape not estimated).
pub fn estimate(plan: &Plan, catalog: &dyn Catalog) -> Option<Estimate> {
    Some(match plan {
        Plan::Get { id } | Plan::IndexedGet { id, .. } => {
            let arity = crate::index_reuse::plan_arity(plan, catalog)?;
            Estimate::of_collection(&catalog.statistics(*id)?, arity)
        }
        Plan::Constant { rows } => {
            let arity = rows.first()?.0.len();
            Estimate {
                rows: rows.len() as f64,
                distinct: vec![None; arity],
                keys: Vec::new(),
            }
        }
        Plan::Filter { input, predicates } => estimate(input, catalog)?.filtered(predicates),
        Plan::TemporalFilter { input, .. } | Plan::Negate { input } | Plan::Threshold { input } => {
            estimate(input, catalog)?
        }
        Plan::Map { input, exprs } => {
            let mut e = estimate(input, catalog)?;
            for expr in exprs {
                let d = e.distinct_of(expr);
                e.distinct.push(d);
            }
            e
        }
        Plan::Project { input, outputs } => {
            let e = estimate(input, catalog)?;
            let position = |c: &usize| outputs.iter().position(|o| o == c);
            Estimate {
                rows: e.rows,
                distinct: outputs
                    .iter()
                    .map(|o| e.distinct.get(*o).copied().flatten())
                    .collect(),
                keys: e
                    .keys
                    .iter()
                    .filter_map(|(k, d)| Some((k.iter().map(position).collect::<Option<_>>()?, *d)))
                    .collect(),
            }
        }
        Plan::Join {
            left,
            right,
            left_key,
            right_key,
        } => {
            let left = estimate(left, catalog)?;
            let right = estimate(right, catalog)?;
            let (offset, width) = (left.arity(), left.arity() + right.arity());
            let shifted: Vec<ScalarExpr> = right_key
                .iter()
                .map(|k| {
                    let mut k = k.clone();
                    k.map_columns(&|c| c + offset);
                    k
                })
                .collect();
            let pairs: Vec<(&ScalarExpr, &ScalarExpr)> = left_key.iter().zip(&shifted).collect();
            let (left, right) = (left.placed(0, width), right.placed(offset, width));
            join(&left, &right, &pairs)
        }
        Plan::Reduce {
            input, group_key, ..
        } => {
            let e = estimate(input, catalog)?;
            let arity = crate::index_reuse::plan_arity(plan, catalog)?;
            grouped(&e, group_key, arity)
        }
        Plan::Distinct { input } => {
            let e = estimate(input, catalog)?;
            let columns: Vec<ScalarExpr> = (0..e.arity()).map(ScalarExpr::Column).collect();
            grouped(&e, &columns, e.arity())
        }
        Plan::Union { inputs } => {
            let mut all = inputs.iter().map(|i| estimate(i, catalog));
            let mut e = all.next()??;
            e.keys.clear();
            for other in all {
                let other = other?;
                e.rows += other.rows;
                for (d, o) in e.distinct.iter_mut().zip(other.distinct) {
                    *d = d.zip(o).map(|(a, b)| a + b);
                }
            }
            e
        }
        Plan::TopK {
            input,
            group_key,
            limit,
            ..
        } => {
            let mut e = estimate(input, catalog)?;
            if let (true, Some(limit)) = (group_key.is_empty(), limit) {
                e.rows = e.rows.min(*limit as f64).max(1.0);
            }
            e
        }
        _ => return None,
    })
}

/// One row per distinct value of `key` over `e`: all of `e`'s rows if the key covers a unique
/// key, else the product of the key columns' distinct values, at most `e`'s rows.
fn grouped(e: &Estimate, key: &[ScalarExpr], arity: usize) -> Estimate {
    let columns: Vec<Option<usize>> = key.iter().map(column_of).collect();
    let rows = match e.covered_key(&columns) {
        _ if key.is_empty() => 1.0,
        Some(_) => e.rows,
        None => key
            .iter()
            .map(|k| e.distinct_of(k).unwrap_or(DEFAULT_DISTINCT))
            .product::<f64>()
            .min(e.rows),
    };
    let mut distinct: Vec<Option<f64>> = key.iter().map(|k| e.distinct_of(k)).collect();
    // The key's values are some of its domain's: what a join meeting it is estimated by.
    let domain = distinct
        .iter()
        .map(|d| d.unwrap_or(rows))
        .product::<f64>()
        .max(rows);
    distinct.resize(arity, None);
    Estimate {
        rows: rows.max(1.0),
        distinct,
        keys: vec![((0..key.len()).collect(), domain.max(1.0))],
    }
}
