//! Transaction blocks (`BEGIN` ... `COMMIT` / `ROLLBACK`), with Materialize's rules.
//!
//! A transaction is either a write transaction or a read transaction, never both:
//! - writes are `INSERT`s of constant rows into tables (their RETURNING rows answered at once),
//!   buffered in the session and appended together at one timestamp on `COMMIT` (so other
//!   sessions see all of them or none); each is checked against its table's constraints when it
//!   runs, and all of them together again at `COMMIT` (a duplicate key between two INSERTs of
//!   one block is reported there);
//! - reads are `SELECT`s and `SHOW`s, each answered as outside a block.
//!
//! After an error the block is failed: statements are refused (25P02) until `COMMIT` or
//! `ROLLBACK`, and `COMMIT` then rolls back, as in PostgreSQL. Statements kpg cannot run
//! inside a block (DDL, UPDATE, DELETE, INSERT ... SELECT, SUBSCRIBE) are refused with 0A000.

use std::sync::{Arc, Mutex};

use kpg_sql::sqlparser::ast::Statement;
use kpg_sql::ParsedStatement;
use kpg_types::{GlobalId, Row};

use crate::coord::{is_select_into, Coordinator, ExecuteResult};
use crate::error::ExecError;

/// The transaction state of one connection.
#[derive(Default)]
pub struct Txn {
    active: bool,
    failed: bool,
    has_read: bool,
    writes: Vec<(GlobalId, Vec<(Row, i64)>)>,
}

/// What the session should report for a transaction-control statement.
pub enum TxnOutcome {
    Started,
    Ended(&'static str),
}

pub type SharedTxn = Arc<Mutex<Txn>>;

impl Txn {
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Whether the open block has failed (its statements are refused until it ends).
    pub fn is_failed(&self) -> bool {
        self.failed
    }

    /// Buffers checked rows for `table` until COMMIT (a COPY inside a write block).
    pub fn buffer(&mut self, table: GlobalId, rows: Vec<(Row, i64)>) -> Result<(), ExecError> {
        if self.has_read {
            return Err(ExecError::new("25006", "transaction in read-only mode"));
        }
        self.writes.push((table, rows));
        Ok(())
    }

    /// Marks the block failed after an error inside it.
    pub fn fail(&mut self) {
        if self.active {
            self.failed = true;
        }
    }
}

/// Handles BEGIN / COMMIT / ROLLBACK; `None` for any other statement.
pub async fn control(
    txn: &SharedTxn,
    stmt: &ParsedStatement,
    coord: &Arc<Coordinator>,
) -> Option<Result<TxnOutcome, ExecError>> {
    let ParsedStatement::Sql(stmt) = stmt else {
        return None;
    };
    match stmt {
        Statement::StartTransaction { .. } => {
            let mut t = txn.lock().expect("txn");
            if !t.active {
                *t = Txn {
                    active: true,
                    ..Txn::default()
                };
            }
            Some(Ok(TxnOutcome::Started))
        }
        Statement::Commit { .. } => {
            let finished = std::mem::take(&mut *txn.lock().expect("txn"));
            if finished.failed {
                return Some(Ok(TxnOutcome::Ended("ROLLBACK")));
            }
            if !finished.writes.is_empty() {
                if let Err(e) = coord.commit_writes(finished.writes).await {
                    return Some(Err(e));
                }
            }
            Some(Ok(TxnOutcome::Ended("COMMIT")))
        }
        Statement::Rollback { .. } => {
            *txn.lock().expect("txn") = Txn::default();
            Some(Ok(TxnOutcome::Ended("ROLLBACK")))
        }
        _ => None,
    }
}

/// Runs a statement inside an active block: buffers constant INSERTs, runs reads, refuses the
/// rest.
pub async fn run_in_block(
    txn: &SharedTxn,
    stmt: &ParsedStatement,
    coord: &Arc<Coordinator>,
) -> Result<ExecuteResult, ExecError> {
    if txn.lock().expect("txn").failed {
        return Err(ExecError::new(
            "25P02",
            "current transaction is aborted, commands ignored until end of transaction block",
        ));
    }
    let is_read = matches!(
        stmt,
        ParsedStatement::Sql(
            Statement::Query(_)
                | Statement::ShowTables { .. }
                | Statement::ShowViews { .. }
                | Statement::ShowColumns { .. }
                | Statement::ShowVariable { .. }
        )
    ) && !is_select_into(stmt);
    let is_insert = matches!(stmt, ParsedStatement::Sql(Statement::Insert(_)));
    if is_read {
        if !txn.lock().expect("txn").writes.is_empty() {
            return Err(ExecError::new("25000", "transaction in write-only mode"));
        }
        let result = coord.execute(stmt).await?;
        txn.lock().expect("txn").has_read = true;
        return Ok(result);
    }
    if !is_insert {
        return Err(ExecError::unsupported("statements other than SELECT, SHOW and INSERT ... VALUES inside a transaction block are"));
    }
    if txn.lock().expect("txn").has_read {
        return Err(ExecError::new("25006", "transaction in read-only mode"));
    }
    // Checked against the table now; against the block's other writes at COMMIT.
    let (table, rows, result) = coord.plan_constant_insert(stmt)?;
    let writes = vec![(table, rows)];
    coord.check_writes(&writes).await?;
    txn.lock().expect("txn").writes.extend(writes);
    Ok(result)
}
