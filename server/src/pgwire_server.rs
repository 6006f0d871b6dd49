//! The PostgreSQL wire protocol front end, on the `pgwire` crate (pinned; this is the only module
//! that touches its API).
//!
//! Simple and extended query protocols both end in `Frontend::respond`, which hands the
//! statement to its session's sequencer (`session/sequence.rs`) and encodes what came of it
//! (`session::Outcome`, `encode.rs`); the session keeps the connection's state (`session.rs`).
//! The statement arrives typed by `kpg_sql` (this crate reads no SQL syntax). Prepared
//! statements and their parameters are in `prepared.rs` and `params.rs`; the session holds
//! them and the portals bound from them (`session/portals.rs`), not pgwire's portal store.
//! SUBSCRIBE is streamed by `subscribe.rs` rather than through pgwire's COPY helper or
//! portal execution, because a subscription never ends on its own: each batch of changes is
//! flushed to the client as it arrives (as COPY data, or as rows for a bare SUBSCRIBE through
//! the extended protocol), and the stream stops when the client sends a CancelRequest or goes
//! away.

use std::fmt::Debug;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use async_trait::async_trait;
use futures::{Sink, SinkExt};
use kpg_sql::{ParsedStatement, TransactionStatement};
use kpg_types::Row;
use pgwire::api::auth::noop::NoopStartupHandler;
use pgwire::api::cancel::DefaultCancelHandler;
use pgwire::api::copy::CopyHandler;
use pgwire::api::portal::{Format, Portal};
use pgwire::api::query::{send_ready_for_query, ExtendedQueryHandler, SimpleQueryHandler};
use pgwire::api::results::{
    DescribePortalResponse, DescribeStatementResponse, FieldInfo, Response, Tag,
};
use pgwire::api::stmt::{QueryParser, StoredStatement};
use pgwire::api::store::PortalStore;
use pgwire::api::{
    ClientInfo, ClientPortalStore, ConnectionHandle, ConnectionManager, PgWireConnectionState,
    PgWireServerHandlers,
};
use pgwire::api::{METADATA_DATABASE, METADATA_USER};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::copy::{CopyData, CopyDone, CopyFail};
use pgwire::messages::extendedquery::{
    Bind, BindComplete, Close, CloseComplete, Describe, Execute, Parse, ParseComplete,
    Sync as SyncMessage, TARGET_TYPE_BYTE_PORTAL, TARGET_TYPE_BYTE_STATEMENT,
};
use pgwire::messages::response::CommandComplete;
use pgwire::messages::startup::ParameterStatus;
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};

mod describe;
mod encode;
mod execute;
pub(crate) use encode::copy_text;
mod params;
mod prepared;
mod subscribe;

use encode::fields;
use prepared::{bound_statement, PreparedStatement, StatementParser};
use subscribe::Output;

use crate::coord::{Bound, Coordinator};
use crate::cursors;
use crate::error::ExecError;
use crate::implicit_txn;
use crate::session::portals::UNNAMED;
use crate::session::Session;
use crate::session_vars::SessionVars;

/// A session's prepared statements and portals, as this layer makes them.
pub type Portals =
    crate::session::portals::Portals<StoredStatement<PreparedStatement>, Portal<PreparedStatement>>;

/// Handlers shared by every connection.
pub struct Handlers {
    session: Arc<Frontend>,
    cancel: Arc<DefaultCancelHandler>,
}

