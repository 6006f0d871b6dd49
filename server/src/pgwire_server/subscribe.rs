//! SUBSCRIBE streamed to the client until it cancels or goes away. Two shapes: COPY data
//! (`COPY (SUBSCRIBE ...) TO STDOUT` in either protocol, and a bare SUBSCRIBE in the simple
//! protocol, so psql prints each change as it comes), or rows in the portal's result formats
//! (a bare SUBSCRIBE through the extended protocol, as drivers stream a query's rows:
//! psycopg's `cursor.stream`, for one). Either way a row is `mz_timestamp`,
//! [`mz_progressed`,] `mz_diff` and the relation's columns (`cursors::subscribe_desc`), each
//! batch of changes is flushed as it arrives, and a CancelRequest ends the stream with 57014.

use std::fmt::Debug;
use std::sync::Arc;

use futures::{Sink, SinkExt};
use kpg_sql::ParsedStatement;
use pgwire::api::portal::Format;
use pgwire::api::results::{DataRowEncoder, Tag};
use pgwire::api::{ClientInfo, ConnectionHandle};
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::copy::{CopyData, CopyDone, CopyOutResponse};
use pgwire::messages::PgWireBackendMessage;

use super::encode::{copy_text, data_row, fields};
use super::{connection, Frontend};
use crate::coord::Bound;
use crate::coord::ExecuteResult;
use crate::cursors::{event_rows, subscribe_desc};
use crate::error::ExecError;
use crate::session::Outcome;

/// How the subscription's rows reach the client.
pub enum Output {
    /// COPY data, one text line a row.
    Copy,
    /// DataRows in these result formats (the portal's).
    Rows(Format),
}

/// Streams the subscription `stmt` starts (run by the session's sequencer, with the values
/// `bound` to it by a Bind). Returns the tag to complete with, or the error that ended the
/// stream.
pub async fn stream<C>(
    frontend: &Frontend,
    client: &mut C,
    stmt: &ParsedStatement,
    bound: Option<Bound>,
    output: Output,
) -> PgWireResult<Result<Tag, ExecError>>
where
    C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
    C::Error: Debug,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
{
    let cancel = match client.session_extensions().get::<Arc<ConnectionHandle>>() {
        Some(handle) => Some(handle.start_query().await),
        None => None,
    };
    let conn = connection(client);
    let style = conn.output_style();
    let started = conn.sequence(&frontend.coord, stmt, bound, false);
    let started = crate::statement_context::scope(conn.statement_context(), started);
    let (desc, mut subscription) = match started.await {
        Outcome::Result {
            result: ExecuteResult::Subscription { desc, subscription },
            ..
        } => (desc, subscription),
        Outcome::Error(e) => return Ok(Err(e)),
        _ => {
            return Ok(Err(ExecError::internal(
                "SUBSCRIBE did not start a subscription",
            )))
        }
    };
    let progress = subscription.progress;
    let desc = subscribe_desc(&desc, progress);
    let arity = desc.arity();
    let schema = match &output {
        Output::Copy => {
            let formats = vec![0; arity];
            let response = CopyOutResponse::new(0, arity as i16, formats);
            client
                .send(PgWireBackendMessage::CopyOutResponse(response))
                .await?;
            None
        }
        Output::Rows(format) => {
            // What a Describe answered leaves now, before the first change.
            client.flush().await?;
            Some(Arc::new(fields(&desc, Some(format))))
        }
    };
    let mut encoder = schema.as_ref().map(|s| DataRowEncoder::new(Arc::clone(s)));
    let mut cancel = cancel.map(Box::pin);
    let mut rows_sent = 0usize;
    loop {
        let event = match cancel.as_mut() {
            Some(cancel) => tokio::select! {
                event = subscription.rx.recv() => event,
                _ = cancel => return Ok(Err(ExecError::new(
                    "57014",
                    "canceling statement due to user request",
                ))),
            },
            None => subscription.rx.recv().await,
        };
        let rows = match event_rows(event, progress, arity) {
            Ok(Some(rows)) => rows,
            Ok(None) => break,
            Err(e) => return Ok(Err(e)),
        };
        for row in rows {
            let message = match (&schema, encoder.as_mut()) {
                (Some(schema), Some(encoder)) => {
                    PgWireBackendMessage::DataRow(data_row(encoder, schema, &row, &style)?)
                }
                _ => {
                    let mut line = String::new();
                    for (i, datum) in row.datums().iter().enumerate() {
                        if i > 0 {
                            line.push('\t');
                        }
                        copy_text(datum, &style, &mut line);
                    }
                    line.push('\n');
                    PgWireBackendMessage::CopyData(CopyData::new(line.into_bytes().into()))
                }
            };
            client.feed(message).await?;
            rows_sent += 1;
        }
        client.flush().await?;
    }
    // The subscription ended (UP TO reached).
    Ok(Ok(match output {
        Output::Copy => {
            client
                .send(PgWireBackendMessage::CopyDone(CopyDone::new()))
                .await?;
            Tag::new("COPY").with_rows(rows_sent)
        }
        Output::Rows(_) => Tag::new("SUBSCRIBE").with_rows(rows_sent),
    }))
}
