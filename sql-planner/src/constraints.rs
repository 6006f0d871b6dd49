//! PRIMARY KEY and UNIQUE constraints of CREATE TABLE: which columns each constraint covers and
//! what it is called.
//!
//! A constraint is enforced by the server through an index on its columns, named as PostgreSQL
//! names the index behind it (`t_pkey`, `t_a_b_key`, a digit appended when the name is taken),
//! so the name also appears in the 23505 error. The planner only resolves and names; the
//! options PostgreSQL accepts that kpg does not implement (NULLS NOT DISTINCT, DEFERRABLE,
//! INCLUDE, index parameters) are refused with 0A000.

use sqlparser::ast::{
    ConstraintCharacteristics, Expr, Ident, IndexColumn, NullsDistinctOption, PrimaryKeyConstraint,
    TableConstraint, UniqueConstraint,
};

use crate::catalog::Catalog;
use crate::error::PlanError;
use crate::names::fold;

/// A PRIMARY KEY or UNIQUE constraint of a table: no two rows agree on `columns` (rows with a
/// NULL in one of them never conflict). A primary key's columns are also NOT NULL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniqueKey {
    pub name: String,
    pub columns: Vec<usize>,
    pub primary: bool,
}

/// A constraint as written, before its columns are resolved and it is named.
pub(crate) struct KeySpec {
    name: Option<String>,
    columns: Vec<String>,
    primary: bool,
}

impl KeySpec {
    /// A column's own `PRIMARY KEY` / `UNIQUE` option.
    pub(crate) fn for_column(
        column: &str,
        name: Option<&Ident>,
        primary: bool,
        options: Options<'_>,
    ) -> Result<KeySpec, PlanError> {
        options.check()?;
        Ok(KeySpec {
            name: name.map(fold),
            columns: vec![column.to_string()],
            primary,
        })
    }

    /// A table constraint, or `None` for kinds other than PRIMARY KEY and UNIQUE.
    pub(crate) fn for_table(constraint: &TableConstraint) -> Result<Option<KeySpec>, PlanError> {
        let (name, columns, primary, options) = match constraint {
            TableConstraint::PrimaryKey(pk) => (&pk.name, &pk.columns, true, Options::primary(pk)),
            TableConstraint::Unique(u) => (&u.name, &u.columns, false, Options::unique(u)),
            _ => return Ok(None),
        };
        options.check()?;
        let columns = columns
            .iter()
            .map(column_name)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(KeySpec {
            name: name.as_ref().map(fold),
            columns,
            primary,
        }))
    }
}

/// The parts of a constraint's syntax kpg does not implement.
pub(crate) struct Options<'a> {
    characteristics: &'a Option<ConstraintCharacteristics>,
    nulls_not_distinct: bool,
    extras: bool,
}

