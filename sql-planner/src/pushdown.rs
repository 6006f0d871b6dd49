//! Predicate pushdown and equivalence propagation: every filter moves as far down the plan as
//! it may, so that rows are dropped before they are joined, reduced or arranged.
//!
//! A conjunction of predicates travels down from where it stands:
//! - through `Project` (columns renamed), `Negate`, `Distinct`, `Threshold` and into every
//!   input of a `Union` (filtering is linear and per row, so it commutes with all of these);
//! - below a `Map` when it reads none of the mapped columns;
//! - below a `Reduce` or `TopK` when it reads only grouping columns that are input columns;
//! - into the input of a `Join` whose columns it reads; an equality between an expression over
//!   the left input and one over the right becomes a join key (SQL `=` and key equality agree:
//!   NULL never matches);
//! - equivalences: `c = literal` on a key column of one join input also restricts the other
//!   input's key to that literal, which moves down there too;
//! - a disjunction over both join inputs stays above the join, and what it implies for each
//!   input alone moves down there (`implied`: `(n1 = 'A' AND n2 = 'B') OR (n1 = 'B' AND n2 =
//!   'A')` filters each nation first).
//!
//! A predicate that draws a new value at each call (`random() < 0.5`) is evaluated once per
//! row where it stands, as in PostgreSQL (the statement's time is one value and moves freely): it does not move below an operator that makes fewer or more rows than it
//! reads (`Distinct`, `Threshold`, `Reduce`, `TopK`, `Window`), nor, when it reads no column,
//! into a `Join`'s input or below a `FlatMap` (PostgreSQL evaluates a variable-free volatile
//! qual at the top of the join tree; a volatile qual over one input's columns moves there, as
//! there).
//!
//! Moving a predicate below another makes it see rows the other would have dropped first (the
//! runtime evaluates a filter's predicates in order, stopping at the first that is not TRUE),
//! so a predicate moves ahead of ones that stay only if it cannot fail
//! (`ScalarExpr::cannot_fail`); otherwise errors could appear that the query as written never
//! raises. Join keys are evaluated on every input row, so only expressions that cannot fail
//! become keys.

use kpg_types::{BinaryFunc, Plan, ScalarExpr};

use crate::catalog::Catalog;
use crate::index_reuse::plan_arity;
use crate::join::{equi_key, filter};

/// The plan with every filter pushed down as far as it may go.
pub fn push_predicates(plan: Plan, catalog: &dyn Catalog) -> Plan {
    push(plan, Vec::new(), catalog)
}

