//! The session's sequencer: every statement of either protocol, parsed, reaches `sequence`,
//! which sends it to the code of its family by its `ParsedStatement` variant — COPY,
//! transaction control, cursors, session variables — and everything else to the coordinator
//! (or, inside a transaction block, to the block, `txn.rs`), and says what came of it.

use std::sync::Arc;

use kpg_sql::{CopyTo, ParsedStatement, TransactionStatement};

use super::{float_digits, Outcome, Session};
use crate::coord::{Coordinator, ExecuteResult};
use crate::copy_in;
use crate::copy_out::CopyOut;
use crate::cursors;
use crate::error::ExecError;
use crate::implicit_txn;
use crate::txn::{self, TxnOutcome};

impl Session {
    /// Runs `stmt` (in the statement context of the session, `statement_context.rs`).
    /// `implicit`: the statement is part of an implicit transaction of several statements (a
    /// pipeline up to Sync, a multi-statement query string), whose INSERTs are held back until
    /// it ends (`implicit_txn.rs`). A statement that fails fails the transaction block.
    pub async fn sequence(
        &self,
        coord: &Arc<Coordinator>,
        stmt: &ParsedStatement,
        implicit: bool,
    ) -> Outcome {
        let outcome = self.sequence_inner(coord, stmt, implicit).await;
        if let Outcome::Error(_) = outcome {
            // Transaction control reports its own errors without failing the block further.
            if !matches!(stmt, ParsedStatement::Transaction(_)) {
                self.txn.lock().expect("txn").fail();
            }
        }
        outcome
    }

    async fn sequence_inner(
        &self,
        coord: &Arc<Coordinator>,
        stmt: &ParsedStatement,
        implicit: bool,
    ) -> Outcome {
        if let Some(why) = float_digits::refusal(&self.output_style()) {
            if let Err(e) = float_digits::check(stmt, coord, why) {
                return Outcome::Error(e);
            }
        }
        if implicit {
            if let Some(result) = implicit_txn::step(&self.txn, stmt, coord).await {
                return match result {
                    Ok(result) => Outcome::of(result),
                    Err(e) => Outcome::Error(e),
                };
            }
        }
        match stmt {
            ParsedStatement::CopyTo(copy) => return self.copy_out(coord, copy).await,
            ParsedStatement::CopyFrom(copy) => {
                return match copy_in::plan(copy, |name| coord.resolve(name)) {
                    Ok(copy) => {
                        let width = copy.width();
                        *self.copy.lock().expect("copy") = Some(copy);
                        Outcome::CopyIn { width }
                    }
                    Err(e) => Outcome::Error(e),
                };
            }
            ParsedStatement::Transaction(t) => return self.transaction(coord, t).await,
            // In a failed block it is refused as every statement but the ones ending it.
            ParsedStatement::Refused(_) if self.txn.lock().expect("txn").is_failed() => {
                return Outcome::Error(txn::aborted())
            }
            ParsedStatement::Refused(e) => return Outcome::Error(ExecError::from(e.clone())),
            ParsedStatement::Declare { .. }
            | ParsedStatement::Fetch { .. }
            | ParsedStatement::Close { .. } => return self.cursor_statement(coord, stmt).await,
            _ => {}
        }
        let timeout = self
            .vars
            .lock()
            .expect("session variables")
            .statement_timeout();
        let result = match stmt {
            // In a failed block, SET, RESET and SHOW are refused too, as every statement but
            // the ones ending it.
            ParsedStatement::Session(_) if self.txn.lock().expect("txn").is_failed() => {
                Err(txn::aborted())
            }
            ParsedStatement::Session(s) => self.vars.lock().expect("session variables").run(s),
            _ if self.txn.lock().expect("txn").is_active() => {
                txn::run_in_block(&self.txn, stmt, coord).await
            }
            _ => coord.execute_within(stmt, timeout).await,
        };
        match result {
            Ok(result) => Outcome::of(result),
            Err(e) => Outcome::Error(e),
        }
    }

    /// COPY ... TO STDOUT: runs its query; its rows as COPY data.
    async fn copy_out(&self, coord: &Arc<Coordinator>, copy: &CopyTo) -> Outcome {
        let copy = CopyOut::new(copy);
        match coord.execute(copy.query()).await {
            Ok(ExecuteResult::Rows { desc, rows }) => {
                let lines = copy.lines(&desc, &rows, &self.output_style());
                Outcome::CopyOut { desc, lines }
            }
            Ok(_) => Outcome::Error(ExecError::internal("COPY's query returned no rows")),
            Err(e) => Outcome::Error(e),
        }
    }

    /// BEGIN, COMMIT, ROLLBACK and the savepoint statements.
    async fn transaction(&self, coord: &Arc<Coordinator>, stmt: &TransactionStatement) -> Outcome {
        let txn = &self.txn;
        if let Some(outcome) = txn::savepoint(txn, stmt, &self.vars, coord).await {
            return match outcome {
                Ok(tag) => Outcome::Tag(tag),
                Err(e) => Outcome::Error(e),
            };
        }
        let Some(outcome) = txn::control(txn, stmt, coord).await else {
            unreachable!("every transaction statement is a savepoint statement or control")
        };
        // A block's SETs end with it when it rolls back, as in PostgreSQL.
        self.vars_follow_transaction(&outcome);
        match outcome {
            Ok(TxnOutcome::Started) => Outcome::TransactionStart,
            Ok(TxnOutcome::Ended(tag)) => {
                // Cursors end with their transaction, unless held; so do protocol portals.
                cursors::end_transaction(&self.cursors, tag == "COMMIT").await;
                self.portals.lock().expect("portals").end_transaction();
                Outcome::TransactionEnd(tag)
            }
            Err(e) => Outcome::Error(e),
        }
    }

    /// DECLARE, FETCH, MOVE and CLOSE.
    async fn cursor_statement(&self, coord: &Arc<Coordinator>, stmt: &ParsedStatement) -> Outcome {
        let in_block = self.txn.lock().expect("txn").is_active();
        // A waiting FETCH ends on CancelRequest because pgwire drops the running query.
        let failed = self.txn.lock().expect("txn").is_failed();
        let binary = cursors::fetches_binary(stmt, &self.cursors).await;
        let Some(result) = cursors::run(stmt, &self.cursors, coord, in_block, failed).await else {
            unreachable!("a cursor statement")
        };
        match result {
            // PostgreSQL tags a FETCH's rows `FETCH n` (drivers report it), not `SELECT n`.
            Ok(result) => Outcome::Result {
                result,
                binary,
                fetch: matches!(stmt, ParsedStatement::Fetch { .. }),
            },
            Err(e) => Outcome::Error(e),
        }
    }
}
