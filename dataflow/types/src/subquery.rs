//! Subqueries as the binder sees them, before decorrelation: an expression node holding the
//! subquery's plan. Only `EXPLAIN RAW` plans contain them — the planner turns every subquery
//! into joins and reductions before a plan leaves it — so the runtime never evaluates one
//! (it would be an internal error, not a wrong answer).
//!
//! A correlated subquery reads some columns of the row it is evaluated for. `outer` lists
//! them as expressions over that row; inside `plan`, the leaf `Get { id: OUTER_ROW }` is that
//! one row, whose columns are `outer`'s values in order.

use serde::{Deserialize, Serialize};

use crate::expr::{BinaryFunc, ScalarExpr};
use crate::plan::{GlobalId, Plan};

/// The id of the leaf that stands for the outer row inside a `BoundSubquery`'s plan.
pub const OUTER_ROW: GlobalId = u64::MAX;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BoundSubquery {
    pub kind: SubqueryKind,
    /// The outer row's values the subquery reads, as expressions over that row.
    pub outer: Vec<ScalarExpr>,
    /// The subquery; its first `outer.len()` columns are the outer values, then its own.
    pub plan: Plan,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SubqueryKind {
    /// `(SELECT v ...)`: its one value, NULL without rows, an error with several.
    Scalar,
    /// `EXISTS (...)`.
    Exists,
    /// `left op ANY (...)` (`IN` is `= ANY`), or `left op ALL (...)` when `all`.
    Quantified {
        left: Box<ScalarExpr>,
        op: BinaryFunc,
        all: bool,
    },
}

impl BoundSubquery {
    /// The expressions over the outer row the node reads: the left operand, then `outer`.
    pub fn operands(&self) -> impl Iterator<Item = &ScalarExpr> {
        let left = match &self.kind {
            SubqueryKind::Quantified { left, .. } => Some(left.as_ref()),
            _ => None,
        };
        left.into_iter().chain(&self.outer)
    }

    pub fn operands_mut(&mut self) -> impl Iterator<Item = &mut ScalarExpr> {
        let left = match &mut self.kind {
            SubqueryKind::Quantified { left, .. } => Some(left.as_mut()),
            _ => None,
        };
        left.into_iter().chain(&mut self.outer)
    }
}
