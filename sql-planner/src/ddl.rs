//! DDL: CREATE TABLE (`ddl/table_as.rs`: CREATE TABLE AS, SELECT INTO), CREATE [MATERIALIZED]
//! VIEW and DROP.
//!
//! The planner checks names and types against the catalog and produces the descriptions the
//! server stores; it does not check dependencies (the server refuses to drop what others use).
//! Column constraints other than NULL / NOT NULL / PRIMARY KEY / UNIQUE / DEFAULT (see
//! `defaults.rs`) and other table constraints are refused (0A000) rather than ignored.

mod table_as;

pub(crate) use table_as::{
    at_create_table_as_names, parse_create_table_as_names, plan_select_into,
};

use crate::catalog::{Catalog, ItemKind, RecordingCatalog};
use crate::constraints::{resolve_keys, KeySpec, Options};
use crate::defaults::plan_default;
use crate::error::PlanError;
use crate::names::{fold, object_name, resolve_for_change};
use crate::query::{plan_subquery, QueryContext};
use crate::statement::PlannedStatement;
use crate::types::scalar_type;
use kpg_types::{ColumnType, RelationDesc};
use sqlparser::ast::{
    ColumnOption, CreateTable, CreateTableOptions, CreateView, ObjectName, ObjectType, OnCommit,
};

pub fn plan_create_table(
    ct: &CreateTable,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let unsupported = |what: &str| Err(PlanError::unsupported(what.to_string()));
    if ct.or_replace {
        return unsupported("CREATE OR REPLACE TABLE");
    }
    if ct.unlogged || ct.external || ct.global.is_some() {
        return unsupported("UNLOGGED or GLOBAL tables");
    }
    match (&ct.on_commit, ct.temporary) {
        (None, _) | (Some(OnCommit::PreserveRows), true) => {}
        (Some(_), false) => {
            return Err(PlanError::new(
                "42P16",
                "ON COMMIT can only be used on temporary tables",
            ))
        }
        (Some(_), true) => return unsupported("ON COMMIT DELETE ROWS or DROP"),
    }
    if let Some(query) = &ct.query {
        return table_as::plan_create_table_as(ct, query, catalog);
    }
    let mut specs = Vec::new();
    if ct.like.is_some() || ct.clone.is_some() || ct.inherits.is_some() || ct.partition_of.is_some()
    {
        return unsupported("CREATE TABLE ... LIKE/INHERITS/PARTITION OF");
    }
    if ct.partition_by.is_some() || ct.table_options != CreateTableOptions::None {
        return unsupported("table options");
    }
    let name = object_name(&ct.name)?;
    // A temporary table may have the name of a shared one, which it hides (the server checks
    // the session's own names).
    let exists = !ct.temporary && catalog.resolve(&name).is_some();
    if exists && !ct.if_not_exists {
        return Err(PlanError::new(
            "42P07",
            format!("relation \"{name}\" already exists"),
        ));
    }
    let mut columns: Vec<(String, ColumnType)> = Vec::with_capacity(ct.columns.len());
    let mut defaults = Vec::with_capacity(ct.columns.len());
    for c in &ct.columns {
        let col = fold(&c.name);
        if columns.iter().any(|(n, _)| *n == col) {
            return Err(PlanError::new(
                "42701",
                format!("column \"{col}\" specified more than once"),
            ));
        }
        let ty = scalar_type(&c.data_type)?;
        let mut nullable = true;
        let mut default = None;
        for opt in &c.options {
            match &opt.option {
                ColumnOption::Null => nullable = true,
                ColumnOption::NotNull => nullable = false,
                ColumnOption::Default(e) => {
                    if default.is_some() {
                        return Err(PlanError::syntax(format!(
                            "multiple default values specified for column \"{col}\" of table \"{name}\""
                        )));
                    }
                    default = Some(plan_default(e, &col, &ColumnType::new(ty, true))?);
                }
                ColumnOption::PrimaryKey(pk) => specs.push(KeySpec::for_column(
                    &col,
                    opt.name.as_ref().or(pk.name.as_ref()),
                    true,
                    Options::primary(pk),
                )?),
                ColumnOption::Unique(u) => specs.push(KeySpec::for_column(
                    &col,
                    opt.name.as_ref().or(u.name.as_ref()),
                    false,
                    Options::unique(u),
                )?),
                ColumnOption::ForeignKey(_) => return unsupported("REFERENCES"),
                ColumnOption::Check(_) => return unsupported("CHECK constraints"),
                other => return Err(PlanError::unsupported(format!("column option {other}"))),
            }
        }
        columns.push((col, ColumnType::new(ty, nullable)));
        defaults.push(default.flatten());
    }
    // Table constraints after the columns' own, as PostgreSQL names them in that order.
    for constraint in &ct.constraints {
        match KeySpec::for_table(constraint)? {
            Some(spec) => specs.push(spec),
            None => return unsupported("table constraints other than PRIMARY KEY and UNIQUE"),
        }
    }
    let names: Vec<String> = columns.iter().map(|(n, _)| n.clone()).collect();
    // (Unless the table exists, IF NOT EXISTS having been given: nothing is created then.)
    let keys = match exists {
        true => Vec::new(),
        false => resolve_keys(&name, &names, specs, catalog)?,
    };
    // A primary key's columns are NOT NULL.
    for key in keys.iter().filter(|k| k.primary) {
        for &c in &key.columns {
            columns[c].1.nullable = false;
        }
    }
    Ok(PlannedStatement::CreateTable {
        name,
        desc: RelationDesc::new(columns),
        keys,
        defaults,
        if_not_exists: ct.if_not_exists,
        temporary: ct.temporary,
        create_sql: None,
    })
}

