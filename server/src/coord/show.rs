//! `SHOW TABLES | MATERIALIZED VIEWS | VIEWS | INDEXES [ON obj] | COLUMNS FROM obj`: listings
//! of the catalog, answered by the coordinator from its own state.

use kpg_sql::sqlparser::ast::{ShowStatementIn, Statement};
use kpg_sql::{Catalog as _, ItemKind, ParsedStatement};
use kpg_types::{ColumnType, Datum, RelationDesc, Row, ScalarType};

use super::execute::ExecuteResult;
use crate::catalog::Catalog;
use crate::error::ExecError;

/// The answer to a SHOW statement about the catalog, or `None` if `stmt` is not one.
pub fn show(stmt: &ParsedStatement, catalog: &Catalog) -> Option<Result<ExecuteResult, ExecError>> {
    let ParsedStatement::Sql(stmt) = stmt else {
        return None;
    };
    Some(match stmt {
        Statement::ShowTables { .. } => Ok(names(catalog, ItemKind::Table)),
        Statement::ShowViews {
            materialized: true, ..
        } => Ok(names(catalog, ItemKind::MaterializedView)),
        Statement::ShowViews {
            materialized: false,
            ..
        } => Ok(names(catalog, ItemKind::View)),
        Statement::ShowColumns { show_options, .. } => {
            let Some(ShowStatementIn {
                parent_name: Some(name),
                ..
            }) = &show_options.show_in
            else {
                return Some(Err(ExecError::new(
                    "42601",
                    "SHOW COLUMNS needs FROM <relation>",
                )));
            };
            columns(catalog, &fold(&name.to_string()))
        }
        Statement::ShowVariable { variable }
            if variable
                .first()
                .is_some_and(|i| i.value.eq_ignore_ascii_case("indexes")) =>
        {
            match variable.as_slice() {
                [_] => Ok(indexes(catalog, None)),
                [_, on, name]
                    if on.value.eq_ignore_ascii_case("on")
                        || on.value.eq_ignore_ascii_case("from") =>
                {
                    let name = fold(&name.to_string());
                    match catalog.resolve(&name) {
                        Some(item) => Ok(indexes(catalog, Some(item.id))),
                        None => Err(ExecError::new(
                            "42P01",
                            format!("relation \"{name}\" does not exist"),
                        )),
                    }
                }
                _ => Err(ExecError::new(
                    "42601",
                    "expected SHOW INDEXES [ON <relation>]",
                )),
            }
        }
        _ => return None,
    })
}

/// PostgreSQL's folding of an unquoted identifier (quoted ones keep their case).
fn fold(name: &str) -> String {
    match name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
        Some(quoted) => quoted.to_string(),
        None => name.to_lowercase(),
    }
}

fn text(s: &str) -> Datum {
    Datum::String(s.to_string())
}

fn listing(columns: &[&str], rows: Vec<Row>) -> ExecuteResult {
    let ty = ColumnType::new(ScalarType::Text, false);
    let desc = RelationDesc::new(columns.iter().map(|c| (c.to_string(), ty)).collect());
    ExecuteResult::Rows { desc, rows }
}

fn names(catalog: &Catalog, kind: ItemKind) -> ExecuteResult {
    let rows = catalog
        .items()
        .filter(|item| item.kind == kind)
        .map(|item| Row::new(vec![text(&item.name)]))
        .collect();
    listing(&["name"], rows)
}

fn columns(catalog: &Catalog, name: &str) -> Result<ExecuteResult, ExecError> {
    let item = catalog
        .resolve(name)
        .ok_or_else(|| ExecError::new("42P01", format!("relation \"{name}\" does not exist")))?;
    let rows = item
        .desc
        .columns
        .iter()
        .map(|(col, ty)| {
            Row::new(vec![
                text(col),
                text(if ty.nullable { "true" } else { "false" }),
                text(&ty.scalar.to_string()),
            ])
        })
        .collect();
    Ok(listing(&["name", "nullable", "type"], rows))
}

fn indexes(catalog: &Catalog, on: Option<u64>) -> ExecuteResult {
    let rows = catalog
        .all_indexes()
        .filter(|index| on.is_none_or(|id| index.on == id))
        .map(|index| {
            let on_item = catalog.get(index.on).map(|e| &e.item);
            let key: Vec<String> = index
                .key
                .iter()
                .map(|e| match (e, on_item) {
                    (kpg_types::ScalarExpr::Column(c), Some(item)) => {
                        item.desc.columns[*c].0.clone()
                    }
                    (other, _) => format!("{other:?}"),
                })
                .collect();
            let on_name = on_item.map_or("?", |i| i.name.as_str());
            Row::new(vec![
                text(&index.name),
                text(on_name),
                text(&format!("{{{}}}", key.join(","))),
            ])
        })
        .collect();
    listing(&["name", "on", "key"], rows)
}
