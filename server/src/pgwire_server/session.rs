//! Statements the session answers itself, without the coordinator: SET, RESET and SHOW of
//! session variables (kept in `session_vars.rs`), and DEALLOCATE of prepared statements.

use kpg_sql::sqlparser::ast::Statement;
use kpg_sql::ParsedStatement;
use std::sync::Mutex;

use pgwire::api::results::{Response, Tag};
use pgwire::api::store::PortalStore;
use pgwire::api::ClientPortalStore;

use super::{error_response, Conn};
use crate::coord::ExecuteResult;
use crate::error::ExecError;
use crate::session_vars::SessionVars;

/// `DEALLOCATE [PREPARE] name | ALL`: drops named prepared statements of the connection.
pub fn deallocate<C>(client: &C, conn: &Conn, stmt: &ParsedStatement) -> Option<Response>
where
    C: ClientPortalStore,
    C::PortalStore: PortalStore,
{
    let ParsedStatement::Sql(Statement::Deallocate { name, .. }) = stmt else {
        return None;
    };
    let mut names = conn.statements.lock().expect("statements");
    if name.quote_style.is_none() && name.value.eq_ignore_ascii_case("all") {
        for n in std::mem::take(&mut *names) {
            client.portal_store().rm_statement(&n);
        }
        return Some(Response::Execution(Tag::new("DEALLOCATE ALL")));
    }
    let n = match name.quote_style {
        Some(_) => name.value.clone(),
        None => name.value.to_lowercase(),
    };
    if !names.remove(&n) {
        return Some(error_response(ExecError::new(
            "26000",
            format!("prepared statement \"{n}\" does not exist"),
        )));
    }
    client.portal_store().rm_statement(&n);
    Some(Response::Execution(Tag::new("DEALLOCATE")))
}

/// Statements about the session rather than the data (SET, RESET, SHOW of a parameter),
/// answered from the connection's variables without the coordinator.
pub fn session_statement(
    vars: &Mutex<SessionVars>,
    stmt: &ParsedStatement,
) -> Option<Result<ExecuteResult, ExecError>> {
    vars.lock().expect("session variables").run(stmt)
}
