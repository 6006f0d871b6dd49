//! `CREATE` inside a transaction block: the object is created at once, so that the block's
//! later statements can use it, but it stays *provisional* until the block commits.
//!
//! A provisional object's catalog record is held by the block instead of being stored. `COMMIT`
//! stores the records together with the block's buffered writes in one durable commit, so a
//! crash before the acknowledgement leaves neither; `ROLLBACK` (also a failed block's `COMMIT`,
//! a `ROLLBACK TO` a savepoint set before it, and the session's end) drops it again. Until then
//! other sessions can see it (it is empty, or reads what it is defined over) but cannot build on
//! it: DDL of theirs that would depend on another block's provisional object is undone and
//! refused (55006), because their record would otherwise be stored before the one it needs.
//!
//! What a ROLLBACK could not undo is refused in a block up front (0A000): DROP, ALTER,
//! `CREATE OR REPLACE`, and the kinds of object that start external work (sources, sinks,
//! connections).

use std::collections::BTreeSet;
use std::sync::Arc;

use kpg_sql::{ParsedStatement, PlannedStatement};
use kpg_types::{GlobalId, Row};

use super::durable::DurableText;
use super::{Coordinator, ExecuteResult, Planned, State};
use crate::error::ExecError;
use crate::storage::{CatalogOp, CatalogRecord};

/// The objects one statement of a block created, and the record that will store them.
pub struct Provisional {
    pub ids: Vec<GlobalId>,
    record: Option<CatalogRecord>,
}

/// Why a statement planned as `planned` cannot run inside a block, if it is DDL a ROLLBACK
/// could not undo; `None` for a `CREATE` that can be provisional or for a statement that is
/// not DDL. (`CREATE OR REPLACE` and `ALTER` are refused by the planner everywhere.)
pub fn refused_in_block(planned: &PlannedStatement) -> Option<ExecError> {
    let what = match planned {
        PlannedStatement::Drop { .. } => "DROP",
        PlannedStatement::Truncate { .. } => "TRUNCATE",
        _ => return None,
    };
    Some(ExecError::unsupported(format!(
        "{what} inside a transaction block is"
    )))
}

/// Whether `planned` is a `CREATE` a block runs provisionally (or refuses as one).
pub fn is_block_create(planned: &PlannedStatement) -> bool {
    matches!(
        planned,
        PlannedStatement::CreateTable { .. }
            | PlannedStatement::CreateTableAs { .. }
            | PlannedStatement::CreateView { .. }
            | PlannedStatement::CreateIndex { .. }
    )
}

impl Coordinator {
    /// Runs a `CREATE` inside the block numbered `block`: its objects exist from now on, and
    /// the record that stores them is returned for `commit_block`.
    pub async fn create_in_block(
        self: &Arc<Self>,
        stmt: &ParsedStatement,
        planned: Planned,
        block: u64,
    ) -> Result<(ExecuteResult, Provisional), ExecError> {
        self.write(async {
            let planned = self.current(stmt, planned).await?;
            let Some(text) = DurableText::of(&planned) else {
                return Err(ExecError::unsupported(
                    "this statement inside a transaction block is",
                ));
            };
            if matches!(text, DurableText::TableItCreates) {
                return Err(ExecError::unsupported(
                    "CREATE TABLE ... AS inside a transaction block is",
                ));
            }
            self.flush().await;
            let before: BTreeSet<GlobalId> = self.lock().catalog.ids().collect();
            let durable_before = self.lock().catalog.durable_ids();
            let result = self.run(planned).await?;
            let mut state = self.lock();
            let created: Vec<GlobalId> = state
                .catalog
                .ids()
                .filter(|id| !before.contains(id))
                .collect();
            let durable: Vec<GlobalId> = state
                .catalog
                .durable_ids()
                .difference(&durable_before)
                .copied()
                .collect();
            let refused = builds_on_provisional(&state, &created, Some(block))
                .map(|name| provisional_error(&name));
            let record = match (&text, durable.first()) {
                (_, None) => Ok(None),
                (DurableText::Sql(Some(sql)), Some(&key)) => Ok(Some(CatalogRecord {
                    key,
                    ids: durable.clone(),
                    sql: super::durable::with_input_style(sql.clone()),
                    source: None,
                })),
                _ => Err(ExecError::unsupported(
                    "this statement cannot be kept in the data directory (its SQL text does \
                     not read back as the same statement); it was not applied",
                )),
            };
            let record = match refused.map_or(record, Err) {
                Ok(record) => record,
                Err(e) => {
                    drop(state);
                    self.drop_objects(&created, true)?;
                    return Err(e);
                }
            };
            for id in &created {
                state.provisional.insert(*id, block);
            }
            Ok((
                result,
                Provisional {
                    ids: created,
                    record,
                },
            ))
        })
        .await
    }

