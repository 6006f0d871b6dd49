//! Prepared statements and portals of the extended query protocol.
//!
//! Every statement that may have parameters is planned at Parse (`kpg_sql::plan_prepared`):
//! its parameters are plan parameters, typed by the binder as PostgreSQL types unknown-typed
//! parameters (or as the client declared them). A query, INSERT, UPDATE, DELETE, CREATE TABLE
//! AS, SELECT INTO, SUBSCRIBE or a cursor over one of them keeps that plan: Bind decodes the
//! values (text or binary) and substitutes them into it (`kpg_sql::bind_values`); the portal
//! holds the bound plan (`coord::Bound::Plan`), which Describe of the portal reads and Execute
//! hands to the session's sequencer, without parsing or planning again. The plan is made again
//! at Bind, in the session's context, when the catalog changed since it was made (0A000 if its
//! result columns change, as PostgreSQL's "cached plan must not change result type"), and at
//! Execute, with the values the portal keeps, if it changed since Bind.
//!
//! A statement that fails to plan at Parse with an error PostgreSQL would not give there (a
//! feature kpg has not) is planned as it runs, from the statement parsed at Parse, with the
//! values bound in as literals (`coord::Bound::Values`, `kpg_sql::plan_bound`), typed as
//! planning at Parse typed them. No statement's text is rewritten or parsed again.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use kpg_sql::{ParamValue, ParsedStatement, PlannedStatement, StatementKind};
use kpg_types::ScalarType;
use pgwire::api::portal::Format;
use pgwire::api::results::FieldInfo;
use pgwire::api::stmt::{QueryParser, StoredStatement};
use pgwire::api::{ClientInfo, Type};
use pgwire::error::PgWireResult;
use pgwire::messages::data::FORMAT_CODE_BINARY;
use pgwire::messages::extendedquery::Bind;

use super::params::{declared_type, decode, described_type};
use super::{describes_without_rows, fields, pg_error};
use crate::coord::{changed_result, planned_desc, same_columns, Bound, BoundPlan};
use crate::coord::{Coordinator, ExecuteResult};
use crate::error::ExecError;
use crate::session_vars::SessionVars;

/// A statement prepared through the extended protocol (or bound into a portal).
#[derive(Clone, Debug)]
pub struct PreparedStatement {
    sql: String,
    pub stmt: Arc<ParsedStatement>,
    params: Vec<Param>,
    /// The plan made at Parse, with parameters, if it was planned once.
    once: Option<Arc<Mutex<Once>>>,
    /// For a statement planned as it runs: its result's columns, if planning at Parse found
    /// them.
    columns: Option<Arc<Mutex<Columns>>>,
    /// In a portal: what the Bind bound (`None` for a statement without parameters that is
    /// planned as it runs).
    pub bound: Option<Bound>,
}

/// The result's columns of a statement planned as it runs (`None`: it returns no rows), and
/// the catalog generation they were last found at.
#[derive(Debug)]
struct Columns {
    desc: Option<kpg_types::RelationDesc>,
    generation: u64,
}

/// A statement planned once, and what the plan holds for.
#[derive(Debug)]
struct Once {
    planned: PlannedStatement,
    types: Vec<ScalarType>,
    generation: u64,
}

#[derive(Clone, Debug)]
struct Param {
    /// The type the client is told (and encodes binary values in).
    described: Type,
    /// In a statement planned as it runs, the type the value is read as: as declared, or as
    /// planning at Parse fixed it (an unknown-typed literal if nothing did).
    read_as: Option<ScalarType>,
}

