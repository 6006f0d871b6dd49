//! The optimizer: the rewrites between the decorrelated plan the binder makes and the plan the
//! runtime renders. One function per stage, so EXPLAIN and the coordinator agree by
//! construction.
//!
//! - `optimize` (EXPLAIN OPTIMIZED): predicate pushdown with equivalence propagation
//!   (`pushdown.rs`), then projection pushdown (`demand.rs`). Constant folding happened while
//!   binding (`fold.rs`).
//! - `physical_plan` (EXPLAIN PHYSICAL, and what runs): the optimized plan with its joins
//!   ordered for index reuse (`join_order.rs`), join and reduction inputs narrowed to the
//!   columns they need, and inputs read through the catalog's indexes where the keys fit
//!   (`index_reuse.rs`), and inputs that read one collection by one key with different
//!   columns widened to read the same (`widen.rs`); then the filters' `mz_now()` conjuncts
//!   become temporal filters (`temporal.rs`); last, subtrees that occur more than once are
//!   computed once (`share.rs`).

use kpg_types::Plan;

use crate::catalog::Catalog;
use crate::demand::{prune_columns, tidy};
use crate::error::PlanError;
use crate::index_reuse::use_indexes;
use crate::join_order::order_joins;
use crate::pushdown::push_predicates;
use crate::share::share_common;

/// The logical rewrites of a decorrelated plan.
pub fn optimize(plan: Plan, catalog: &dyn Catalog) -> Plan {
    prune_columns(push_predicates(plan, catalog), false, catalog)
}

/// The plan the runtime renders for a decorrelated plan; first, the error of a constant
/// expression that fails where PostgreSQL's planner evaluates it (`fold::check`).
pub fn physical_plan(plan: Plan, catalog: &dyn Catalog) -> Result<Plan, PlanError> {
    crate::fold::check_plan(&plan)?;
    Ok(share_common(crate::temporal::extract(
        physical_plan_unshared(plan, catalog),
    )))
}

/// The physical plan before repeated subtrees are bound (`share.rs`).
pub(crate) fn physical_plan_unshared(plan: Plan, catalog: &dyn Catalog) -> Plan {
    crate::widen::share_join_arrangements(narrowed(plan, catalog), catalog)
}

/// The plan with its joins ordered, inputs narrowed and indexes read, before join inputs are
/// widened to share arrangements.
pub(crate) fn narrowed(plan: Plan, catalog: &dyn Catalog) -> Plan {
    let ordered = order_joins(optimize(plan, catalog), catalog);
    // Reading an index lifts the input's filters and projections above the join.
    tidy(
        use_indexes(prune_columns(ordered, true, catalog), catalog),
        catalog,
    )
}
