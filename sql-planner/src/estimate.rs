//! Row estimates: how many rows a plan gives, for choosing among join orders that build the
//! same arrangements (`join_order.rs`). Estimates steer only the order, never a result.
//!
//! What the catalog says of a collection (`Catalog::statistics`): its rows, the column sets
//! no two of its rows agree on (a table's PRIMARY KEY and UNIQUE constraints, a generator's
//! keys), and for some columns how many distinct values their domain has. From these, as
//! PostgreSQL's planner does without gathered statistics: a filter keeps a fixed share of rows
//! per predicate (an equality with a constant `1 / distinct`, else 0.5%; a range a third; LIKE
//! 5%); an equi-join gives `|L| * |R| / max(distinct(l), distinct(r))` per key pair, and when
//! one side's key columns cover a unique key, `|L| * |R| / distinct(key)` for those pairs — a
//! foreign key meeting its primary key gives as many rows as the referencing side keeps. A
//! column's `distinct` is its domain's, not shrunk by filters, so a filtered dimension table
//! keeps fewer of the fact rows that reference it. A pair of columns of which nothing is
//! known (a table loaded by COPY has only its rows) is taken as a key of the smaller
//! collection; several such pairs multiply, but no further than one side's widest column
//! (a composite key is one key); columns a chain's equalities make equal range over the
//! smallest of their domains (`join_order::input_estimates`; a join's two key columns do so
//! after it), so `c_nationkey = s_nationkey` ranges over the 25 nations. A grouping has one row per distinct key. Anything the catalog
//! knows nothing of is unknown (`None`), and callers then keep their order.

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

/// What is known of a column's values.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Domain {
    /// How many distinct values the domain has, where known.
    distinct: Option<f64>,
    /// At most as many distinct values as this: the rows of the collection it comes from (0
    /// for a column not in the relation, in `Estimate::placed`).
    bound: f64,
}

impl Domain {
    fn unknown(bound: f64) -> Domain {
        Domain {
            distinct: None,
            bound,
        }
    }
}

/// An estimate of a plan's rows, and what joins and filters above it need of its columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub rows: f64,
    /// Per column, its domain.
    columns: Vec<Domain>,
    /// Column sets no two rows agree on, each with its number of distinct values.
    keys: Vec<(Vec<usize>, f64)>,
}

impl Estimate {
    fn of_collection(stats: &Statistics, arity: usize) -> Estimate {
        let rows = stats.rows.max(1.0);
        let mut columns: Vec<Domain> = (0..arity)
            .map(|c| Domain {
                distinct: stats.distinct.get(c).copied().flatten(),
                bound: rows,
            })
            .collect();
        for key in &stats.unique {
            if let [c] = key.as_slice() {
                if let Some(d) = columns.get_mut(*c) {
                    d.distinct = Some(rows);
                }
            }
        }
        Estimate {
            rows,
            columns,
            keys: stats.unique.iter().map(|k| (k.clone(), rows)).collect(),
        }
    }

    pub fn arity(&self) -> usize {
        self.columns.len()
    }

    /// This estimate with its columns numbered from `offset`, in `width` columns (a chain's
    /// input among the chain's columns; the others unknown).
    pub fn placed(&self, offset: usize, width: usize) -> Estimate {
        let mut columns = vec![Domain::unknown(0.0); width];
        for (c, d) in self.columns.iter().enumerate() {
            if let Some(slot) = columns.get_mut(offset + c) {
                *slot = *d;
            }
        }
        Estimate {
            rows: self.rows,
            columns,
            keys: self
                .keys
                .iter()
                .map(|(k, d)| (k.iter().map(|c| c + offset).collect(), *d))
                .collect(),
        }
    }

