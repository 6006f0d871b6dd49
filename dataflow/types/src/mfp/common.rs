//! Subexpressions a chain computes more than once, computed once per row.
//!
//! `x IN ('a', 'b', ...)` binds as `x = 'a' OR x = 'b' OR ...`, so an `x` that is itself a
//! computation (TPC-H Q22's `substring(c_phone from 1 for 2)` against seven codes, in two
//! filters and a map) was evaluated once per comparison. Here a subexpression that occurs at
//! least twice among a chain's expressions, computes a value (a function, CASE, a cast of
//! something computed) and can neither fail nor draw a new value per call becomes a slot of
//! its own, evaluated once when first read; its occurrences read the slot. The value read is
//! the value each occurrence would have computed (the expression is deterministic), and no
//! error appears or disappears (it cannot fail), so the chain's observable behaviour is
//! unchanged. Casts and `bpchar`-as-text of a column stay where they are: they are cheap,
//! and a filter over them is decided on the packed row (`packed_filter.rs`).

use std::collections::HashMap;

use crate::expr::{ScalarExpr, UnaryFunc};

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

/// The largest candidate that occurs at least twice.
fn largest_repeated(actions: &[(Option<usize>, ScalarExpr)]) -> Option<ScalarExpr> {
    let mut counts: HashMap<ScalarExpr, usize> = HashMap::new();
    for (_, e) in actions {
        e.visit(&mut |sub| {
            if worth_sharing(sub) {
                *counts.entry(sub.clone()).or_default() += 1;
            }
        });
    }
    counts
        .into_iter()
        .filter(|(_, n)| *n >= 2)
        .map(|(e, _)| (size(&e), e))
        .max_by(|a, b| {
            let debug = |e: &ScalarExpr| format!("{e:?}");
            a.0.cmp(&b.0).then_with(|| debug(&b.1).cmp(&debug(&a.1)))
        })
        .map(|(_, e)| e)
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