    /// COMMIT of a block: stores the records of its provisional objects with its writes, in
    /// one durable commit, and makes the objects ordinary ones.
    pub async fn commit_block(
        self: &Arc<Self>,
        created: Vec<Provisional>,
        writes: Vec<(GlobalId, Vec<(Row, i64)>)>,
    ) -> Result<(), ExecError> {
        let outcome = self
            .write(async {
                {
                    let state = self.lock();
                    let gone = created
                        .iter()
                        .flat_map(|p| &p.ids)
                        .chain(writes.iter().map(|(t, _)| t))
                        .find(|id| !state.catalog.contains(**id));
                    if let Some(id) = gone {
                        return Err(ExecError::new(
                            "40001",
                            format!(
                                "object u{id} was dropped by another session during the \
                                 transaction; the transaction was rolled back"
                            ),
                        ));
                    }
                }
                self.check_writes(&writes).await?;
                let mut ops = Vec::new();
                {
                    let mut state = self.lock();
                    for p in &created {
                        for id in &p.ids {
                            state.provisional.remove(id);
                        }
                        if let Some(record) = &p.record {
                            for id in &record.ids {
                                state.record_of.insert(*id, record.key);
                            }
                            state.records.insert(record.key, record.clone());
                            ops.push(CatalogOp::Put(record.clone()));
                        }
                    }
                }
                self.append_commit(writes, ops);
                Ok(())
            })
            .await;
        if outcome.is_err() {
            self.rollback_block(created).await;
        }
        outcome
    }

    /// ROLLBACK of (part of) a block: drops its provisional objects, newest first.
    pub async fn rollback_block(self: &Arc<Self>, created: Vec<Provisional>) {
        if created.is_empty() {
            return;
        }
        let _ = self
            .write(async {
                for p in created.iter().rev() {
                    let ids: Vec<GlobalId> = {
                        let mut state = self.lock();
                        let ids: Vec<GlobalId> = p
                            .ids
                            .iter()
                            .filter(|id| state.provisional.remove(id).is_some())
                            .copied()
                            .collect();
                        // The statement's own objects: an index a constraint owns goes
                        // with its table.
                        ids.iter()
                            .filter(|id| state.catalog.contains(**id))
                            .filter(|id| {
                                state.catalog.constraint_of(**id).is_none()
                                    && state
                                        .catalog
                                        .owner(**id)
                                        .is_none_or(|owner| !ids.contains(&owner))
                            })
                            .copied()
                            .collect()
                    };
                    if !ids.is_empty() {
                        if let Err(e) = self.drop_objects(&ids, true) {
                            tracing::warn!("rolling back a transaction's CREATE: {}", e.message);
                        }
                    }
                }
                Ok(())
            })
            .await;
    }

    /// Refuses a DDL statement outside any block whose new objects (`created`) build on a
    /// block's provisional object: undoes it and returns the error.
    pub(super) fn refuse_on_provisional(
        &self,
        before: &BTreeSet<GlobalId>,
    ) -> Result<(), ExecError> {
        let created: Vec<GlobalId> = {
            let state = self.lock();
            if state.provisional.is_empty() {
                return Ok(());
            }
            state
                .catalog
                .durable_ids()
                .difference(before)
                .copied()
                .collect()
        };
        let name = builds_on_provisional(&self.lock(), &created, None);
        match name {
            None => Ok(()),
            Some(name) => {
                self.drop_objects(&created, true)?;
                Err(provisional_error(&name))
            }
        }
    }
}

/// The name of a provisional object (of a block other than `own`) that one of `created`
/// depends on.
fn builds_on_provisional(state: &State, created: &[GlobalId], own: Option<u64>) -> Option<String> {
    let others: Vec<GlobalId> = state
        .provisional
        .iter()
        .filter(|(_, block)| Some(**block) != own)
        .map(|(id, _)| *id)
        .collect();
    if others.is_empty() {
        return None;
    }
    let dependents: BTreeSet<GlobalId> =
        state.catalog.with_dependents(&others).into_iter().collect();
    let hit = created.iter().any(|id| dependents.contains(id));
    hit.then(|| {
        let id = others
            .iter()
            .find(|p| {
                state
                    .catalog
                    .with_dependents(&[**p])
                    .iter()
                    .any(|d| created.contains(d))
            })
            .copied()
            .unwrap_or(others[0]);
        state
            .catalog
            .name(id)
            .map_or_else(|| format!("u{id}"), str::to_string)
    })
}

fn provisional_error(name: &str) -> ExecError {
    ExecError::new(
        "55006",
        format!(
            "\"{name}\" was created by a transaction that has not committed yet; objects that \
             depend on it can be created once it commits"
        ),
    )
}
