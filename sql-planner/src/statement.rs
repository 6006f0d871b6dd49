//! Planned statements: what the server executes for each SQL statement, and the dispatch from
//! a parsed statement to the file that plans it.
//!
//! A `Select`'s `desc` describes the visible columns (those in `finishing.project`); its plan
//! may compute extra ORDER BY columns after them.

use crate::dml::{OnConflict, Returning};
use crate::explain::{ExplainStage, ExplainTarget};
use crate::query::{plan_read, QueryContext};
use crate::subscribe::plan_subscribe;
pub use crate::subscribe::SubscribeOptions;
use crate::{ddl, dml, Catalog, ColumnDefault, PlanError, UniqueKey};
use kpg_types::{GlobalId, Plan, RelationDesc, ScalarExpr};
use sqlparser::ast::{Query, Statement};

/// A statement as kpg parses it: standard SQL through sqlparser, plus kpg's own statements
/// that sqlparser does not know.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // statements are few and short-lived; boxing buys nothing
pub enum ParsedStatement {
    Sql(Statement),
    /// `SUBSCRIBE [TO] name | (query)`, possibly wrapped as `COPY (SUBSCRIBE ...) TO STDOUT`.
    Subscribe {
        target: SubscribeTarget,
        copy_to_stdout: bool,
        options: SubscribeOptions,
    },
    /// `CREATE DEFAULT INDEX [IF NOT EXISTS] ON name`
    CreateDefaultIndex {
        on: sqlparser::ast::ObjectName,
        if_not_exists: bool,
    },
    /// `EXPLAIN [stage] PLAN FOR ...` or `EXPLAIN <query>`
    Explain {
        stage: ExplainStage,
        target: ExplainTarget,
    },
    /// `DECLARE name [options] CURSOR [WITH[OUT] HOLD] FOR <SUBSCRIBE | query>` (run by the
    /// session)
    Declare {
        name: String,
        options: crate::cursor::CursorOptions,
        target: Box<ParsedStatement>,
    },
    /// `FETCH | MOVE [direction] name [WITH (TIMEOUT = ...)]`
    Fetch(crate::cursor::Fetch),
    /// `CLOSE name`, or `CLOSE ALL` (`None`).
    Close {
        name: Option<String>,
    },
    /// `CREATE SOURCE ... FROM LOAD GENERATOR ...`
    CreateSource(Box<crate::source::CreateSource>),
    /// `CREATE SINK ... INTO KAFKA ...`
    CreateSink(Box<crate::sink::CreateSink>),
    /// `DROP SINK [IF EXISTS] name, ...`
    DropSink {
        names: Vec<sqlparser::ast::ObjectName>,
        if_exists: bool,
    },
    /// `CREATE CONNECTION ... TO KAFKA (...)`
    CreateConnection(Box<crate::connection::CreateConnection>),
    /// `DROP CONNECTION [IF EXISTS] name, ... [CASCADE]`
    DropConnection {
        names: Vec<sqlparser::ast::ObjectName>,
        if_exists: bool,
        cascade: bool,
    },
    /// `CREATE SOURCE ... FROM KAFKA | FILE ...`
    CreateExternalSource(Box<crate::external_source::CreateExternalSource>),
    /// `DROP SOURCE [IF EXISTS] name, ... [CASCADE]`
    DropSource {
        names: Vec<sqlparser::ast::ObjectName>,
        if_exists: bool,
        cascade: bool,
    },
    /// `SHOW CREATE TABLE | VIEW | MATERIALIZED VIEW | INDEX name` (answered by the server).
    ShowCreate {
        object: crate::show_create::ShowCreateObject,
        name: String,
    },
    /// `SHOW TABLES | VIEWS | SOURCES | INDEXES ...`: a listing the server answers.
    ShowObjects(crate::session_statement::ShowObjects),
    /// SET, RESET, SHOW of a parameter, SET TRANSACTION (run by the session).
    Session(crate::session_statement::SessionStatement),
    /// BEGIN, COMMIT, ROLLBACK [TO SAVEPOINT], SAVEPOINT, RELEASE (run by the session).
    Transaction(crate::session_statement::TransactionStatement),
    /// `DEALLOCATE [PREPARE] name`, or `DEALLOCATE ALL` (`None`).
    Deallocate {
        name: Option<String>,
    },
    /// `COPY t [(columns)] FROM STDIN [WITH (...)]`
    CopyFrom(Box<crate::copy::CopyFrom>),
    /// `COPY (query) | t TO STDOUT [WITH (...)]`
    CopyTo(Box<crate::copy::CopyTo>),
    /// A statement kpg parses but cannot run in this form: the error it reports when it runs.
    Refused(PlanError),
}

