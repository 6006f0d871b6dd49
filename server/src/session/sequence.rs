//! The session's sequencer. Every statement of either protocol is planned into `kpg_sql`'s
//! one `PlannedStatement` (`Coordinator::plan_statement`: the catalog's statements against
//! the catalog, the session's own without it) and its plan is sequenced by its family: the
//! session's statements here — session variables, transaction control (`txn.rs`), cursors
//! (`cursors.rs`), COPY (`copy_in.rs`, `copy_out.rs`), DEALLOCATE — and the catalog's in the
//! coordinator (reads, DDL, writes, sources and sinks: `coord/`), through the transaction
//! block (`txn.rs`) while one is open. What came of it is an `Outcome`.

use std::sync::Arc;

use kpg_sql::{CopyFormat, ParsedStatement, PlannedStatement, TransactionStatement};

use super::{float_digits, Outcome, Session};
use crate::coord::{Bound, Coordinator, ExecuteResult, Planned};
use crate::copy_in;
use crate::copy_out::CopyOut;
use crate::cursors;
use crate::error::ExecError;
use crate::implicit_txn::{self, Step};
use crate::session::portals::UNNAMED;
use crate::txn::{self, TxnOutcome};

impl Session {
    /// Plans and runs `stmt` (in the statement context of the session,
    /// `statement_context.rs`), with what a Bind gave it if it is a prepared statement
    /// (`bound`). `implicit`: the statement is part of an implicit transaction of several
    /// statements (a pipeline up to Sync, a multi-statement query string), whose INSERTs are
    /// held back until it ends (`implicit_txn.rs`). A statement that fails fails the
    /// transaction block.
    pub async fn sequence(
        &self,
        coord: &Arc<Coordinator>,
        stmt: &ParsedStatement,
        bound: Option<Bound>,
        implicit: bool,
    ) -> Outcome {
        let outcome = self.plan_and_sequence(coord, stmt, bound, implicit).await;
        if let Outcome::Error(_) = outcome {
            // Transaction control reports its own errors without failing the block further.
            if !matches!(stmt, ParsedStatement::Transaction(_)) {
                self.txn.lock().expect("txn").fail();
            }
        }
        outcome
    }

    async fn plan_and_sequence(
        &self,
        coord: &Arc<Coordinator>,
        stmt: &ParsedStatement,
        bound: Option<Bound>,
        implicit: bool,
    ) -> Outcome {
        // In a failed block every statement but the ones ending it is refused, unplanned.
        let ends_block = matches!(stmt, ParsedStatement::Transaction(_));
        if !ends_block && self.txn.lock().expect("txn").is_failed() {
            return Outcome::Error(txn::aborted());
        }
        // statement_timeout covers planning too (a plan over the introspection relations
        // waits for the workers' figures) and, again, running.
        let planning = coord.plan_statement(stmt, bound.as_ref());
        let planning = crate::coord::within(self.statement_timeout(), planning);
        let planned = match planning.await {
            Ok(planned) => planned,
            Err(e) => return Outcome::Error(e),
        };
        if let Some(why) = float_digits::refusal(&self.output_style()) {
            if let Err(e) = float_digits::check(stmt, &planned.plan, why) {
                return Outcome::Error(e);
            }
        }
        let planned = match implicit {
            true => match implicit_txn::step(&self.txn, planned, coord).await {
                Step::Done(result) => return outcome(result),
                Step::Run(planned) => planned,
            },
            false => planned,
        };
        self.sequence_plan(coord, stmt, planned).await
    }

    /// Runs the plan of `stmt` by its family.
    async fn sequence_plan(
        &self,
        coord: &Arc<Coordinator>,
        stmt: &ParsedStatement,
        planned: Planned,
    ) -> Outcome {
        let Planned {
            plan,
            generation,
            bound,
        } = planned;
        let result = match plan {
            PlannedStatement::CopyTo { query, format } => {
                return self.copy_out(coord, *query, &format).await
            }
            PlannedStatement::CopyFrom(plan) => {
                let copy = copy_in::start(plan);
                let width = copy.width();
                *self.copy.lock().expect("copy") = Some(copy);
                return Outcome::CopyIn { width };
            }
            PlannedStatement::Transaction(t) => return self.transaction(coord, &t).await,
            plan @ (PlannedStatement::Declare { .. }
            | PlannedStatement::Fetch(_)
            | PlannedStatement::Close { .. }) => {
                return self.cursor_statement(coord, plan, generation).await
            }
            PlannedStatement::Deallocate { name } => return self.deallocate(name.as_deref()),
            PlannedStatement::Session(s) => self.vars.lock().expect("session variables").run(&s),
            plan => {
                let planned = Planned {
                    plan,
                    generation,
                    bound,
                };
                if self.txn.lock().expect("txn").is_active() {
                    txn::run_in_block(&self.txn, stmt, planned, coord).await
                } else {
                    let timeout = self.statement_timeout();
                    coord.execute_planned(stmt, planned, timeout).await
                }
            }
        };
        outcome(result)
    }

    fn statement_timeout(&self) -> Option<std::time::Duration> {
        self.vars
            .lock()
            .expect("session variables")
            .statement_timeout()
    }

    /// COPY ... TO STDOUT: runs its query; its rows as COPY data.
    async fn copy_out(
        &self,
        coord: &Arc<Coordinator>,
        query: PlannedStatement,
        format: &CopyFormat,
    ) -> Outcome {
        match coord.run_read(query).await {
            Ok(ExecuteResult::Rows { desc, rows }) => {
                let lines = CopyOut::new(format).lines(&desc, &rows, &self.output_style());
                Outcome::CopyOut { desc, lines }
            }
            Ok(_) => Outcome::Error(ExecError::internal("COPY's query returned no rows")),
            Err(e) => Outcome::Error(e),
        }
    }

    /// `DEALLOCATE [PREPARE] name`, or `DEALLOCATE ALL` (`name` is `None`): forgets prepared
    /// statements of the session.
    fn deallocate(&self, name: Option<&str>) -> Outcome {
        let mut portals = self.portals.lock().expect("portals");
        let Some(n) = name else {
            portals.remove_named_statements();
            return Outcome::Tag("DEALLOCATE ALL");
        };
        if n == UNNAMED || !portals.remove_statement(n) {
            return Outcome::Error(ExecError::new(
                "26000",
                format!("prepared statement \"{n}\" does not exist"),
            ));
        }
        Outcome::Tag("DEALLOCATE")
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
    async fn cursor_statement(
        &self,
        coord: &Arc<Coordinator>,
        plan: PlannedStatement,
        generation: u64,
    ) -> Outcome {
        let in_block = self.txn.lock().expect("txn").is_active();
        // A waiting FETCH ends on CancelRequest because pgwire drops the running query.
        let binary = cursors::fetches_binary(&plan, &self.cursors).await;
        let fetch = matches!(plan, PlannedStatement::Fetch(_));
        let run = cursors::run(plan, generation, &self.cursors, coord, in_block);
        let Some(result) = run.await else {
            unreachable!("a cursor statement")
        };
        match result {
            // PostgreSQL tags a FETCH's rows `FETCH n` (drivers report it), not `SELECT n`.
            Ok(result) => Outcome::Result {
                result,
                binary,
                fetch,
            },
            Err(e) => Outcome::Error(e),
        }
    }
}

/// The outcome of a statement's result.
fn outcome(result: Result<ExecuteResult, ExecError>) -> Outcome {
    match result {
        Ok(result) => Outcome::of(result),
        Err(e) => Outcome::Error(e),
    }
}
