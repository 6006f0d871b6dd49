//! TRUNCATE: every row of the named tables is removed, in one write.
//!
//! kpg has no sequences and no foreign keys, so the options that act on them change nothing,
//! exactly as in PostgreSQL for tables without identity columns or references:
//! `RESTART IDENTITY` / `CONTINUE IDENTITY`, `CASCADE` / `RESTRICT` and `ONLY` are accepted.
//! Views over the tables follow the write like any other (they become empty).

use crate::catalog::{Catalog, ItemKind};
use crate::error::PlanError;
use crate::names::resolve_relation;
use crate::statement::PlannedStatement;
use sqlparser::ast::Truncate;

pub fn plan_truncate(t: &Truncate, catalog: &dyn Catalog) -> Result<PlannedStatement, PlanError> {
    if t.partitions.is_some() || t.on_cluster.is_some() || t.if_exists {
        return Err(PlanError::unsupported(format!("TRUNCATE form {t}")));
    }
    let mut tables = Vec::with_capacity(t.table_names.len());
    for target in &t.table_names {
        let item = resolve_relation(catalog, &target.name)?;
        if item.kind != ItemKind::Table {
            return Err(PlanError::wrong_object_type(format!(
                "\"{}\" is not a table",
                item.name
            )));
        }
        if !tables.contains(&item.id) {
            tables.push(item.id);
        }
    }
    Ok(PlannedStatement::Truncate { tables })
}
