//! Statements the session answers itself, without the coordinator: SET and SHOW of session
//! variables, and DEALLOCATE of prepared statements.

use kpg_sql::sqlparser::ast::Statement;
use kpg_sql::ParsedStatement;
use kpg_types::{Datum, RelationDesc, Row, ScalarType};
use pgwire::api::results::{Response, Tag};
use pgwire::api::store::PortalStore;
use pgwire::api::ClientPortalStore;

use super::{error_response, Conn};
use crate::coord::ExecuteResult;
use crate::error::ExecError;

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

/// Statements about the session rather than the data, answered without the coordinator.
pub fn session_statement(stmt: &ParsedStatement) -> Option<Result<ExecuteResult, ExecError>> {
    let ParsedStatement::Sql(stmt) = stmt else {
        return None;
    };
    Some(match stmt {
        Statement::Set(_) => Ok(ExecuteResult::Command("SET".into())),
        // SHOW INDEXES is about the catalog: the coordinator answers it.
        Statement::ShowVariable { variable }
            if variable
                .first()
                .is_some_and(|i| i.value.eq_ignore_ascii_case("indexes")) =>
        {
            return None
        }
        Statement::ShowVariable { variable } => {
            let name = variable
                .iter()
                .map(|i| i.value.to_lowercase())
                .collect::<Vec<_>>()
                .join(" ");
            let value = match name.as_str() {
                "server_version" => "16.6",
                "server_encoding" | "client_encoding" => "UTF8",
                "datestyle" => "ISO, MDY",
                "timezone" => "UTC",
                "transaction isolation level" | "transaction_isolation" => "strict serializable",
                "standard_conforming_strings" => "on",
                "integer_datetimes" => "on",
                "search_path" => "public",
                _ => {
                    return Some(Err(ExecError::new(
                        "42704",
                        format!("unrecognized configuration parameter \"{name}\""),
                    )))
                }
            };
            let col = kpg_types::ColumnType::new(ScalarType::Text, false);
            Ok(ExecuteResult::Rows {
                desc: RelationDesc::new(vec![(name, col)]),
                rows: vec![Row::new(vec![Datum::String(value.into())])],
            })
        }
        _ => return None,
    })
}
