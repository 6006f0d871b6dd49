//! Prepared statements and portals of the extended query protocol.
//!
//! Parse keeps the statement's text and AST, the type of each parameter (declared by the
//! client, else inferred by `kpg_sql::parameter_types`, else text) and, to describe its result
//! columns, the statement with every parameter NULL (of its declared type where the client
//! declared one). Bind decodes the values (text or binary) and produces a new prepared
//! statement with the values bound as literals (`kpg_sql::bind_parameters`); the portal holds
//! that one, so Describe of a portal and Execute plan exactly the statement that runs.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use kpg_sql::sqlparser::ast::Statement;
use kpg_sql::{ParamValue, ParsedStatement};
use kpg_types::ScalarType;
use pgwire::api::portal::Format;
use pgwire::api::results::FieldInfo;
use pgwire::api::stmt::{QueryParser, StoredStatement};
use pgwire::api::{ClientInfo, Type};
use pgwire::error::PgWireResult;
use pgwire::messages::data::FORMAT_CODE_BINARY;
use pgwire::messages::extendedquery::Bind;

use super::params::{declared_type, decode, described_type};
use super::{describes_without_rows, fields, pg_error, session_statement};
use crate::coord::{Coordinator, ExecuteResult};
use crate::copy_in;
use crate::error::ExecError;
use crate::session_vars::SessionVars;

/// A statement prepared through the extended protocol (or bound into a portal).
#[derive(Clone, Debug)]
pub struct PreparedStatement {
    sql: String,
    pub stmt: ParsedStatement,
    params: Vec<Param>,
    /// `stmt` with NULL for every parameter: what Describe plans.
    describe: ParsedStatement,
}

#[derive(Clone, Debug)]
struct Param {
    /// The type the client is told (and encodes binary values in).
    described: Type,
    /// The kpg type the client declared, if it declared one: the value is cast to it.
    declared: Option<ScalarType>,
}

impl PreparedStatement {
    /// Binds the values of a Bind message: a statement with no parameters left.
    pub fn bind(&self, message: &Bind, name: &str) -> Result<PreparedStatement, ExecError> {
        if !takes_parameters(&self.stmt) {
            // As in PostgreSQL, such a statement prepares, and fails when it runs.
            kpg_sql::parameter_not_allowed(&self.sql)?;
        }
        let values = &message.parameters;
        if values.len() != self.params.len() {
            return Err(ExecError::new(
                "08P01",
                format!(
                    "bind message supplies {} parameters, but prepared statement \"{}\" requires {}",
                    values.len(),
                    name,
                    self.params.len()
                ),
            ));
        }
        if values.is_empty() {
            return Ok(self.clone());
        }
        let codes = &message.parameter_format_codes;
        if codes.len() > 1 && codes.len() != values.len() {
            return Err(ExecError::new(
                "08P01",
                format!(
                    "bind message has {} parameter formats but {} parameters",
                    codes.len(),
                    values.len()
                ),
            ));
        }
        let mut bound = Vec::with_capacity(values.len());
        for (i, (value, param)) in values.iter().zip(&self.params).enumerate() {
            let code = match codes.len() {
                0 => 0,
                1 => codes[0],
                _ => codes[i],
            };
            bound.push(ParamValue {
                text: decode(
                    i,
                    value.as_deref(),
                    code == FORMAT_CODE_BINARY,
                    &param.described,
                )?,
                declared: param.declared,
            });
        }
        let sql = kpg_sql::bind_parameters(&self.sql, &bound)?;
        let stmt = parse_one(&sql).map_err(|mut e| {
            // Positions would point into the rewritten text.
            e.position = None;
            e
        })?;
        Ok(PreparedStatement {
            sql,
            describe: stmt.clone(),
            stmt,
            params: Vec::new(),
        })
    }
}

fn parse_one(sql: &str) -> Result<ParsedStatement, ExecError> {
    let mut stmts = kpg_sql::parse(sql)?;
    match stmts.len() {
        1 => Ok(stmts.remove(0)),
        _ => Err(ExecError::new(
            "42601",
            "cannot insert multiple commands into a prepared statement",
        )),
    }
}

/// Statements that may have parameters; in any other (DDL, a view's defining query, SET ...),
/// PostgreSQL finds no parameters to refer to: it prepares them with none, and a `$n` in them
/// is an error (42P02) when they run.
fn takes_parameters(stmt: &ParsedStatement) -> bool {
    matches!(
        stmt,
        ParsedStatement::Subscribe { .. }
            | ParsedStatement::Sql(
                Statement::Query(_)
                    | Statement::Insert(_)
                    | Statement::Update(_)
                    | Statement::Delete(_)
            )
    )
}

/// Writes (without RETURNING) and DDL, which Describe answers without planning them.
fn returns_no_rows(stmt: &ParsedStatement) -> bool {
    let returning = match stmt {
        ParsedStatement::Sql(Statement::Insert(i)) => i.returning.is_some(),
        ParsedStatement::Sql(Statement::Update(u)) => u.returning.is_some(),
        ParsedStatement::Sql(Statement::Delete(d)) => d.returning.is_some(),
        _ => false,
    };
    !returning
        && matches!(
            stmt,
            ParsedStatement::CreateDefaultIndex { .. }
                | ParsedStatement::CreateSource(_)
                | ParsedStatement::DropSource { .. }
                | ParsedStatement::Sql(
                    Statement::Insert(_)
                        | Statement::Update(_)
                        | Statement::Delete(_)
                        | Statement::CreateTable(_)
                        | Statement::CreateView(_)
                        | Statement::CreateIndex(_)
                        | Statement::Drop { .. }
                )
        )
}

