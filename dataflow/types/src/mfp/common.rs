//! Subexpressions a chain computes more than once, computed once per row.
//!
//! `x IN ('a', 'b', ...)` binds as `x = 'a' OR x = 'b' OR ...`, so an `x` that is itself a
//! computation (TPC-H Q22's `substring(c_phone from 1 for 2)` against seven codes, in two
//! filters and a map) was evaluated once per comparison. Here a subexpression that occurs at
//! least twice among a chain's expressions, once where it is always evaluated (not only in a
//! CASE branch or behind AND/OR), computes a value (a function, CASE, a cast of something
//! computed) and can neither fail nor draw a new value per call becomes a slot of its own,
//! evaluated once when first read; its occurrences read the slot. The value read is
//! the value each occurrence would have computed (the expression is deterministic), and no
//! error appears or disappears (it cannot fail), so the chain's observable behaviour is
//! unchanged. Casts and `bpchar`-as-text of a column stay where they are: they are cheap,
//! and a filter over them is decided on the packed row (`packed_filter.rs`).

use std::collections::{HashMap, HashSet};

use crate::expr::{BinaryFunc, ScalarExpr, UnaryFunc, VariadicFunc};

/// Replaces, in `actions` (expressions over datum slots), each repeated subexpression worth
/// computing once by a read of a new slot (from `*slots` on, which it advances); returns the
/// new slots with their expressions, which may read other new slots (the caller evaluates a
/// slot's readers' slots first, as for any deferred expression).
pub(super) fn hoist(
    actions: &mut [(Option<usize>, ScalarExpr)],
    slots: &mut usize,
) -> Vec<(usize, ScalarExpr)> {
    let mut hoisted = Vec::new();
    while let Some(common) = largest_repeated(actions) {
        let slot = *slots;
        *slots += 1;
        for (_, e) in actions.iter_mut() {
            replace(e, &common, slot);
        }
        for (_, e) in hoisted.iter_mut() {
            replace(e, &common, slot);
        }
        hoisted.push((slot, common));
    }
    hoisted
}

/// The largest candidate that occurs at least twice, once where it is always evaluated.
fn largest_repeated(actions: &[(Option<usize>, ScalarExpr)]) -> Option<ScalarExpr> {
    let mut counts: HashMap<ScalarExpr, usize> = HashMap::new();
    for (_, e) in actions {
        e.visit(&mut |sub| {
            if worth_sharing(sub) {
                *counts.entry(sub.clone()).or_default() += 1;
            }
        });
    }
    counts.retain(|_, n| *n >= 2);
    let mut always = HashSet::new();
    for (_, e) in actions {
        always_evaluated(e, &mut |sub| {
            if counts.contains_key(sub) {
                always.insert(sub.clone());
            }
        });
    }
    // Ties between sizes go to the first in text order, so that the choice does not follow
    // the hash set's order.
    always
        .into_iter()
        .map(|e| (size(&e), format!("{e:?}"), e))
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)))
        .map(|(_, _, e)| e)
}

/// Whether `e` computes a value worth keeping: see the module doc.
fn worth_sharing(e: &ScalarExpr) -> bool {
    let computes = match e {
        ScalarExpr::Column(_)
        | ScalarExpr::Literal(_)
        | ScalarExpr::Param(_)
        | ScalarExpr::Binary { .. }
        | ScalarExpr::Subquery(_) => false,
        ScalarExpr::Unary { func, expr } => {
            !matches!(
                func,
                UnaryFunc::Not | UnaryFunc::IsNull | UnaryFunc::IsNotNull
            ) && !matches!(**expr, ScalarExpr::Column(_) | ScalarExpr::Literal(_))
        }
        ScalarExpr::Variadic { .. } | ScalarExpr::If { .. } => true,
    };
    computes && !e.support().is_empty() && e.cannot_fail() && !e.is_volatile()
}

/// Calls `f` on the subexpressions that evaluating `e` always evaluates: not those in a CASE
/// branch, the right side of AND/OR or a COALESCE argument after the first, which run only
/// for some rows. A value is hoisted only where one occurrence is of these: one computed only
/// in branches rarely taken would, hoisted, be computed for every row that reaches the step
/// reading it (a cost, not a change of results).
fn always_evaluated(e: &ScalarExpr, f: &mut impl FnMut(&ScalarExpr)) {
    f(e);
    match e {
        ScalarExpr::Column(_)
        | ScalarExpr::Literal(_)
        | ScalarExpr::Param(_)
        | ScalarExpr::Subquery(_) => {}
        ScalarExpr::Unary { expr, .. } => always_evaluated(expr, f),
        ScalarExpr::Binary {
            func: BinaryFunc::And | BinaryFunc::Or,
            left,
            ..
        } => always_evaluated(left, f),
        ScalarExpr::Binary { left, right, .. } => {
            always_evaluated(left, f);
            always_evaluated(right, f);
        }
        ScalarExpr::Variadic {
            func: VariadicFunc::Coalesce,
            exprs,
        } => {
            if let Some(first) = exprs.first() {
                always_evaluated(first, f);
            }
        }
        ScalarExpr::Variadic { exprs, .. } => exprs.iter().for_each(|x| always_evaluated(x, f)),
        ScalarExpr::If { cond, .. } => always_evaluated(cond, f),
    }
}

fn size(e: &ScalarExpr) -> usize {
    let mut n = 0;
    e.visit(&mut |_| n += 1);
    n
}

/// Replaces every occurrence of `common` in `e` by a read of `slot`.
fn replace(e: &mut ScalarExpr, common: &ScalarExpr, slot: usize) {
    e.visit_mut(&mut |sub| {
        if sub == common {
            *sub = ScalarExpr::Column(slot);
        }
    });
}