impl Handlers {
    pub fn new(coord: Arc<Coordinator>) -> Arc<Handlers> {
        let manager = Arc::new(ConnectionManager::new());
        let session = Arc::new(Frontend {
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

pub struct Frontend {
    coord: Arc<Coordinator>,
    manager: Arc<ConnectionManager>,
    parser: Arc<StatementParser>,
}

#[async_trait]
impl NoopStartupHandler for Frontend {
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
        // Settings in the startup `options` that PostgreSQL would refuse the connection for.
        let vars = match SessionVars::from_startup(metadata.iter()) {
            Ok(vars) => vars,
            Err(e) => {
                let mut info = error_info(e);
                info.severity = "FATAL".to_string();
                return Err(PgWireError::UserError(Box::new(info)));
            }
        };
        if database != DATABASE {
            let mut info = error_info(ExecError::new(
                "3D000",
                format!("database \"{database}\" does not exist"),
            ));
            info.severity = "FATAL".to_string();
            return Err(PgWireError::UserError(Box::new(info)));
        }
        // pgwire has reported its own defaults (DateStyle `ISO, YMD`, ...); the session's
        // values are reported after them, and a client keeps the last it receives.
        for (name, value) in vars.reported() {
            client
                .feed(PgWireBackendMessage::ParameterStatus(ParameterStatus::new(
                    name, value,
                )))
                .await?;
        }
        Ok(())
    }
}

/// PostgreSQL's error for a prepared statement that does not exist.
fn no_statement(name: &str) -> ExecError {
    let message = match name {
        UNNAMED => "unnamed prepared statement does not exist".to_string(),
        _ => format!("prepared statement \"{name}\" does not exist"),
    };
    ExecError::new("26000", message)
}

/// PostgreSQL's error for a portal that does not exist (pgwire's own says 26000).
fn no_portal(name: &str) -> ExecError {
    ExecError::new("34000", format!("portal \"{name}\" does not exist"))
}

/// The one database kpg serves.
const DATABASE: &str = "kpg";

#[async_trait]
impl SimpleQueryHandler for Frontend {
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
        // Subscriptions stream until cancelled, which pgwire's own COPY path cannot do. (Parsed
        // here only if it may be one: other queries are parsed once, by `do_query`.)
        let may_subscribe = query
            .query
            .as_bytes()
            .windows(b"subscribe".len())
            .any(|w| w.eq_ignore_ascii_case(b"subscribe"));
        // As in PostgreSQL, a simple query replaces the unnamed statement and portal.
        connection(client)
            .portals
            .lock()
            .expect("portals")
            .remove_unnamed();
        if let Some(Ok(stmts)) = may_subscribe.then(|| kpg_sql::parse(&query.query)) {
            if let [stmt @ ParsedStatement::Subscribe { .. }] = stmts.as_slice() {
                if matches!(client.state(), PgWireConnectionState::ReadyForQuery) {
                    client.set_state(PgWireConnectionState::QueryInProgress);
                    let outcome = subscribe::stream(self, client, stmt, None, Output::Copy).await?;
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
        // Without Bind there are no values for parameters.
        let placeholders = if query.contains('$') {
            kpg_sql::parameter_not_allowed(query)
        } else {
            Ok(())
        };
        if let Err(e) = placeholders {
            return Ok(vec![error_response(ExecError::from(e))]);
        }
        let conn = connection(client);
        let reported = conn.vars.lock().expect("session variables").reported();
        let mut responses = Vec::with_capacity(stmts.len());
        // Several statements are one implicit transaction (`implicit_txn.rs`), as is a query
        // after a pipeline's INSERTs that no Sync has ended yet.
        let implicit = stmts.len() > 1 || conn.txn.lock().expect("txn").has_implicit_writes();
        // For SET LOCAL, several statements are a block too (PostgreSQL's implicit block).
        let implicit_block =
            stmts.len() > 1 && !conn.vars.lock().expect("session variables").in_block();
        // The variables as the implicit transaction found them: its SETs roll back with it.
        let multi = stmts.len() > 1;
        let mut vars_at_start =
            (multi && !conn.txn.lock().expect("txn").is_active()).then(|| conn.vars_now());
        if implicit_block {
            conn.vars.lock().expect("session variables").begin_block();
        }
        let mut failed = false;
        for stmt in stmts {
            let in_block = conn.txn.lock().expect("txn").is_active();
            let ends = ends_transaction(&stmt);
            let response = self
                .respond(&conn, &stmt, None, &Format::UnifiedText, implicit)
                .await?;
            // Like PostgreSQL, a failed statement ends the rest of the query string.
            failed = matches!(response, Response::Error(_));
            responses.push(response);
            if failed {
                break;
            }
            let in_block_after = conn.txn.lock().expect("txn").is_active();
            match (multi, in_block, in_block_after, ends) {
                // BEGIN: the SETs of the implicit transaction so far become the block's, undone
                // if it rolls back.
                (true, false, true, _) => {
                    if let Some(vars) = vars_at_start.take() {
                        *conn.vars_at_begin.lock().expect("session variables") = Some(vars);
                    }
                }
                // A block ended, or COMMIT ended the implicit transaction: what follows is a
                // new one.
                (true, true, false, _) | (true, false, false, Some(true)) => {
                    vars_at_start = Some(conn.vars_now());
                }
                // ROLLBACK of the implicit transaction undoes its SETs.
                (true, false, false, Some(false)) => {
                    if let Some(vars) = &vars_at_start {
                        let mut now = conn.vars.lock().expect("session variables");
                        *now = vars.clone();
                        if implicit_block {
                            now.begin_block();
                        }
                    }
                }
                _ => {}
            }
        }
        if failed {
            implicit_txn::rollback(&conn.txn);
            // An explicit block still open restores its own at ROLLBACK.
            if let Some(vars) = vars_at_start {
                if !conn.txn.lock().expect("txn").is_active() {
                    *conn.vars.lock().expect("session variables") = vars;
                }
            }
        } else if let Err(e) = implicit_txn::commit(&conn.txn, &self.coord).await {
            responses.push(error_response(e));
        }
        if implicit_block && !conn.txn.lock().expect("txn").is_active() {
            conn.vars.lock().expect("session variables").end_block();
        }
        report_changes(client, &conn, reported).await?;
        send_warnings(client, &conn).await?;
        Ok(responses)
    }
}

#[async_trait]
impl ExtendedQueryHandler for Frontend {
    type Statement = PreparedStatement;
    type QueryParser = StatementParser;

    fn query_parser(&self) -> Arc<StatementParser> {
        Arc::clone(&self.parser)
    }

    /// Parses as pgwire does, into the session's statements.
    async fn on_parse<C>(&self, client: &mut C, message: Parse) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let name = message.name.clone().unwrap_or_else(|| UNNAMED.to_owned());
        let portals = Arc::clone(&connection(client).portals);
        if name == UNNAMED {
            // Replaced even if the new one fails to parse, as in PostgreSQL.
            portals.lock().expect("portals").remove_statement(UNNAMED);
        }
        let stmt = StoredStatement::parse(client, &message, self.query_parser()).await?;
        let stored = portals
            .lock()
            .expect("portals")
            .put_statement(&name, stmt.map(Arc::new));
        stored.map_err(pg_error)?;
        client
            .feed(PgWireBackendMessage::ParseComplete(ParseComplete::new()))
            .await?;
        Ok(())
    }

    /// Binds the portal's values into its statement here, so that bad values are errors of
    /// the Bind message, as in PostgreSQL.
    async fn on_bind<C>(&self, client: &mut C, message: Bind) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let name = message.statement_name.as_deref().unwrap_or(UNNAMED);
        let conn = connection(client);
        let stored = conn.portals.lock().expect("portals").statement(name);
        match stored {
            Some(Some(stored)) => {
                let zone = conn.statement_context().time_zone;
                let bound = if stored.statement.planned_once()
                    && conn.txn.lock().expect("txn").is_failed()
                {
                    // As PostgreSQL, before looking at the values.
                    Err(crate::txn::aborted())
                } else {
                    // Planned again in the session's context if the catalog changed.
                    crate::statement_context::sync_scope(conn.statement_context(), || {
                        bound_statement(&stored, &message, &self.coord, &zone)
                    })
                };
                // A Bind that fails (a bad value) fails the transaction, as in PostgreSQL.
                let bound = bound.map_err(|e| {
                    conn.txn.lock().expect("txn").fail();
                    pg_error(e)
                })?;
                let portal = Portal::try_new(&message, Arc::new(bound))?;
                let name = message.portal_name.as_deref().unwrap_or(UNNAMED);
                let mut portals = conn.portals.lock().expect("portals");
                if let Err(e) = portals.put_portal(name, Some(Arc::new(portal))) {
                    conn.txn.lock().expect("txn").fail();
                    return Err(pg_error(e));
                }
            }
            Some(None) => {
                if !message.parameters.is_empty() {
                    return Err(pg_error(ExecError::new(
                        "08P01",
                        format!(
                            "bind message supplies {} parameters, but prepared statement \"{name}\" requires 0",
                            message.parameters.len()
                        ),
                    )));
                }
                let portal = message.portal_name.as_deref().unwrap_or(UNNAMED);
                let put = conn
                    .portals
                    .lock()
                    .expect("portals")
                    .put_portal(portal, None);
                put.map_err(pg_error)?;
            }
            None => return Err(pg_error(no_statement(name))),
        }
        client
            .feed(PgWireBackendMessage::BindComplete(BindComplete::new()))
            .await?;
        Ok(())
    }

    async fn on_execute<C>(&self, client: &mut C, message: Execute) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        // Subscriptions stream until cancelled (`subscribe.rs`), which pgwire's own portal
        // execution cannot do.
        let name = message.name.as_deref().unwrap_or(UNNAMED);
        let portal = connection(client)
            .portals
            .lock()
            .expect("portals")
            .portal(name);
        if let Some(Some(portal)) = portal {
            let stmt = &portal.statement.statement;
            if matches!(*stmt.stmt, ParsedStatement::Subscribe { .. })
                && matches!(client.state(), PgWireConnectionState::ReadyForQuery)
            {
                // It runs until cancelled: the pipeline's INSERTs before it are committed
                // first, so that it sees them (`implicit_txn.rs`).
                let conn = connection(client);
                if let Err(e) = implicit_txn::commit(&conn.txn, &self.coord).await {
                    return Err(pg_error(e));
                }
                client.set_state(PgWireConnectionState::QueryInProgress);
                // A bare SUBSCRIBE streams rows, as a query's; `COPY (SUBSCRIBE ...)` COPY data.
                let output = match *stmt.stmt {
                    ParsedStatement::Subscribe {
                        copy_to_stdout: false,
                        ..
                    } => Output::Rows(portal.result_column_format.clone()),
                    _ => Output::Copy,
                };
                let bound = stmt.bound.clone();
                let outcome = subscribe::stream(self, client, &stmt.stmt, bound, output).await?;
                return Self::complete(client, outcome).await;
            }
        }
        // pgwire listens for CancelRequest only around simple queries; an Execute is raced
        // against it here, so that cancelling drops the running read (and its dataflow).
        let cancelled = match client.session_extensions().get::<Arc<ConnectionHandle>>() {
            Some(handle) => handle.start_query().await,
            None => return execute::execute_portal(self, client, message).await,
        };
        let execute = Box::pin(execute::execute_portal(self, client, message));
        match futures::future::select(execute, cancelled).await {
            futures::future::Either::Left((result, _)) => result,
            futures::future::Either::Right((Ok(()), _)) => {
                Err(PgWireError::UserError(Box::new(error_info(
                    ExecError::new("57014", "canceling statement due to user request"),
                ))))
            }
            // The sender went away without a cancel (a newer query replaced it): not a cancel.
            futures::future::Either::Right((Err(_), execute)) => execute.await,
        }
    }

    /// Describe's answer waits in the buffer for Sync or Flush (`describe.rs`).
    async fn on_describe<C>(&self, client: &mut C, message: Describe) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        describe::describe(self, client, message).await
    }

    /// Sync ends the pipeline's implicit transaction (`implicit_txn.rs`): its INSERTs are
    /// committed, or dropped if anything in it failed (pgwire then waits for this Sync); a
    /// failed commit is reported before ReadyForQuery, as PostgreSQL reports a failed COMMIT.
    async fn on_sync<C>(&self, client: &mut C, _message: SyncMessage) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let conn = connection(client);
        let after_copy = conn.copy_ended.swap(false, Ordering::Relaxed);
        if matches!(client.state(), PgWireConnectionState::AwaitingSync) && !after_copy {
            implicit_txn::rollback(&conn.txn);
        } else if let Err(e) = implicit_txn::commit(&conn.txn, &self.coord).await {
            let info = error_info(e);
            client
                .feed(PgWireBackendMessage::ErrorResponse(info.into()))
                .await?;
        }
        // Portals end with their transaction: here, unless a block goes on.
        if !conn.txn.lock().expect("txn").is_active() {
            conn.portals.lock().expect("portals").end_transaction();
        }
        send_ready_for_query(client, client.transaction_status()).await
    }

