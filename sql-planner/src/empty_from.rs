//! SELECTs over system catalogs that are empty by construction.
//!
//! Several pg_catalog relations describe features kpg does not have (row-level policies,
//! extended statistics, publications, inheritance, column defaults), so they hold no rows.
//! Clients still query them — psql's `\d table` reads all of them — with expressions over
//! their array and node-tree columns that kpg cannot evaluate. PostgreSQL never evaluates a
//! select list, WHERE or ORDER BY for rows that do not exist, so such a block's answer is no
//! rows whatever those expressions are.
//!
//! The rule: when planning a SELECT block fails because something is not supported (0A000) or
//! is a function kpg does not have (42883), and the block has no grouping and reads, as an
//! inner input of its FROM clause, a relation the catalog says is always empty, the block is
//! planned as an empty relation. Its columns are named as PostgreSQL names them and typed by
//! their expressions where kpg can type them, text otherwise. Undefined tables and columns and
//! every other error are still reported.

use sqlparser::ast::{JoinOperator, Select, SelectItem, TableFactor, TableWithJoins};

use crate::aggregate::contains_aggregate;
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::join::plan_from_where;
use crate::names::{fold, resolve_relation};
use crate::query::QueryContext;
use crate::scope::{Scope, ScopeItem, UseMark};
use crate::select::{default_name, SelectPlan};
use crate::types::resolve_unknown;
use kpg_types::{ColumnType, GlobalId, Plan, ScalarType};

/// Whether a failed SELECT block may be answered by `empty_select`.
pub fn may_skip(e: &PlanError) -> bool {
    e.code == "0A000" || e.code == "42883"
}

/// The block planned as an empty relation, if the rule applies; otherwise `err`.
pub fn empty_select(
    cx: &QueryContext<'_>,
    s: &Select,
    err: PlanError,
) -> Result<SelectPlan, PlanError> {
    let grouped = s.having.is_some()
        || !matches!(&s.group_by, sqlparser::ast::GroupByExpr::Expressions(g, _) if g.is_empty())
        || s.projection.iter().any(|p| match p {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                contains_aggregate(e)
            }
            _ => false,
        });
    if grouped || !s.from.iter().any(|t| reads_empty(cx, t)) {
        return Err(err);
    }
    let (_, from_scope) = plan_from_where(cx, &s.from, None, false)?;
    let bind = ExprContext::new(&from_scope, "SELECT").with_catalog(cx.catalog);
    let nd = from_scope.outer_prefix();
    let mut items: Vec<ScopeItem> = from_scope.items[..nd].to_vec();
    let column = |name: String, ty: ColumnType| ScopeItem {
        table: None,
        name,
        ty,
        level: 0,
        used: UseMark::default(),
    };
    for p in &s.projection {
        match p {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                let name = match p {
                    SelectItem::ExprWithAlias { alias, .. } => fold(alias),
                    _ => default_name(e),
                };
                let ty = bind
                    .bind(e)
                    .and_then(resolve_unknown)
                    .ok()
                    .and_then(|t| t.ty.map(|ty| ColumnType::new(ty, true)))
                    .unwrap_or(ColumnType::new(ScalarType::Text, true));
                items.push(column(name, ty));
            }
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                for item in from_scope.items[nd..].iter() {
                    items.push(column(item.name.clone(), item.ty));
                }
            }
            SelectItem::ExprWithAliases { .. } => return Err(err),
        }
    }
    let arity = items.len();
    Ok(SelectPlan {
        plan: Plan::Constant { rows: Vec::new() },
        scope: Scope { items },
        order: Vec::new(),
        arity,
        unknown: vec![false; arity],
    })
}

/// Whether the FROM item reads an always-empty relation where an empty input empties the
/// result: its first relation, or one joined to it by an inner or cross join.
fn reads_empty(cx: &QueryContext<'_>, t: &TableWithJoins) -> bool {
    let empty = |f: &TableFactor| match f {
        TableFactor::Table { name, .. } => resolve_relation(cx.catalog, name)
            .map(|item| always_empty(cx, item.id))
            .unwrap_or(false),
        _ => false,
    };
    empty(&t.relation)
        || t.joins.iter().any(|j| {
            matches!(
                j.join_operator,
                JoinOperator::Join(_) | JoinOperator::Inner(_) | JoinOperator::CrossJoin(_)
            ) && empty(&j.relation)
        })
}

fn always_empty(cx: &QueryContext<'_>, id: GlobalId) -> bool {
    cx.catalog.always_empty(id)
}