#[derive(Clone, Debug, PartialEq)]
pub enum SubscribeTarget {
    Name(String),
    Query(Box<Query>),
}

/// How to order, limit and shape a query's rows after they are read (done by the server, since
/// a read's result is a set of rows at one time).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowSetFinishing {
    pub order_by: Vec<ColumnOrder>,
    pub limit: Option<usize>,
    pub offset: usize,
    /// A prepared statement's LIMIT and OFFSET when either reads a parameter: each a bigint
    /// expression (`None` if absent) that `bind_values` evaluates into `limit` and `offset`.
    /// Never set in a plan that runs.
    pub counts: Option<Box<[Option<kpg_types::ScalarExpr>; 2]>>,
    /// Columns of the plan's output to return, in order (hides ORDER BY-only columns).
    pub project: Vec<usize>,
}

/// One ORDER BY item: the same type the render plan's `TopK` uses.
pub use kpg_types::plan::ColumnOrder;

#[derive(Clone, Debug, PartialEq)]
pub enum PlannedStatement {
    /// CREATE INDEX: arrange the object `on` by `key` and export the arrangement as `name`.
    CreateIndex {
        name: String,
        on: GlobalId,
        key: Vec<ScalarExpr>,
        if_not_exists: bool,
        /// The statement's text as it is kept (`ParsedStatement::durable_sql`).
        create_sql: Option<String>,
    },
    CreateTable {
        name: String,
        desc: RelationDesc,
        /// PRIMARY KEY and UNIQUE constraints, each enforced through an index of its name.
        keys: Vec<UniqueKey>,
        /// Each column's DEFAULT, if it has one.
        defaults: Vec<Option<ColumnDefault>>,
        if_not_exists: bool,
        /// A temporary table, of the session that creates it.
        temporary: bool,
        /// The statement's text as it is kept (`ParsedStatement::durable_sql`).
        create_sql: Option<String>,
    },
    /// CREATE SOURCE: start `generator`, exporting `exports` (the source object first).
    CreateSource {
        name: String,
        if_not_exists: bool,
        generator: kpg_types::LoadGenerator,
        exports: Vec<crate::source::PlannedExport>,
        /// The statement with every option spelled out, for `SHOW CREATE SOURCE`.
        sql: String,
    },
    /// CREATE SINK: write every change of an object to a topic.
    CreateSink(Box<crate::sink::PlannedSink>),
    /// CREATE CONNECTION: a named broker.
    CreateConnection {
        name: String,
        if_not_exists: bool,
        broker: String,
        progress_topic: Option<String>,
        sql: String,
    },
    /// CREATE SOURCE ... FROM KAFKA | FILE: read `source` into a collection of `desc`'s
    /// columns.
    CreateExternalSource {
        name: String,
        if_not_exists: bool,
        desc: RelationDesc,
        source: kpg_types::external::ExternalSourceDesc,
        /// The connection it uses, if any.
        depends_on: Vec<GlobalId>,
        /// The statement with every option spelled out.
        sql: String,
    },
    /// CREATE [MATERIALIZED] VIEW. A view is only recorded (readers plan `plan` in place,
    /// or read its index); a materialized view is computed and arranged by a dataflow.
    CreateView {
        name: String,
        desc: RelationDesc,
        plan: Plan,
        materialized: bool,
        if_not_exists: bool,
        /// Every object the definition names, including views planned in place (which
        /// `plan.imports()` cannot show).
        depends_on: Vec<GlobalId>,
        /// The text of the defining query, for the catalog's `definition` columns.
        query_sql: Option<String>,
        /// The statement's text as it is kept (`ParsedStatement::durable_sql`).
        create_sql: Option<String>,
    },
    /// DROP of the named objects (already resolved).
    Drop {
        ids: Vec<GlobalId>,
        cascade: bool,
        /// The command tag, by the kind of object the statement names ("DROP TABLE"), also
        /// when IF EXISTS finds none.
        tag: &'static str,
        /// The statement's text as it is kept (`ParsedStatement::durable_sql`).
        sql: Option<String>,
    },
    /// INSERT: `plan` yields rows matching the table's columns, already cast to their types.
    /// `returning` is evaluated over each inserted row (and each row ON CONFLICT updated).
    Insert {
        table: GlobalId,
        plan: Plan,
        returning: Option<Returning>,
        on_conflict: Option<OnConflict>,
    },
    /// UPDATE: rows of `table` for which every predicate holds are replaced by `assignments`
    /// (one expression per table column, over the old row); `returning` is evaluated over the
    /// new rows.
    Update {
        table: GlobalId,
        predicates: Vec<ScalarExpr>,
        assignments: Vec<ScalarExpr>,
        returning: Option<Returning>,
    },
    /// DELETE: rows of `table` for which every predicate holds are removed; `returning` is
    /// evaluated over the removed rows.
    Delete {
        table: GlobalId,
        predicates: Vec<ScalarExpr>,
        returning: Option<Returning>,
    },
    /// UPDATE ... FROM / DELETE ... USING (see `dml/joined.rs`): `plan` yields the target rows
    /// to change as stored (`columns` columns and the position), for an `update` their new
    /// `columns` columns, then the other FROM items' columns; each stored row is changed once.
    /// `returning` is evaluated over the (new) row, its position and the other columns.
    JoinedWrite {
        table: GlobalId,
        plan: Plan,
        columns: usize,
        update: bool,
        returning: Option<Returning>,
    },
    Select {
        plan: Plan,
        desc: RelationDesc,
        finishing: RowSetFinishing,
    },
    /// COPY (SUBSCRIBE ...) TO STDOUT
    Subscribe {
        plan: Plan,
        desc: RelationDesc,
        options: SubscribeOptions,
    },
    /// EXPLAIN: one text column named `column`, one row holding `text`.
    Explain { column: String, text: String },
    /// CREATE TABLE AS / SELECT INTO: a table `desc` filled (`with_data`) with the rows of
    /// `plan` shaped by `finishing`, in their order.
    CreateTableAs {
        name: String,
        desc: RelationDesc,
        plan: Plan,
        finishing: RowSetFinishing,
        with_data: bool,
        if_not_exists: bool,
        temporary: bool,
    },
    /// TRUNCATE: every row of `tables` is removed, in one write.
    Truncate { tables: Vec<GlobalId> },
    /// SHOW TABLES | VIEWS | SOURCES | INDEXES ...: listed from the server's catalog.
    ShowObjects(crate::session_statement::ShowObjects),
    /// SHOW CREATE: the text the server's catalog keeps for the object.
    ShowCreate {
        object: crate::show_create::ShowCreateObject,
        name: String,
    },
    /// COPY ... FROM STDIN: rows read from the client into a table.
    CopyFrom(crate::copy::CopyFromPlan),
    /// COPY ... TO STDOUT: the rows of `query` (a `Select`) written in `format`.
    CopyTo {
        query: Box<PlannedStatement>,
        format: crate::copy::CopyFormat,
    },
    /// SET, RESET, SHOW of a parameter, SET TRANSACTION: the session runs them on its
    /// variables.
    Session(crate::session_statement::SessionStatement),
    /// BEGIN, COMMIT, ROLLBACK [TO SAVEPOINT], SAVEPOINT, RELEASE: the session runs them on
    /// its transaction.
    Transaction(crate::session_statement::TransactionStatement),
    /// DEALLOCATE: the session forgets a prepared statement (`None`: all of them).
    Deallocate { name: Option<String> },
    /// DECLARE: a cursor over `target`, planned with the DECLARE (with its parameters'
    /// values) and run as the cursor opens, once the session has checked the options, the
    /// block and the name (PostgreSQL's order: the options, the query, the block, the name).
    Declare {
        name: String,
        options: crate::cursor::CursorOptions,
        /// The cursor's statement (its form decides PostgreSQL's default of SCROLL).
        target: Box<ParsedStatement>,
        /// Its plan, or why planning it failed.
        plan: Result<Box<PlannedStatement>, PlanError>,
    },
    /// FETCH or MOVE from a cursor of the session.
    Fetch(crate::cursor::Fetch),
    /// CLOSE a cursor of the session, or all of them (`None`).
    Close { name: Option<String> },
}

