//! Execute of a portal (extended protocol), written against pgwire's public portal API so that
//! the whole response reaches the socket in one write.
//!
//! pgwire's own `_on_execute` flushes after the CommandComplete that ends a result, and its
//! Parse and Bind handlers flush after ParseComplete and BindComplete. A client that pipelines
//! Parse/Bind/Execute/Sync (every driver does) then gets three or four TCP segments per
//! statement, each waking it up before the answer is complete; on loopback that costs more than
//! planning a point lookup. PostgreSQL buffers its replies until Sync or Flush, which is what the
//! protocol allows: here every message is fed, and the connection's Sync/Flush handler writes.
//! Errors still flush at once, as pgwire does.

use std::fmt::Debug;
use std::ops::Deref;
use std::sync::Arc;

use futures::{Sink, SinkExt, StreamExt};
use pgwire::api::copy::{send_copy_both_response, send_copy_in_response, send_copy_out_response};
use pgwire::api::portal::PortalExecutionState;
use pgwire::api::query::{send_execution_response, ExtendedQueryHandler};
use pgwire::api::results::{Response, Tag};
use pgwire::api::store::PortalStore;
use pgwire::api::{ClientInfo, ClientPortalStore, PgWireConnectionState};
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::extendedquery::{Execute, PortalSuspended};
use pgwire::messages::response::EmptyQueryResponse;
use pgwire::messages::PgWireBackendMessage;

use crate::session::portals::UNNAMED;

/// Runs (or continues) the portal `message` names, feeding its rows and its completion to
/// `client` without flushing. Cancellation is the caller's (it races this future).
pub async fn execute_portal<C>(
    handler: &super::Frontend,
    client: &mut C,
    message: Execute,
) -> PgWireResult<()>
where
    C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
    C::PortalStore: PortalStore<Statement = super::PreparedStatement>,
    C::Error: Debug,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
{
    if !matches!(client.state(), PgWireConnectionState::ReadyForQuery) {
        return Err(PgWireError::NotReadyForQuery);
    }
    let mut status = client.transaction_status();
    client.set_state(PgWireConnectionState::QueryInProgress);
    let name = message.name.as_deref().unwrap_or(UNNAMED);
    let max_rows = message.max_rows as usize;
    let portals = Arc::clone(&super::connection(client).portals);
    if portals.lock().expect("portals").is_done(name) {
        // As PostgreSQL: a statement's portal runs once (a query's may be read to its end).
        return Err(super::pg_error(crate::error::ExecError::new(
            "55000",
            format!("portal \"{name}\" cannot be run"),
        )));
    }
    let portal = portals.lock().expect("portals").portal(name);
    let portal = match portal {
        Some(Some(portal)) => portal,
        Some(None) => {
            client
                .feed(PgWireBackendMessage::EmptyQueryResponse(
                    EmptyQueryResponse::new(),
                ))
                .await?;
            client.set_state(PgWireConnectionState::ReadyForQuery);
            return Ok(());
        }
        None => return Err(super::pg_error(super::no_portal(name))),
    };
    let initial = matches!(
        portal.state().lock().await.deref(),
        PortalExecutionState::Initial
    );
    let has_rows = if initial {
        match handler.do_query(client, portal.as_ref(), max_rows).await? {
            Response::Query(results) => {
                portal.start(results).await;
                true
            }
            Response::EmptyQuery => {
                client
                    .feed(PgWireBackendMessage::EmptyQueryResponse(
                        EmptyQueryResponse::new(),
                    ))
                    .await?;
                false
            }
            Response::Execution(tag) => {
                send_execution_response(client, tag).await?;
                false
            }
            Response::TransactionStart(tag) => {
                send_execution_response(client, tag).await?;
                status = status.to_in_transaction_state();
                false
            }
            Response::TransactionEnd(tag) => {
                send_execution_response(client, tag).await?;
                status = status.to_idle_state();
                false
            }
            Response::Error(err) => {
                client
                    .send(PgWireBackendMessage::ErrorResponse((*err).into()))
                    .await?;
                status = status.to_error_state();
                false
            }
            Response::CopyIn(result) => {
                client.set_state(PgWireConnectionState::CopyInProgress(true));
                send_copy_in_response(client, result).await?;
                false
            }
            Response::CopyOut(result) => {
                send_copy_out_response(client, result).await?;
                false
            }
            Response::CopyBoth(result) => {
                client.set_state(PgWireConnectionState::CopyInProgress(true));
                send_copy_both_response(client, result).await?;
                false
            }
        }
    } else {
        // A suspended portal: the next rows.
        true
    };
    if initial && !has_rows {
        portals.lock().expect("portals").mark_done(name);
    }
    if has_rows {
        let fetched = portal.fetch(max_rows).await?;
        let mut response = fetched.response;
        let tag = response.command_tag().to_owned();
        let mut count = 0;
        while let Some(row) = response.data_rows().next().await {
            client.feed(PgWireBackendMessage::DataRow(row?)).await?;
            count += 1;
        }
        let end = match fetched.suspended {
            true => PgWireBackendMessage::PortalSuspended(PortalSuspended::new()),
            false => PgWireBackendMessage::CommandComplete(Tag::new(&tag).with_rows(count).into()),
        };
        client.feed(end).await?;
    }
    if !matches!(client.state(), PgWireConnectionState::CopyInProgress(_)) {
        client.set_state(PgWireConnectionState::ReadyForQuery);
        client.set_transaction_status(status);
    }
    Ok(())
}
