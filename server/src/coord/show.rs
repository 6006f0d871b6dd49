//! `SHOW TABLES | SOURCES | MATERIALIZED VIEWS | VIEWS | INDEXES [ON obj] | COLUMNS FROM obj`
//! and `SHOW CREATE ...`: listings of the catalog, answered by the coordinator from its own
//! state.

use kpg_sql::{Catalog as _, ItemKind, PlannedStatement, ShowCreateObject, ShowObjects};
use kpg_types::{ColumnType, Datum, RelationDesc, Row, ScalarType};

use super::sequence::ExecuteResult;
use crate::catalog::{Catalog, Entry};
use crate::error::ExecError;

/// The answer to a SHOW statement about the catalog, or `None` if `stmt` is not one.
pub fn show(
    planned: &PlannedStatement,
    catalog: &Catalog,
) -> Option<Result<ExecuteResult, ExecError>> {
    let listing_of = match planned {
        PlannedStatement::ShowCreate { object, name } => {
            return Some(show_create(catalog, *object, name))
        }
        PlannedStatement::ShowObjects(what) => what,
        _ => return None,
    };
    Some(match listing_of {
        ShowObjects::Tables => Ok(names(catalog, ItemKind::Table)),
        ShowObjects::MaterializedViews => Ok(names(catalog, ItemKind::MaterializedView)),
        ShowObjects::Views => Ok(names(catalog, ItemKind::View)),
        ShowObjects::Columns(name) => columns(catalog, name),
        ShowObjects::Sources => Ok(sources(catalog)),
        ShowObjects::Sinks => {
            let rows = catalog
                .sinks()
                .map(|(_, s)| Row::new(vec![text(&s.name), text("kafka")]))
                .collect();
            Ok(listing(&["name", "type"], rows))
        }
        ShowObjects::Connections => {
            let rows = catalog
                .connections()
                .map(|(c, _)| Row::new(vec![text(&c.name), text("kafka"), text(&c.broker)]))
                .collect();
            Ok(listing(&["name", "type", "broker"], rows))
        }
        ShowObjects::Indexes(None) => Ok(indexes(catalog, None)),
        ShowObjects::Indexes(Some(name)) => match catalog.resolve(name) {
            Some(item) => Ok(indexes(catalog, Some(item.id))),
            None => Err(ExecError::new(
                "42P01",
                format!("relation \"{name}\" does not exist"),
            )),
        },
    })
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

/// Sources by name, each with its type as Materialize names it: `load-generator` for a
/// source, `subsource` for one table of a source with several, `progress` for a Kafka
/// source's progress relation.
fn sources(catalog: &Catalog) -> ExecuteResult {
    let rows = catalog
        .items()
        .filter(|item| item.kind == ItemKind::Source)
        .map(|item| {
            let sql = catalog.get(item.id).and_then(|e| e.sql.as_deref());
            let kind = match (catalog.owner(item.id), sql) {
                // A Kafka source's progress relation, as Materialize calls it.
                (Some(owner), _)
                    if catalog
                        .get(owner)
                        .and_then(|e| e.sql.as_deref())
                        .is_some_and(|sql| sql.contains(" FROM KAFKA ")) =>
                {
                    "progress"
                }
                (Some(_), _) => "subsource",
                (None, Some(sql)) if sql.contains(" FROM KAFKA ") => "kafka",
                (None, Some(sql)) if sql.contains(" FROM FILE ") => "file",
                (None, _) => "load-generator",
            };
            Row::new(vec![text(&item.name), text(kind)])
        })
        .collect();
    listing(&["name", "type"], rows)
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

/// `SHOW CREATE ...`: the object's name and a statement that creates it again.
fn show_create(
    catalog: &Catalog,
    object: ShowCreateObject,
    name: &str,
) -> Result<ExecuteResult, ExecError> {
    let (kind, noun) = match object {
        ShowCreateObject::Table => (Some(ItemKind::Table), "table"),
        ShowCreateObject::View => (Some(ItemKind::View), "view"),
        ShowCreateObject::MaterializedView => {
            (Some(ItemKind::MaterializedView), "materialized view")
        }
        ShowCreateObject::Index => (None, "index"),
        ShowCreateObject::Source => (Some(ItemKind::Source), "source"),
    };
    let missing = || ExecError::new("42P01", format!("{noun} \"{name}\" does not exist"));
    let sql = match kind {
        None => {
            let index = catalog.resolve_index(name).ok_or_else(missing)?;
            let on = catalog.get(index.on).ok_or_else(missing)?;
            let key: Vec<String> = index
                .key
                .iter()
                .map(|e| named_columns(&e.to_string(), &on.item.desc))
                .collect();
            format!(
                "CREATE INDEX {} ON {} ({})",
                quote_ident(&index.name),
                quote_ident(&on.item.name),
                key.join(", ")
            )
        }
        Some(kind) => {
            let item = catalog.resolve(name).ok_or_else(missing)?;
            if item.kind != kind {
                return Err(ExecError::new(
                    "42809",
                    format!("\"{name}\" is not a {noun}"),
                ));
            }
            let columns: Vec<String> = item
                .desc
                .columns
                .iter()
                .map(|(c, _)| quote_ident(c))
                .collect();
            match kind {
                ItemKind::Table => {
                    let entry = catalog
                        .get(item.id)
                        .ok_or_else(|| ExecError::internal("table without its entry"))?;
                    create_table_sql(entry, catalog.temp_of(item.id).is_some())
                }
                ItemKind::Source => {
                    let source = catalog.owner(item.id).unwrap_or(item.id);
                    catalog
                        .get(source)
                        .and_then(|e| e.sql.clone())
                        .ok_or_else(|| ExecError::internal("source without its SQL"))?
                }
                _ => {
                    let query = catalog
                        .get(item.id)
                        .and_then(|e| e.sql.clone())
                        .ok_or_else(|| ExecError::internal("view without its SQL"))?;
                    let what = if kind == ItemKind::View {
                        "VIEW"
                    } else {
                        "MATERIALIZED VIEW"
                    };
                    format!(
                        "CREATE {what} {} ({}) AS {query}",
                        quote_ident(&item.name),
                        columns.join(", ")
                    )
                }
            }
        }
    };
    Ok(listing(
        &["name", "create_sql"],
        vec![Row::new(vec![text(name), text(&sql)])],
    ))
}

/// A `CREATE TABLE` statement that creates the table of `entry` again: its columns with their types,
/// defaults and NOT NULL, and its unique constraints (also what the data directory keeps for a
/// table made by `CREATE TABLE AS`).
pub fn create_table_sql(entry: &Entry, temporary: bool) -> String {
    let item = &entry.item;
    let columns: Vec<String> = item
        .desc
        .columns
        .iter()
        .map(|(c, _)| quote_ident(c))
        .collect();
    let defaults = &entry.defaults[..];
    let mut defs: Vec<String> = item
        .desc
        .columns
        .iter()
        .enumerate()
        .map(|(i, (c, ty))| {
            let not_null = if ty.nullable { "" } else { " NOT NULL" };
            let default = match defaults.get(i) {
                Some(Some(d)) => format!(" DEFAULT {}", d.sql),
                _ => String::new(),
            };
            format!("{} {}{default}{not_null}", quote_ident(c), ty.scalar)
        })
        .collect();
    for key in &entry.keys[..] {
        let kind = if key.primary { "PRIMARY KEY" } else { "UNIQUE" };
        let cols: Vec<&str> = key.columns.iter().map(|&c| columns[c].as_str()).collect();
        defs.push(format!(
            "CONSTRAINT {} {kind} ({})",
            quote_ident(&key.name),
            cols.join(", ")
        ));
    }
    let temporary = match temporary {
        true => "TEMPORARY ",
        false => "",
    };
    format!(
        "CREATE {temporary}TABLE {} ({})",
        quote_ident(&item.name),
        defs.join(", ")
    )
}

/// An identifier as SQL must write it: bare if it is a lower-case word, quoted otherwise.
fn quote_ident(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if bare {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// Expression text with its `#n` column references replaced by the columns' names (string
/// literals left alone).
fn named_columns(text: &str, desc: &RelationDesc) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if c == '\'' {
            in_string = !in_string;
        }
        if c == '#' && !in_string {
            let mut digits = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            match digits
                .parse::<usize>()
                .ok()
                .and_then(|i| desc.columns.get(i))
            {
                Some((name, _)) => out.push_str(&quote_ident(name)),
                None => {
                    out.push('#');
                    out.push_str(&digits);
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}
