//! DEALLOCATE of prepared statements, which live in pgwire's portal store: answered by the
//! protocol layer itself.

use pgwire::api::results::{Response, Tag};
use pgwire::api::store::PortalStore;
use pgwire::api::ClientPortalStore;

use super::{error_response, Session};
use crate::error::ExecError;

/// `DEALLOCATE [PREPARE] name`, or `DEALLOCATE ALL` (`name` is `None`): drops named prepared
/// statements of the connection.
pub fn deallocate<C>(client: &C, conn: &Session, name: Option<&str>) -> Response
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