impl PlannedStatement {
    /// Fills in what the plan keeps of the statement's text.
    fn with_text_of(mut self, stmt: &ParsedStatement) -> Self {
        match &mut self {
            PlannedStatement::CreateIndex { create_sql, .. }
            | PlannedStatement::CreateTable { create_sql, .. }
            | PlannedStatement::CreateView { create_sql, .. }
            | PlannedStatement::Drop {
                sql: create_sql, ..
            } => *create_sql = stmt.durable_sql(),
            _ => {}
        }
        self
    }
}

/// The plan of a statement the session runs without the catalog (session variables,
/// transaction control, DEALLOCATE, FETCH, CLOSE), `None` for any other statement.
pub fn plan_session_statement(stmt: &ParsedStatement) -> Option<PlannedStatement> {
    Some(match stmt {
        ParsedStatement::Session(s) => PlannedStatement::Session(s.clone()),
        ParsedStatement::Transaction(t) => PlannedStatement::Transaction(t.clone()),
        ParsedStatement::Deallocate { name } => PlannedStatement::Deallocate { name: name.clone() },
        ParsedStatement::Fetch(fetch) => PlannedStatement::Fetch(fetch.clone()),
        ParsedStatement::Close { name } => PlannedStatement::Close { name: name.clone() },
        _ => return None,
    })
}