impl PreparedStatement {
    /// Binds the values of a Bind message: a statement with no parameters left.
    pub fn bind(
        &self,
        message: &Bind,
        name: &str,
        coord: &Coordinator,
        zone: &str,
    ) -> Result<PreparedStatement, ExecError> {
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
        if values.is_empty() && self.once.is_none() {
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
        let mut texts = Vec::with_capacity(values.len());
        for (i, (value, param)) in values.iter().zip(&self.params).enumerate() {
            let code = match codes.len() {
                0 => 0,
                1 => codes[0],
                _ => codes[i],
            };
            let binary = code == FORMAT_CODE_BINARY;
            texts.push(decode(i, value.as_deref(), binary, &param.described)?);
        }
        if let Some(once) = &self.once {
            let mut once = once.lock().expect("prepared plan");
            if once.generation != coord.catalog_generation() {
                // The catalog changed since Parse: plan again, in the session's present
                // context, with the types the parameters were given at Parse (as PostgreSQL
                // analyzes a statement again after DDL). A change of the zone alone does not
                // re-plan: literals keep the reading of Parse, as in PostgreSQL's cached plans,
                // and what reads the zone is bound to the session's when the plan runs.
                let declared: Vec<_> = once.types.iter().copied().map(Some).collect();
                let again = coord.plan_prepared(&self.stmt, &declared)?;
                let planned = again.planned?;
                if !same_columns(&planned_desc(&planned), &planned_desc(&once.planned)) {
                    // The client was told the old columns (PostgreSQL's rule).
                    return Err(changed_result());
                }
                once.planned = planned;
                once.generation = again.generation;
            }
            let planned = crate::statement_context::with_date_input(|| {
                kpg_sql::bind_values(&once.planned, &once.types, &texts, zone.to_string())
            })?;
            // The values too, typed as at Parse: DDL between Bind and Execute plans again.
            let values = texts
                .into_iter()
                .zip(&once.types)
                .map(|(text, ty)| ParamValue {
                    text,
                    declared: Some(*ty),
                })
                .collect();
            return Ok(self.bound_to(Bound::Plan(Arc::new(BoundPlan {
                plan: planned,
                generation: once.generation,
                values,
            }))));
        }
        if let Some(columns) = &self.columns {
            let mut columns = columns.lock().expect("prepared columns");
            if columns.generation != coord.catalog_generation() {
                // As for a plan kept: the result's columns must not change after DDL.
                let declared: Vec<_> = self.params.iter().map(|p| p.read_as).collect();
                let again = coord.plan_prepared(&self.stmt, &declared)?;
                if let Ok(planned) = &again.planned {
                    if !same_columns(&result_desc(&self.stmt, planned), &columns.desc) {
                        return Err(changed_result());
                    }
                }
                columns.generation = again.generation;
            }
        }
        let values = texts
            .into_iter()
            .zip(&self.params)
            .map(|(text, p)| ParamValue {
                text,
                declared: p.read_as,
            })
            .collect();
        Ok(self.bound_to(Bound::Values(Arc::new(values))))
    }

    /// The portal's statement: this one with `bound` bound to it.
    fn bound_to(&self, bound: Bound) -> PreparedStatement {
        PreparedStatement {
            params: Vec::new(),
            bound: Some(bound),
            ..self.clone()
        }
    }

    /// What Describe plans this statement with: the values bound to it in a portal; NULL for
    /// every parameter of a prepared statement planned as it runs.
    fn describe_binding(&self) -> Option<Bound> {
        if self.bound.is_some() || self.params.is_empty() {
            return self.bound.clone();
        }
        let nulls = self
            .params
            .iter()
            .map(|p| ParamValue {
                text: None,
                declared: p.read_as,
            })
            .collect();
        Some(Bound::Values(Arc::new(nulls)))
    }

    /// Whether the statement was planned once at Parse.
    pub fn planned_once(&self) -> bool {
        self.once.is_some()
    }

    /// The result's columns as a plan made at Parse or bound at Bind says, if there is one.
    fn planned_desc(&self) -> Option<Option<kpg_types::RelationDesc>> {
        if let Some(Bound::Plan(bound)) = &self.bound {
            return Some(result_desc(&self.stmt, &bound.plan));
        }
        match self.once.as_ref() {
            Some(once) => Some(result_desc(
                &self.stmt,
                &once.lock().expect("prepared plan").planned,
            )),
            None => Some(self.columns.as_ref()?.lock().expect("columns").desc.clone()),
        }
    }
}

/// The errors planning at Parse reports as they are: undefined names, operators and functions,
/// and type mismatches (such as a parameter used as an int4 and then compared with a text).
/// Other errors of planning with parameters leave the statement to be planned as it runs, with
/// its values.
const PARSE_ERRORS: &[&str] = &[
    "42601", "42P01", "42703", "42702", "42883", "42804", "42725", "42P18", "42P02",
];

/// Whether `stmt` is planned once at Parse: a query, a write, a table created from a query,
/// a SUBSCRIBE or a cursor over one of them.
fn plans_once(stmt: &ParsedStatement) -> bool {
    let kind = stmt.kind();
    match stmt {
        ParsedStatement::Subscribe { .. } => true,
        ParsedStatement::Declare { target, .. } => plans_once(target),
        _ => {
            matches!(
                kind,
                StatementKind::Query | StatementKind::SelectInto | StatementKind::CreateTableAs
            ) || kind.is_write()
        }
    }
}

fn parse_one(sql: &str) -> Result<Arc<ParsedStatement>, ExecError> {
    let mut stmts = kpg_sql::parse(sql)?;
    match stmts.len() {
        1 => Ok(Arc::new(stmts.remove(0))),
        _ => Err(ExecError::new(
            "42601",
            "cannot insert multiple commands into a prepared statement",
        )),
    }
}

/// Statements that may have parameters (a cursor's, if its query may; a table created from a
/// query's); in any other (DDL, a view's defining query, SET ...), PostgreSQL finds no
/// parameters to refer to: it prepares them with none, and a `$n` in them is an error (42P02)
/// when they run.
fn takes_parameters(stmt: &ParsedStatement) -> bool {
    if let ParsedStatement::Declare { target, .. } = stmt {
        return takes_parameters(target);
    }
    let kind = stmt.kind();
    matches!(stmt, ParsedStatement::Subscribe { .. })
        || matches!(
            kind,
            StatementKind::Query | StatementKind::SelectInto | StatementKind::CreateTableAs
        )
        || kind.is_write()
}

/// Writes (without RETURNING) and DDL, which Describe answers without planning them.
fn returns_no_rows(stmt: &ParsedStatement) -> bool {
    let kind = stmt.kind();
    if kind.returns_rows() {
        return false;
    }
    matches!(
        stmt,
        ParsedStatement::CreateDefaultIndex { .. }
            | ParsedStatement::CreateSource(_)
            | ParsedStatement::DropSource { .. }
    ) || kind.is_write()
        || kind.is_create()
        || kind == StatementKind::Drop
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
            if matches!(
                stmt.kind(),
                StatementKind::CreateView {
                    materialized: true,
                    ..
                }
            ) && kpg_sql::parameter_count(sql)? > 0
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
        let once = plans_once(&stmt);
        // The parameters' types, where planning at Parse fixed them, and the plan if it holds.
        let (mut fixed, mut planned, mut columns) = (declared.clone(), None, None);
        if once || (count > 0 && takes_parameters(&stmt)) {
            let prepared = self.coord.plan_prepared(&stmt, &declared)?;
            match prepared.planned {
                // PostgreSQL's errors of names and types, found at Parse as it finds them.
                Err(e) if PARSE_ERRORS.contains(&e.code) => return Err(e),
                // So are those of a cursor's query.
                Ok(PlannedStatement::Declare { plan: Err(e), .. })
                    if PARSE_ERRORS.contains(&e.code) =>
                {
                    return Err(e.into())
                }
                // A cursor whose query could not be planned without its values is planned
                // as it runs, with them.
                Ok(plan)
                    if once && !matches!(plan, PlannedStatement::Declare { plan: Err(_), .. }) =>
                {
                    planned = Some((plan, prepared.generation));
                }
                // Planned as it runs; what it returns is known.
                Ok(plan) => {
                    columns = Some(Arc::new(Mutex::new(Columns {
                        desc: result_desc(&stmt, &plan),
                        generation: prepared.generation,
                    })))
                }
                // Planned as it runs; described by planning it with NULL values.
                Err(_) => {}
            }
            fixed = prepared.types;
        }
        fixed.resize(fixed.len().max(count), None);
        let params: Vec<Param> = fixed
            .iter()
            .enumerate()
            .map(|(i, ty)| {
                let declared = declared.get(i).copied().flatten();
                Param {
                    described: match types.get(i).cloned().flatten() {
                        Some(t) if declared.is_some() => t,
                        _ => described_type(*ty),
                    },
                    read_as: *ty,
                }
            })
            .collect();
        let once = planned.map(|(planned, generation)| {
            Arc::new(Mutex::new(Once {
                planned,
                types: fixed
                    .iter()
                    .map(|t| t.unwrap_or(ScalarType::Text))
                    .collect(),
                generation,
            }))
        });
        Ok(PreparedStatement {
            sql: sql.to_string(),
            stmt,
            params,
            once,
            columns,
            bound: None,
        })
    }
}

