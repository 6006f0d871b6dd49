//! `INSERT ... ON CONFLICT`: the proposed rows are taken one at a time, in order, as PostgreSQL
//! does, against the table as of the statement plus what the statement already did.
//!
//! The arbiters are the unique constraints the clause names (by columns, any order, or by
//! name), or all of them for DO NOTHING without a target. The existing rows holding the
//! proposed keys are looked up once through each arbiter's index. A proposed row whose key on
//! some arbiter is taken is skipped (DO NOTHING) or updates the row holding it (DO UPDATE,
//! where its condition holds); a row this statement inserted or updated cannot be updated
//! again: 21000, as PostgreSQL. Otherwise it is inserted. The resulting write is then checked
//! like any other (a conflict on a constraint that is not an arbiter is 23505) and appended at
//! one timestamp. The updated rows are retracted as stored, found with their positions.

use std::collections::BTreeMap;
use std::sync::Arc;

use kpg_sql::{Arbiter, Catalog as _, ConflictAction, OnConflict, Returning, UniqueKey};
use kpg_types::command::{Command, PeekTarget};
use kpg_types::{Datum, GlobalId, Row};

use super::returning::written;
use super::sequence::ExecuteResult;
use super::Coordinator;
use crate::error::ExecError;

/// What holds a key value while the proposed rows are applied.
#[derive(Clone)]
struct Holder {
    /// The row holding it now.
    row: Row,
    /// Whether this statement inserted or updated that row.
    touched: bool,
    /// For a row of the table as it was: that row (to retract if it is updated).
    stored: Option<Row>,
}

impl Coordinator {
    pub(super) async fn insert_on_conflict(
        self: &Arc<Self>,
        table: GlobalId,
        proposed: Vec<(Row, i64)>,
        on_conflict: OnConflict,
        returning: Option<Returning>,
    ) -> Result<ExecuteResult, ExecError> {
        let arbiters = self.arbiters(table, &on_conflict.arbiter)?;
        // The existing rows holding the proposed keys, per arbiter (canonical key → row).
        let mut holders: Vec<BTreeMap<Row, Holder>> = Vec::with_capacity(arbiters.len());
        for (key, index) in &arbiters {
            let keys: Vec<Row> = proposed
                .iter()
                .filter_map(|(r, _)| key_of(r, key))
                .collect();
            let mut map = BTreeMap::new();
            if !keys.is_empty() {
                for (row, _) in self.peek_index(*index, keys).await? {
                    if let Some(k) = key_of(&row, key) {
                        map.insert(
                            k,
                            Holder {
                                row: row.clone(),
                                touched: false,
                                stored: Some(row),
                            },
                        );
                    }
                }
            }
            holders.push(map);
        }
        let mut inserted: Vec<Row> = Vec::new();
        // Rows of the table replaced: (stored row, its final new row).
        let mut replaced: Vec<(Row, Row)> = Vec::new();
        // What RETURNING reads, in order: inserted and updated rows.
        let mut results: Vec<Row> = Vec::new();
        for (row, n) in proposed {
            for _ in 0..n {
                let conflict = arbiters.iter().zip(&holders).find_map(|((key, _), map)| {
                    key_of(&row, key).and_then(|k| map.get(&k).cloned())
                });
                let Some(holder) = conflict else {
                    for ((key, _), map) in arbiters.iter().zip(holders.iter_mut()) {
                        if let Some(k) = key_of(&row, key) {
                            map.insert(
                                k,
                                Holder {
                                    row: row.clone(),
                                    touched: true,
                                    stored: None,
                                },
                            );
                        }
                    }
                    inserted.push(row.clone());
                    results.push(row.clone());
                    continue;
                };
                let ConflictAction::Update {
                    assignments,
                    predicate,
                } = &on_conflict.action
                else {
                    continue;
                };
                if holder.touched {
                    return Err(ExecError::new(
                        "21000",
                        "ON CONFLICT DO UPDATE command cannot affect row a second time",
                    )
                    .with_hint(
                        "Ensure that no rows proposed for insertion within the same command \
                         have duplicate constrained values.",
                    ));
                }
                let mut both: Vec<Datum> = holder.row.datums();
                both.extend(row.datums());
                if let Some(p) = predicate {
                    if p.eval_now(&both)? != Datum::Bool(true) {
                        continue;
                    }
                }
                let new = Row::new(
                    assignments
                        .iter()
                        .map(|e| e.eval_now(&both))
                        .collect::<Result<Vec<_>, _>>()?,
                );
                for ((key, _), map) in arbiters.iter().zip(holders.iter_mut()) {
                    if let Some(k) = key_of(&holder.row, key) {
                        map.remove(&k);
                    }
                    if let Some(k) = key_of(&new, key) {
                        map.insert(
                            k,
                            Holder {
                                row: new.clone(),
                                touched: true,
                                stored: None,
                            },
                        );
                    }
                }
                let stored = holder
                    .stored
                    .ok_or_else(|| ExecError::internal("ON CONFLICT updated a new row"))?;
                replaced.push((stored, new.clone()));
                results.push(new);
            }
        }
        let mut updates: Vec<(Row, i64)> = inserted.into_iter().map(|r| (r, 1)).collect();
        if !replaced.is_empty() {
            let old: Vec<Row> = replaced.iter().map(|(o, _)| o.clone()).collect();
            let positioned = self.positioned(table, old).await?;
            if positioned.len() != replaced.len() {
                return Err(ExecError::internal(
                    "ON CONFLICT DO UPDATE lost track of a stored row",
                ));
            }
            updates.extend(positioned.into_iter().map(|(r, _)| (r, -1)));
            updates.extend(replaced.into_iter().map(|(_, new)| (new, 1)));
        }
        let writes = vec![(table, updates)];
        self.check_writes(&writes).await?;
        let result = written(
            "INSERT 0",
            returning.as_ref(),
            results.iter().map(|r| (r.datums(), 1)),
        )?;
        self.append(writes);
        Ok(result)
    }