/// Plans any statement: every statement kpg runs has a plan.
pub(crate) fn plan_statement(
    stmt: &ParsedStatement,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    plan_parts(stmt, catalog).map(|planned| planned.with_text_of(stmt))
}

fn plan_parts(
    stmt: &ParsedStatement,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let stmt = match stmt {
        ParsedStatement::Subscribe {
            target, options, ..
        } => return plan_subscribe(target, options, catalog),
        ParsedStatement::CreateDefaultIndex { on, if_not_exists } => {
            return crate::index::plan_default_index(on, *if_not_exists, catalog)
        }
        ParsedStatement::CreateSource(cs) => return crate::source::plan_create_source(cs, catalog),
        ParsedStatement::CreateConnection(cc) => {
            return crate::connection::plan_create(cc, catalog)
        }
        ParsedStatement::CreateSink(cs) => return crate::sink::plan_create(cs, catalog),
        ParsedStatement::DropSink { names, if_exists } => {
            return crate::sink::plan_drop(names, *if_exists, catalog)
        }
        ParsedStatement::DropConnection {
            names,
            if_exists,
            cascade,
        } => return crate::connection::plan_drop(names, *if_exists, *cascade, catalog),
        ParsedStatement::CreateExternalSource(cs) => {
            return crate::external_source::plan(cs, catalog)
        }
        ParsedStatement::DropSource {
            names,
            if_exists,
            cascade,
        } => {
            return ddl::plan_drop_items(
                crate::ItemKind::Source,
                *if_exists,
                names,
                *cascade,
                catalog,
            )
        }
        ParsedStatement::Explain { stage, target } => {
            return crate::explain::plan_explain(*stage, target, catalog)
        }
        ParsedStatement::ShowCreate { object, name } => {
            return Ok(PlannedStatement::ShowCreate {
                object: *object,
                name: name.clone(),
            })
        }
        ParsedStatement::ShowObjects(show) => {
            return Ok(PlannedStatement::ShowObjects(show.clone()))
        }
        ParsedStatement::CopyFrom(copy) => {
            return crate::copy::plan_copy_from(copy, catalog).map(PlannedStatement::CopyFrom)
        }
        ParsedStatement::CopyTo(copy) => {
            return Ok(PlannedStatement::CopyTo {
                query: Box::new(plan_statement(&copy.query, catalog)?),
                format: copy.format.clone(),
            })
        }
        ParsedStatement::Declare {
            name,
            options,
            target,
        } => {
            return Ok(PlannedStatement::Declare {
                name: name.clone(),
                options: *options,
                target: target.clone(),
                plan: plan_statement(target, catalog).map(Box::new),
            })
        }
        ParsedStatement::Session(_)
        | ParsedStatement::Transaction(_)
        | ParsedStatement::Deallocate { .. }
        | ParsedStatement::Fetch(_)
        | ParsedStatement::Close { .. } => {
            return Ok(plan_session_statement(stmt).expect("a session statement"))
        }
        ParsedStatement::Refused(e) => return Err(e.clone()),
        ParsedStatement::Sql(s) => s,
    };
    match stmt {
        Statement::Query(q) => {
            if let Some(into) = ddl::plan_select_into(q, catalog) {
                return into;
            }
            let planned = plan_read(&QueryContext::new(catalog), q)?;
            Ok(PlannedStatement::Select {
                plan: planned.plan,
                desc: planned.scope.desc(),
                finishing: planned.finishing,
            })
        }
        Statement::CreateTable(ct) => ddl::plan_create_table(ct, catalog),
        Statement::CreateView(cv) => ddl::plan_create_view(cv, catalog),
        Statement::CreateIndex(ci) => crate::index::plan_create_index(ci, catalog),
        Statement::Drop {
            object_type: sqlparser::ast::ObjectType::Index,
            if_exists,
            names,
            cascade: false,
            ..
        } => crate::index::plan_drop_index(names, *if_exists, catalog),
        Statement::Drop {
            object_type,
            if_exists,
            names,
            cascade,
            purge: false,
            temporary: false,
            table: None,
            ..
        } => ddl::plan_drop(object_type, *if_exists, names, *cascade, catalog),
        Statement::Insert(ins) => dml::plan_insert(ins, catalog),
        Statement::Update(up) => dml::plan_update(up, catalog),
        Statement::Delete(del) => dml::plan_delete(del, catalog),
        Statement::Truncate(t) => dml::plan_truncate(t, catalog),
        other => Err(PlanError::unsupported(statement_name(other))),
    }
}