    /// Close drops a statement or portal of the session (one that does not exist is no error;
    /// an unknown target type is 08P01, as in PostgreSQL).
    async fn on_close<C>(&self, client: &mut C, message: Close) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let name = message.name.as_deref().unwrap_or(UNNAMED);
        {
            let conn = connection(client);
            let mut portals = conn.portals.lock().expect("portals");
            match message.target_type {
                TARGET_TYPE_BYTE_STATEMENT => {
                    portals.remove_statement(name);
                }
                TARGET_TYPE_BYTE_PORTAL => portals.remove_portal(name),
                other => {
                    return Err(pg_error(ExecError::new(
                        "08P01",
                        format!("invalid CLOSE message subtype {other}"),
                    )))
                }
            }
        }
        client
            .send(PgWireBackendMessage::CloseComplete(CloseComplete::new()))
            .await?;
        Ok(())
    }

    /// Cursor statements are described from the session's cursors (a FETCH has its cursor's
    /// columns); the others as pgwire does, from the query parser.
    async fn do_describe_statement<C>(
        &self,
        client: &mut C,
        target: &StoredStatement<PreparedStatement>,
    ) -> PgWireResult<DescribeStatementResponse>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let parser = self.query_parser();
        let params = parser.get_parameter_types(&target.statement)?;
        let params = params
            .into_iter()
            .enumerate()
            .map(|(i, server)| {
                target
                    .parameter_types
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or(server)
            })
            .collect();
        let columns = self
            .result_columns(&connection(client), &target.statement, None)
            .await?;
        Ok(DescribeStatementResponse::new(params, columns))
    }

    async fn do_describe_portal<C>(
        &self,
        client: &mut C,
        target: &Portal<PreparedStatement>,
    ) -> PgWireResult<DescribePortalResponse>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = PreparedStatement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let format = Some(&target.result_column_format);
        let columns = self
            .result_columns(&connection(client), &target.statement.statement, format)
            .await?;
        Ok(DescribePortalResponse::new(columns))
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
        // The portal's statement has its parameters bound already (see `on_bind`).
        let stmt = &portal.statement.statement;
        if matches!(*stmt.stmt, ParsedStatement::Subscribe { .. }) {
            // `on_execute` streams it when the connection is ready for a query.
            return Ok(error_response(ExecError::unsupported(
                "SUBSCRIBE while the connection is not ready for a query",
            )));
        }
        let conn = connection(client);
        let reported = conn.vars.lock().expect("session variables").reported();
        let format = &portal.result_column_format;
        // Everything up to Sync is one implicit transaction (`implicit_txn.rs`).
        let bound = stmt.bound.clone();
        let response = self.respond(&conn, &stmt.stmt, bound, format, true).await?;
        report_changes(client, &conn, reported).await?;
        send_warnings(client, &conn).await?;
        match response {
            // As an error, not an error response, so that the connection skips the rest of
            // the pipeline up to Sync, as PostgreSQL does.
            Response::Error(info) => Err(PgWireError::UserError(info)),
            response => Ok(response),
        }
    }
}

