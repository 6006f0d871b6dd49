//! The checks every write to a table passes before it is appended: NOT NULL columns, and
//! PRIMARY KEY / UNIQUE constraints.
//!
//! A unique constraint is checked against the table as of the write (read through the index
//! that enforces it, one lookup per key value the write adds) plus the write itself, after its
//! own retractions: an UPDATE that moves a key, or deletes one row and adds another with its
//! key, conflicts only if the table would end with two rows on that key. That is the check of
//! the SQL standard at the end of each statement; PostgreSQL checks non-deferrable constraints
//! row by row, so it can refuse some multi-row UPDATEs (`SET k = k + 1`) that kpg accepts.
//! Rows with a NULL in a key column never conflict. The checks of a write must run under the
//! coordinator's write lock, with the append that follows, for the read to stay true.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use kpg_sql::{Catalog as _, UniqueKey};
use kpg_types::{GlobalId, Row};

use super::Coordinator;
use crate::error::ExecError;

impl Coordinator {
    /// Checks `writes` (updates per table, the transaction's earlier writes included) against
    /// the NOT NULL and unique constraints of their tables. Only the writes to tables with unique
    /// constraints are netted and looked up; the others cost one pass over the added rows.
    pub async fn check_writes(
        self: &Arc<Self>,
        writes: &[(GlobalId, Vec<(Row, i64)>)],
    ) -> Result<(), ExecError> {
        for (table, updates) in writes {
            self.check_not_null(
                *table,
                updates.iter().filter(|(_, n)| *n > 0).map(|(r, _)| r),
            )?;
        }
        let keyed: BTreeSet<GlobalId> = {
            let state = self.lock();
            writes
                .iter()
                .map(|(table, _)| *table)
                .filter(|t| state.catalog.get(*t).is_some_and(|e| !e.keys.is_empty()))
                .collect()
        };
        for table in keyed {
            let mut net: BTreeMap<&Row, i64> = BTreeMap::new();
            for (_, updates) in writes.iter().filter(|(t, _)| *t == table) {
                for (row, n) in updates {
                    *net.entry(row).or_default() += n;
                }
            }
            self.check_unique(table, &net).await?;
        }
        Ok(())
    }

    /// Rejects rows with NULL in a NOT NULL column of `table`. The rows are read in place,
    /// outside the state lock (a COPY's rows are many), and not at all when every column may
    /// be NULL.
    fn check_not_null<'a>(
        &self,
        table: GlobalId,
        rows: impl Iterator<Item = &'a Row>,
    ) -> Result<(), ExecError> {
        let (name, columns) = {
            let state = self.lock();
            let entry = state
                .catalog
                .get(table)
                .ok_or_else(|| ExecError::new("42P01", "table was dropped"))?;
            let columns = &entry.item.desc.columns;
            if columns.iter().all(|(_, ty)| ty.nullable) {
                return Ok(());
            }
            // The names of the NOT NULL columns, by position.
            let required: Vec<Option<String>> = columns
                .iter()
                .map(|(name, ty)| (!ty.nullable).then(|| name.clone()))
                .collect();
            (entry.item.name.clone(), required)
        };
        for row in rows {
            let null = row
                .packed()
                .iter()
                .zip(&columns)
                .find_map(|(datum, required)| required.as_ref().filter(|_| datum.is_null()));
            if let Some(column) = null {
                let values: Vec<String> = row
                    .datums()
                    .iter()
                    .map(|d| d.to_text().unwrap_or_else(|| "null".into()))
                    .collect();
                return Err(ExecError::new(
                    "23502",
                    format!(
                        "null value in column \"{column}\" of relation \"{name}\" violates \
                         not-null constraint"
                    ),
                )
                .with_detail(format!("Failing row contains ({}).", values.join(", "))));
            }
        }
        Ok(())
    }

    /// Rejects `net` (the net change to `table`) if the table would end with two rows on the
    /// key of one of its unique constraints.
    async fn check_unique(
        self: &Arc<Self>,
        table: GlobalId,
        net: &BTreeMap<&Row, i64>,
    ) -> Result<(), ExecError> {
        let (keys, columns) = {
            let state = self.lock();
            let Some(entry) = state.catalog.get(table) else {
                return Ok(());
            };
            let keys: Vec<(UniqueKey, Option<GlobalId>)> = entry
                .keys
                .iter()
                .map(|k| {
                    let index = state.catalog.resolve_index(&k.name).map(|i| i.id);
                    (k.clone(), index)
                })
                .collect();
            let columns: Vec<String> = entry.item.desc.names().map(str::to_string).collect();
            (keys, columns)
        };
        for (key, index) in keys {
            let index = index.ok_or_else(|| {
                ExecError::internal(format!("the index of constraint \"{}\" is gone", key.name))
            })?;
            // Keys are compared as SQL does (`3 = 3.00`): by their canonical form, keeping
            // the key as written for the message.
            let project = |row: &Row| -> Option<(Row, Row)> {
                let k = row.project(&key.columns);
                (!k.iter().any(|d| d.is_null())).then(|| (k.clone().into_canonical(), k))
            };
            let mut delta: BTreeMap<Row, (Row, i64)> = BTreeMap::new();
            for (row, n) in net.iter().filter(|(_, n)| **n != 0) {
                if let Some((canonical, k)) = project(row) {
                    let entry = delta.entry(canonical).or_insert((k.clone(), 0));
                    entry.1 += n;
                    if *n > 0 {
                        entry.0 = k;
                    }
                }
            }
            let added: Vec<Row> = delta
                .iter()
                .filter(|(_, (_, n))| *n > 0)
                .map(|(k, _)| k.clone())
                .collect();
            if added.is_empty() {
                continue;
            }
            for (row, n) in self.peek_index(index, added).await? {
                if let Some((canonical, k)) = project(&row) {
                    delta.entry(canonical).or_insert((k, 0)).1 += n;
                }
            }
            if let Some((_, (k, _))) = delta.iter().find(|(_, (_, n))| *n > 1) {
                let names: Vec<&str> = key.columns.iter().map(|&c| columns[c].as_str()).collect();
                let values: Vec<String> = k
                    .datums()
                    .iter()
                    .map(|d| d.to_text().unwrap_or_default())
                    .collect();
                return Err(ExecError::new(
                    "23505",
                    format!(
                        "duplicate key value violates unique constraint \"{}\"",
                        key.name
                    ),
                )
                .with_detail(format!(
                    "Key ({})=({}) already exists.",
                    names.join(", "),
                    values.join(", ")
                )));
            }
        }
        Ok(())
    }
}
