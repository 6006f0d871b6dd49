//! Scopes: the columns an expression may name, and how a (possibly qualified) column
//! reference resolves to a column position.
//!
//! A scope lists the columns of a plan's output in order, each with the name of the FROM item
//! it came from (its alias, or the table name), so `t.a`, `a` and `t.*` resolve the way
//! PostgreSQL resolves them: an unqualified name must match exactly one column (42702
//! otherwise), a qualifier must name a FROM item (42P01 otherwise).

use crate::error::PlanError;
use kpg_types::{ColumnType, RelationDesc};

#[derive(Clone, Debug, PartialEq)]
pub struct ScopeItem {
    /// The FROM item the column belongs to, if it has a name.
    pub table: Option<String>,
    pub name: String,
    pub ty: ColumnType,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scope {
    pub items: Vec<ScopeItem>,
}

impl Scope {
    pub fn empty() -> Self {
        Scope::default()
    }

    /// The columns of a relation, all qualified by `table`.
    pub fn from_desc(table: Option<&str>, desc: &RelationDesc) -> Self {
        Scope {
            items: desc
                .columns
                .iter()
                .map(|(name, ty)| ScopeItem {
                    table: table.map(str::to_string),
                    name: name.clone(),
                    ty: *ty,
                })
                .collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The columns as a relation description.
    pub fn desc(&self) -> RelationDesc {
        RelationDesc::new(self.items.iter().map(|i| (i.name.clone(), i.ty)).collect())
    }

    /// Resolves a column reference to its position.
    pub fn resolve(&self, table: Option<&str>, name: &str) -> Result<usize, PlanError> {
        let mut found = None;
        for (i, item) in self.items.iter().enumerate() {
            if item.name == name && (table.is_none() || item.table.as_deref() == table) {
                if found.is_some() {
                    return Err(PlanError::new(
                        "42702",
                        format!("column reference \"{name}\" is ambiguous"),
                    ));
                }
                found = Some(i);
            }
        }
        match (found, table) {
            (Some(i), _) => Ok(i),
            (None, Some(t)) if !self.has_table(t) => Err(PlanError::new(
                "42P01",
                format!("missing FROM-clause entry for table \"{t}\""),
            )),
            (None, Some(t)) => Err(PlanError::new(
                "42703",
                format!("column {t}.{name} does not exist"),
            )),
            (None, None) => Err(PlanError::undefined_column(name)),
        }
    }

    pub fn has_table(&self, table: &str) -> bool {
        self.items.iter().any(|i| i.table.as_deref() == Some(table))
    }

    /// The name PostgreSQL uses for column `i` in grouping errors: `t.a`, or `a`.
    pub fn qualified_name(&self, i: usize) -> String {
        let item = &self.items[i];
        match &item.table {
            Some(t) => format!("{t}.{}", item.name),
            None => item.name.clone(),
        }
    }

    /// This scope followed by `other`'s columns.
    pub fn concat(mut self, other: Scope) -> Scope {
        self.items.extend(other.items);
        self
    }
}
