//! One arrangement for join inputs that read the same collection by the same key with
//! different columns: each such input reads the union of the columns, so the inputs become
//! one subtree that `share.rs` binds once and the renderer arranges once (an arrangement
//! keyed the same way by a `LocalGet` is shared); a `Project` above each join puts its output
//! columns back where they were.
//!
//! Projection pushdown (`demand.rs`) narrows every join input to the columns its join needs,
//! so a collection joined in several places by one key — a decorrelated subquery reads its
//! outer query's table again, as TPC-H Q17 and Q20 do with lineitem by `l_partkey` — is
//! arranged once per column set. One wider arrangement costs less than several narrower ones
//! (each arranged row carries its key, its time and its diff). Only inputs that are a
//! projection of a subtree with every key expression a projected column are widened.

use std::collections::{BTreeSet, HashMap};

use kpg_types::{Plan, ScalarExpr};

use crate::catalog::Catalog;
use crate::index_reuse::plan_arity;

/// Widens the join inputs of `plan` that can share an arrangement; see the module doc.
pub fn share_join_arrangements(plan: Plan, catalog: &dyn Catalog) -> Plan {
    let mut groups: HashMap<(Plan, Vec<usize>), BTreeSet<Vec<usize>>> = HashMap::new();
    collect(&plan, &mut groups);
    // The columns each base is widened to, where several column sets meet one key.
    let widened: HashMap<(Plan, Vec<usize>), Vec<usize>> = groups
        .into_iter()
        .filter(|(_, sets)| sets.len() > 1)
        .map(|(group, sets)| {
            let union: BTreeSet<usize> = sets.into_iter().flatten().collect();
            (group, union.into_iter().collect())
        })
        .collect();
    if widened.is_empty() {
        return plan;
    }
    rewrite(plan, &widened, catalog)
}

/// The column sets join inputs read of each (base, key), outside recursive steps (whose
/// subtrees `share.rs` does not bind, so widening them would only make rows wider).
fn collect(plan: &Plan, groups: &mut HashMap<(Plan, Vec<usize>), BTreeSet<Vec<usize>>>) {
    if let Plan::Recursive { .. } = plan {
        return;
    }
    if let Plan::Join {
        left,
        right,
        left_key,
        right_key,
    } = plan
    {
        for (input, key) in [(left, left_key), (right, right_key)] {
            if let Some((base, base_key, outputs)) = candidate(input, key) {
                groups
                    .entry((base.clone(), base_key))
                    .or_default()
                    .insert(outputs.clone());
            }
        }
    }
    for child in plan.children() {
        collect(child, groups);
    }
}

/// A join input `Project { input: base, outputs }` whose key expressions are all columns: the
/// base, the key as the base's columns, and the projection.
fn candidate<'a>(
    input: &'a Plan,
    key: &[ScalarExpr],
) -> Option<(&'a Plan, Vec<usize>, &'a Vec<usize>)> {
    let Plan::Project {
        input: base,
        outputs,
    } = input
    else {
        return None;
    };
    if key.is_empty() || matches!(**base, Plan::IndexedGet { .. }) {
        return None;
    }
    let base_key = key
        .iter()
        .map(|k| match k {
            ScalarExpr::Column(c) => outputs.get(*c).copied(),
            _ => None,
        })
        .collect::<Option<Vec<usize>>>()?;
    Some((base, base_key, outputs))
}

/// The widened input and key of a join side that reads a widened base, and where each of the
/// side's original columns is among the widened ones.
fn widened_side(
    input: &Plan,
    key: &[ScalarExpr],
    widened: &HashMap<(Plan, Vec<usize>), Vec<usize>>,
) -> Option<(Plan, Vec<ScalarExpr>, Vec<usize>)> {
    let (base, base_key, outputs) = candidate(input, key)?;
    let union = widened.get(&(base.clone(), base_key.clone()))?;
    // A base rewritten into one of another group (not one this input was counted in) may
    // lack its columns: such an input stays as it is.
    let position = |c: &usize| union.iter().position(|u| u == c);
    let moved = outputs
        .iter()
        .map(position)
        .collect::<Option<Vec<usize>>>()?;
    let input = Plan::Project {
        input: Box::new(base.clone()),
        outputs: union.clone(),
    };
    let key = base_key
        .iter()
        .map(|c| position(c).map(ScalarExpr::Column))
        .collect::<Option<_>>()?;
    Some((input, key, moved))
}

fn rewrite(
    plan: Plan,
    widened: &HashMap<(Plan, Vec<usize>), Vec<usize>>,
    catalog: &dyn Catalog,
) -> Plan {
    if let Plan::Recursive { .. } = plan {
        return plan;
    }
    let plan = plan.map_inputs(|p| rewrite(p, widened, catalog));
    let Plan::Join {
        left,
        right,
        left_key,
        right_key,
    } = &plan
    else {
        return plan;
    };
    let (Some(left_arity), Some(right_arity)) =
        (plan_arity(left, catalog), plan_arity(right, catalog))
    else {
        return plan;
    };
    let new_left = widened_side(left, left_key, widened);
    let new_right = widened_side(right, right_key, widened);
    if new_left.is_none() && new_right.is_none() {
        return plan;
    }
    // Where each original output column is in the widened join's output.
    let (left, left_key, mut outputs, left_width) = match new_left {
        Some((input, key, moved)) => {
            let width = plan_arity(&input, catalog).expect("a projection");
            (input, key, moved, width)
        }
        None => (
            (**left).clone(),
            left_key.clone(),
            (0..left_arity).collect(),
            left_arity,
        ),
    };
    let (right, right_key) = match new_right {
        Some((input, key, moved)) => {
            outputs.extend(moved.iter().map(|c| left_width + c));
            (input, key)
        }
        None => {
            outputs.extend((0..right_arity).map(|c| left_width + c));
            ((**right).clone(), right_key.clone())
        }
    };
    Plan::Project {
        input: Box::new(Plan::Join {
            left: Box::new(left),
            right: Box::new(right),
            left_key,
            right_key,
        }),
        outputs,
    }
}
