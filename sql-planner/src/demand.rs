//! Projection pushdown: columns nobody reads are not computed, and (in the physical plan) not
//! carried into the arrangements of joins and reductions.
//!
//! The columns each operator's consumers read (its *demand*) flow from the root down: a
//! `Project` demands the columns it keeps, a `Filter` adds its predicates' columns, a join its
//! keys', a reduction its keys' and its read aggregates' arguments; `Distinct`, `Threshold`
//! and recursion read every column. Then:
//! - a `Map` expression whose column nobody reads becomes `NULL` (not evaluated: no cost, and
//!   no error PostgreSQL would not raise — it drops unused subquery outputs too); so does the
//!   argument of an aggregate nobody reads;
//! - with `narrow` (the physical plan), each join input and each reduction input is projected
//!   to the columns demanded of it before it is arranged; above a narrowed join, a `Project`
//!   puts the demanded columns back where their readers expect them (unread positions read a
//!   `NULL` column), so no operator above changes.

use std::collections::BTreeSet;

use kpg_types::{AggregateExpr, AggregateFunc, Datum, Plan, ScalarExpr};

use crate::catalog::Catalog;
use crate::index_reuse::plan_arity;

/// Which output columns are read: `None` for all of them.
type Demand = Option<BTreeSet<usize>>;

/// The plan with unread columns not computed, and with `narrow` not arranged either.
pub fn prune_columns(plan: Plan, narrow: bool, catalog: &dyn Catalog) -> Plan {
    tidy(Pruner { catalog, narrow }.prune(plan, None), catalog)
}

/// Fuses stacked projections, drops a `Map` whose columns the projection above it does not
/// keep, moves a narrowing projection into the inputs of a union, and drops projections that
/// keep every column in order.
pub fn tidy(plan: Plan, catalog: &dyn Catalog) -> Plan {
    match plan.map_inputs(|p| tidy(p, catalog)) {
        Plan::Project { input, outputs } => project(*input, outputs, catalog),
        other => other,
    }
}

/// Whether `outputs` over a `Map` of `input` read only `input`'s columns.
fn skips_map_of(input: &Plan, outputs: &[usize], catalog: &dyn Catalog) -> bool {
    plan_arity(input, catalog).is_some_and(|n| outputs.iter().all(|&c| c < n))
}

/// Whether `outputs` over a union of `inputs` keeps fewer columns than the union has.
fn narrows(inputs: &[Plan], outputs: &[usize], catalog: &dyn Catalog) -> bool {
    inputs
        .first()
        .and_then(|i| plan_arity(i, catalog))
        .is_some_and(|n| outputs.len() < n)
}

/// `Project(input, outputs)`, fused with the projections and unread maps below it.
fn project(input: Plan, outputs: Vec<usize>, catalog: &dyn Catalog) -> Plan {
    match input {
        Plan::Project {
            input,
            outputs: inner,
        } => project(*input, outputs.iter().map(|&c| inner[c]).collect(), catalog),
        Plan::Map { input, .. } if skips_map_of(&input, &outputs, catalog) => {
            project(*input, outputs, catalog)
        }
        // A union is positional: each input keeps only the kept columns, so its unread ones
        // (often the NULLs an outer join's padding adds) are never built.
        Plan::Union { inputs } if narrows(&inputs, &outputs, catalog) => Plan::Union {
            inputs: inputs
                .into_iter()
                .map(|i| project(i, outputs.clone(), catalog))
                .collect(),
        },
        input => {
            let identity = plan_arity(&input, catalog).is_some_and(|n| {
                outputs.len() == n && outputs.iter().enumerate().all(|(i, &c)| i == c)
            });
            if identity {
                input
            } else {
                Plan::Project {
                    input: Box::new(input),
                    outputs,
                }
            }
        }
    }
}

struct Pruner<'a> {
    catalog: &'a dyn Catalog,
    narrow: bool,
}

fn supports<'e>(es: impl IntoIterator<Item = &'e ScalarExpr>) -> BTreeSet<usize> {
    es.into_iter().flat_map(ScalarExpr::support).collect()
}

/// `d`'s columns in `range`, shifted down by its start (`None` stays `None`).
fn slice(d: &Demand, range: std::ops::Range<usize>) -> Demand {
    d.as_ref().map(|d| {
        d.iter()
            .filter(|c| range.contains(c))
            .map(|c| c - range.start)
            .collect()
    })
}

/// Whether `inputs` are a global reduction with its defaults over empty input, as
/// `aggregate::reduce_plan` makes them: `[r, Constant, Negate(Project(Map(r)))]`.
fn is_totalized(inputs: &[Plan]) -> bool {
    let [r @ Plan::Reduce { group_key, .. }, Plan::Constant { .. }, Plan::Negate { input }] =
        inputs
    else {
        return false;
    };
    let Plan::Project { input, .. } = input.as_ref() else {
        return false;
    };
    group_key.is_empty() && matches!(input.as_ref(), Plan::Map { input, .. } if **input == *r)
}

