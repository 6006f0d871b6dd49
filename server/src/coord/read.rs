//! Reads at the current read timestamp: a query's rows through a transient dataflow or straight
//! from an arrangement (`fast_path.rs`, `fast_count.rs`, `direct_peek.rs`), the stored rows an
//! UPDATE or DELETE retracts, and an index's rows by key. Each registers a pending peek that
//! the dispatcher (`dispatch.rs`) completes when every worker has answered.

use std::sync::Arc;

use kpg_types::command::{Command, PeekTarget};
use kpg_types::{DataflowDescription, DataflowSink, GlobalId, Plan, Row, ScalarExpr};
use tokio::sync::oneshot;

use super::{
    direct_peek, durable, fast_count, fast_path, Coordinator, DataflowGuard, PendingPeek, State,
};
use crate::error::ExecError;

impl Coordinator {
    /// Reads the result of `plan` at the current read timestamp, through a transient dataflow
    /// that is dropped afterwards (or straight from an arrangement, on the fast path).
    pub(super) async fn peek(self: &Arc<Self>, plan: Plan) -> Result<Vec<(Row, i64)>, ExecError> {
        // Rows the planner computed (`SELECT 1`, a pool's health check) read nothing and hold
        // no clock or `mz_now()`: answered here, as the workers' peek would (consolidated, in
        // row order), without a dataflow or a round trip through the workers.
        if let Plan::Constant { rows } = plan {
            return Ok(crate::storage::consolidate(rows));
        }
        let mut fast_read = None;
        let rows = self
            .read(|coord, state, peek_id, timestamp| {
                let mut plan = Self::optimize(state, plan)?;
                Self::check_imports(state, &plan)?;
                // current_date and friends: one value for the statement, from the wall clock
                // as the statements that write them take it (so a later read never sees an
                // earlier time than a write it follows).
                let (txn_start, now) = crate::statement_context::clock();
                plan.bind_clock(txn_start, now);
                // mz_now() outside temporal filters: the read's logical time.
                plan.bind_mz_now(timestamp);
                plan.bind_session_zone(&crate::statement_context::time_zone());
                let fast = fast_path::fast_peek(&plan, &state.catalog)
                    .or_else(|| fast_count::count_peek(&plan, &state.catalog));
                match &fast {
                    Some(fast) => {
                        let request = kpg_compute::PeekRequest {
                            peek_id,
                            target: fast.target.clone(),
                            timestamp,
                            predicates: fast.predicates.clone(),
                            projection: fast.worker_projection(),
                        };
                        coord.send_peek(state, request);
                    }
                    None => {
                        let sink = DataflowSink::Peek { peek_id, timestamp };
                        let desc = DataflowDescription {
                            name: format!("peek-{}", crate::catalog::ids::shown(peek_id)),
                            plan,
                            as_of: timestamp,
                            sink,
                        };
                        coord.install(state, peek_id, desc);
                    }
                }
                fast_read = fast;
                Ok(())
            })
            .await?;
        Ok(match fast_read {
            Some(fast) => fast.finish(rows),
            None => rows,
        })
    }

    /// The rows of `table` that `predicates` keep, as stored (with their positions), for UPDATE
    /// and DELETE to retract exactly. A read through an index finds the rows without their
    /// positions (it reads NULL there, see `fast_path`); a second read finds those rows in the
    /// table's arrangement. The write lock the caller holds keeps the table still in between.
    pub(super) async fn stored_rows(
        self: &Arc<Self>,
        table: GlobalId,
        predicates: Vec<ScalarExpr>,
    ) -> Result<Vec<(Row, i64)>, ExecError> {
        let plan = Plan::Filter {
            input: Box::new(Plan::GetWithPosition { id: table }),
            predicates,
        };
        let rows = self.peek(plan).await?;
        if rows
            .iter()
            .all(|(r, _)| r.datums().last().is_some_and(|p| !p.is_null()))
        {
            return Ok(rows);
        }
        let found: Vec<Row> = rows.into_iter().map(|(r, _)| r.without_last()).collect();
        self.read(|coord, _, peek_id, timestamp| {
            coord.compute.send(Command::PeekTrace {
                peek_id,
                target: PeekTarget::StoredRows {
                    id: table,
                    rows: found,
                },
                timestamp,
                predicates: Vec::new(),
                projection: None,
            });
            Ok(())
        })
        .await
    }

    /// The rows of the relation that the index `index` arranges whose key is one of `keys`, at
    /// the current read timestamp.
    pub(super) async fn peek_index(
        self: &Arc<Self>,
        index: GlobalId,
        keys: Vec<Row>,
    ) -> Result<Vec<(Row, i64)>, ExecError> {
        self.read(|coord, state, peek_id, timestamp| {
            let request = kpg_compute::PeekRequest {
                peek_id,
                target: PeekTarget::Index {
                    id: index,
                    keys: Some(keys),
                },
                timestamp,
                predicates: Vec::new(),
                projection: None,
            };
            coord.send_peek(state, request);
            Ok(())
        })
        .await
    }

    /// Registers a read at the current read timestamp, lets `start` ask the workers for it,
    /// and waits for every worker's share.
    pub(super) async fn read(
        self: &Arc<Self>,
        start: impl FnOnce(&Arc<Self>, &mut State, u64, u64) -> Result<(), ExecError>,
    ) -> Result<Vec<(Row, i64)>, ExecError> {
        let (tx, rx) = oneshot::channel();
        let (guard, direct) = {
            let mut state = self.lock();
            let id = state.transient.allocate();
            let timestamp = durable::read_time(&state);
            let remaining = self.compute.workers();
            state.peeks.insert(
                id,
                PendingPeek {
                    timestamp,
                    remaining,
                    rows: Vec::new(),
                    error: None,
                    tx: Some(tx),
                },
            );
            if let Err(e) = start(self, &mut state, id, timestamp) {
                state.peeks.remove(&id);
                return Err(e);
            }
            // A direct peek took the sender: its answer comes quickly, straight from a worker.
            let direct = state.peeks.get(&id).is_some_and(|p| p.tx.is_none());
            (
                DataflowGuard {
                    coord: Arc::clone(self),
                    id,
                },
                direct,
            )
        };
        let result = match direct {
            true => direct_peek::answer(rx).await,
            false => rx.await,
        };
        let result =
            result.map_err(|_| ExecError::internal("peek was abandoned by the workers"))?;
        drop(guard);
        result.map_err(ExecError::from)
    }
}
