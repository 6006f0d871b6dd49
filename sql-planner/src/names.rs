//! Names: PostgreSQL's identifier case folding and the resolution of object names against the
//! catalog.
//!
//! Unquoted identifiers fold to lower case, quoted ones are kept as written. kpg has one schema,
//! `public`; a name qualified with it resolves like the bare name, any other schema does not
//! exist.

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
        // PostgreSQL's system catalogs, which clients' metadata queries read, are not built.
        [schema, n] if schema == "pg_catalog" || schema == "information_schema" => {
            Err(PlanError::unsupported(format!("system catalog {schema}.{n}")))
        }
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

/// Resolves a relation that a query reads.
pub fn resolve_relation(
    catalog: &dyn Catalog,
    name: &ObjectName,
) -> Result<CatalogItem, PlanError> {
    let n = object_name(name)?;
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