    /// The arbiter constraints of `table` with their indexes.
    fn arbiters(
        &self,
        table: GlobalId,
        arbiter: &Arbiter,
    ) -> Result<Vec<(UniqueKey, GlobalId)>, ExecError> {
        let state = self.lock();
        let entry = state
            .catalog
            .get(table)
            .ok_or_else(|| ExecError::new("42P01", "table was dropped"))?;
        let keys: Vec<UniqueKey> = match arbiter {
            Arbiter::Any => entry.keys.clone(),
            Arbiter::Columns(columns) => {
                let matching: Vec<UniqueKey> = entry
                    .keys
                    .iter()
                    .filter(|k| {
                        let mut c = k.columns.clone();
                        c.sort_unstable();
                        c == *columns
                    })
                    .cloned()
                    .collect();
                if matching.is_empty() {
                    return Err(ExecError::new(
                        "42P10",
                        "there is no unique or exclusion constraint matching the ON CONFLICT \
                         specification",
                    ));
                }
                matching
            }
            Arbiter::Constraint(name) => match entry.keys.iter().find(|k| k.name == *name) {
                Some(k) => vec![k.clone()],
                None => {
                    return Err(ExecError::new(
                        "42704",
                        format!(
                            "constraint \"{name}\" for table \"{}\" does not exist",
                            entry.item.name
                        ),
                    ))
                }
            },
        };
        keys.into_iter()
            .map(|k| {
                let index = state
                    .catalog
                    .resolve_index(&k.name)
                    .map(|i| i.id)
                    .ok_or_else(|| {
                        ExecError::internal(format!(
                            "the index of constraint \"{}\" is gone",
                            k.name
                        ))
                    })?;
                Ok((k, index))
            })
            .collect()
    }

    /// The stored versions (with positions) of `rows` of `table`.
    async fn positioned(
        self: &Arc<Self>,
        table: GlobalId,
        rows: Vec<Row>,
    ) -> Result<Vec<(Row, i64)>, ExecError> {
        self.read(|coord, _, peek_id, timestamp| {
            coord.compute.send(Command::PeekTrace {
                peek_id,
                target: PeekTarget::StoredRows { id: table, rows },
                timestamp,
                predicates: Vec::new(),
                projection: None,
            });
            Ok(())
        })
        .await
    }
}

/// The canonical value of `key` in `row`, `None` if a column of it is NULL (never conflicts).
fn key_of(row: &Row, key: &UniqueKey) -> Option<Row> {
    let k = row.project(&key.columns);
    (!k.iter().any(|d| d.is_null())).then(|| k.into_canonical())
}