#[async_trait]
impl QueryParser for StatementParser {
    type Statement = PreparedStatement;

    async fn parse_sql<C>(
        &self,
        client: &C,
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
        // Planned in the session's context (its zone, its temporary tables).
        let context = super::connection(client).statement_context();
        crate::statement_context::scope(context, async {
            self.prepare(sql, types).map(Some).map_err(pg_error)
        })
        .await
    }

    fn get_parameter_types(&self, stmt: &PreparedStatement) -> PgWireResult<Vec<Type>> {
        Ok(stmt.params.iter().map(|p| p.described.clone()).collect())
    }

    fn get_result_schema(
        &self,
        stmt: &PreparedStatement,
        format: Option<&Format>,
    ) -> PgWireResult<Vec<FieldInfo>> {
        if let Some(desc) = stmt.planned_desc() {
            return Ok(desc.map(|d| fields(&d, format)).unwrap_or_default());
        }
        let binding = stmt.describe_binding();
        let stmt = &stmt.stmt;
        let shown = match &**stmt {
            ParsedStatement::Session(s) => Some(SessionVars::default().run(s)),
            ParsedStatement::ShowObjects(_) | ParsedStatement::ShowCreate { .. } => {
                let planned = self.coord.plan(stmt, None).map_err(pg_error)?;
                self.coord.show(&planned)
            }
            _ => None,
        };
        let desc = if let Some(result) = shown {
            match result {
                Ok(ExecuteResult::Rows { desc, .. }) => Some(desc),
                _ => None,
            }
        } else if describes_without_rows(stmt)
            || matches!(
                &**stmt,
                ParsedStatement::Subscribe {
                    copy_to_stdout: true,
                    ..
                }
            )
        {
            // Transaction control and COPY return no rows.
            None
        } else if !returns_no_rows(stmt) {
            let planned = self.coord.plan(stmt, binding.as_ref());
            planned_desc(&planned.map_err(pg_error)?)
        } else {
            // Writes and DDL are checked when they run (a write with its values).
            None
        };
        Ok(desc.map(|d| fields(&d, format)).unwrap_or_default())
    }
}

/// The columns of the rows `stmt`, planned as `planned`, returns: none for `COPY (SUBSCRIBE
/// ...) TO STDOUT`, which answers COPY data (its plan is a bare SUBSCRIBE's).
fn result_desc(
    stmt: &ParsedStatement,
    planned: &PlannedStatement,
) -> Option<kpg_types::RelationDesc> {
    match stmt {
        ParsedStatement::Subscribe {
            copy_to_stdout: true,
            ..
        } => None,
        _ => planned_desc(planned),
    }
}

/// A stored statement holding the bound statement, for the portal a Bind creates.
pub fn bound_statement(
    stored: &StoredStatement<PreparedStatement>,
    message: &Bind,
    coord: &Coordinator,
    zone: &str,
) -> Result<StoredStatement<PreparedStatement>, ExecError> {
    // Errors name the statement as the client did (`""` for the unnamed one).
    let name = message
        .statement_name
        .as_deref()
        .unwrap_or(crate::session::portals::UNNAMED);
    let bound = stored.statement.bind(message, name, coord, zone)?;
    Ok(StoredStatement::new(
        stored.id.clone(),
        bound,
        stored.parameter_types.clone(),
    ))
}
