//! Transaction blocks (`BEGIN` ... `COMMIT` / `ROLLBACK`), with Materialize's rules.
//!
//! A block runs at PostgreSQL's default isolation, READ COMMITTED:
//! - reads are `SELECT`s and `SHOW`s, each answered as outside a block (at the latest
//!   committed state); a read after the block's first write is refused (25000), because the
//!   block's own writes are not applied yet and the read could not see them;
//! - writes are `INSERT`s of constant rows into tables (their RETURNING rows answered at once),
//!   buffered in the session and appended together at one timestamp on `COMMIT` (so other
//!   sessions see all of them or none); each is checked against its table's constraints when it
//!   runs (with the block's earlier writes to the same table), and all of them together again
//!   at `COMMIT`;
//! - `CREATE TABLE`, `CREATE VIEW`, `CREATE MATERIALIZED VIEW` and `CREATE INDEX` run at once
//!   but stay provisional until `COMMIT`, which stores them with the writes in one durable
//!   commit (see `coord::block_ddl`); `ROLLBACK` drops them. DDL a `ROLLBACK` could not undo
//!   (DROP, ALTER, TRUNCATE, `CREATE OR REPLACE`, sources, sinks) is refused with 0A000.
//!
//! After an error the block is failed: statements are refused (25P02) until `COMMIT`,
//! `ROLLBACK` or `ROLLBACK TO SAVEPOINT`, and `COMMIT` then rolls back, as in PostgreSQL.
//!
//! Savepoints (`SAVEPOINT`, `RELEASE`, `ROLLBACK TO`) mark a position in the block's buffered
//! writes, its provisional objects and the session's settings: rolling back to one drops the
//! writes and objects and undoes the `SET`s made after it and ends the failed state, exactly,
//! because nothing of the block has been committed yet. Cursors opened after a savepoint stay open when the block rolls back to it
//! (PostgreSQL closes them). Statements kpg cannot run
//! inside a block (DDL, UPDATE, DELETE, INSERT ... SELECT, SUBSCRIBE) are refused with 0A000.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use kpg_sql::{ParsedStatement, PlannedStatement, TransactionStatement};
use kpg_types::{GlobalId, Row};

use crate::coord::{
    constant_insert, is_block_create, refused_in_block, ConstantInsert, Coordinator, ExecuteResult,
    Planned, Provisional,
};
use crate::error::ExecError;
use crate::session_vars::SessionVars;

/// The transaction state of one connection.
#[derive(Default)]
pub struct Txn {
    active: bool,
    failed: bool,
    /// This block's number (for its provisional objects).
    block: u64,
    writes: Vec<(GlobalId, Vec<(Row, i64)>)>,
    /// The objects the block created, one entry per statement, oldest first.
    created: Vec<Provisional>,
    savepoints: Vec<Savepoint>,
    /// Set while the block has provisional objects: dropped with the session, the block rolls
    /// them back.
    coord: Option<Arc<Coordinator>>,
    /// When the block began (BEGIN's wall-clock time, UTC): `now()` inside it.
    started_at: Option<chrono::NaiveDateTime>,
}

/// A savepoint: where the block's writes, objects and the session's settings stood when it
/// was set.
struct Savepoint {
    name: String,
    writes: usize,
    created: usize,
    vars: SessionVars,
}

/// What the session should report for a transaction-control statement.
pub enum TxnOutcome {
    Started,
    Ended(&'static str),
}

pub type SharedTxn = Arc<Mutex<Txn>>;

static NEXT_BLOCK: AtomicU64 = AtomicU64::new(1);

impl Txn {
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// When the open block began, if one is open.
    pub fn started_at(&self) -> Option<chrono::NaiveDateTime> {
        self.started_at.filter(|_| self.active)
    }

    /// Whether the open block has failed (its statements are refused until it ends).
    pub fn is_failed(&self) -> bool {
        self.failed
    }

    /// Buffers checked rows for `table` until COMMIT (a COPY inside a write block).
    pub fn buffer(&mut self, table: GlobalId, rows: Vec<(Row, i64)>) -> Result<(), ExecError> {
        self.writes.push((table, rows));
        Ok(())
    }

    /// Whether writes are buffered outside a block (an implicit transaction's).
    pub fn has_implicit_writes(&self) -> bool {
        !self.active && !self.writes.is_empty()
    }

