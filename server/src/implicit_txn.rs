//! PostgreSQL's implicit transactions, for the writes kpg can hold back.
//!
//! Outside a `BEGIN` block, PostgreSQL runs everything up to an extended-protocol `Sync` (a
//! pgjdbc `executeBatch`, a driver's pipeline), or every statement of one multi-statement
//! query string, as one transaction: if any of them fails, none of their writes stays. kpg
//! used to commit each statement as it ran, so a batch whose fifth INSERT hit a duplicate key
//! kept the first four.
//!
//! Here consecutive `INSERT ... VALUES` statements of such a sequence are checked when they run
//! (a duplicate key is still reported at the INSERT that brings it) and buffered in the
//! session's transaction state; they are committed together, in one durable commit at one
//! timestamp, at `Sync` or at the end of the query string — or dropped if anything in the
//! sequence failed. Any other statement (a read, an UPDATE, an INSERT ... SELECT or ON
//! CONFLICT, DDL, COPY) is planned, then commits the INSERTs before it, so it sees them as
//! PostgreSQL's would: a read after writes reads them. (A statement that fails to plan drops
//! them, as in PostgreSQL.) Transaction control follows PostgreSQL: `BEGIN` makes the INSERTs
//! before it its block's, `COMMIT` commits them, `ROLLBACK` drops them. What this leaves
//! different from PostgreSQL: a statement that fails when it runs, after such a commit, does
//! not undo the writes committed before it (`INSERT ...; SELECT 1/0` keeps the row), written
//! in README.

use std::sync::Arc;

use kpg_sql::PlannedStatement;

use crate::coord::{constant_insert, Coordinator, ExecuteResult, Planned};
use crate::error::ExecError;
use crate::txn::{buffer_insert, SharedTxn};

/// What `step` left to do.
pub enum Step {
    /// The statement was a constant INSERT, buffered: its answer or its error.
    Done(Result<ExecuteResult, ExecError>),
    /// Run the statement as usual.
    Run(Planned),
}

/// Runs the part of a statement (planned as `planned`) that belongs to the implicit
/// transaction, outside a block: a constant INSERT is buffered; before anything else the
/// INSERTs buffered so far are committed (its error, if that fails). Inside a block the
/// statement is left to run.
pub async fn step(txn: &SharedTxn, planned: Planned, coord: &Arc<Coordinator>) -> Step {
    if txn.lock().expect("txn").is_active() {
        return Step::Run(planned);
    }
    if matches!(planned.plan, PlannedStatement::Transaction(_)) {
        // BEGIN makes the INSERTs before it the block's, COMMIT commits them, ROLLBACK drops
        // them, a SAVEPOINT outside a block fails the sequence (`txn.rs`).
        return Step::Run(planned);
    }
    let Planned {
        plan,
        generation,
        bound,
    } = planned;
    match constant_insert(plan) {
        Ok(Ok(insert)) => Step::Done(buffer_insert(txn, insert, coord).await),
        Ok(Err(plan)) => match commit(txn, coord).await {
            Ok(()) => Step::Run(Planned {
                plan,
                generation,
                bound,
            }),
            Err(e) => Step::Done(Err(e)),
        },
        Err(e) => Step::Done(Err(e)),
    }
}

/// Commits the INSERTs buffered outside a block (at Sync, at the end of a query string, or
/// before another statement).
pub async fn commit(txn: &SharedTxn, coord: &Arc<Coordinator>) -> Result<(), ExecError> {
    let writes = txn.lock().expect("txn").take_implicit_writes();
    if writes.is_empty() {
        return Ok(());
    }
    coord.commit_block(Vec::new(), writes).await
}

/// Drops the INSERTs buffered outside a block: something in their sequence failed.
pub fn rollback(txn: &SharedTxn) {
    txn.lock().expect("txn").take_implicit_writes();
}
