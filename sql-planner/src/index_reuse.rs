//! Index reuse: the rewrite that makes a plan import the arrangements the catalog already
//! holds instead of building its own.
//!
//! A join arranges each input by its key. When an input reads a collection — directly, or
//! through filters and projections — and the catalog has an index on that collection keyed by
//! exactly that key (translated through the projections), the input becomes an `IndexedGet`:
//! the runtime joins against the index's arrangement as it is. The filters and projections the
//! input had are lifted above the join and applied to the joined rows, so a dimension table with
//! a predicate (`WHERE n_name = 'GERMANY'`) still reuses its index. Maps are not lifted (a map
//! under a filter may only be defined on the rows the filter keeps).

use kpg_types::{Plan, ScalarExpr};

use crate::catalog::{Catalog, IndexItem};

/// Rewrites join inputs to read through indexes keyed by their join keys, where the catalog
/// has them.
pub fn use_indexes(plan: Plan, catalog: &dyn Catalog) -> Plan {
    let plan = plan.map_inputs(|p| use_indexes(p, catalog));
    match plan {
        Plan::Join {
            left,
            right,
            left_key,
            right_key,
        } => join_through_indexes(*left, *right, left_key, right_key, catalog),
        other => other,
    }
}

/// An index on `id` keyed exactly by `key`, if the catalog has one.
pub fn index_with_key(
    id: kpg_types::GlobalId,
    key: &[ScalarExpr],
    catalog: &dyn Catalog,
) -> Option<IndexItem> {
    catalog
        .indexes_on(id)
        .into_iter()
        .find(|i| i.key.as_slice() == key)
}

/// One join input after the rewrite: the plan the join reads, its key, and what must be applied
/// to its columns after the join to give the rows the input had (predicates over the plan's
/// columns, and for each of the input's columns the plan column holding it).
struct Side {
    plan: Plan,
    key: Vec<ScalarExpr>,
    predicates: Vec<ScalarExpr>,
    columns: Vec<usize>,
    arity: usize,
}

fn join_through_indexes(
    left: Plan,
    right: Plan,
    left_key: Vec<ScalarExpr>,
    right_key: Vec<ScalarExpr>,
    catalog: &dyn Catalog,
) -> Plan {
    let unchanged = |left, right, left_key, right_key| Plan::Join {
        left: Box::new(left),
        right: Box::new(right),
        left_key,
        right_key,
    };
    if left_key.is_empty() {
        return unchanged(left, right, left_key, right_key);
    }
    let l = through_index(&left, &left_key, catalog);
    let r = through_index(&right, &right_key, catalog);
    let (lifted_left, lifted_right) = (l.is_some(), r.is_some());
    if !lifted_left && !lifted_right {
        return unchanged(left, right, left_key, right_key);
    }
    let side = |lifted: Option<Side>, plan: Plan, key: Vec<ScalarExpr>| match lifted {
        Some(s) => Some(s),
        None => plan_arity(&plan, catalog).map(|arity| Side {
            plan,
            key,
            predicates: Vec::new(),
            columns: (0..arity).collect(),
            arity,
        }),
    };
    let (Some(l), Some(r)) = (
        side(l, left.clone(), left_key.clone()),
        side(r, right.clone(), right_key.clone()),
    ) else {
        // An input of unknown arity (an empty constant): leave the join as it was.
        return unchanged(left, right, left_key, right_key);
    };
    let offset = l.arity;
    let mut predicates = l.predicates;
    predicates.extend(r.predicates.into_iter().map(|mut p| {
        p.map_columns(&|c| c + offset);
        p
    }));
    let outputs: Vec<usize> = l
        .columns
        .iter()
        .copied()
        .chain(r.columns.iter().map(|c| c + offset))
        .collect();
    let mut plan = Plan::Join {
        left: Box::new(l.plan),
        right: Box::new(r.plan),
        left_key: l.key,
        right_key: r.key,
    };
    if !predicates.is_empty() {
        plan = Plan::Filter {
            input: Box::new(plan),
            predicates,
        };
    }
    if outputs != (0..l.arity + r.arity).collect::<Vec<_>>() {
        plan = Plan::Project {
            input: Box::new(plan),
            outputs,
        };
    }
    plan
}

