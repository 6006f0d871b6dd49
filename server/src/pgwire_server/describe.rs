//! Describe's answer, queued rather than sent.
//!
//! pgwire's own `on_describe` sends (writes and flushes) its answer at once, so a prepared
//! statement executed through libpq (Bind, Describe, Execute, Sync) cost two socket writes and
//! woke the client twice, where PostgreSQL writes once, at Sync. Here the answer is fed into
//! the connection's buffer and leaves with whatever Sync or Flush sends next: a client that
//! waits for a Describe's answer must send one of them, as the protocol says. A cursor made by
//! DECLARE is a portal too, described by its name as PostgreSQL does.

use std::fmt::Debug;
use std::sync::Arc;

use futures::{Sink, SinkExt};
use pgwire::api::portal::Format;
use pgwire::api::results::{DescribePortalResponse, DescribeResponse};
use pgwire::api::store::PortalStore;
use pgwire::api::{ClientInfo, ClientPortalStore};

use crate::session::portals::UNNAMED;
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::data::{FieldDescription, NoData, ParameterDescription, RowDescription};
use pgwire::messages::extendedquery::{
    Describe, TARGET_TYPE_BYTE_PORTAL, TARGET_TYPE_BYTE_STATEMENT,
};
use pgwire::messages::PgWireBackendMessage;

use super::prepared::PreparedStatement;
use super::Frontend;

/// Answers `message` from the session's statements and portals, leaving the answer in the
/// buffer (pgwire's `on_describe` sends it at once).
pub async fn describe<C>(session: &Frontend, client: &mut C, message: Describe) -> PgWireResult<()>
where
    C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
    C::PortalStore: PortalStore<Statement = PreparedStatement>,
    C::Error: Debug,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
{
    use pgwire::api::query::ExtendedQueryHandler;
    let name = message.name.as_deref().unwrap_or(UNNAMED);
    let portals = Arc::clone(&super::connection(client).portals);
    match message.target_type {
        TARGET_TYPE_BYTE_STATEMENT => match statement(&portals, name) {
            Some(Some(stmt)) => {
                let response = session.do_describe_statement(client, &stmt).await?;
                queue(client, &response).await
            }
            Some(None) => {
                let response = pgwire::api::results::DescribeStatementResponse::no_data();
                queue(client, &response).await
            }
            None => Err(super::pg_error(super::no_statement(name))),
        },
        TARGET_TYPE_BYTE_PORTAL => match portal(&portals, name) {
            Some(Some(portal)) => {
                let response = session.do_describe_portal(client, &portal).await?;
                queue(client, &response).await
            }
            Some(None) => {
                let response = pgwire::api::results::DescribePortalResponse::no_data();
                queue(client, &response).await
            }
            None => {
                let cursors = Arc::clone(&super::connection(client).cursors);
                let Some((desc, binary)) = crate::cursors::portal_desc(name, &cursors).await else {
                    return Err(super::pg_error(super::no_portal(name)));
                };
                let format = super::encode::cursor_format(binary, &Format::UnifiedText);
                let fields = super::encode::fields(&desc, Some(&format));
                queue(client, &DescribePortalResponse::new(fields)).await
            }
        },
        other => Err(PgWireError::InvalidTargetType(other)),
    }
}

fn statement(
    portals: &std::sync::Mutex<super::Portals>,
    name: &str,
) -> Option<Option<Arc<pgwire::api::stmt::StoredStatement<PreparedStatement>>>> {
    portals.lock().expect("portals").statement(name)
}

fn portal(
    portals: &std::sync::Mutex<super::Portals>,
    name: &str,
) -> Option<Option<Arc<pgwire::api::portal::Portal<PreparedStatement>>>> {
    portals.lock().expect("portals").portal(name)
}

async fn queue<C, DR>(client: &mut C, response: &DR) -> PgWireResult<()>
where
    C: Sink<PgWireBackendMessage> + Unpin,
    C::Error: Debug,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    DR: DescribeResponse,
{
    if let Some(types) = response.parameters() {
        let oids = types.iter().map(|t| t.oid()).collect();
        client
            .feed(PgWireBackendMessage::ParameterDescription(
                ParameterDescription::new(oids),
            ))
            .await?;
    }
    let message = if response.is_no_data() {
        PgWireBackendMessage::NoData(NoData::new())
    } else {
        let fields: Vec<FieldDescription> = response.fields().iter().map(Into::into).collect();
        PgWireBackendMessage::RowDescription(RowDescription::new(fields))
    };
    client.feed(message).await?;
    Ok(())
}
