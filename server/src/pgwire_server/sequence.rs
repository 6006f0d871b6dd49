//! The session's sequencer: every statement of either protocol, parsed, reaches
//! `respond_in_context`, which sends it to the code of its family by its `ParsedStatement`
//! variant — COPY, transaction control, cursors, session variables — and everything else to
//! the coordinator (or, inside a transaction block, to the block, `txn.rs`).

use futures::stream;
use kpg_sql::{CopyTo, ParsedStatement, TransactionStatement};
use pgwire::api::portal::Format;
use pgwire::api::results::{CopyResponse, Response, Tag};
use pgwire::error::PgWireResult;
use pgwire::messages::copy::CopyData;

use super::encode::to_response;
use super::float_digits;
use super::session::session_statement;
use super::{error_response, Conn, Session};
use crate::coord::ExecuteResult;
use crate::copy_in;
use crate::copy_out::CopyOut;
use crate::cursors;
use crate::error::ExecError;
use crate::implicit_txn;
use crate::txn::{self, TxnOutcome};

impl Session {
    pub(super) async fn respond_in_context(
        &self,
        conn: &Conn,
        stmt: &ParsedStatement,
        format: &Format,
        implicit: bool,
    ) -> PgWireResult<Response> {
        let txn = &conn.txn;
        let float_digits = || conn.output_style();
        if let Some(why) = float_digits::refusal(&float_digits()) {
            if let Err(e) = float_digits::check(stmt, &self.coord, why) {
                txn.lock().expect("txn").fail();
                return Ok(error_response(e));
            }
        }
        if implicit {
            if let Some(result) = implicit_txn::step(txn, stmt, &self.coord).await {
                return match result {
                    Ok(result) => to_response(result, format, &float_digits()),
                    Err(e) => Ok(error_response(e)),
                };
            }
        }
        match stmt {
            ParsedStatement::CopyTo(copy) => return Ok(self.copy_out(conn, copy).await),
            ParsedStatement::CopyFrom(copy) => {
                let copy = copy_in::plan(copy, |name| self.coord.resolve(name));
                return Ok(match copy {
                    Ok(copy) => {
                        let width = copy.width();
                        *conn.copy.lock().expect("copy") = Some(copy);
                        Response::CopyIn(CopyResponse::new(0, width, stream::empty()))
                    }
                    Err(e) => {
                        txn.lock().expect("txn").fail();
                        error_response(e)
                    }
                });
            }
            ParsedStatement::Transaction(t) => return Ok(self.transaction(conn, t).await),
            ParsedStatement::Refused(e) => {
                txn.lock().expect("txn").fail();
                return Ok(error_response(ExecError::from(e.clone())));
            }
            ParsedStatement::Declare { .. }
            | ParsedStatement::Fetch { .. }
            | ParsedStatement::Close { .. } => {
                return self.cursor_statement(conn, stmt, format).await
            }
            _ => {}
        }
        let timeout = conn
            .vars
            .lock()
            .expect("session variables")
            .statement_timeout();
        let result = match stmt {
            // In a failed block, SET, RESET and SHOW are refused too, as every statement but
            // the ones ending it.
            ParsedStatement::Session(_) if txn.lock().expect("txn").is_failed() => {
                Err(txn::aborted())
            }
            ParsedStatement::Session(s) => session_statement(&conn.vars, s),
            _ if txn.lock().expect("txn").is_active() => {
                txn::run_in_block(txn, stmt, &self.coord).await
            }
            _ => self.coord.execute_within(stmt, timeout).await,
        };
        match result {
            Ok(result) => to_response(result, format, &float_digits()),
            Err(e) => {
                txn.lock().expect("txn").fail();
                Ok(error_response(e))
            }
        }
    }

    /// COPY ... TO STDOUT: runs its query and answers with the rows as COPY data.
    async fn copy_out(&self, conn: &Conn, copy: &CopyTo) -> Response {
        let copy = CopyOut::new(copy);
        let result = match self.coord.execute(copy.query()).await {
            Ok(ExecuteResult::Rows { desc, rows }) => {
                Ok((copy.lines(&desc, &rows, &conn.output_style()), desc))
            }
            Ok(_) => Err(ExecError::internal("COPY's query returned no rows")),
            Err(e) => Err(e),
        };
        match result {
            Ok((lines, desc)) => {
                let data = lines
                    .into_iter()
                    .map(|l| Ok(CopyData::new(l.into_bytes().into())));
                Response::CopyOut(CopyResponse::new(0, desc.arity(), stream::iter(data)))
            }
            Err(e) => {
                conn.txn.lock().expect("txn").fail();
                error_response(e)
            }
        }
    }

    /// BEGIN, COMMIT, ROLLBACK and the savepoint statements.
    async fn transaction(&self, conn: &Conn, stmt: &TransactionStatement) -> Response {
        let txn = &conn.txn;
        if let Some(outcome) = txn::savepoint(txn, stmt, &conn.vars, &self.coord).await {
            return match outcome {
                Ok(tag) => Response::Execution(Tag::new(tag)),
                Err(e) => error_response(e),
            };
        }
        let Some(outcome) = txn::control(txn, stmt, &self.coord).await else {
            unreachable!("every transaction statement is a savepoint statement or control")
        };
        // A block's SETs end with it when it rolls back, as in PostgreSQL.
        conn.vars_follow_transaction(&outcome);
        match outcome {
            Ok(TxnOutcome::Started) => Response::TransactionStart(Tag::new("BEGIN")),
            Ok(TxnOutcome::Ended(tag)) => {
                // Cursors end with their transaction, unless held.
                cursors::end_transaction(&conn.cursors, tag == "COMMIT").await;
                Response::TransactionEnd(Tag::new(tag))
            }
            Err(e) => error_response(e),
        }
    }

    /// DECLARE, FETCH, MOVE and CLOSE.
    async fn cursor_statement(
        &self,
        conn: &Conn,
        stmt: &ParsedStatement,
        format: &Format,
    ) -> PgWireResult<Response> {
        let txn = &conn.txn;
        let in_block = txn.lock().expect("txn").is_active();
        // A waiting FETCH ends on CancelRequest because pgwire drops the running query.
        let failed = txn.lock().expect("txn").is_failed();
        let cursor_format = cursors::result_format(stmt, &conn.cursors, format).await;
        let Some(result) = cursors::run(stmt, &conn.cursors, &self.coord, in_block, failed).await
        else {
            unreachable!("a cursor statement")
        };
        match result {
            Ok(result) => {
                let mut response = to_response(result, &cursor_format, &conn.output_style())?;
                // PostgreSQL tags a FETCH's rows `FETCH n` (drivers report it), not `SELECT n`.
                if let (ParsedStatement::Fetch { .. }, Response::Query(rows)) =
                    (stmt, &mut response)
                {
                    rows.set_command_tag("FETCH");
                }
                Ok(response)
            }
            Err(e) => {
                txn.lock().expect("txn").fail();
                Ok(error_response(e))
            }
        }
    }
}