/// The leading keywords of a statement, to name it in "not supported" errors.
pub(crate) fn statement_name(stmt: &Statement) -> String {
    let text = stmt.to_string();
    let words: Vec<&str> = text
        .split_whitespace()
        .take_while(|w| w.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .take(3)
        .collect();
    if words.is_empty() {
        "this statement".to_string()
    } else {
        words.join(" ").to_uppercase()
    }
}

impl ParsedStatement {
    /// The statement as SQL text that parses back to this very statement, for the server to
    /// keep in its data directory and run again on restart; `None` for statements that have no
    /// such text (`CREATE SOURCE` keeps the text its plan spells out instead).
    pub fn durable_sql(&self) -> Option<String> {
        let text = match self {
            ParsedStatement::Sql(stmt) => stmt.to_string(),
            ParsedStatement::CreateDefaultIndex { on, if_not_exists } => {
                let ine = if *if_not_exists { "IF NOT EXISTS " } else { "" };
                format!("CREATE DEFAULT INDEX {ine}ON {on}")
            }
            _ => return None,
        };
        match crate::parse(&text) {
            Ok(back) if back.len() == 1 && back[0] == *self => Some(text),
            _ => None,
        }
    }
}

#[cfg(test)]
mod durable_sql_tests {
    use crate::parse;

    #[test]
    fn ddl_text_reads_back_as_the_same_statement() {
        for sql in [
            "CREATE TABLE t (a int PRIMARY KEY, b text DEFAULT 'x' NOT NULL, c numeric(10,2))",
            "CREATE MATERIALIZED VIEW v AS SELECT a, count(*) FROM t WHERE b <> 'it''s' GROUP BY a",
            "CREATE VIEW w (x) AS SELECT DISTINCT ON (a) a FROM t ORDER BY a, c DESC",
            "CREATE INDEX i ON t (a, b)",
            "CREATE DEFAULT INDEX IF NOT EXISTS ON t",
        ] {
            let stmt = &parse(sql).unwrap()[0];
            let text = stmt.durable_sql().unwrap_or_else(|| panic!("{sql}"));
            assert_eq!(&parse(&text).unwrap()[0], stmt, "{text}");
        }
    }
}
