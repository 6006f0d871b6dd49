//! DEALLOCATE of prepared statements, which the session holds with its portals
//! (`session/portals.rs`).

use pgwire::api::results::{Response, Tag};

use super::{error_response, Session};
use crate::error::ExecError;
use crate::session::portals::UNNAMED;

/// `DEALLOCATE [PREPARE] name`, or `DEALLOCATE ALL` (`name` is `None`): drops named prepared
/// statements of the connection.
pub fn deallocate(conn: &Session, name: Option<&str>) -> Response {
    let mut portals = conn.portals.lock().expect("portals");
    let Some(n) = name else {
        portals.remove_named_statements();
        return Response::Execution(Tag::new("DEALLOCATE ALL"));
    };
    if n == UNNAMED || !portals.remove_statement(n) {
        return error_response(ExecError::new(
            "26000",
            format!("prepared statement \"{n}\" does not exist"),
        ));
    }
    Response::Execution(Tag::new("DEALLOCATE"))
}