/// The input read through an index keyed by `key`, if it is filters and projections over a
/// collection that has one.
fn through_index(input: &Plan, key: &[ScalarExpr], catalog: &dyn Catalog) -> Option<Side> {
    // Peel filters and projections down to the collection read.
    let mut chain = Vec::new();
    let mut leaf = input;
    while let Plan::Filter { input, .. } | Plan::Project { input, .. } = leaf {
        chain.push(leaf);
        leaf = input;
    }
    let (id, current_index) = match leaf {
        Plan::Get { id } => (*id, None),
        Plan::IndexedGet { id, index, .. } => (*id, Some(*index)),
        _ => return None,
    };
    let arity = catalog
        .name_of(id)
        .and_then(|n| catalog.resolve(&n))
        .filter(|item| item.id == id)?
        .desc
        .arity();
    // Innermost first: where each of the chain's output columns comes from in the collection's
    // row, and the predicates over the collection's row.
    let mut columns: Vec<usize> = (0..arity).collect();
    let mut predicates = Vec::new();
    for step in chain.iter().rev() {
        match step {
            Plan::Filter { predicates: ps, .. } => {
                for p in ps {
                    let mut p = p.clone();
                    p.map_columns(&|c| columns[c]);
                    predicates.push(p);
                }
            }
            Plan::Project { outputs, .. } => {
                columns = outputs.iter().map(|o| columns[*o]).collect();
            }
            _ => unreachable!("only filters and projections are peeled"),
        }
    }
    let leaf_key: Vec<ScalarExpr> = key
        .iter()
        .map(|k| {
            let mut k = k.clone();
            k.map_columns(&|c| columns[c]);
            k
        })
        .collect();
    let index = index_with_key(id, &leaf_key, catalog)?;
    if chain.is_empty() && current_index == Some(index.id) {
        return None; // already read through this index
    }
    Some(Side {
        plan: Plan::IndexedGet {
            id,
            index: index.id,
            key: index.key,
        },
        key: leaf_key,
        predicates,
        columns,
        arity,
    })
}

/// The number of columns `plan` produces, if it can be known (an empty constant has none).
pub fn plan_arity(plan: &Plan, catalog: &dyn Catalog) -> Option<usize> {
    Some(match plan {
        Plan::Get { id } | Plan::IndexedGet { id, .. } => catalog
            .name_of(*id)
            .and_then(|n| catalog.resolve(&n))?
            .desc
            .arity(),
        Plan::GetWithPosition { id } => plan_arity(&Plan::Get { id: *id }, catalog)? + 1,
        Plan::Constant { rows } => rows.first()?.0.len(),
        Plan::Map { input, exprs } => plan_arity(input, catalog)? + exprs.len(),
        Plan::Project { outputs, .. } => outputs.len(),
        Plan::Join { left, right, .. } => plan_arity(left, catalog)? + plan_arity(right, catalog)?,
        Plan::Reduce {
            group_key,
            aggregates,
            ..
        } => group_key.len() + aggregates.len(),
        Plan::Filter { input, .. }
        | Plan::TemporalFilter { input, .. }
        | Plan::Distinct { input }
        | Plan::Negate { input }
        | Plan::Threshold { input }
        | Plan::TopK { input, .. } => plan_arity(input, catalog)?,
        Plan::Window { input, funcs, .. } => plan_arity(input, catalog)? + funcs.len(),
        Plan::FlatMap {
            input,
            func,
            ordinality,
            ..
        } => plan_arity(input, catalog)? + func.columns() + usize::from(*ordinality),
        Plan::Union { inputs } => inputs.iter().find_map(|i| plan_arity(i, catalog))?,
        Plan::Recursive { base, .. } => plan_arity(base, catalog)?,
        Plan::Let { body, .. } => plan_arity(body, catalog)?,
        Plan::RecursiveGet { .. } | Plan::LocalGet { .. } => return None,
    })
}
