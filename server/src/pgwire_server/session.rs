//! Statements the session answers itself, without the coordinator: SET, RESET and SHOW of
//! session variables (kept in `session_vars.rs`), and DEALLOCATE of prepared statements.

use kpg_sql::SessionStatement;
use std::sync::Mutex;

use pgwire::api::results::{Response, Tag};
use pgwire::api::store::PortalStore;
use pgwire::api::ClientPortalStore;

use super::{error_response, Conn};
use crate::coord::ExecuteResult;
use crate::error::ExecError;
use crate::session_vars::SessionVars;

/// `DEALLOCATE [PREPARE] name`, or `DEALLOCATE ALL` (`name` is `None`): drops named prepared
/// statements of the connection.
pub fn deallocate<C>(client: &C, conn: &Conn, name: Option<&str>) -> Response
where
    C: ClientPortalStore,
    C::PortalStore: PortalStore,
{
    let mut names = conn.statements.lock().expect("statements");
    let Some(n) = name else {
        for n in std::mem::take(&mut *names) {
            client.portal_store().rm_statement(&n);
        }
        return Response::Execution(Tag::new("DEALLOCATE ALL"));
    };
    if !names.remove(n) {
        return error_response(ExecError::new(
            "26000",
            format!("prepared statement \"{n}\" does not exist"),
        ));
    }
    client.portal_store().rm_statement(n);
    Response::Execution(Tag::new("DEALLOCATE"))
}

/// Statements about the session rather than the data (SET, RESET, SHOW of a parameter),
/// answered from the connection's variables without the coordinator.
pub fn session_statement(
    vars: &Mutex<SessionVars>,
    stmt: &SessionStatement,
) -> Result<ExecuteResult, ExecError> {
    vars.lock().expect("session variables").run(stmt)
}
