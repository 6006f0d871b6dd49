//! The PostgreSQL wire protocol front end, on the `pgwire` crate (pinned; this is the only module
//! that touches its API).
//!
//! Simple and extended query protocols both end in `Session::run`, which handles session-level
//! statements (SET, SHOW) itself and hands everything else to the coordinator. `COPY (SUBSCRIBE
//! ...) TO STDOUT` is streamed here rather than through pgwire's COPY helper, because a
//! subscription never ends on its own: each batch of changes is flushed to the client as it
//! arrives, and the stream stops when the client sends a CancelRequest or goes away.

use std::fmt::Debug;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::{stream, Sink, SinkExt};
use kpg_sql::sqlparser::ast::Statement;
use kpg_sql::ParsedStatement;
use kpg_types::{Datum, RelationDesc, Row, ScalarType};
use pgwire::api::auth::noop::NoopStartupHandler;
use pgwire::api::cancel::DefaultCancelHandler;
use pgwire::api::copy::CopyHandler;
use pgwire::api::portal::{Format, Portal};
use pgwire::api::query::{send_ready_for_query, ExtendedQueryHandler, SimpleQueryHandler};
use pgwire::api::results::{
    CopyResponse, DataRowEncoder, FieldFormat, FieldInfo, QueryResponse, Response, Tag,
};
use pgwire::api::stmt::QueryParser;
use pgwire::api::store::{Entry, PortalStore};
use pgwire::api::{
    ClientInfo, ClientPortalStore, ConnectionHandle, ConnectionManager, PgWireConnectionState,
    PgWireServerHandlers, Type,
};
use pgwire::api::{METADATA_DATABASE, METADATA_USER};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::copy::{CopyData, CopyDone, CopyFail, CopyOutResponse};
use pgwire::messages::data::DataRow;
use pgwire::messages::extendedquery::Execute;
use pgwire::messages::response::CommandComplete;
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};

use crate::coord::{Coordinator, ExecuteResult, SubscribeEvent};
use crate::copy_in::{self, CopyIn};
use crate::error::ExecError;
use crate::txn::{self, SharedTxn, Txn, TxnOutcome};

/// Handlers shared by every connection.
pub struct Handlers {
    session: Arc<Session>,
    cancel: Arc<DefaultCancelHandler>,
}

impl Handlers {
    pub fn new(coord: Arc<Coordinator>) -> Arc<Handlers> {
        let manager = Arc::new(ConnectionManager::new());
        let session = Arc::new(Session {
            coord: Arc::clone(&coord),
            manager: Arc::clone(&manager),
            parser: Arc::new(StatementParser { coord }),
        });
        Arc::new(Handlers {
            session,
            cancel: Arc::new(DefaultCancelHandler::new(manager)),
        })
    }
}

impl PgWireServerHandlers for Handlers {
    fn simple_query_handler(&self) -> Arc<impl SimpleQueryHandler> {
        Arc::clone(&self.session)
    }

    fn extended_query_handler(&self) -> Arc<impl ExtendedQueryHandler> {
        Arc::clone(&self.session)
    }

    fn startup_handler(&self) -> Arc<impl pgwire::api::auth::StartupHandler> {
        Arc::clone(&self.session)
    }

    fn copy_handler(&self) -> Arc<impl CopyHandler> {
        Arc::clone(&self.session)
    }

    fn cancel_handler(&self) -> Arc<impl pgwire::api::cancel::CancelHandler> {
        Arc::clone(&self.cancel)
    }
}

pub struct Session {
    coord: Arc<Coordinator>,
    manager: Arc<ConnectionManager>,
    parser: Arc<StatementParser>,
}

#[async_trait]
impl NoopStartupHandler for Session {
    fn connection_manager(&self) -> Option<Arc<ConnectionManager>> {
        Some(Arc::clone(&self.manager))
    }

    /// kpg has one database, `kpg`; any user name may connect to it.
    async fn post_startup<C>(
        &self,
        client: &mut C,
        _message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let metadata = client.metadata();
        let database = metadata
            .get(METADATA_DATABASE)
            .or_else(|| metadata.get(METADATA_USER))
            .cloned()
            .unwrap_or_default();
        if database != DATABASE {
            let mut info = error_info(ExecError::new(
                "3D000",
                format!("database \"{database}\" does not exist"),
            ));
            info.severity = "FATAL".to_string();
            return Err(PgWireError::UserError(Box::new(info)));
        }
        Ok(())
    }
}

