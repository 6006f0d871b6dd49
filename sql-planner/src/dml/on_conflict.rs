//! `INSERT ... ON CONFLICT [(cols) | ON CONSTRAINT name] DO NOTHING | DO UPDATE SET ... [WHERE]`.
//!
//! The planner resolves the conflict target to columns or a constraint name and binds the DO
//! UPDATE assignments and condition over the existing row (named as the table or its alias)
//! followed by the proposed row (named `excluded`); the server, which knows the table's
//! PRIMARY KEY and UNIQUE constraints, picks the arbiter constraints (42P10 when the columns
//! match none, as in PostgreSQL) and applies the action row by row (`coord/on_conflict.rs`).

use super::{assign, assignment_target, column_defaults, is_default};
use crate::catalog::{Catalog, CatalogItem};
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::names::{fold, object_name};
use crate::scope::Scope;
use kpg_types::ScalarExpr;
use sqlparser::ast::{ConflictTarget, OnConflict as AstOnConflict, OnConflictAction, OnInsert};

/// Which unique constraints an ON CONFLICT clause handles conflicts on.
#[derive(Clone, Debug, PartialEq)]
pub enum Arbiter {
    /// Every unique constraint (DO NOTHING without a target).
    Any,
    /// The constraint whose columns are exactly these (in any order).
    Columns(Vec<usize>),
    /// The constraint of this name.
    Constraint(String),
}

/// What to do with a proposed row that conflicts with a row of the table.
#[derive(Clone, Debug, PartialEq)]
pub enum ConflictAction {
    Nothing,
    /// Replace the existing row by `assignments` (one per column), where `predicate` holds;
    /// both over the existing row's columns followed by the proposed row's.
    Update {
        assignments: Vec<ScalarExpr>,
        predicate: Option<ScalarExpr>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct OnConflict {
    pub arbiter: Arbiter,
    pub action: ConflictAction,
}

/// Plans the ON CONFLICT clause of an INSERT into `table`, whose rows are named `qualifier`.
pub fn plan_on_conflict(
    on: Option<&OnInsert>,
    table: &CatalogItem,
    qualifier: &str,
    catalog: &dyn Catalog,
) -> Result<Option<OnConflict>, PlanError> {
    let Some(on) = on else {
        return Ok(None);
    };
    let OnInsert::OnConflict(AstOnConflict {
        conflict_target,
        action,
    }) = on
    else {
        return Err(PlanError::unsupported(format!("INSERT ...{on}")));
    };
    let arbiter = match conflict_target {
        None => Arbiter::Any,
        Some(ConflictTarget::OnConstraint(name)) => Arbiter::Constraint(object_name(name)?),
        Some(ConflictTarget::Columns(cols)) => {
            let mut columns = Vec::with_capacity(cols.len());
            for c in cols {
                let name = fold(c);
                let i = table
                    .desc
                    .columns
                    .iter()
                    .position(|(n, _)| *n == name)
                    .ok_or_else(|| {
                        PlanError::new("42703", format!("column \"{name}\" does not exist"))
                    })?;
                if !columns.contains(&i) {
                    columns.push(i);
                }
            }
            columns.sort_unstable();
            Arbiter::Columns(columns)
        }
    };
    let action = match action {
        OnConflictAction::DoNothing => ConflictAction::Nothing,
        OnConflictAction::DoUpdate(update) => {
            if arbiter == Arbiter::Any {
                return Err(PlanError::syntax(
                    "ON CONFLICT DO UPDATE requires inference specification or constraint name",
                ));
            }
            let types = table.desc.value_types();
            let scope = Scope::from_desc(Some(qualifier), &types)
                .concat(Scope::from_desc(Some("excluded"), &types));
            let cx = ExprContext::new(&scope, "UPDATE");
            let n = table.desc.arity();
            let mut assignments: Vec<ScalarExpr> = (0..n).map(ScalarExpr::Column).collect();
            let mut assigned = Vec::new();
            let defaults = column_defaults(catalog, table);
            let cols = &table.desc.columns;
            for a in &update.assignments {
                let i = assignment_target(a, table, &mut assigned)?;
                assignments[i] = if is_default(&a.value) {
                    defaults[i].clone()
                } else {
                    let bound = cx.bind(&a.value).map_err(super::misplaced_default)?;
                    assign(bound, &cols[i].0, &cols[i].1)?.expr
                };
            }
            let predicate = match &update.selection {
                Some(w) => Some(ExprContext::new(&scope, "WHERE").bind_condition(w)?.expr),
                None => None,
            };
            ConflictAction::Update {
                assignments,
                predicate,
            }
        }
    };
    Ok(Some(OnConflict { arbiter, action }))
}