    /// The writes buffered outside a block (an implicit transaction's), taken out of it.
    pub fn take_implicit_writes(&mut self) -> Vec<(GlobalId, Vec<(Row, i64)>)> {
        if self.active {
            return Vec::new();
        }
        std::mem::take(&mut self.writes)
    }

    /// Marks the block failed after an error inside it.
    pub fn fail(&mut self) {
        if self.active {
            self.failed = true;
        }
    }
}

impl Drop for Txn {
    /// A session that ends inside a block rolls it back: its provisional objects go.
    fn drop(&mut self) {
        let created = std::mem::take(&mut self.created);
        if let (false, Some(coord)) = (created.is_empty(), self.coord.take()) {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move { coord.rollback_block(created).await });
            }
        }
    }
}

/// Handles BEGIN / COMMIT / ROLLBACK; `None` for any other statement.
pub async fn control(
    txn: &SharedTxn,
    stmt: &TransactionStatement,
    coord: &Arc<Coordinator>,
) -> Option<Result<TxnOutcome, ExecError>> {
    match stmt {
        TransactionStatement::Begin => {
            let mut t = txn.lock().expect("txn");
            if !t.active {
                // The INSERTs of the implicit transaction before BEGIN become the block's, as
                // in PostgreSQL (`implicit_txn.rs`).
                let writes = std::mem::take(&mut t.writes);
                *t = Txn::default();
                t.writes = writes;
                t.active = true;
                t.started_at = Some(chrono::Utc::now().naive_utc());
                t.block = NEXT_BLOCK.fetch_add(1, Ordering::Relaxed);
            }
            Some(Ok(TxnOutcome::Started))
        }
        TransactionStatement::Commit => {
            let (failed, writes, created) = {
                let mut t = txn.lock().expect("txn");
                let created = std::mem::take(&mut t.created);
                let writes = std::mem::take(&mut t.writes);
                let failed = t.failed;
                *t = Txn::default();
                (failed, writes, created)
            };
            if failed {
                coord.rollback_block(created).await;
                return Some(Ok(TxnOutcome::Ended("ROLLBACK")));
            }
            if !writes.is_empty() || !created.is_empty() {
                if let Err(e) = coord.commit_block(created, writes).await {
                    return Some(Err(e));
                }
            }
            Some(Ok(TxnOutcome::Ended("COMMIT")))
        }
        TransactionStatement::Rollback => {
            let created = {
                let mut t = txn.lock().expect("txn");
                let created = std::mem::take(&mut t.created);
                *t = Txn::default();
                created
            };
            coord.rollback_block(created).await;
            Some(Ok(TxnOutcome::Ended("ROLLBACK")))
        }
        _ => None,
    }
}

/// Handles SAVEPOINT, RELEASE SAVEPOINT and ROLLBACK TO SAVEPOINT (with `vars`, the
/// session's settings, which a rollback to a savepoint restores); `None` for any other
/// statement. Returns the command tag.
pub async fn savepoint(
    txn: &SharedTxn,
    stmt: &TransactionStatement,
    vars: &Mutex<SessionVars>,
    coord: &Arc<Coordinator>,
) -> Option<Result<&'static str, ExecError>> {
    let (what, name) = match stmt {
        TransactionStatement::Savepoint(name) => ("SAVEPOINT", name.clone()),
        TransactionStatement::Release(name) => ("RELEASE", name.clone()),
        TransactionStatement::RollbackTo(name) => ("ROLLBACK", name.clone()),
        _ => return None,
    };
    let undone = {
        let mut t = txn.lock().expect("txn");
        match mark(&mut t, what, name, vars) {
            Ok(undone) => undone,
            Err(e) => return Some(Err(e)),
        }
    };
    coord.rollback_block(undone).await;
    Some(Ok(match what {
        "SAVEPOINT" => "SAVEPOINT",
        "RELEASE" => "RELEASE",
        _ => "ROLLBACK",
    }))
}