/// The reduction read by `Negate(Project(Map(reduction)))`.
fn negated_reduce_mut(p: &mut Plan) -> Option<&mut Plan> {
    let Plan::Negate { input } = p else {
        return None;
    };
    let Plan::Project { input, .. } = input.as_mut() else {
        return None;
    };
    let Plan::Map { input, .. } = input.as_mut() else {
        return None;
    };
    Some(input.as_mut())
}

fn with(d: Demand, extra: BTreeSet<usize>) -> Demand {
    d.map(|mut d| {
        d.extend(extra);
        d
    })
}

impl Pruner<'_> {
    fn prune(&self, plan: Plan, d: Demand) -> Plan {
        match plan {
            Plan::Project { input, outputs } => {
                let below = match &d {
                    None => outputs.iter().copied().collect(),
                    Some(d) => d.iter().map(|&c| outputs[c]).collect(),
                };
                Plan::Project {
                    input: Box::new(self.prune(*input, Some(below))),
                    outputs,
                }
            }
            Plan::Map { input, mut exprs } => {
                let n = plan_arity(&input, self.catalog);
                let below = match (d, n) {
                    (Some(mut d), Some(n)) => {
                        for (j, e) in exprs.iter_mut().enumerate().rev() {
                            if d.contains(&(n + j)) {
                                d.extend(e.support());
                            } else {
                                *e = ScalarExpr::Literal(Datum::Null);
                            }
                        }
                        Some(d.into_iter().filter(|&c| c < n).collect())
                    }
                    _ => None,
                };
                Plan::Map {
                    input: Box::new(self.prune(*input, below)),
                    exprs,
                }
            }
            Plan::Filter { input, predicates } => {
                let below = with(d, supports(&predicates));
                Plan::Filter {
                    input: Box::new(self.prune(*input, below)),
                    predicates,
                }
            }
            Plan::TemporalFilter {
                input,
                lower,
                upper,
            } => {
                let below = with(d, supports(lower.iter().chain(&upper)));
                Plan::TemporalFilter {
                    input: Box::new(self.prune(*input, below)),
                    lower,
                    upper,
                }
            }
            Plan::Join {
                left,
                right,
                left_key,
                right_key,
            } => self.join(*left, *right, left_key, right_key, d),
            Plan::Reduce {
                input,
                group_key,
                mut aggregates,
            } => {
                let k = group_key.len();
                if let Some(d) = &d {
                    for (j, a) in aggregates.iter_mut().enumerate() {
                        if !d.contains(&(k + j)) && !reads_nothing(a) {
                            a.expr = ScalarExpr::Literal(Datum::Null);
                        }
                    }
                }
                let read = supports(group_key.iter().chain(aggregates.iter().map(|a| &a.expr)));
                let input = self.prune(*input, Some(read.clone()));
                let (input, group_key, aggregates) = match self.narrowed(input, Some(&read)) {
                    Ok((input, new_column)) => {
                        let remap = |mut e: ScalarExpr| {
                            e.map_columns(&|c| new_column[c]);
                            e
                        };
                        let group_key = group_key.into_iter().map(remap).collect();
                        let aggregates = aggregates
                            .into_iter()
                            .map(|mut a| {
                                a.expr = remap(a.expr);
                                a
                            })
                            .collect();
                        (input, group_key, aggregates)
                    }
                    Err(input) => (input, group_key, aggregates),
                };
                Plan::Reduce {
                    input: Box::new(input),
                    group_key,
                    aggregates,
                }
            }
            Plan::TopK {
                input,
                group_key,
                order_by,
                limit,
                offset,
                counts,
            } => {
                let extra = group_key
                    .iter()
                    .copied()
                    .chain(order_by.iter().map(|o| o.column))
                    .collect();
                Plan::TopK {
                    input: Box::new(self.prune(*input, with(d, extra))),
                    group_key,
                    order_by,
                    limit,
                    offset,
                    counts,
                }
            }
            Plan::Union { inputs } => {
                let totalized = is_totalized(&inputs);
                let mut inputs: Vec<Plan> = inputs
                    .into_iter()
                    .map(|i| self.prune(i, d.clone()))
                    .collect();
                if totalized {
                    // The copy read only to tell whether the reduction has a row computes what
                    // the copy read for its values computes (no aggregate the query does not
                    // read, as in PostgreSQL), so the two stay equal and are computed once
                    // (`share.rs`).
                    let value = inputs[0].clone();
                    if let Some(counted) = negated_reduce_mut(&mut inputs[2]) {
                        *counted = value;
                    }
                }
                Plan::Union { inputs }
            }
            Plan::Negate { input } => Plan::Negate {
                input: Box::new(self.prune(*input, d)),
            },
            // Every column decides which rows are distinct, or feeds the recursion.
            // A shared value serves every reader: it keeps all its columns.
            // Window functions read their partition's every row.
            p @ (Plan::Distinct { .. }
            | Plan::Window { .. }
            | Plan::FlatMap { .. }
            | Plan::Threshold { .. }
            | Plan::Recursive { .. }
            | Plan::Let { .. }) => p.map_inputs(|i| self.prune(i, None)),
            leaf @ (Plan::Get { .. }
            | Plan::GetWithPosition { .. }
            | Plan::IndexedGet { .. }
            | Plan::Constant { .. }
            | Plan::RecursiveGet { .. }
            | Plan::LocalGet { .. }) => leaf,
        }
    }

    fn join(
        &self,
        left: Plan,
        right: Plan,
        left_key: Vec<ScalarExpr>,
        right_key: Vec<ScalarExpr>,
        d: Demand,
    ) -> Plan {
        let (la, ra) = match (
            plan_arity(&left, self.catalog),
            plan_arity(&right, self.catalog),
        ) {
            (Some(la), Some(ra)) => (la, ra),
            _ => {
                return Plan::Join {
                    left: Box::new(self.prune(left, None)),
                    right: Box::new(self.prune(right, None)),
                    left_key,
                    right_key,
                }
            }
        };
        let lread = with(slice(&d, 0..la), supports(&left_key));
        let rread = with(slice(&d, la..la + ra), supports(&right_key));
        let left = self.prune(left, lread.clone());
        let right = self.prune(right, rread.clone());
        let identity = |a: usize| (0..a).collect::<Vec<_>>();
        let (left, lcol, lw, narrowed_l) = match self.narrowed(left, lread.as_ref()) {
            Ok((p, cols)) => (p, cols, lread.as_ref().map_or(la, BTreeSet::len), true),
            Err(p) => (p, identity(la), la, false),
        };
        let (right, rcol, rw, narrowed_r) = match self.narrowed(right, rread.as_ref()) {
            Ok((p, cols)) => (p, cols, rread.as_ref().map_or(ra, BTreeSet::len), true),
            Err(p) => (p, identity(ra), ra, false),
        };
        if !narrowed_l && !narrowed_r {
            return Plan::Join {
                left: Box::new(left),
                right: Box::new(right),
                left_key,
                right_key,
            };
        }
        let remap = |keys: Vec<ScalarExpr>, cols: &[usize]| -> Vec<ScalarExpr> {
            keys.into_iter()
                .map(|mut e| {
                    e.map_columns(&|c| cols[c]);
                    e
                })
                .collect()
        };
        let joined = Plan::Join {
            left: Box::new(left),
            right: Box::new(right),
            left_key: remap(left_key, &lcol),
            right_key: remap(right_key, &rcol),
        };
        // Put every column back at its position; unread ones read a NULL column.
        let null = lw + rw;
        let kept = |c: usize, read: &Demand| read.as_ref().is_none_or(|r| r.contains(&c));
        let outputs = (0..la)
            .map(|c| if kept(c, &lread) { lcol[c] } else { null })
            .chain((0..ra).map(|c| if kept(c, &rread) { lw + rcol[c] } else { null }))
            .collect();
        Plan::Project {
            input: Box::new(Plan::Map {
                input: Box::new(joined),
                exprs: vec![ScalarExpr::Literal(Datum::Null)],
            }),
            outputs,
        }
    }

    /// With `narrow`, `input` projected to the columns `read` (when that drops some): the
    /// projection, and for each old column its new position (unread ones: unspecified).
    /// Otherwise `input` back.
    fn narrowed(
        &self,
        input: Plan,
        read: Option<&BTreeSet<usize>>,
    ) -> Result<(Plan, Vec<usize>), Plan> {
        let arity = plan_arity(&input, self.catalog);
        let (Some(read), Some(arity), true) = (read, arity, self.narrow) else {
            return Err(input);
        };
        if read.len() >= arity {
            return Err(input);
        }
        let mut new_column = vec![usize::MAX; arity];
        for (i, &c) in read.iter().enumerate() {
            new_column[c] = i;
        }
        let outputs: Vec<usize> = read.iter().copied().collect();
        let input = match input {
            // Fuse with a projection below.
            Plan::Project {
                input,
                outputs: inner,
            } => Plan::Project {
                input,
                outputs: outputs.iter().map(|&c| inner[c]).collect(),
            },
            other => Plan::Project {
                input: Box::new(other),
                outputs,
            },
        };
        Ok((input, new_column))
    }
}

/// Whether an aggregate nobody reads is computed anyway: `count(*)`, which reads no column
/// (so demands nothing that could fail below) and costs nothing beyond the reduction it is part
/// of. Keeping it keeps the reduction identical to its copies that read it (decorrelation reads
/// a subquery's count in one copy and only its groups in another), so the copies are shared
/// and computed once. An aggregate over a column is still replaced: computing the column could
/// raise an error that the query as written never raises.
fn reads_nothing(a: &AggregateExpr) -> bool {
    a.func == AggregateFunc::Count && matches!(a.expr, ScalarExpr::Literal(_))
}