impl Frontend {
    /// What Describe answers for `stmt`'s result: a cursor statement's columns come from the
    /// session's cursors (a FETCH has its cursor's), the others' from the query parser.
    async fn result_columns(
        &self,
        conn: &Session,
        stmt: &PreparedStatement,
        format: Option<&Format>,
    ) -> PgWireResult<Vec<FieldInfo>> {
        let plan = kpg_sql::plan_session_statement(&stmt.stmt);
        let described = match &plan {
            Some(plan) => cursors::describe(plan, &conn.cursors).await,
            None => None,
        };
        let (Some(desc), Some(plan)) = (described, plan) else {
            return self.query_parser().get_result_schema(stmt, format);
        };
        let format = match format {
            Some(f) => Some(encode::cursor_format(
                cursors::fetches_binary(&plan, &conn.cursors).await,
                f,
            )),
            None => None,
        };
        Ok(desc
            .map(|d| fields(&d, format.as_ref()))
            .unwrap_or_default())
    }

    /// Runs one statement for the connection whose transaction state is `txn`, as a response,
    /// in the statement context of its session (`statement_context.rs`).
    /// `implicit`: the statement is part of an implicit transaction of several statements
    /// (a pipeline up to Sync, a multi-statement query string), whose INSERTs are held back
    /// until it ends (`implicit_txn.rs`).
    async fn respond(
        &self,
        conn: &Session,
        stmt: &ParsedStatement,
        bound: Option<Bound>,
        format: &Format,
        implicit: bool,
    ) -> PgWireResult<Response> {
        let context = conn.statement_context();
        // On the heap at once: its state (every statement family's locals, 20 KB in a debug
        // build) was otherwise copied by each future that holds it, per statement.
        let sequence = Box::pin(conn.sequence(&self.coord, stmt, bound, implicit));
        let outcome = crate::statement_context::scope(context, sequence).await;
        encode::outcome_response(outcome, format, &conn.output_style())
    }

