//! `UPDATE t SET ... FROM other WHERE ...` and `DELETE FROM t USING other WHERE ...`: writes to
//! the rows of `t` that join with the other FROM items.
//!
//! The target table is read with its rows' positions (as a WITH query no name can spell, so
//! that it is the first FROM item and the join planner places the WHERE conjuncts as usual:
//! equalities become join keys, subqueries are joined in). The plan yields, per joined row: the
//! target row as stored (its columns and position), for UPDATE the new columns, then the other
//! items' columns. A target row joined with several rows is changed once, by one of them (the
//! server keeps the first row per position): PostgreSQL's rule, which also leaves the choice
//! open. RETURNING sees the target's (new) columns, its hidden position and the other items.

use super::{assign, assignment_target, returning, target_alias};
use crate::catalog::{Catalog, CatalogItem};
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::fold as folding;
use crate::join::{plan_from_where, POSITION};
use crate::query::{project_exprs, Cte, QueryContext};
use crate::scope::{Scope, ScopeItem, UseMark};
use crate::statement::PlannedStatement;
use crate::using::HIDDEN;
use kpg_types::{ColumnType, Plan, ScalarExpr, ScalarType};
use sqlparser::ast::{Assignment, Expr, SelectItem, TableAlias, TableWithJoins};

/// The name of the WITH query that reads the target with positions (no identifier spells it).
const TARGET: &str = "\0target";

/// Plans the join of the target table (named `alias`) with `from`, filtered by `selection`.
fn plan_join(
    table: &CatalogItem,
    alias: &str,
    from: &[TableWithJoins],
    selection: Option<&Expr>,
    catalog: &dyn Catalog,
) -> Result<(Plan, Scope), PlanError> {
    let mut scope = Scope::from_desc(None, &table.desc.value_types());
    scope.items.push(ScopeItem {
        table: None,
        name: POSITION.to_string(),
        ty: ColumnType::new(ScalarType::Int64, false),
        level: HIDDEN,
        used: UseMark::default(),
    });
    let mut cx = QueryContext::new(catalog);
    cx.ctes.push(Cte {
        name: TARGET.to_string(),
        plan: Plan::GetWithPosition { id: table.id },
        scope,
    });
    let target = TableWithJoins {
        relation: target_factor(alias)?,
        joins: Vec::new(),
    };
    let mut items = vec![target];
    items.extend(from.iter().cloned());
    plan_from_where(&cx, &items, selection, false)
}

/// `"\0target" AS alias` as a FROM item.
fn target_factor(alias: &str) -> Result<sqlparser::ast::TableFactor, PlanError> {
    let sql = "SELECT * FROM \"target\" AS \"alias\"";
    let parsed =
        sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, sql)
            .map_err(|e| PlanError::new("XX000", e.to_string()))?;
    let Some(sqlparser::ast::Statement::Query(q)) = parsed.into_iter().next() else {
        return Err(PlanError::new("XX000", "target FROM item"));
    };
    let sqlparser::ast::SetExpr::Select(select) = *q.body else {
        return Err(PlanError::new("XX000", "target FROM item"));
    };
    let mut factor = select.from[0].relation.clone();
    if let sqlparser::ast::TableFactor::Table {
        name,
        alias: Some(TableAlias { name: a, .. }),
        ..
    } = &mut factor
    {
        *name =
            sqlparser::ast::ObjectName::from(vec![sqlparser::ast::Ident::with_quote('"', TARGET)]);
        *a = sqlparser::ast::Ident::with_quote('"', alias);
    }
    Ok(factor)
}

/// UPDATE ... FROM.
pub fn plan_update_from(
    table: CatalogItem,
    alias: Option<&TableAlias>,
    assignments: &[Assignment],
    from: &[TableWithJoins],
    selection: Option<&Expr>,
    returning_items: Option<&Vec<SelectItem>>,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let name = target_alias(&table, alias);
    let (plan, scope) = plan_join(&table, &name, from, selection, catalog)?;
    let n = table.desc.arity();
    let cols = &table.desc.columns;
    let mut new: Vec<ScalarExpr> = (0..n).map(ScalarExpr::Column).collect();
    let mut assigned = Vec::new();
    let cx = ExprContext::new(&scope, "UPDATE");
    let defaults = super::column_defaults(catalog, &table);
    for a in assignments {
        let i = assignment_target(a, &table, &mut assigned)?;
        new[i] = if super::is_default(&a.value) {
            defaults[i].clone()
        } else {
            let bound = cx.bind(&a.value).map_err(super::misplaced_default)?;
            assign(bound, &cols[i].0, &cols[i].1)?.expr
        };
    }
    // Old columns and position, new columns, the other items' columns.
    let mut exprs: Vec<ScalarExpr> = (0..=n).map(ScalarExpr::Column).collect();
    exprs.extend(new);
    exprs.extend((n + 1..scope.len()).map(ScalarExpr::Column));
    let plan = folding::plan(project_exprs(plan, scope.len(), exprs))?;
    Ok(PlannedStatement::JoinedWrite {
        table: table.id,
        plan,
        columns: n,
        update: true,
        returning: returning::plan_returning(returning_items, &scope)?,
    })
}

/// DELETE ... USING.
pub fn plan_delete_using(
    table: CatalogItem,
    alias: Option<&TableAlias>,
    using: &[TableWithJoins],
    selection: Option<&Expr>,
    returning_items: Option<&Vec<SelectItem>>,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let name = target_alias(&table, alias);
    let (plan, scope) = plan_join(&table, &name, using, selection, catalog)?;
    Ok(PlannedStatement::JoinedWrite {
        table: table.id,
        plan,
        columns: table.desc.arity(),
        update: false,
        returning: returning::plan_returning(returning_items, &scope)?,
    })
}