/// The one database kpg serves.
const DATABASE: &str = "kpg";

/// A statement prepared through the extended protocol.
#[derive(Clone, Debug)]
pub struct PreparedStatement {
    stmt: ParsedStatement,
}

pub struct StatementParser {
    coord: Arc<Coordinator>,
}

#[async_trait]
impl QueryParser for StatementParser {
    type Statement = PreparedStatement;

    async fn parse_sql<C>(
        &self,
        _client: &C,
        sql: &str,
        _types: &[Option<Type>],
    ) -> PgWireResult<Option<PreparedStatement>>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        let mut stmts = kpg_sql::parse(sql).map_err(|e| pg_error(ExecError::from(e)))?;
        match stmts.len() {
            0 => Ok(None),
            1 => Ok(Some(PreparedStatement {
                stmt: stmts.remove(0),
            })),
            _ => Err(pg_error(ExecError::new(
                "42601",
                "cannot insert multiple commands into a prepared statement",
            ))),
        }
    }

    fn get_parameter_types(&self, _stmt: &PreparedStatement) -> PgWireResult<Vec<Type>> {
        Ok(Vec::new())
    }

    fn get_result_schema(
        &self,
        stmt: &PreparedStatement,
        format: Option<&Format>,
    ) -> PgWireResult<Vec<FieldInfo>> {
        let desc = if let Some(result) =
            session_statement(&stmt.stmt).or_else(|| self.coord.show(&stmt.stmt))
        {
            match result {
                Ok(ExecuteResult::Rows { desc, .. }) => Some(desc),
                _ => None,
            }
        } else if is_transaction_control(&stmt.stmt)
            || copy_in::plan(&stmt.stmt, |_| None).is_some()
        {
            // Transaction control and COPY return no rows.
            None
        } else {
            match self.coord.plan(&stmt.stmt).map_err(pg_error)? {
                kpg_sql::PlannedStatement::Select { desc, .. } => Some(desc),
                kpg_sql::PlannedStatement::Explain { column, .. } => {
                    Some(crate::coord::explain_desc(column))
                }
                _ => None,
            }
        };
        Ok(desc.map(|d| fields(&d, format)).unwrap_or_default())
    }
}

#[async_trait]
impl SimpleQueryHandler for Session {
    async fn on_query<C>(
        &self,
        client: &mut C,
        query: pgwire::messages::simplequery::Query,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        // Subscriptions stream until cancelled, which pgwire's own COPY path cannot do.
        if let Ok(stmts) = kpg_sql::parse(&query.query) {
            if let [stmt @ ParsedStatement::Subscribe { .. }] = stmts.as_slice() {
                if matches!(client.state(), PgWireConnectionState::ReadyForQuery) {
                    client.set_state(PgWireConnectionState::QueryInProgress);
                    let outcome = self.stream_subscription(client, stmt).await?;
                    Self::complete(client, outcome).await?;
                    return send_ready_for_query(client, client.transaction_status()).await;
                }
            }
        }
        self._on_query(client, query).await
    }

    async fn do_query<C>(&self, client: &mut C, query: &str) -> PgWireResult<Vec<Response>>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let stmts = match kpg_sql::parse(query) {
            Ok(stmts) => stmts,
            Err(e) => return Ok(vec![error_response(ExecError::from(e))]),
        };
        let conn = connection(client);
        let mut responses = Vec::with_capacity(stmts.len());
        for stmt in stmts {
            let response = self.respond(&conn, &stmt, &Format::UnifiedText).await?;
            // Like PostgreSQL, a failed statement ends the rest of the query string.
            let failed = matches!(response, Response::Error(_));
            responses.push(response);
            if failed {
                break;
            }
        }
        Ok(responses)
    }
}

#[async_trait]
impl ExtendedQueryHandler for Session {
    type Statement = PreparedStatement;
    type QueryParser = StatementParser;

    fn query_parser(&self) -> Arc<StatementParser> {
        Arc::clone(&self.parser)
    }

