//! `CREATE TABLE t AS query [WITH [NO] DATA]` and `SELECT ... INTO [TABLE] t FROM ...`: a new
//! table with the query's columns, filled once with its rows (it is not a view: later writes to
//! the query's inputs do not change it).
//!
//! The query is planned as a top-level read, so its rows are written in the order it returns
//! them (its ORDER BY, or the scan order of a plain scan), as PostgreSQL inserts them. The
//! columns take the query's names and types, all nullable, without constraints or defaults, as
//! in PostgreSQL; an untyped literal column becomes text.

use crate::catalog::Catalog;
use crate::error::PlanError;
use crate::names::object_name;
use crate::query::{plan_read, QueryContext};
use crate::statement::PlannedStatement;
use sqlparser::ast::{CreateTable, Expr, ObjectName, Query, SetExpr};

pub fn plan_create_table_as(
    ct: &CreateTable,
    query: &Query,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    if !ct.columns.is_empty() || !ct.constraints.is_empty() {
        return Err(PlanError::syntax(
            "syntax error: CREATE TABLE ... AS takes column names without types or constraints",
        ));
    }
    let with_data = ct.with_data.as_ref().is_none_or(|w| w.data);
    plan_table_as(&ct.name, ct.if_not_exists, query, with_data, catalog)
}

/// `SELECT ... INTO t ...`, or `None` if `q` has no INTO.
pub fn plan_select_into(
    q: &Query,
    catalog: &dyn Catalog,
) -> Option<Result<PlannedStatement, PlanError>> {
    let SetExpr::Select(select) = q.body.as_ref() else {
        return None;
    };
    let into = select.into.as_ref()?;
    if into.temporary || into.unlogged {
        return Some(Err(PlanError::unsupported(
            "SELECT INTO TEMPORARY or UNLOGGED tables",
        )));
    }
    let name = match into.targets.as_slice() {
        [Expr::Identifier(i)] => ObjectName::from(vec![i.clone()]),
        [Expr::CompoundIdentifier(parts)] => ObjectName::from(parts.clone()),
        _ => {
            return Some(Err(PlanError::unsupported(format!(
                "SELECT INTO {}",
                into.targets
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))))
        }
    };
    let mut query = q.clone();
    if let SetExpr::Select(s) = query.body.as_mut() {
        s.into = None;
    }
    Some(plan_table_as(&name, false, &query, true, catalog))
}

fn plan_table_as(
    name: &ObjectName,
    if_not_exists: bool,
    query: &Query,
    with_data: bool,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let name = object_name(name)?;
    if catalog.resolve(&name).is_some() && !if_not_exists {
        return Err(PlanError::new(
            "42P07",
            format!("relation \"{name}\" already exists"),
        ));
    }
    let planned = plan_read(&QueryContext::new(catalog), query)?;
    let mut desc = planned.scope.desc();
    for (i, (n, ty)) in desc.columns.iter_mut().enumerate() {
        ty.nullable = true;
        if planned.scope.desc().columns[..i]
            .iter()
            .any(|(m, _)| m == n)
        {
            return Err(PlanError::new(
                "42701",
                format!("column \"{n}\" specified more than once"),
            ));
        }
    }
    Ok(PlannedStatement::CreateTableAs {
        name,
        desc,
        plan: planned.plan,
        finishing: planned.finishing,
        with_data,
        if_not_exists,
    })
}
