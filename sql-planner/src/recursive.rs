//! WITH RECURSIVE: a WITH query that reads itself, planned as a `Plan::Recursive` fixed point
//! that the runtime computes with the engine's iterate.
//!
//! PostgreSQL requires the form `non-recursive term UNION [ALL] recursive term` and evaluates it
//! by iteration: the working table starts as the non-recursive term's rows, each round runs the
//! recursive term over the rows the previous round added, and (for UNION) drops rows seen
//! before. Because the recursive term may read its own query only once, and not under an
//! aggregate, an outer join, EXCEPT/INTERSECT or a subquery, it is a *linear* function of the
//! working table, and the result equals the least fixed point `R = base + step(R)` (UNION ALL)
//! or `R = distinct(base ∪ step(R))` (UNION) — what `Plan::Recursive` means. This file checks that
//! the planned step has that shape: on the path from the step's root to its read of `R` only
//! `Map`, `Filter`, `Project`, inner `Join` and `Union` (and `Distinct`, for UNION) may appear;
//! anything else is refused rather than computed with a different meaning. Parts of the step
//! that do not read `R` (a table it joins, an aggregate over another table) may be anything.
//!
//! The columns of the query are named by its alias list or by the non-recursive term, and typed
//! by the non-recursive term: a recursive term whose column would widen the type is an error
//! (42804), as in PostgreSQL.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::PlanError;
use crate::join::aliased;
use crate::names::fold;
use crate::query::{plan_set_expr, project_exprs, Cte, QueryContext};
use crate::scope::{Scope, ScopeItem};
use crate::types::{coerce_all, common_type, Typed};
use kpg_types::{ColumnType, Plan, ScalarExpr};
use sqlparser::ast::{Cte as AstCte, SetExpr, SetOperator, SetQuantifier};

/// Ids that tie a `RecursiveGet` to its `Recursive`, unique within a process.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Plans one WITH query of a WITH RECURSIVE clause, seeing the queries before it in `cx`.
/// A query that does not read itself is planned as an ordinary WITH query (`None`).
pub fn plan_recursive_cte(cx: &QueryContext<'_>, cte: &AstCte) -> Result<Option<Cte>, PlanError> {
    let name = fold(&cte.alias.name);
    let q = &cte.query;
    let SetExpr::SetOperation {
        left,
        op: SetOperator::Union,
        set_quantifier,
        right,
    } = q.body.as_ref()
    else {
        return Ok(None);
    };
    let distinct = match set_quantifier {
        SetQuantifier::All => false,
        SetQuantifier::Distinct | SetQuantifier::None => true,
        _ => return Ok(None),
    };
    // The non-recursive term cannot see the query itself.
    let (base, base_scope) = plan_set_expr(cx, left).map_err(|e| {
        if e.code == "42P01" && e.message.contains(&format!("\"{name}\"")) {
            PlanError::new(
                "42P19",
                format!(
                    "recursive reference to query \"{name}\" must not appear within its \
                     non-recursive term"
                ),
            )
        } else {
            e
        }
    })?;
    let scope = aliased(base_scope.clone(), Some(&cte.alias), &name)?;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let mut inner = cx.uncorrelated();
    // Inside the recursive term, any column of the query may be NULL.
    let self_scope = Scope {
        items: scope
            .items
            .iter()
            .map(|i| ScopeItem {
                ty: ColumnType::new(i.ty.scalar, true),
                ..i.clone()
            })
            .collect(),
    };
    inner.ctes.push(Cte {
        name: name.clone(),
        plan: Plan::RecursiveGet { id },
        scope: self_scope,
    });
    let (step, step_scope) = plan_set_expr(&inner, right)?;
    let mut reads = 0;
    count_reads(&step, id, &mut reads);
    if reads == 0 {
        return Ok(None);
    }
    if q.order_by.is_some() {
        return Err(PlanError::unsupported(
            "ORDER BY in a recursive query is not implemented",
        ));
    }
    if q.limit_clause.is_some() {
        return Err(PlanError::unsupported(
            "OFFSET/LIMIT in a recursive query is not implemented",
        ));
    }
    check_step(&step, id, distinct, &name)?;
    if reads > 1 {
        return Err(PlanError::new(
            "42P19",
            format!("recursive reference to query \"{name}\" must not appear more than once"),
        ));
    }
    if step_scope.len() != scope.len() {
        return Err(PlanError::syntax(
            "each UNION query must have the same number of columns",
        ));
    }
    let mut casts = Vec::with_capacity(scope.len());
    let mut items = Vec::with_capacity(scope.len());
    for (i, (b, s)) in scope.items.iter().zip(&step_scope.items).enumerate() {
        let overall = common_type(&[Some(b.ty.scalar), Some(s.ty.scalar)], "UNION")?;
        if overall != b.ty.scalar {
            return Err(PlanError::datatype_mismatch(format!(
                "recursive query \"{name}\" column {} has type {} in non-recursive term but type \
                 {overall} overall",
                i + 1,
                b.ty.scalar
            )));
        }
        let t = Typed::new(ScalarExpr::Column(i), s.ty.scalar, s.ty.nullable);
        casts.push(coerce_all(vec![t], &overall, "UNION")?.remove(0).expr);
        items.push(ScopeItem {
            ty: ColumnType::new(overall, b.ty.nullable || s.ty.nullable),
            ..b.clone()
        });
    }
    let step = project_exprs(step, step_scope.len(), casts);
    Ok(Some(Cte {
        name,
        plan: Plan::Recursive {
            id,
            base: Box::new(base),
            step: Box::new(step),
            distinct,
        },
        scope: Scope { items },
    }))
}

