//! Names: PostgreSQL's identifier case folding and the resolution of object names against the
//! catalog.
//!
//! Unquoted identifiers fold to lower case, quoted ones are kept as written. Users' objects
//! live in one schema, `public`; a name qualified with it resolves like the bare name. The
//! system schemas `pg_catalog` and `information_schema` hold read-only relations that the
//! catalog resolves by their qualified name (`pg_catalog.pg_class`); as in PostgreSQL,
//! `pg_catalog` is searched before `public` for an unqualified name. Any other schema does not
//! exist, and objects cannot be created in the system schemas.

use crate::catalog::{Catalog, CatalogItem, ItemKind};
use crate::error::PlanError;
use sqlparser::ast::{Ident, ObjectName, ObjectNamePart};

/// The identifier as PostgreSQL sees it.
pub fn fold(ident: &Ident) -> String {
    match ident.quote_style {
        Some(_) => ident.value.clone(),
        None => ident.value.to_lowercase(),
    }
}

/// The unqualified, folded object name, after checking the schema (if any) is `public`.
pub fn object_name(name: &ObjectName) -> Result<String, PlanError> {
    let mut parts = Vec::with_capacity(name.0.len());
    for part in &name.0 {
        match part {
            ObjectNamePart::Identifier(i) => parts.push(fold(i)),
            ObjectNamePart::Function(_) => {
                return Err(PlanError::syntax(format!("invalid name: {name}")))
            }
        }
    }
    match parts.as_slice() {
        [n] => Ok(n.clone()),
        [schema, n] if schema == "public" => Ok(n.clone()),
        // The system schemas are read-only.
        [schema, n] if SYSTEM_SCHEMAS.contains(&schema.as_str()) => Err(PlanError::new(
            "42501",
            format!("permission denied to create or change \"{schema}.{n}\""),
        )),
        [schema, _] => Err(PlanError::new(
            "3F000",
            format!("schema \"{schema}\" does not exist"),
        )),
        _ => Err(PlanError::new(
            "42601",
            format!("improper qualified name (too many dotted names): {name}"),
        )),
    }
}

/// The system schemas, whose relations the catalog resolves as `schema.name`.
pub const SYSTEM_SCHEMAS: [&str; 2] = ["pg_catalog", "information_schema"];

/// The object `name` names for a statement that changes it (DROP): `public.t` is the shared
/// one, `pg_temp.t` the session's temporary one, a bare name the session's temporary one
/// first. Returns the unqualified name with it.
pub fn resolve_for_change(
    catalog: &dyn Catalog,
    name: &ObjectName,
) -> Result<(String, Option<CatalogItem>), PlanError> {
    if let [ObjectNamePart::Identifier(s), ObjectNamePart::Identifier(n)] = name.0.as_slice() {
        let (schema, n) = (fold(s), fold(n));
        if schema == "pg_temp" {
            let item = catalog.resolve_temporary(&n);
            return Ok((n, item));
        }
        if schema == "public" {
            let item = catalog.resolve_shared(&n);
            return Ok((n, item));
        }
    }
    let n = object_name(name)?;
    let item = catalog.resolve(&n);
    Ok((n, item))
}

/// Resolves a relation that a query reads: `pg_catalog` first for a bare name, as PostgreSQL's
/// search path does.
pub fn resolve_relation(
    catalog: &dyn Catalog,
    name: &ObjectName,
) -> Result<CatalogItem, PlanError> {
    if let [ObjectNamePart::Identifier(s), ObjectNamePart::Identifier(n)] = name.0.as_slice() {
        let (schema, n) = (fold(s), fold(n));
        // `public.t` passes over a temporary `t`; `pg_temp.t` is only the temporary one.
        if schema == "public" {
            return catalog
                .resolve_shared(&n)
                .ok_or_else(|| PlanError::undefined_table(&n));
        }
        if schema == "pg_temp" {
            return catalog
                .resolve_temporary(&n)
                .ok_or_else(|| PlanError::undefined_table(&format!("pg_temp.{n}")));
        }
        if SYSTEM_SCHEMAS.contains(&schema.as_str()) {
            let qualified = format!("{schema}.{n}");
            return catalog
                .resolve(&qualified)
                .ok_or_else(|| PlanError::undefined_table(&qualified));
        }
    }
    let n = object_name(name)?;
    if let Some(item) = catalog.resolve(&format!("pg_catalog.{n}")) {
        return Ok(item);
    }
    catalog
        .resolve(&n)
        .ok_or_else(|| PlanError::undefined_table(&n))
}

/// Resolves the target of INSERT, UPDATE or DELETE, which must be a table.
pub fn resolve_table_for_write(
    catalog: &dyn Catalog,
    name: &ObjectName,
) -> Result<CatalogItem, PlanError> {
    let item = resolve_relation(catalog, name)?;
    match item.kind {
        ItemKind::Table => Ok(item),
        kind => Err(PlanError::wrong_object_type(format!(
            "cannot change {} \"{}\"",
            kind.noun(),
            item.name
        ))),
    }
}