    /// Takes the columns `equal` (of this estimate; placeholders left out) to hold equal values
    /// in the rows that matter: each ranges over the smallest of their domains.
    pub fn narrow(&mut self, equal: &[usize]) {
        let present = |c: &&usize| self.columns.get(**c).is_some_and(|d| d.bound > 0.0);
        let members: Vec<usize> = equal.iter().filter(present).copied().collect();
        let bound = members
            .iter()
            .map(|c| self.columns[*c].bound)
            .fold(f64::INFINITY, f64::min);
        let distinct = members
            .iter()
            .filter_map(|c| self.columns[*c].distinct)
            .reduce(f64::min);
        for c in members {
            let d = &mut self.columns[c];
            d.bound = bound;
            d.distinct = d.distinct.map(|own| own.min(distinct.unwrap_or(own)));
        }
    }

    /// Caps the distinct values of `column` (if the relation has it) at `bound`.
    pub fn cap(&mut self, column: usize, bound: f64) {
        if let Some(d) = self.columns.get_mut(column).filter(|d| d.bound > 0.0) {
            d.bound = d.bound.min(bound);
        }
    }

    /// The most distinct values `column` can have, if the relation has it.
    pub fn bound_of(&self, column: usize) -> Option<f64> {
        self.columns
            .get(column)
            .filter(|d| d.bound > 0.0)
            .map(|d| d.bound)
    }

    /// The domain of `e` if it is a column (through casts).
    fn domain_of(&self, e: &ScalarExpr) -> Option<Domain> {
        column_of(e).and_then(|c| self.columns.get(c).copied())
    }

