//! `RETURNING` of INSERT, UPDATE and DELETE: expressions over each row the statement wrote.
//!
//! The expressions are bound over the scope of the written table (named by its alias, if any),
//! followed for UPDATE ... FROM and DELETE ... USING by the other FROM items' columns; the server
//! evaluates them over the rows it writes (the new rows of INSERT and UPDATE, the removed rows of
//! DELETE), so they may not hold subqueries. `*` is the table's columns (and the other FROM
//! items', as in PostgreSQL), `t.*` one item's; names are those a SELECT list would give.

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::names::{fold, object_name};
use crate::query::resolve_outputs;
use crate::scope::Scope;
use crate::select::default_name;
use crate::types::Typed;
use kpg_types::{ColumnType, RelationDesc, ScalarExpr, ScalarType};
use sqlparser::ast::{SelectItem, SelectItemQualifiedWildcardKind};

/// What a write returns: one expression per column of `desc`, over the written row.
#[derive(Clone, Debug, PartialEq)]
pub struct Returning {
    pub exprs: Vec<ScalarExpr>,
    pub desc: RelationDesc,
}

impl Returning {
    /// The returned row for a written `row` (laid out as the scope it was planned over).
    pub fn eval(&self, row: &[kpg_types::Datum]) -> Result<kpg_types::Row, kpg_types::EvalError> {
        Ok(kpg_types::Row::new(
            self.exprs
                .iter()
                .map(|e| e.eval_now(row))
                .collect::<Result<Vec<_>, _>>()?,
        ))
    }
}

/// Plans `RETURNING items` over `scope` (`None` without RETURNING).
pub fn plan_returning(
    items: Option<&Vec<SelectItem>>,
    scope: &Scope,
) -> Result<Option<Returning>, PlanError> {
    let Some(items) = items else {
        return Ok(None);
    };
    let cx = ExprContext::new(scope, "RETURNING");
    let mut names = Vec::new();
    let mut typed: Vec<Typed> = Vec::new();
    let column = |i: usize, names: &mut Vec<String>, typed: &mut Vec<Typed>| {
        let item = &scope.items[i];
        names.push(item.name.clone());
        typed.push(Typed::new(
            ScalarExpr::Column(i),
            item.ty.scalar,
            item.ty.nullable,
        ));
    };
    for item in items {
        match item {
            SelectItem::UnnamedExpr(e) => {
                names.push(default_name(e));
                typed.push(cx.bind(e)?);
            }
            SelectItem::ExprWithAlias { expr, alias } => {
                names.push(fold(alias));
                typed.push(cx.bind(expr)?);
            }
            SelectItem::Wildcard(_) => {
                for (i, it) in scope.items.iter().enumerate() {
                    if it.level == 0 {
                        column(i, &mut names, &mut typed);
                    }
                }
            }
            SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::ObjectName(n), _) => {
                let table = object_name(n)?;
                if !scope.has_own_table(&table) {
                    return Err(PlanError::new(
                        "42P01",
                        format!("missing FROM-clause entry for table \"{table}\""),
                    ));
                }
                for (i, it) in scope.items.iter().enumerate() {
                    if it.level == 0 && it.table.as_deref() == Some(table.as_str()) {
                        column(i, &mut names, &mut typed);
                    }
                }
            }
            other => return Err(PlanError::unsupported(format!("RETURNING item {other}"))),
        }
    }
    let typed = resolve_outputs(typed)?;
    let desc = RelationDesc::new(
        names
            .into_iter()
            .zip(&typed)
            .map(|(n, t)| {
                let ty = t.ty.unwrap_or(ScalarType::Text);
                (n, ColumnType::new(ty, t.nullable))
            })
            .collect(),
    );
    Ok(Some(Returning {
        exprs: typed.into_iter().map(|t| t.expr).collect(),
        desc,
    }))
}