    async fn on_execute<C>(&self, client: &mut C, message: Execute) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        // Subscriptions stream until cancelled, which pgwire's own COPY path cannot do.
        let name = message.name.as_deref().unwrap_or(pgwire::api::DEFAULT_NAME);
        if let Some(Entry::Value(portal)) = client.portal_store().get_portal(name) {
            let stmt = &portal.statement.statement;
            if matches!(stmt.stmt, ParsedStatement::Subscribe { .. })
                && matches!(client.state(), PgWireConnectionState::ReadyForQuery)
            {
                client.set_state(PgWireConnectionState::QueryInProgress);
                let outcome = self.stream_subscription(client, &stmt.stmt).await?;
                return Self::complete(client, outcome).await;
            }
        }
        self._on_execute(client, message).await
    }

    async fn do_query<C>(
        &self,
        client: &mut C,
        portal: &Portal<PreparedStatement>,
        _max_rows: usize,
    ) -> PgWireResult<Response>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        if !portal.parameters.is_empty() {
            return Ok(error_response(ExecError::unsupported(
                "statement parameters ($1, ...)",
            )));
        }
        let stmt = &portal.statement.statement;
        if matches!(stmt.stmt, ParsedStatement::Subscribe { .. }) {
            return Ok(error_response(ExecError::unsupported(
                "SUBSCRIBE through the extended protocol",
            )));
        }
        let conn = connection(client);
        self.respond(&conn, &stmt.stmt, &portal.result_column_format)
            .await
    }
}

impl Session {
    /// Runs one statement for the connection whose transaction state is `txn`, as a response.
    async fn respond(
        &self,
        conn: &Conn,
        stmt: &ParsedStatement,
        format: &Format,
    ) -> PgWireResult<Response> {
        let txn = &conn.txn;
        if let Some(copy) = copy_in::plan(stmt, |name| self.coord.resolve(name)) {
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
        if let Some(outcome) = txn::control(txn, stmt, &self.coord).await {
            return Ok(match outcome {
                Ok(TxnOutcome::Started) => Response::TransactionStart(Tag::new("BEGIN")),
                Ok(TxnOutcome::Ended(tag)) => Response::TransactionEnd(Tag::new(tag)),
                Err(e) => error_response(e),
            });
        }
        let result = match session_statement(stmt) {
            Some(result) => result,
            None if txn.lock().expect("txn").is_active() => {
                txn::run_in_block(txn, stmt, &self.coord).await
            }
            None => self.coord.execute(stmt).await,
        };
        match result {
            Ok(result) => to_response(result, format),
            Err(e) => {
                txn.lock().expect("txn").fail();
                Ok(error_response(e))
            }
        }
    }

    /// Streams a subscription as COPY data until the client cancels or disconnects. Returns
    /// the tag to complete with, or the error that ended the stream.
    async fn stream_subscription<C>(
        &self,
        client: &mut C,
        stmt: &ParsedStatement,
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
        let (desc, mut subscription) = match self.coord.execute(stmt).await {
            Ok(ExecuteResult::Subscription { desc, subscription }) => (desc, subscription),
            Ok(_) => {
                return Ok(Err(ExecError::internal(
                    "SUBSCRIBE did not start a subscription",
                )))
            }
            Err(e) => return Ok(Err(e)),
        };
        let columns = desc.arity() + 2;
        client
            .send(PgWireBackendMessage::CopyOutResponse(CopyOutResponse::new(
                0,
                columns as i16,
                vec![0; columns],
            )))
            .await?;
        let mut cancel = cancel.map(Box::pin);
        let mut rows_sent = 0usize;
        loop {
            let event = match cancel.as_mut() {
                Some(cancel) => tokio::select! {
                    event = subscription.rx.recv() => event,
                    _ = cancel => return Ok(Err(ExecError::new("57014", "canceling statement due to user request"))),
                },
                None => subscription.rx.recv().await,
            };
            match event {
                Some(SubscribeEvent::Updates(updates)) => {
                    for (time, diff, row) in updates {
                        let mut line = format!("{time}\t{diff}");
                        for datum in row.iter() {
                            line.push('\t');
                            copy_text(datum, &mut line);
                        }
                        line.push('\n');
                        client
                            .feed(PgWireBackendMessage::CopyData(CopyData::new(
                                line.into_bytes().into(),
                            )))
                            .await?;
                        rows_sent += 1;
                    }
                    client.flush().await?;
                }
                Some(SubscribeEvent::Error(e)) => return Ok(Err(ExecError::from(e))),
                None => {
                    client
                        .send(PgWireBackendMessage::CopyDone(CopyDone::new()))
                        .await?;
                    return Ok(Ok(Tag::new("COPY").with_rows(rows_sent)));
                }
            }
        }
    }

    /// Sends the outcome of a statement that `Session` ran itself.
    async fn complete<C>(client: &mut C, outcome: Result<Tag, ExecError>) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        match outcome {
            Ok(tag) => {
                client
                    .send(PgWireBackendMessage::CommandComplete(
                        CommandComplete::from(tag),
                    ))
                    .await?
            }
            Err(e) => {
                client
                    .send(PgWireBackendMessage::ErrorResponse(error_info(e).into()))
                    .await?
            }
        }
        client.set_state(PgWireConnectionState::ReadyForQuery);
        Ok(())
    }
}