    /// The distinct values of `e` if it is a column (through casts), where known.
    fn distinct_of(&self, e: &ScalarExpr) -> Option<f64> {
        self.domain_of(e)?.distinct
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

    /// The distinct values an equality's two sides are taken to range over: the larger known
    /// count; for two columns of which nothing is known, the smaller collection's rows (the
    /// column of the smaller one taken as its key, which equi-joins mostly meet); for other
    /// expressions, `DEFAULT_DISTINCT` (no more than the rows).
    fn pair_distinct(&self, left: &ScalarExpr, other: &Estimate, right: &ScalarExpr) -> f64 {
        self.pair(left, other, right).0
    }

    /// `pair_distinct`, and whether it is the guess for two columns of which nothing is known.
    fn pair(&self, left: &ScalarExpr, other: &Estimate, right: &ScalarExpr) -> (f64, bool) {
        let (l, r) = (self.domain_of(left), other.domain_of(right));
        let known = [l, r]
            .iter()
            .flatten()
            .filter_map(|d| d.distinct)
            .reduce(f64::max);
        let (d, guessed) = match (known, l, r) {
            (Some(d), _, _) => (d, false),
            (None, Some(l), Some(r)) => (l.bound.min(r.bound), true),
            _ => (DEFAULT_DISTINCT.min(self.rows.max(other.rows)), false),
        };
        (d.max(1.0), guessed)
    }
}

/// The estimate of an equi-join of `left` and `right` (in the same column numbering, over
/// disjoint columns) on the pairs of key expressions.
pub fn join(left: &Estimate, right: &Estimate, keys: &[(&ScalarExpr, &ScalarExpr)]) -> Estimate {
    let columns = |side: usize| -> Vec<Option<usize>> {
        keys.iter()
            .map(|pair| key_column_of(if side == 0 { pair.0 } else { pair.1 }))
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
    // Pairs of columns of which nothing is known: their domains multiply, but no further than
    // one side's columns can reach (each side's widest column bounds it, as if its columns
    // were one key of its collection): a composite key does not multiply to nothing.
    let (mut share, mut guessed) = (1.0, None::<(f64, f64, f64)>);
    for (i, (l, r)) in keys.iter().enumerate() {
        let in_key =
            decided.is_some_and(|((_, key), side)| side[i].is_some_and(|c| key.contains(&c)));
        if in_key {
            continue;
        }
        match left.pair(l, right, r) {
            (d, true) => {
                let bound = |e: &Estimate, x| e.domain_of(x).map_or(d, |dom| dom.bound);
                let (lb, rb) = (bound(left, l), bound(right, r));
                guessed = Some(match guessed {
                    None => (d, lb, rb),
                    Some((g, gl, gr)) => (g * d, gl.max(lb), gr.max(rb)),
                });
            }
            (d, false) => share /= d,
        }
    }
    let guessed = guessed.map_or(1.0, |(d, l, r)| d.min(l.min(r)).max(1.0));
    let share = share / guessed / decided.map_or(1.0, |((d, _), _)| d.max(1.0));
    // Each column is one side's (the other side's slot is a placeholder of bound 0).
    let columns = left
        .columns
        .iter()
        .zip(&right.columns)
        .map(|(l, r)| if l.bound >= r.bound { *l } else { *r })
        .collect();
    let mut joined = Estimate {
        rows: (left.rows * right.rows * share).max(1.0),
        columns,
        keys: Vec::new(),
    };
    // Columns equal in every joined row range over the smaller of their domains.
    for (l, r) in keys {
        if let (Some(l), Some(r)) = (key_column_of(l), key_column_of(r)) {
            joined.narrow(&[l, r]);
        }
    }
    // Each row of a side meets at most one row of a side whose key it meets: its keys stay.
    let mut unique = Vec::new();
    if right_key.is_some() {
        unique.extend(left.keys.iter().cloned());
    }
    if left_key.is_some() {
        unique.extend(right.keys.iter().cloned());
    }
    joined.keys = unique;
    joined
}

/// A column read directly or as text from `char(n)`: what keeps a unique key unique.
pub fn key_column_of(e: &ScalarExpr) -> Option<usize> {
    match e {
        ScalarExpr::Column(c) => Some(*c),
        ScalarExpr::Unary {
            func: UnaryFunc::BpcharToText,
            expr,
        } => key_column_of(expr),
        _ => None,
    }
}

/// A column read directly or through casts, whose distinct values are about the column's (a
/// lossy cast has fewer: a figure to estimate by, not a key).
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
                columns: vec![Domain::unknown(rows.len() as f64); arity],
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
                let d = e.domain_of(expr).unwrap_or(Domain::unknown(e.rows));
                e.columns.push(d);
            }
            e
        }
        Plan::Project { input, outputs } => {
            let e = estimate(input, catalog)?;
            let position = |c: &usize| outputs.iter().position(|o| o == c);
            Estimate {
                rows: e.rows,
                columns: outputs
                    .iter()
                    .map(|o| {
                        e.columns
                            .get(*o)
                            .copied()
                            .unwrap_or(Domain::unknown(e.rows))
                    })
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
                for (d, o) in e.columns.iter_mut().zip(other.columns) {
                    d.distinct = d.distinct.zip(o.distinct).map(|(a, b)| a + b);
                    d.bound += o.bound;
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
    let columns: Vec<Option<usize>> = key.iter().map(key_column_of).collect();
    let rows = match e.covered_key(&columns) {
        _ if key.is_empty() => 1.0,
        Some(_) => e.rows,
        None => key
            .iter()
            .map(|k| e.distinct_of(k).unwrap_or(DEFAULT_DISTINCT))
            .product::<f64>()
            .min(e.rows),
    };
    let mut columns: Vec<Domain> = key
        .iter()
        .map(|k| e.domain_of(k).unwrap_or(Domain::unknown(rows)))
        .collect();
    // The key's values are some of its domain's: what a join meeting it is estimated by. The
    // domain of columns of one collection is no larger than that collection.
    let widest = columns.iter().map(|d| d.bound).fold(1.0, f64::max);
    let domain = columns
        .iter()
        .map(|d| d.distinct.unwrap_or(d.bound))
        .product::<f64>()
        .min(widest)
        .max(rows);
    columns.resize(arity, Domain::unknown(rows));
    Estimate {
        rows: rows.max(1.0),
        columns,
        keys: vec![((0..key.len()).collect(), domain.max(1.0))],
    }
}