/// `Filter(plan, preds)`, the predicates (and the plan's own filters) moved down.
fn push(plan: Plan, preds: Vec<ScalarExpr>, cat: &dyn Catalog) -> Plan {
    match plan {
        Plan::Filter { input, predicates } => {
            let mut all = predicates;
            all.extend(preds);
            push(*input, all, cat)
        }
        // Both keep or drop each row by its own values: the predicates go below.
        Plan::TemporalFilter {
            input,
            lower,
            upper,
        } => Plan::TemporalFilter {
            input: Box::new(push(*input, preds, cat)),
            lower,
            upper,
        },
        Plan::Project { input, outputs } => {
            let below = preds
                .into_iter()
                .map(|mut p| {
                    p.map_columns(&|c| outputs[c]);
                    p
                })
                .collect();
            Plan::Project {
                input: Box::new(push(*input, below, cat)),
                outputs,
            }
        }
        Plan::Map { input, exprs } => {
            let Some(n) = plan_arity(&input, cat) else {
                let input = Box::new(push(*input, Vec::new(), cat));
                return filter(Plan::Map { input, exprs }, preds);
            };
            let (below, above) = split(preds, |p| p.support().iter().all(|&c| c < n));
            let input = Box::new(push(*input, below, cat));
            filter(Plan::Map { input, exprs }, above)
        }
        Plan::Union { inputs } => Plan::Union {
            inputs: inputs
                .into_iter()
                .map(|i| push(i, preds.clone(), cat))
                .collect(),
        },
        Plan::Negate { input } => Plan::Negate {
            input: Box::new(push(*input, preds, cat)),
        },
        Plan::Distinct { input } => {
            let (below, above) = split(preds, |p| !p.draws_per_call());
            let distinct = Plan::Distinct {
                input: Box::new(push(*input, below, cat)),
            };
            filter(distinct, above)
        }
        Plan::Threshold { input } => {
            let (below, above) = split(preds, |p| !p.draws_per_call());
            let threshold = Plan::Threshold {
                input: Box::new(push(*input, below, cat)),
            };
            filter(threshold, above)
        }
        Plan::Reduce {
            input,
            group_key,
            aggregates,
        } => {
            // Output column i < k is the group key expression i; only plain input columns
            // are renamed below.
            let input_column = |c: usize| match group_key.get(c) {
                Some(ScalarExpr::Column(i)) => Some(*i),
                _ => None,
            };
            let (below, above) = split(preds, |p| {
                !p.draws_per_call() && p.support().iter().all(|&c| input_column(c).is_some())
            });
            let below = below
                .into_iter()
                .map(|mut p| {
                    p.map_columns(&|c| input_column(c).expect("checked"));
                    p
                })
                .collect();
            let input = Box::new(push(*input, below, cat));
            let reduce = Plan::Reduce {
                input,
                group_key,
                aggregates,
            };
            filter(reduce, above)
        }
        Plan::TopK {
            input,
            group_key,
            order_by,
            limit,
            offset,
            counts,
        } => {
            // A predicate on grouping columns keeps or drops whole groups.
            let (below, above) = split(preds, |p| {
                !p.draws_per_call() && p.support().iter().all(|c| group_key.contains(c))
            });
            let top_k = Plan::TopK {
                input: Box::new(push(*input, below, cat)),
                group_key,
                order_by,
                limit,
                offset,
                counts,
            };
            filter(top_k, above)
        }
        Plan::FlatMap {
            input,
            func,
            exprs,
            ordinality,
        } => {
            // A predicate on the input's columns keeps or drops whole input rows.
            let arity = plan_arity(&input, cat);
            let (below, above) = split(preds, |p| {
                !reads_nothing_volatile(p)
                    && arity.is_some_and(|a| p.support().iter().all(|c| *c < a))
            });
            let flat_map = Plan::FlatMap {
                input: Box::new(push(*input, below, cat)),
                func,
                exprs,
                ordinality,
            };
            filter(flat_map, above)
        }
        Plan::Window {
            input,
            partition_by,
            order_by,
            funcs,
        } => {
            // A predicate on partition columns keeps or drops whole partitions.
            let (below, above) = split(preds, |p| {
                !p.draws_per_call() && p.support().iter().all(|c| partition_by.contains(c))
            });
            let window = Plan::Window {
                input: Box::new(push(*input, below, cat)),
                partition_by,
                order_by,
                funcs,
            };
            filter(window, above)
        }
        Plan::Join {
            left,
            right,
            left_key,
            right_key,
        } => join(*left, *right, left_key, right_key, preds, cat),
        leaf @ (Plan::Get { .. }
        | Plan::GetWithPosition { .. }
        | Plan::IndexedGet { .. }
        | Plan::Constant { .. }
        | Plan::RecursiveGet { .. }
        | Plan::Recursive { .. }
        | Plan::Let { .. }
        | Plan::LocalGet { .. }) => {
            let leaf = leaf.map_inputs(|p| push(p, Vec::new(), cat));
            filter(leaf, preds)
        }
    }
}

/// Whether `p` is volatile and reads no column: it is evaluated where it stands, once per row
/// there.
fn reads_nothing_volatile(p: &ScalarExpr) -> bool {
    p.draws_per_call() && p.support().is_empty()
}

/// Splits a conjunction into the predicates that move (those `movable` says may, when they
/// cannot fail or every predicate before them moves too) and those that stay, each in order.
fn split(
    preds: Vec<ScalarExpr>,
    movable: impl Fn(&ScalarExpr) -> bool,
) -> (Vec<ScalarExpr>, Vec<ScalarExpr>) {
    let (mut moved, mut stay) = (Vec::new(), Vec::new());
    for p in preds {
        if movable(&p) && (stay.is_empty() || p.cannot_fail()) {
            moved.push(p);
        } else {
            stay.push(p);
        }
    }
    (moved, stay)
}