fn count_reads(plan: &Plan, id: u64, n: &mut usize) {
    plan.visit(&mut |p| {
        if matches!(p, Plan::RecursiveGet { id: i } if *i == id) {
            *n += 1;
        }
    });
}

fn reads(plan: &Plan, id: u64) -> bool {
    let mut n = 0;
    count_reads(plan, id, &mut n);
    n > 0
}

/// Checks that every node above a read of the recursive query is one for which iterating to
/// a fixed point computes PostgreSQL's working-table iteration.
fn check_step(plan: &Plan, id: u64, distinct: bool, name: &str) -> Result<(), PlanError> {
    if !reads(plan, id) {
        return Ok(());
    }
    let refuse = |what: &str| {
        Err(PlanError::unsupported(format!(
            "recursive reference to query \"{name}\" inside {what}"
        )))
    };
    match plan {
        Plan::RecursiveGet { .. } => Ok(()),
        // Per-row operators are linear in the recursion.
        Plan::Map { input, .. }
        | Plan::Filter { input, .. }
        | Plan::Project { input, .. }
        | Plan::FlatMap { input, .. } => check_step(input, id, distinct, name),
        Plan::Join { left, right, .. } => {
            check_step(left, id, distinct, name)?;
            check_step(right, id, distinct, name)
        }
        Plan::Union { inputs } => inputs
            .iter()
            .try_for_each(|i| check_step(i, id, distinct, name)),
        Plan::Distinct { input } if distinct => check_step(input, id, distinct, name),
        Plan::Distinct { .. } => refuse("DISTINCT, UNION or a subquery of a UNION ALL recursion"),
        Plan::Reduce { .. } => Err(PlanError::new(
            "42P19",
            "aggregate functions are not allowed in a recursive query's recursive term",
        )),
        Plan::Negate { .. } | Plan::Threshold { .. } => {
            refuse("an outer join, EXCEPT, INTERSECT or a subquery")
        }
        Plan::TopK { .. } => refuse("a query with LIMIT/OFFSET"),
        Plan::Window { .. } => refuse("window functions"),
        Plan::TemporalFilter { .. } => refuse("a temporal filter"),
        Plan::Recursive { .. } => refuse("another recursive query"),
        Plan::Let { .. } | Plan::LocalGet { .. } => refuse("a shared subplan"),
        Plan::Get { .. }
        | Plan::GetWithPosition { .. }
        | Plan::IndexedGet { .. }
        | Plan::Constant { .. } => Ok(()),
    }
}