/// The savepoint statement `what` on the block `t`; returns the provisional objects a
/// ROLLBACK TO undoes.
fn mark(
    t: &mut Txn,
    what: &str,
    name: String,
    vars: &Mutex<SessionVars>,
) -> Result<Vec<Provisional>, ExecError> {
    if !t.active {
        let statement = match what {
            "SAVEPOINT" => "SAVEPOINT",
            "RELEASE" => "RELEASE SAVEPOINT",
            _ => "ROLLBACK TO SAVEPOINT",
        };
        return Err(ExecError::new(
            "25P01",
            format!("{statement} can only be used in transaction blocks"),
        ));
    }
    if t.failed && what != "ROLLBACK" {
        return Err(aborted());
    }
    if what == "SAVEPOINT" {
        let (writes, created) = (t.writes.len(), t.created.len());
        let vars = vars.lock().expect("session variables").clone();
        t.savepoints.push(Savepoint {
            name,
            writes,
            created,
            vars,
        });
        return Ok(Vec::new());
    }
    let Some(at) = t.savepoints.iter().rposition(|s| s.name == name) else {
        t.failed = true;
        return Err(ExecError::new(
            "3B001",
            format!("savepoint \"{name}\" does not exist"),
        ));
    };
    if what == "RELEASE" {
        t.savepoints.truncate(at);
        return Ok(Vec::new());
    }
    // ROLLBACK TO keeps the savepoint itself, so the block can roll back to it again.
    t.savepoints.truncate(at + 1);
    let mark = &t.savepoints[at];
    let (writes, created, saved) = (mark.writes, mark.created, mark.vars.clone());
    t.writes.truncate(writes);
    t.failed = false;
    *vars.lock().expect("session variables") = saved;
    Ok(t.created.split_off(created))
}

pub fn aborted() -> ExecError {
    ExecError::new(
        "25P02",
        "current transaction is aborted, commands ignored until end of transaction block",
    )
}

/// Runs a statement (planned as `planned`) inside an active block: buffers constant
/// INSERTs, runs reads and provisional CREATEs, refuses the rest.
pub async fn run_in_block(
    txn: &SharedTxn,
    stmt: &ParsedStatement,
    planned: Planned,
    coord: &Arc<Coordinator>,
) -> Result<ExecuteResult, ExecError> {
    if txn.lock().expect("txn").failed {
        return Err(aborted());
    }
    let is_read = matches!(
        planned.plan,
        PlannedStatement::Select { .. }
            | PlannedStatement::Explain { .. }
            | PlannedStatement::Subscribe { .. }
            | PlannedStatement::ShowObjects(_)
            | PlannedStatement::ShowCreate { .. }
    );
    if is_read {
        if !txn.lock().expect("txn").writes.is_empty() {
            return Err(ExecError::new(
                "25000",
                "a read after a write in the same transaction block is not supported (the \
                 block's writes are applied at COMMIT, so the read could not see them)",
            ));
        }
        return coord.execute_planned(stmt, planned, None).await;
    }
    if let Some(refused) = refused_in_block(&planned.plan) {
        return Err(refused);
    }
    if is_block_create(&planned.plan) {
        let block = txn.lock().expect("txn").block;
        let (result, created) = coord.create_in_block(stmt, planned, block).await?;
        let mut t = txn.lock().expect("txn");
        t.created.push(created);
        t.coord.get_or_insert_with(|| Arc::clone(coord));
        return Ok(result);
    }
    let what = match constant_insert(planned.plan)? {
        Ok(insert) => return buffer_insert(txn, insert, coord).await,
        Err(PlannedStatement::Insert {
            on_conflict: Some(_),
            ..
        }) => "INSERT ... ON CONFLICT inside a transaction block",
        Err(PlannedStatement::Insert { .. }) => "INSERT ... SELECT inside a transaction block",
        Err(_) => {
            "statements other than SELECT, SHOW, INSERT ... VALUES and CREATE TABLE, VIEW, \
             MATERIALIZED VIEW or INDEX inside a transaction block are"
        }
    };
    Err(ExecError::unsupported(what))
}

/// Buffers a constant INSERT's rows in the transaction (a block's or an implicit one's),
/// checked now against the table and the transaction's earlier writes to it (as PostgreSQL
/// reports a duplicate key at the INSERT), and against everything again when it commits.
pub async fn buffer_insert(
    txn: &SharedTxn,
    (table, rows, result): ConstantInsert,
    coord: &Arc<Coordinator>,
) -> Result<ExecuteResult, ExecError> {
    let mut check: Vec<(GlobalId, Vec<(Row, i64)>)> = {
        let t = txn.lock().expect("txn");
        t.writes
            .iter()
            .filter(|(w, _)| *w == table)
            .cloned()
            .collect()
    };
    check.push((table, rows));
    coord.check_writes(&check).await?;
    let write = check.pop().expect("pushed");
    txn.lock().expect("txn").writes.push(write);
    Ok(result)
}