fn is_transaction_control(stmt: &ParsedStatement) -> bool {
    matches!(
        stmt,
        ParsedStatement::Sql(
            Statement::StartTransaction { .. }
                | Statement::Commit { .. }
                | Statement::Rollback { .. }
        )
    )
}

/// The state kpg keeps per connection: its transaction block and a COPY FROM in progress.
struct Conn {
    txn: SharedTxn,
    copy: Arc<Mutex<Option<CopyIn>>>,
}

fn connection<C: ClientInfo>(client: &C) -> Conn {
    let ext = client.session_extensions();
    Conn {
        txn: ext.get_or_insert_with(|| Mutex::new(Txn::default())),
        copy: ext.get_or_insert_with(|| Mutex::new(None::<CopyIn>)),
    }
}

#[async_trait]
impl CopyHandler for Session {
    async fn on_copy_data<C>(&self, client: &mut C, data: CopyData) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        if let Some(copy) = connection(client).copy.lock().expect("copy").as_mut() {
            copy.push(&data.data);
        }
        Ok(())
    }

    async fn on_copy_done<C>(&self, client: &mut C, _done: CopyDone) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let conn = connection(client);
        let Some(copy) = conn.copy.lock().expect("copy").take() else {
            return Err(pg_error(ExecError::new(
                "08P01",
                "CopyDone without COPY FROM STDIN",
            )));
        };
        let result = async {
            let rows: Vec<(Row, i64)> = copy.rows()?.into_iter().map(|r| (r, 1)).collect();
            let count = rows.len();
            if conn.txn.lock().expect("txn").is_active() {
                self.coord
                    .check_not_null(copy.table, rows.iter().map(|(r, _)| r))?;
                conn.txn.lock().expect("txn").buffer(copy.table, rows)?;
            } else {
                self.coord.insert_rows(copy.table, rows).await?;
            }
            Ok::<usize, ExecError>(count)
        }
        .await;
        match result {
            Ok(count) => {
                let tag = Tag::new("COPY").with_rows(count);
                client
                    .send(PgWireBackendMessage::CommandComplete(
                        CommandComplete::from(tag),
                    ))
                    .await?;
                Ok(())
            }
            Err(e) => {
                conn.txn.lock().expect("txn").fail();
                Err(pg_error(e))
            }
        }
    }

    async fn on_copy_fail<C>(&self, client: &mut C, fail: CopyFail) -> PgWireError
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let conn = connection(client);
        conn.copy.lock().expect("copy").take();
        conn.txn.lock().expect("txn").fail();
        pg_error(ExecError::new(
            "57014",
            format!("COPY from stdin failed: {}", fail.message),
        ))
    }
}