fn join(
    left: Plan,
    right: Plan,
    mut left_key: Vec<ScalarExpr>,
    mut right_key: Vec<ScalarExpr>,
    preds: Vec<ScalarExpr>,
    cat: &dyn Catalog,
) -> Plan {
    let Some(la) = plan_arity(&left, cat) else {
        let plan = Plan::Join {
            left: Box::new(push(left, Vec::new(), cat)),
            right: Box::new(push(right, Vec::new(), cat)),
            left_key,
            right_key,
        };
        return filter(plan, preds);
    };
    let side = |p: &ScalarExpr| {
        let s = p.support();
        if s.iter().all(|&c| c < la) {
            Some(false)
        } else if s.iter().all(|&c| c >= la) {
            Some(true)
        } else {
            None
        }
    };
    // The inputs' own filters join the pools they would return to, so that equivalences
    // see them; they come first, as they were evaluated first.
    let (left, mut lp) = peel_filter(left);
    let (right, mut rp) = peel_filter(right);
    let mut above = Vec::new();
    for p in preds {
        let may_move = (above.is_empty() || p.cannot_fail()) && !reads_nothing_volatile(&p);
        match side(&p) {
            Some(false) if may_move => lp.push(p),
            Some(true) if may_move => rp.push(shifted(p, la)),
            None if may_move && p.cannot_fail() => match equi_key(&p, la, usize::MAX) {
                Some((l, r)) => {
                    left_key.push(l);
                    right_key.push(r);
                }
                None => {
                    if let Some(d) = implied(&p, |c| side(c) == Some(false)) {
                        if !lp.contains(&d) {
                            lp.push(d);
                        }
                    }
                    if let Some(d) = implied(&p, |c| side(c) == Some(true)) {
                        let d = shifted(d, la);
                        if !rp.contains(&d) {
                            rp.push(d);
                        }
                    }
                    above.push(p);
                }
            },
            _ => above.push(p),
        }
    }
    // Equivalences: a key column pinned to a literal pins the other side's key too.
    let derived_right = pinned_partners(&lp, &left_key, &right_key);
    let derived_left = pinned_partners(&rp, &right_key, &left_key);
    for (preds, derived) in [(&mut rp, derived_right), (&mut lp, derived_left)] {
        for d in derived {
            if !preds.contains(&d) {
                preds.push(d);
            }
        }
    }
    let plan = Plan::Join {
        left: Box::new(push(left, lp, cat)),
        right: Box::new(push(right, rp, cat)),
        left_key,
        right_key,
    };
    filter(plan, above)
}

/// What a disjunction over both join inputs implies for one of them (the restriction
/// PostgreSQL extracts from such an OR): for `(a1 AND b1) OR (a2 AND b2)` where the `a`s read
/// only that input (`on_side`), `a1 OR a2`; nothing when some disjunct has no such conjunct.
/// An input row for which it is not TRUE makes every disjunct FALSE or NULL with any partner,
/// so filtering the input by it first drops only rows the join's filter drops. `p` cannot fail
/// (the caller checks), nor then can what it implies.
fn implied(p: &ScalarExpr, on_side: impl Fn(&ScalarExpr) -> bool) -> Option<ScalarExpr> {
    let disjuncts = operands(p, BinaryFunc::Or);
    if disjuncts.len() < 2 {
        return None;
    }
    let implied: Option<Vec<ScalarExpr>> = disjuncts
        .into_iter()
        .map(|d| {
            operands(d, BinaryFunc::And)
                .into_iter()
                .filter(|c| !c.support().is_empty() && on_side(c))
                .cloned()
                .reduce(|a, b| a.call_binary(BinaryFunc::And, b))
        })
        .collect();
    implied?
        .into_iter()
        .reduce(|a, b| a.call_binary(BinaryFunc::Or, b))
}

/// The operands of a chain of `func` (AND or OR), in order; `e` itself if it is not one.
fn operands(e: &ScalarExpr, func: BinaryFunc) -> Vec<&ScalarExpr> {
    match e {
        ScalarExpr::Binary {
            func: f,
            left,
            right,
        } if *f == func => {
            let mut out = operands(left, func);
            out.extend(operands(right, func));
            out
        }
        other => vec![other],
    }
}

/// A plan's top filter, taken off.
fn peel_filter(plan: Plan) -> (Plan, Vec<ScalarExpr>) {
    match plan {
        Plan::Filter { input, predicates } => (*input, predicates),
        other => (other, Vec::new()),
    }
}

/// `p` over the right input's own columns.
fn shifted(mut p: ScalarExpr, la: usize) -> ScalarExpr {
    p.map_columns(&|c| c - la);
    p
}

/// For each predicate `key_i = literal` (a non-NULL literal) on this side, where `key_i` is
/// this side's expression of join key `i`: `other_i = literal` for the other side, when that
/// expression cannot fail.
fn pinned_partners(
    preds: &[ScalarExpr],
    keys: &[ScalarExpr],
    other: &[ScalarExpr],
) -> Vec<ScalarExpr> {
    let mut out = Vec::new();
    for p in preds {
        let ScalarExpr::Binary {
            func: BinaryFunc::Eq,
            left,
            right,
        } = p
        else {
            continue;
        };
        let (e, lit) = match (left.as_ref(), right.as_ref()) {
            (e, l @ ScalarExpr::Literal(d)) | (l @ ScalarExpr::Literal(d), e) if !d.is_null() => {
                (e, l)
            }
            _ => continue,
        };
        for (k, o) in keys.iter().zip(other) {
            if k == e && o.cannot_fail() {
                out.push(o.clone().call_binary(BinaryFunc::Eq, lit.clone()));
            }
        }
    }
    out
}