    /// Sends the outcome of a statement that `Frontend` ran itself.
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

/// Statements that return no rows and need no planning to describe.
fn describes_without_rows(stmt: &ParsedStatement) -> bool {
    matches!(
        stmt,
        ParsedStatement::Deallocate { .. }
            | ParsedStatement::Transaction(_)
            | ParsedStatement::CopyFrom(_)
            | ParsedStatement::CopyTo(_)
            | ParsedStatement::Refused(_)
    )
}

/// `Some(true)` for COMMIT (or END), `Some(false)` for ROLLBACK (not to a savepoint).
fn ends_transaction(stmt: &ParsedStatement) -> Option<bool> {
    match stmt {
        ParsedStatement::Transaction(TransactionStatement::Commit) => Some(true),
        ParsedStatement::Transaction(TransactionStatement::Rollback) => Some(false),
        _ => None,
    }
}

fn connection<C: ClientInfo>(client: &C) -> Arc<Session> {
    // One extension holding every part (one look-up per use, not one per part). The startup
    // parameters were checked at startup (`post_startup`).
    client.session_extensions().get_or_insert_with(|| {
        let metadata = client.metadata();
        let user = metadata.get("user").map_or(kpg_sql::OWNER, String::as_str);
        Session::new(
            user,
            SessionVars::from_startup(metadata.iter()).unwrap_or_default(),
        )
    })
}

#[async_trait]
impl CopyHandler for Frontend {
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
            let zone = conn.output_style().dates.zone;
            let input = crate::statement_context::sync_scope(
                conn.statement_context(),
                crate::statement_context::date_input,
            );
            let rows = copy.rows(&zone, &input)?;
            let rows: Vec<(Row, i64)> = rows.into_iter().map(|r| (r, 1)).collect();
            let count = rows.len();
            if conn.txn.lock().expect("txn").is_active() {
                let mut writes = vec![(copy.table, rows)];
                self.coord.check_writes(&writes).await?;
                let (table, rows) = writes.pop().expect("one write");
                conn.txn.lock().expect("txn").buffer(table, rows)?;
            } else {
                self.coord.insert_rows(copy.table, rows).await?;
            }
            Ok::<usize, ExecError>(count)
        }
        .await;
        match result {
            Ok(count) => {
                if matches!(client.state(), PgWireConnectionState::CopyInProgress(true)) {
                    conn.copy_ended.store(true, Ordering::Relaxed);
                }
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

/// Sends ParameterStatus for each reported parameter whose value differs from `before`, as
/// PostgreSQL does after a SET of one (e.g. `application_name`).
async fn report_changes<C>(
    client: &mut C,
    conn: &Session,
    before: Vec<(String, String)>,
) -> PgWireResult<()>
where
    C: Sink<PgWireBackendMessage> + Unpin + Send,
    C::Error: Debug,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
{
    let now = conn.vars.lock().expect("session variables").reported();
    for ((name, value), (_, old)) in now.into_iter().zip(before) {
        if value != old {
            client
                .feed(PgWireBackendMessage::ParameterStatus(ParameterStatus::new(
                    name, value,
                )))
                .await?;
        }
    }
    Ok(())
}

/// Sends the session's pending warnings (`SET LOCAL` outside a block) as NoticeResponses.
async fn send_warnings<C>(client: &mut C, conn: &Session) -> PgWireResult<()>
where
    C: Sink<PgWireBackendMessage> + Unpin + Send,
    C::Error: Debug,
    PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
{
    let warnings = conn.vars.lock().expect("session variables").take_warnings();
    for w in warnings {
        let info = ErrorInfo::new("WARNING".to_string(), w.code.to_string(), w.message);
        client
            .feed(PgWireBackendMessage::NoticeResponse(info.into()))
            .await?;
    }
    Ok(())
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