/// Statements about the session rather than the data, answered without the coordinator.
fn session_statement(stmt: &ParsedStatement) -> Option<Result<ExecuteResult, ExecError>> {
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

fn fields(desc: &RelationDesc, format: Option<&Format>) -> Vec<FieldInfo> {
    desc.columns
        .iter()
        .enumerate()
        .map(|(i, (name, ty))| {
            let format = format.map_or(FieldFormat::Text, |f| f.format_for(i));
            let pg_type = Type::from_oid(ty.scalar.oid()).unwrap_or(Type::TEXT);
            FieldInfo::new(name.clone(), None, None, pg_type, format)
                .with_type_modifier(ty.scalar.typmod())
        })
        .collect()
}

fn to_response(result: ExecuteResult, format: &Format) -> PgWireResult<Response> {
    Ok(match result {
        ExecuteResult::Command(tag) => Response::Execution(command_tag(&tag)),
        ExecuteResult::Rows { desc, rows } => {
            let schema = Arc::new(fields(&desc, Some(format)));
            let mut encoder = DataRowEncoder::new(Arc::clone(&schema));
            let data: Vec<PgWireResult<DataRow>> = rows
                .into_iter()
                .map(|row| {
                    for (datum, field) in row.iter().zip(schema.iter()) {
                        encode_datum(&mut encoder, datum, field)?;
                    }
                    Ok(encoder.take_row())
                })
                .collect();
            Response::Query(QueryResponse::new(schema, stream::iter(data)))
        }
        ExecuteResult::Subscription { .. } => {
            return Ok(error_response(ExecError::unsupported(
                "SUBSCRIBE inside a multi-statement query",
            )))
        }
    })
}

/// Splits a tag like `INSERT 0 3` into pgwire's command and row count.
fn command_tag(tag: &str) -> Tag {
    match tag.rsplit_once(' ') {
        Some((command, rows))
            if rows.chars().all(|c| c.is_ascii_digit()) && command != "CREATE" =>
        {
            match rows.parse() {
                Ok(n) => Tag::new(command).with_rows(n),
                Err(_) => Tag::new(tag),
            }
        }
        _ => Tag::new(tag),
    }
}

/// Encodes a datum in the field's format: PostgreSQL's text output, or its binary encoding.
fn encode_datum(
    encoder: &mut DataRowEncoder,
    datum: &Datum,
    field: &FieldInfo,
) -> PgWireResult<()> {
    let ty = field.datatype().clone();
    let text = |encoder: &mut DataRowEncoder, value: Option<String>| {
        encoder.encode_field_with_type_and_format(
            &value,
            &ty,
            FieldFormat::Text,
            field.format_options(),
        )
    };
    if field.format() == FieldFormat::Text || datum.is_null() {
        return text(encoder, datum.to_text());
    }
    let fmt = FieldFormat::Binary;
    let opts = field.format_options();
    match datum {
        Datum::Null => text(encoder, None),
        Datum::Bool(b) => encoder.encode_field_with_type_and_format(b, &ty, fmt, opts),
        Datum::Int32(i) => encoder.encode_field_with_type_and_format(i, &ty, fmt, opts),
        Datum::Int64(i) => encoder.encode_field_with_type_and_format(i, &ty, fmt, opts),
        Datum::Float64(f) => encoder.encode_field_with_type_and_format(&f.0, &ty, fmt, opts),
        Datum::Numeric(d) => encoder.encode_field_with_type_and_format(d, &ty, fmt, opts),
        Datum::String(s) => encoder.encode_field_with_type_and_format(s, &ty, fmt, opts),
        Datum::Date(d) => encoder.encode_field_with_type_and_format(d, &ty, fmt, opts),
        Datum::Timestamp(t) => encoder.encode_field_with_type_and_format(t, &ty, fmt, opts),
        Datum::Interval(iv) => {
            // PostgreSQL's binary interval: microseconds (int8), days (int4), months (int4).
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&iv.micros.to_be_bytes());
            bytes[8..12].copy_from_slice(&iv.days.to_be_bytes());
            bytes[12..].copy_from_slice(&iv.months.to_be_bytes());
            encoder.encode_field_with_type_and_format(&bytes, &ty, fmt, opts)
        }
    }
}

/// Writes a datum in COPY text format: `\N` for NULL, with backslash escapes.
fn copy_text(datum: &Datum, out: &mut String) {
    match datum.to_text() {
        None => out.push_str("\\N"),
        Some(text) => {
            for c in text.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
            }
        }
    }
}

fn error_info(e: ExecError) -> ErrorInfo {
    let mut info = ErrorInfo::new("ERROR".to_string(), e.code.to_string(), e.message);
    info.detail = e.detail;
    info.hint = e.hint;
    info.position = e.position.map(|p| p.to_string());
    info
}

fn error_response(e: ExecError) -> Response {
    Response::Error(Box::new(error_info(e)))
}

fn pg_error(e: ExecError) -> PgWireError {
    PgWireError::UserError(Box::new(error_info(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_text_escapes() {
        let mut s = String::new();
        copy_text(&Datum::String("a\tb\\c\nd".into()), &mut s);
        assert_eq!(s, "a\\tb\\\\c\\nd");
        let mut s = String::new();
        copy_text(&Datum::Null, &mut s);
        assert_eq!(s, "\\N");
    }

    #[test]
    fn command_tags() {
        assert_eq!(
            format!("{:?}", command_tag("INSERT 0 3")),
            format!("{:?}", Tag::new("INSERT 0").with_rows(3))
        );
        assert_eq!(
            format!("{:?}", command_tag("CREATE TABLE")),
            format!("{:?}", Tag::new("CREATE TABLE"))
        );
    }
}