pub fn plan_create_view(
    cv: &CreateView,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let what = if cv.materialized {
        "MATERIALIZED VIEW"
    } else {
        "VIEW"
    };
    if cv.or_replace || cv.or_alter {
        return Err(PlanError::unsupported(format!("CREATE OR REPLACE {what}")));
    }
    if cv.temporary
        || cv.to.is_some()
        || cv.options != CreateTableOptions::None
        || !cv.cluster_by.is_empty()
    {
        return Err(PlanError::unsupported(format!("view options in {cv}")));
    }
    let name = object_name(&cv.name)?;
    if catalog.resolve(&name).is_some() && !cv.if_not_exists {
        return Err(PlanError::new(
            "42P07",
            format!("relation \"{name}\" already exists"),
        ));
    }
    let recording = RecordingCatalog::new(catalog);
    crate::pg_compat::take_session_read();
    // A plain view's casts of text to dates, times and intervals read in its reader's style.
    let (plan, scope) = crate::zoned_casts::with_late_style(!cv.materialized, || {
        plan_subquery(&QueryContext::new(&recording), &cv.query)
    })?;
    if crate::pg_compat::take_session_read() {
        return Err(PlanError::unsupported(format!(
            "current_user and session_user in a {} (its definition would keep the creating \
             session's user; select them directly)",
            what.to_lowercase()
        )));
    }
    let mut desc = scope.desc();
    if cv.columns.len() > desc.arity() {
        return Err(PlanError::syntax(format!(
            "CREATE {what} specifies too many column names"
        )));
    }
    for (col, def) in desc.columns.iter_mut().zip(&cv.columns) {
        if def.data_type.is_some() || def.options.is_some() {
            return Err(PlanError::unsupported(format!(
                "column types in CREATE {what}"
            )));
        }
        col.0 = fold(&def.name);
    }
    for (i, (n, _)) in desc.columns.iter().enumerate() {
        if desc.columns[..i].iter().any(|(m, _)| m == n) {
            return Err(PlanError::new(
                "42701",
                format!("column \"{n}\" specified more than once"),
            ));
        }
    }
    Ok(PlannedStatement::CreateView {
        name,
        desc,
        plan,
        materialized: cv.materialized,
        if_not_exists: cv.if_not_exists,
        depends_on: recording.resolved(),
        query_sql: Some(cv.query.to_string()),
        create_sql: None,
    })
}

pub fn plan_drop(
    object_type: &ObjectType,
    if_exists: bool,
    names: &[ObjectName],
    cascade: bool,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let kind = match object_type {
        ObjectType::Table => ItemKind::Table,
        ObjectType::View => ItemKind::View,
        ObjectType::MaterializedView => ItemKind::MaterializedView,
        other => return Err(PlanError::unsupported(format!("DROP {other}"))),
    };
    plan_drop_items(kind, if_exists, names, cascade, catalog)
}

/// DROP of the named objects of `kind`.
pub(crate) fn plan_drop_items(
    kind: ItemKind,
    if_exists: bool,
    names: &[ObjectName],
    cascade: bool,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let noun = kind.noun();
    let mut ids = Vec::with_capacity(names.len());
    for n in names {
        let (name, item) = resolve_for_change(catalog, n)?;
        let Some(item) = item else {
            if if_exists {
                continue;
            }
            return Err(PlanError::new(
                "42P01",
                format!("{noun} \"{name}\" does not exist"),
            ));
        };
        if item.kind != kind {
            return Err(PlanError::wrong_object_type(format!(
                "\"{name}\" is not a {noun}"
            )));
        }
        if !ids.contains(&item.id) {
            ids.push(item.id);
        }
    }
    Ok(PlannedStatement::Drop {
        ids,
        cascade,
        tag: match kind {
            ItemKind::Table => "DROP TABLE",
            ItemKind::View => "DROP VIEW",
            ItemKind::MaterializedView => "DROP MATERIALIZED VIEW",
            ItemKind::Source => "DROP SOURCE",
        },
        sql: None,
    })
}
