//! Writes the coordinator runs: INSERT, UPDATE and DELETE (UPDATE ... FROM and DELETE ...
//! USING are in `returning.rs`, ON CONFLICT in `on_conflict.rs`, TRUNCATE in `truncate.rs`),
//! the constant INSERTs a transaction block buffers, and the commit of a block's or COPY's
//! rows — each checked against the tables' constraints and appended at one timestamp.

use std::sync::Arc;

use kpg_sql::{OnConflict, PlannedStatement, Returning};
use kpg_types::{GlobalId, Plan, Row, ScalarExpr};

use super::returning::{by_position, written};
use super::sequence::{ConstantInsert, ExecuteResult};
use super::Coordinator;
use crate::error::ExecError;

impl Coordinator {
    /// INSERT: `plan`'s rows into `table`.
    pub(super) async fn insert(
        self: &Arc<Self>,
        table: GlobalId,
        plan: Plan,
        returning: Option<Returning>,
        on_conflict: Option<OnConflict>,
    ) -> Result<ExecuteResult, ExecError> {
        let rows = match plan {
            Plan::Constant { rows } => rows,
            plan => self.peek(plan).await?,
        };
        if let Some(on_conflict) = on_conflict {
            return self
                .insert_on_conflict(table, rows, on_conflict, returning)
                .await;
        }
        let writes = vec![(table, rows)];
        self.check_writes(&writes).await?;
        let result = written(
            "INSERT 0",
            returning.as_ref(),
            writes[0].1.iter().map(|(r, n)| (r.datums(), *n)),
        )?;
        self.append(writes);
        Ok(result)
    }

    /// UPDATE: the rows of `table` for which every predicate holds get `assignments`.
    pub(super) async fn update(
        self: &Arc<Self>,
        table: GlobalId,
        predicates: Vec<ScalarExpr>,
        assignments: Vec<ScalarExpr>,
        returning: Option<Returning>,
    ) -> Result<ExecuteResult, ExecError> {
        let mut old = self.stored_rows(table, predicates).await?;
        by_position(&mut old);
        // The statement's time, one value for every row (current_date and friends).
        let (txn_start, now) = crate::statement_context::clock();
        let assignments: Vec<_> = assignments
            .into_iter()
            .map(|mut e| {
                e.bind_clock(txn_start, now);
                e
            })
            .collect();
        let mut updates = Vec::with_capacity(old.len() * 2);
        for (row, n) in old {
            let new = Row::new(
                assignments
                    .iter()
                    .map(|e| e.eval(&row.datums()))
                    .collect::<Result<Vec<_>, _>>()?,
            );
            updates.push((row, -n));
            updates.push((new, n));
        }
        let writes = vec![(table, updates)];
        self.check_writes(&writes).await?;
        let result = written(
            "UPDATE",
            returning.as_ref(),
            writes[0]
                .1
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(r, n)| (r.datums(), *n)),
        )?;
        self.append(writes);
        Ok(result)
    }

    /// DELETE: the rows of `table` for which every predicate holds.
    pub(super) async fn delete(
        self: &Arc<Self>,
        table: GlobalId,
        predicates: Vec<ScalarExpr>,
        returning: Option<Returning>,
    ) -> Result<ExecuteResult, ExecError> {
        let mut old = self.stored_rows(table, predicates).await?;
        by_position(&mut old);
        let result = written(
            "DELETE",
            returning.as_ref(),
            old.iter().map(|(r, n)| (r.datums(), *n)),
        )?;
        self.append(vec![(
            table,
            old.into_iter().map(|(r, n)| (r, -n)).collect(),
        )]);
        Ok(result)
    }

    /// Checks rows bound for `table` (e.g. from COPY) and appends them at one timestamp.
    pub async fn insert_rows(
        self: &Arc<Self>,
        table: GlobalId,
        rows: Vec<(Row, i64)>,
    ) -> Result<(), ExecError> {
        self.commit_writes(vec![(table, rows)]).await
    }

    /// Checks a committed transaction's writes together against the tables' constraints and
    /// appends them at one timestamp.
    pub async fn commit_writes(
        self: &Arc<Self>,
        writes: Vec<(GlobalId, Vec<(Row, i64)>)>,
    ) -> Result<(), ExecError> {
        self.write(async {
            {
                let state = self.lock();
                if let Some((table, _)) =
                    writes.iter().find(|(t, _)| state.catalog.get(*t).is_none())
                {
                    return Err(ExecError::new(
                        "42P01",
                        format!("table u{table} was dropped during the transaction"),
                    ));
                }
            }
            self.check_writes(&writes).await?;
            self.append(writes);
            Ok(())
        })
        .await
    }
}

/// An INSERT of constant rows without ON CONFLICT, as a transaction holds it back: the
/// table, its rows (to be checked, not yet written) and what the statement answers (its tag,
/// or its RETURNING rows). `Err(planned)`: another statement (an INSERT ... SELECT, ON
/// CONFLICT, not an INSERT), handed back.
pub fn constant_insert(
    planned: PlannedStatement,
) -> Result<Result<ConstantInsert, PlannedStatement>, ExecError> {
    match planned {
        PlannedStatement::Insert {
            table,
            plan: Plan::Constant { rows },
            returning,
            on_conflict: None,
        } => {
            let result = written(
                "INSERT 0",
                returning.as_ref(),
                rows.iter().map(|(r, n)| (r.datums(), *n)),
            )?;
            Ok(Ok((table, rows, result)))
        }
        other => Ok(Err(other)),
    }
}