/// The planner's view of the catalog, through the coordinator.
struct CoordCatalog<'a>(&'a Coordinator);

impl kpg_sql::Catalog for CoordCatalog<'_> {
    fn resolve(&self, name: &str) -> Option<kpg_sql::CatalogItem> {
        self.0.resolve(name)
    }
}

pub struct StatementParser {
    pub coord: Arc<Coordinator>,
}

impl StatementParser {
    fn prepare(&self, sql: &str, types: &[Option<Type>]) -> Result<PreparedStatement, ExecError> {
        let stmt = parse_one(sql)?;
        let count = if takes_parameters(&stmt) {
            kpg_sql::parameter_count(sql)?
        } else {
            if matches!(&stmt, ParsedStatement::Sql(Statement::CreateView(v)) if v.materialized)
                && kpg_sql::parameter_count(sql)? > 0
            {
                // PostgreSQL refuses this one at Parse already.
                return Err(ExecError::new(
                    "0A000",
                    "materialized views may not be defined using bound parameters",
                ));
            }
            0
        };
        let declared = types
            .iter()
            .map(|t| match t {
                Some(t) => declared_type(t),
                None => Ok(None),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let inferred = if count == 0 && declared.is_empty() {
            Vec::new()
        } else {
            kpg_sql::parameter_types(&stmt, &declared, count, &CoordCatalog(&self.coord))
        };
        let params: Vec<Param> = inferred
            .iter()
            .enumerate()
            .map(|(i, ty)| {
                let client = types.get(i).cloned().flatten();
                let declared = declared.get(i).copied().flatten();
                Param {
                    described: match client {
                        Some(t) if declared.is_some() => t,
                        _ => described_type(*ty),
                    },
                    declared,
                }
            })
            .collect();
        let describe = if params.is_empty() {
            stmt.clone()
        } else {
            let nulls: Vec<ParamValue> = params
                .iter()
                .map(|p| ParamValue {
                    text: None,
                    declared: p.declared,
                })
                .collect();
            parse_one(&kpg_sql::bind_parameters(sql, &nulls)?)?
        };
        Ok(PreparedStatement {
            sql: sql.to_string(),
            stmt,
            params,
            describe,
        })
    }
}

#[async_trait]
impl QueryParser for StatementParser {
    type Statement = PreparedStatement;

    async fn parse_sql<C>(
        &self,
        _client: &C,
        sql: &str,
        types: &[Option<Type>],
    ) -> PgWireResult<Option<PreparedStatement>>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        if kpg_sql::parse(sql)
            .map_err(|e| pg_error(e.into()))?
            .is_empty()
        {
            return Ok(None);
        }
        self.prepare(sql, types).map(Some).map_err(pg_error)
    }

    fn get_parameter_types(&self, stmt: &PreparedStatement) -> PgWireResult<Vec<Type>> {
        Ok(stmt.params.iter().map(|p| p.described.clone()).collect())
    }

    fn get_result_schema(
        &self,
        stmt: &PreparedStatement,
        format: Option<&Format>,
    ) -> PgWireResult<Vec<FieldInfo>> {
        let stmt = &stmt.describe;
        let desc = if let Some(result) =
            session_statement(&Mutex::new(SessionVars::default()), stmt)
                .or_else(|| self.coord.show(stmt))
        {
            match result {
                Ok(ExecuteResult::Rows { desc, .. }) => Some(desc),
                _ => None,
            }
        } else if describes_without_rows(stmt)
            || copy_in::plan(stmt, |_| None).is_some()
            || crate::copy_out::plan(stmt).is_some()
        {
            // Transaction control and COPY return no rows.
            None
        } else if !returns_no_rows(stmt) {
            match self.coord.plan(stmt).map_err(pg_error)? {
                kpg_sql::PlannedStatement::Select { desc, .. } => Some(desc),
                kpg_sql::PlannedStatement::Explain { column, .. } => {
                    Some(crate::coord::explain_desc(column))
                }
                kpg_sql::PlannedStatement::Insert {
                    returning: Some(r), ..
                }
                | kpg_sql::PlannedStatement::Update {
                    returning: Some(r), ..
                }
                | kpg_sql::PlannedStatement::Delete {
                    returning: Some(r), ..
                }
                | kpg_sql::PlannedStatement::JoinedWrite {
                    returning: Some(r), ..
                } => Some(r.desc),
                _ => None,
            }
        } else {
            // Writes and DDL are checked when they run (a write with its values).
            None
        };
        Ok(desc.map(|d| fields(&d, format)).unwrap_or_default())
    }
}

/// A stored statement holding the bound statement, for the portal a Bind creates.
pub fn bound_statement(
    stored: &StoredStatement<PreparedStatement>,
    message: &Bind,
) -> Result<StoredStatement<PreparedStatement>, ExecError> {
    let bound = stored.statement.bind(message, &stored.id)?;
    Ok(StoredStatement::new(
        stored.id.clone(),
        bound,
        stored.parameter_types.clone(),
    ))
}