impl<'a> Options<'a> {
    pub(crate) fn primary(pk: &'a PrimaryKeyConstraint) -> Options<'a> {
        Options {
            characteristics: &pk.characteristics,
            nulls_not_distinct: false,
            extras: pk.index_name.is_some()
                || pk.index_type.is_some()
                || !pk.include.is_empty()
                || !pk.index_options.is_empty(),
        }
    }

    pub(crate) fn unique(u: &'a UniqueConstraint) -> Options<'a> {
        Options {
            characteristics: &u.characteristics,
            nulls_not_distinct: u.nulls_distinct == NullsDistinctOption::NotDistinct,
            extras: u.index_name.is_some()
                || u.index_type.is_some()
                || !u.include.is_empty()
                || !u.index_options.is_empty(),
        }
    }

    fn check(&self) -> Result<(), PlanError> {
        if self.nulls_not_distinct {
            return Err(PlanError::unsupported("UNIQUE NULLS NOT DISTINCT"));
        }
        if let Some(c) = self.characteristics {
            if c.deferrable == Some(true) || c.initially.is_some() || c.enforced == Some(false) {
                return Err(PlanError::unsupported(
                    "deferrable or not enforced constraints",
                ));
            }
        }
        if self.extras {
            return Err(PlanError::unsupported(
                "index names, methods, parameters or INCLUDE in a constraint",
            ));
        }
        Ok(())
    }
}

/// A key column, which PostgreSQL allows only as a plain column name.
fn column_name(c: &IndexColumn) -> Result<String, PlanError> {
    let plain = c.operator_class.is_none()
        && c.column.options.sort.is_none()
        && c.column.options.nulls_first.is_none()
        && c.column.with_fill.is_none();
    match &c.column.expr {
        Expr::Identifier(ident) if plain => Ok(fold(ident)),
        _ => Err(PlanError::syntax(format!(
            "syntax error at or near \"{}\" in a key column list",
            c.column
        ))),
    }
}

/// Resolves the constraints of table `table` with columns `columns` and names them: the primary
/// key first, then the unique constraints in the order written, a unique constraint on the same
/// columns as an earlier one dropped (as PostgreSQL does).
pub(crate) fn resolve_keys(
    table: &str,
    columns: &[String],
    specs: Vec<KeySpec>,
    catalog: &dyn Catalog,
) -> Result<Vec<UniqueKey>, PlanError> {
    if specs.iter().filter(|s| s.primary).count() > 1 {
        return Err(PlanError::new(
            "42P16",
            format!("multiple primary keys for table \"{table}\" are not allowed"),
        ));
    }
    let mut ordered: Vec<KeySpec> = Vec::with_capacity(specs.len());
    let (primary, unique): (Vec<KeySpec>, Vec<KeySpec>) =
        specs.into_iter().partition(|s| s.primary);
    ordered.extend(primary);
    ordered.extend(unique);
    let mut keys: Vec<UniqueKey> = Vec::with_capacity(ordered.len());
    for spec in ordered {
        let what = if spec.primary {
            "primary key"
        } else {
            "unique"
        };
        let mut positions = Vec::with_capacity(spec.columns.len());
        for name in &spec.columns {
            let position = columns.iter().position(|c| c == name).ok_or_else(|| {
                PlanError::new(
                    "42703",
                    format!("column \"{name}\" named in key does not exist"),
                )
            })?;
            if positions.contains(&position) {
                return Err(PlanError::new(
                    "42701",
                    format!("column \"{name}\" appears twice in {what} constraint"),
                ));
            }
            positions.push(position);
        }
        if keys.iter().any(|k| k.columns == positions) {
            continue;
        }
        let name = match spec.name {
            Some(name) => {
                if taken(&name, catalog) || keys.iter().any(|k| k.name == name) {
                    return Err(PlanError::new(
                        "42P07",
                        format!("relation \"{name}\" already exists"),
                    ));
                }
                name
            }
            None => {
                let base = if spec.primary {
                    format!("{table}_pkey")
                } else {
                    format!("{table}_{}_key", spec.columns.join("_"))
                };
                free_name(&base, |n| {
                    n == table || taken(n, catalog) || keys.iter().any(|k| k.name == n)
                })
            }
        };
        keys.push(UniqueKey {
            name,
            columns: positions,
            primary: spec.primary,
        });
    }
    Ok(keys)
}

fn taken(name: &str, catalog: &dyn Catalog) -> bool {
    catalog.resolve(name).is_some() || catalog.resolve_index(name).is_some()
}

/// `base`, or `base` with the least number appended that is free — PostgreSQL's choice of an
/// index name (which also keeps names within 63 bytes by shortening the base).
fn free_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    const MAX: usize = 63;
    let fit = |s: &str, room: usize| -> String {
        let mut end = room.min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s[..end].to_string()
    };
    let first = fit(base, MAX);
    if !taken(&first) {
        return first;
    }
    (1..)
        .map(|i: u32| {
            let suffix = i.to_string();
            format!("{}{suffix}", fit(base, MAX - suffix.len()))
        })
        .find(|n| !taken(n))
        .expect("some numbered name is free")
}
