//! Scopes: the columns an expression may name, and how a (possibly qualified) column
//! reference resolves to a column position.
//!
//! A scope lists the columns of a plan's output in order, each with the name of the FROM item
//! it came from (its alias, or the table name), so `t.a`, `a` and `t.*` resolve the way
//! PostgreSQL resolves them: an unqualified name must match exactly one column (42702
//! otherwise), a qualifier must name a FROM item (42P01 otherwise).
//!
//! In a correlated subquery the scope also holds the outer query's columns that the subquery
//! may reference (they are columns of its plan too: see `subquery.rs`), at `level` 1 for the
//! immediately enclosing query, 2 for the one around it, and so on. A name resolves at the
//! innermost level where it matches, as in PostgreSQL; `*` and `t.*` expand only level 0.
//! Resolving a column sets its `UseMark`, which is how `subquery.rs` learns which outer
//! columns a subquery really references.

use crate::error::PlanError;
use kpg_types::{ColumnType, RelationDesc};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set when a reference resolves to the column; clones of a scope item share it. Columns
/// nobody tracks carry none. Marks take no part in comparing scopes.
#[derive(Clone, Debug, Default)]
pub struct UseMark(Option<Arc<AtomicBool>>);

impl UseMark {
    /// A fresh, unset mark.
    pub fn tracked() -> Self {
        UseMark(Some(Arc::new(AtomicBool::new(false))))
    }

    pub fn set(&self) {
        if let Some(m) = &self.0 {
            m.store(true, Ordering::Relaxed);
        }
    }

    pub fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|m| m.load(Ordering::Relaxed))
    }
}

impl PartialEq for UseMark {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ScopeItem {
    /// The FROM item the column belongs to, if it has a name.
    pub table: Option<String>,
    pub name: String,
    pub ty: ColumnType,
    /// 0 for the query's own FROM items, n for the query n levels out.
    pub level: usize,
    pub used: UseMark,
}

impl ScopeItem {
    /// Whether the column is an enclosing query's, hidden or not (a side's copy of a USING
    /// column read by a subquery is an outer column hidden from unqualified names there too).
    pub fn is_outer(&self) -> bool {
        self.query_level() > 0
    }

    /// How many queries out the column's FROM item is (hidden items count as their query's).
    pub fn query_level(&self) -> usize {
        if self.level >= crate::using::HIDDEN {
            self.level - crate::using::HIDDEN
        } else {
            self.level
        }
    }
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
                    level: 0,
                    used: UseMark::default(),
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

    /// Resolves a column reference to its position. A qualified name looks only in the
    /// nearest query with a FROM item of that name, as PostgreSQL does: if that item lacks the
    /// column, the reference is an error (42703), not a column of a same-named item further out.
    pub fn resolve(&self, table: Option<&str>, name: &str) -> Result<usize, PlanError> {
        let table_level = table.and_then(|t| {
            self.items
                .iter()
                .filter(|i| i.table.as_deref() == Some(t))
                .map(ScopeItem::query_level)
                .min()
        });
        let matches = |item: &ScopeItem| {
            item.name == name
                && (table.is_none()
                    || (item.table.as_deref() == table && Some(item.query_level()) == table_level))
        };
        let level = self
            .items
            .iter()
            .filter(|i| matches(i))
            .map(|i| i.level)
            .min();
        let mut found = None;
        for (i, item) in self.items.iter().enumerate() {
            if matches(item) && Some(item.level) == level {
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
            (Some(i), _) => {
                self.items[i].used.set();
                Ok(i)
            }
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

    /// Whether the query's own FROM items include one named `table`.
    pub fn has_own_table(&self, table: &str) -> bool {
        self.items
            .iter()
            .any(|i| i.level == 0 && i.table.as_deref() == Some(table))
    }

    /// How many leading columns belong to enclosing queries (a correlated subquery's domain);
    /// hidden items (`using::HIDDEN` and above) are not among them.
    pub fn outer_prefix(&self) -> usize {
        self.items.iter().take_while(|i| i.is_outer()).count()
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
