//! The coordinator's part of sequencing: plans a statement against the catalog (`Planned`,
//! before the session sequences it) and runs the plans of the catalog's families — reads in
//! `read.rs` and `subscribe.rs` (EXPLAIN and SHOW here), DDL in `ddl.rs`, writes in
//! `write.rs`, sources in `sources.rs` and `external.rs`, sinks in `sink.rs`. The session's
//! own statements (variables, transaction control, cursors, COPY) are sequenced by the
//! session (`session/sequence.rs`).

use std::sync::Arc;

use kpg_sql::{ParsedStatement, PlannedStatement, RowSetFinishing};
use kpg_types::{ColumnType, Datum, GlobalId, RelationDesc, Row, ScalarType};

use super::durable::DurableText;
use super::introspection::{bind_rows, is_system, reads_introspection, system_rows, SystemCatalog};
use super::temporary;
use super::{Coordinator, Subscription};
use crate::error::ExecError;

/// What a statement returns to its session.
pub enum ExecuteResult {
    /// A command tag (e.g. `CREATE TABLE`, `INSERT 0 3`).
    Command(String),
    Rows {
        desc: RelationDesc,
        rows: Vec<Row>,
    },
    /// The rows a write's RETURNING made; the command tag is `tag` followed by their number
    /// (`INSERT 0`, `UPDATE`, `DELETE`).
    Written {
        tag: String,
        desc: RelationDesc,
        rows: Vec<Row>,
    },
    Subscription {
        desc: RelationDesc,
        subscription: Subscription,
    },
}

/// A statement's plan and the catalog generation it was made at: a plan applied under the
/// write lock is made again (with what was `bound` to the statement) if DDL changed the
/// catalog since (`Coordinator::execute_planned`).
pub struct Planned {
    pub plan: PlannedStatement,
    pub generation: u64,
    pub bound: Option<Bound>,
}

/// What a Bind gave a prepared statement (`pgwire_server/prepared.rs`): the plan made at Parse
/// with the values in it (made at catalog `generation`; the values are kept to plan again if
/// DDL came between Bind and Execute), or, for a statement planned as it runs, the values.
#[derive(Clone, Debug)]
pub enum Bound {
    Plan(Arc<BoundPlan>),
    Values(Arc<Vec<kpg_sql::ParamValue>>),
}

/// A plan made at Parse with a Bind's values in it.
#[derive(Debug)]
pub struct BoundPlan {
    pub plan: PlannedStatement,
    /// The catalog generation it was made at.
    pub generation: u64,
    /// The values, typed as at Parse.
    pub values: Vec<kpg_sql::ParamValue>,
}

/// A constant INSERT planned for a transaction block: the table, the rows to write with their
/// multiplicities, and what the statement answers.
pub type ConstantInsert = (GlobalId, Vec<(Row, i64)>, ExecuteResult);

impl Coordinator {
    /// Plans a statement against the current catalog (also used to describe statements),
    /// with what a Bind gave it if it is a prepared statement.
    pub fn plan(
        &self,
        stmt: &ParsedStatement,
        bound: Option<&Bound>,
    ) -> Result<PlannedStatement, ExecError> {
        Ok(self.plan_with(stmt, bound)?.plan)
    }

    /// Plans against the catalog plus the system relations (`SystemCatalog`).
    fn plan_with(
        &self,
        stmt: &ParsedStatement,
        bound: Option<&Bound>,
    ) -> Result<Planned, ExecError> {
        let values = match bound {
            // DDL since Bind: planned again with the values, against the catalog as it is
            // (its result as the client was told it, else PostgreSQL's error).
            Some(Bound::Plan(b)) if b.generation != self.catalog_generation() => {
                let values = Bound::Values(Arc::new(b.values.clone()));
                let again = self.plan_with(stmt, Some(&values))?;
                if !same_columns(&planned_desc(&again.plan), &planned_desc(&b.plan)) {
                    return Err(changed_result());
                }
                return Ok(Planned {
                    bound: bound.cloned(),
                    ..again
                });
            }
            Some(Bound::Plan(b)) => {
                check_system_use(&b.plan)?;
                return Ok(Planned {
                    plan: b.plan.clone(),
                    generation: b.generation,
                    bound: bound.cloned(),
                });
            }
            Some(Bound::Values(values)) => Some(&values[..]),
            None => None,
        };
        let state = self.lock();
        let catalog = SystemCatalog {
            inner: &state.catalog,
        };
        // A planner bug must cost this statement, not the server: a panic here would poison
        // the coordinator's lock for every session. The planner only reads the catalog, so
        // nothing is left half-changed.
        let planned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &values {
            Some(values) => kpg_sql::plan_bound(stmt, &catalog, values),
            None => kpg_sql::plan(stmt, &catalog),
        }))
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            ExecError::internal(format!("planning failed: {what}"))
        })?
        .map_err(ExecError::from)?;
        check_system_use(&planned)?;
        Ok(Planned {
            plan: planned,
            generation: state.catalog.generation(),
            bound: bound.cloned(),
        })
    }

    /// Plans a prepared statement once, its parameters typed as `declared` (where declared)
    /// or by their use (`kpg_sql::plan_prepared`), against the catalog as it is now.
    pub fn plan_prepared(
        &self,
        stmt: &ParsedStatement,
        declared: &[Option<ScalarType>],
    ) -> Result<PreparedPlan, ExecError> {
        let state = self.lock();
        let catalog = SystemCatalog {
            inner: &state.catalog,
        };
        let prepared = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            kpg_sql::plan_prepared(stmt, &catalog, declared)
        }));
        let Ok(prepared) = prepared else {
            // A planner bug: left to planning as the statement runs, which reports it.
            return Ok(PreparedPlan {
                planned: Err(ExecError::internal("planning failed")),
                types: declared.to_vec(),
                generation: state.catalog.generation(),
            });
        };
        let planned = prepared.planned.map_err(ExecError::from).and_then(|p| {
            check_system_use(&p)?;
            Ok(p)
        });
        Ok(PreparedPlan {
            planned,
            types: prepared.types,
            generation: state.catalog.generation(),
        })
    }

    /// The catalog's generation (`Catalog::generation`).
    pub fn catalog_generation(&self) -> u64 {
        self.lock().catalog.generation()
    }

    /// Plans a statement about to run (with what a Bind gave it, if it is a prepared
    /// statement), with the introspection relations' rows as they are now bound into it if
    /// it reads them. The session's own statements are planned without the catalog.
    pub async fn plan_statement(
        &self,
        stmt: &ParsedStatement,
        bound: Option<&Bound>,
    ) -> Result<Planned, ExecError> {
        if let Some(plan) = kpg_sql::plan_session_statement(stmt) {
            return Ok(Planned {
                plan,
                generation: 0,
                bound: None,
            });
        }
        let mut planned = self.plan_with(stmt, bound)?;
        bind_write_context(&mut planned.plan)?;
        if reads_introspection(&mut planned.plan) {
            let figures = self.introspect().await?;
            let data = {
                let state = self.lock();
                system_rows(
                    &figures,
                    &state.catalog,
                    &state.dataflows,
                    super::external::source_rows(&state),
                )
            };
            bind_rows(&mut planned.plan, &data);
        }
        Ok(planned)
    }

    /// Plans and executes one statement of the catalog's families. Reads run concurrently;
    /// writes and DDL run one at a time, and return once what they changed is durable.
    pub async fn execute(
        self: &Arc<Self>,
        stmt: &ParsedStatement,
    ) -> Result<ExecuteResult, ExecError> {
        let planned = self.plan_statement(stmt, None).await?;
        self.execute_planned(stmt, planned, None).await
    }

    /// Executes the plan of `stmt`, canceled (57014) if it takes longer than `limit`. A
    /// write can be canceled only until it is handed to the committer (the last thing it
    /// does): after that it is applied, so it is waited for.
    pub async fn execute_planned(
        self: &Arc<Self>,
        stmt: &ParsedStatement,
        planned: Planned,
        limit: Option<std::time::Duration>,
    ) -> Result<ExecuteResult, ExecError> {
        if let Some(result) = self.show(&planned.plan) {
            return result;
        }
        if is_read(&planned.plan) {
            return within(limit, self.run(planned.plan)).await;
        }
        self.write(within(limit, async {
            let planned = self.current(stmt, planned).await?;
            let Some(text) = DurableText::of(&planned) else {
                return self.run(planned).await;
            };
            // DDL starts from a durable, readable state: no write of a table it drops, or
            // that a view it creates reads, is still in flight.
            self.flush().await;
            let before = self.lock().catalog.durable_ids();
            let result = super::durable::stored_after(&text, self.run(planned)).await?;
            self.refuse_on_provisional(&before)?;
            self.persist_ddl(&before, text)?;
            Ok(result)
        }))
        .await
    }

    /// Runs a read's plan (a query, EXPLAIN, SUBSCRIBE), such as a COPY's query.
    pub async fn run_read(
        self: &Arc<Self>,
        plan: PlannedStatement,
    ) -> Result<ExecuteResult, ExecError> {
        if !is_read(&plan) {
            return Err(ExecError::internal("a read of a plan that writes"));
        }
        self.run(plan).await
    }

    /// The plan of `stmt` for the catalog as it is now: `planned`'s, unless DDL changed the
    /// catalog after it was made (it was made before the write lock was taken), then made
    /// again.
    pub(super) async fn current(
        &self,
        stmt: &ParsedStatement,
        planned: Planned,
    ) -> Result<PlannedStatement, ExecError> {
        if planned.generation == self.catalog_generation() {
            return Ok(planned.plan);
        }
        Ok(self
            .plan_statement(stmt, planned.bound.as_ref())
            .await?
            .plan)
    }

    /// Runs a planned statement (the caller holds the write lock if it writes).
    pub(super) async fn run(
        self: &Arc<Self>,
        planned: PlannedStatement,
    ) -> Result<ExecuteResult, ExecError> {
        match planned {
            PlannedStatement::Select {
                plan,
                desc,
                finishing,
            } => {
                let rows = self.peek(plan).await?;
                Ok(ExecuteResult::Rows {
                    desc,
                    rows: finish(rows, &finishing)?,
                })
            }
            PlannedStatement::Explain { column, text } => Ok(ExecuteResult::Rows {
                desc: explain_desc(column),
                rows: vec![Row::new(vec![Datum::String(text)])],
            }),
            PlannedStatement::Subscribe {
                plan,
                desc,
                options,
            } => {
                let subscription = self.subscribe(plan, options)?;
                Ok(ExecuteResult::Subscription { desc, subscription })
            }
            PlannedStatement::CreateIndex {
                name,
                on,
                key,
                if_not_exists,
                ..
            } => self.create_index_statement(name, on, key, if_not_exists),
            PlannedStatement::CreateTable {
                name,
                desc,
                keys,
                defaults,
                if_not_exists,
                temporary,
                create_sql,
            } => self.create_table_statement(
                name,
                desc,
                keys,
                defaults,
                if_not_exists,
                temporary,
                create_sql,
            ),
            PlannedStatement::CreateTableAs {
                name,
                desc,
                plan,
                finishing,
                with_data,
                if_not_exists,
                temporary,
            } => {
                let session = temporary::owner(temporary)?;
                let fill = with_data.then_some((plan, finishing));
                self.create_table_as(name, desc, fill, if_not_exists, session)
                    .await
            }
            PlannedStatement::CreateView {
                name,
                desc,
                plan,
                materialized,
                if_not_exists,
                depends_on: named,
                query_sql,
                create_sql,
            } => {
                let texts = (query_sql, create_sql);
                self.create_view(name, desc, plan, materialized, if_not_exists, named, texts)
            }
            PlannedStatement::CreateSource {
                name,
                if_not_exists,
                generator,
                exports,
                sql,
            } => self.create_source(name, if_not_exists, generator, exports, sql),
            PlannedStatement::CreateExternalSource {
                name,
                if_not_exists,
                desc,
                source,
                depends_on,
                sql,
            } => {
                self.create_external_source(name, if_not_exists, desc, source, depends_on, sql)
                    .await
            }
            PlannedStatement::CreateSink(sink) => self.create_sink(*sink).await,
            PlannedStatement::CreateConnection {
                name,
                if_not_exists,
                broker,
                progress_topic,
                sql,
            } => self.create_connection(name, if_not_exists, broker, progress_topic, sql),
            PlannedStatement::Drop {
                ids, cascade, tag, ..
            } => {
                // The statement's tag, also when IF EXISTS found nothing to drop.
                self.drop_objects(&ids, cascade)?;
                Ok(ExecuteResult::Command(tag.into()))
            }
            PlannedStatement::Insert {
                table,
                plan,
                returning,
                on_conflict,
            } => self.insert(table, plan, returning, on_conflict).await,
            PlannedStatement::Update {
                table,
                predicates,
                assignments,
                returning,
            } => self.update(table, predicates, assignments, returning).await,
            PlannedStatement::Delete {
                table,
                predicates,
                returning,
            } => self.delete(table, predicates, returning).await,
            PlannedStatement::JoinedWrite {
                table,
                plan,
                columns,
                update,
                returning,
            } => {
                self.joined_write(table, plan, columns, update, returning)
                    .await
            }
            PlannedStatement::Truncate { tables } => self.truncate(tables).await,
            PlannedStatement::ShowObjects(_)
            | PlannedStatement::ShowCreate { .. }
            | PlannedStatement::CopyFrom(_)
            | PlannedStatement::CopyTo { .. }
            | PlannedStatement::Session(_)
            | PlannedStatement::Transaction(_)
            | PlannedStatement::Deallocate { .. }
            | PlannedStatement::Declare { .. }
            | PlannedStatement::Fetch(_)
            | PlannedStatement::Close { .. } => Err(ExecError::internal(
                "a statement the session sequences reached the coordinator",
            )),
        }
    }

    /// The answer to a SHOW statement about the catalog, or `None` if `planned` is not one.
    pub fn show(&self, planned: &PlannedStatement) -> Option<Result<ExecuteResult, ExecError>> {
        // Not a lock of the coordinator's state for every other statement.
        match planned {
            PlannedStatement::ShowObjects(_) | PlannedStatement::ShowCreate { .. } => {
                super::show::show(planned, &self.lock().catalog)
            }
            _ => None,
        }
    }

    /// The table or view called `name`.
    pub fn resolve(&self, name: &str) -> Option<kpg_sql::CatalogItem> {
        kpg_sql::Catalog::resolve(&self.lock().catalog, name)
    }
}

/// Whether a plan only reads: runs without the write lock.
fn is_read(plan: &PlannedStatement) -> bool {
    matches!(
        plan,
        PlannedStatement::Select { .. }
            | PlannedStatement::Explain { .. }
            | PlannedStatement::Subscribe { .. }
    )
}

/// Runs `body`, canceling it with SQLSTATE 57014 (dropping its reads) after `limit`.
pub async fn within<T>(
    limit: Option<std::time::Duration>,
    body: impl std::future::Future<Output = Result<T, ExecError>>,
) -> Result<T, ExecError> {
    match limit {
        None => body.await,
        Some(limit) => tokio::time::timeout(limit, body).await.unwrap_or_else(|_| {
            Err(ExecError::new(
                "57014",
                "canceling statement due to statement timeout",
            ))
        }),
    }
}

/// Refuses statements that would keep a snapshot of an introspection relation (a view's
/// definition is fixed when it is created) or change one.
fn check_system_use(planned: &PlannedStatement) -> Result<(), ExecError> {
    let (ids, what) = match planned {
        PlannedStatement::CreateView { depends_on, .. } => (depends_on.clone(), "views over"),
        PlannedStatement::CreateIndex { on, .. } => (vec![*on], "indexes on"),
        PlannedStatement::Drop { ids, .. } => (ids.clone(), "DROP of"),
        PlannedStatement::Truncate { tables } => (tables.clone(), "TRUNCATE of"),
        PlannedStatement::CopyFrom(copy) => (vec![copy.table], "COPY into"),
        _ => return Ok(()),
    };
    if ids.iter().any(|id| is_system(*id)) {
        return Err(ExecError::unsupported(format!(
            "{what} the introspection relations and system catalogs"
        )));
    }
    Ok(())
}

/// Writes the statement's time and the session's zone into a write's expressions (its rows',
/// SET's, RETURNING's, ON CONFLICT's): they are evaluated once, for this run, in the session
/// that runs it (a prepared write was planned in the zone of its Parse), and VALUES rows a
/// prepared INSERT left to its run become constant rows (`kpg_sql::values_now`). Reads bind
/// them as they run (`peek`); maintained plans never do.
fn bind_write_context(planned: &mut PlannedStatement) -> Result<(), ExecError> {
    if !matches!(
        planned,
        PlannedStatement::Insert { .. }
            | PlannedStatement::Update { .. }
            | PlannedStatement::Delete { .. }
            | PlannedStatement::JoinedWrite { .. }
    ) {
        return Ok(());
    }
    let (txn_start, now) = crate::statement_context::clock();
    let zone = crate::statement_context::time_zone();
    planned.visit_exprs_mut(&mut |e| {
        e.bind_clock(txn_start, now);
        e.bind_session_zone(&zone);
    });
    Ok(kpg_sql::values_now(planned)?)
}

/// Whether two results have the same columns (names and types), as a client told one of them
/// reads the other.
pub fn same_columns(
    a: &Option<kpg_types::RelationDesc>,
    b: &Option<kpg_types::RelationDesc>,
) -> bool {
    let columns = |d: &Option<kpg_types::RelationDesc>| {
        d.as_ref().map(|d| {
            d.columns
                .iter()
                .map(|(name, ty)| (name.clone(), ty.scalar))
                .collect::<Vec<_>>()
        })
    };
    columns(a) == columns(b)
}

/// PostgreSQL's error for a prepared statement whose result changed after DDL.
pub fn changed_result() -> ExecError {
    ExecError::new("0A000", "cached plan must not change result type")
}

/// The columns of a planned statement's rows, if it returns rows.
pub fn planned_desc(planned: &PlannedStatement) -> Option<kpg_types::RelationDesc> {
    match planned {
        kpg_sql::PlannedStatement::Select { desc, .. } => Some(desc.clone()),
        kpg_sql::PlannedStatement::Explain { column, .. } => Some(explain_desc(column.clone())),
        // A bare SUBSCRIBE's rows (see `result_desc` for `COPY (SUBSCRIBE ...)`).
        kpg_sql::PlannedStatement::Subscribe { desc, options, .. } => {
            Some(crate::cursors::subscribe_desc(desc, options.progress))
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
        } => Some(r.desc.clone()),
        _ => None,
    }
}

/// The one text column of an EXPLAIN's result.
pub fn explain_desc(column: String) -> RelationDesc {
    RelationDesc::new(vec![(column, ColumnType::new(ScalarType::Text, false))])
}

/// Expands multiplicities, then orders, offsets, limits and projects the rows.
pub(super) fn finish(
    rows: Vec<(Row, i64)>,
    finishing: &RowSetFinishing,
) -> Result<Vec<Row>, ExecError> {
    if finishing.counts.is_some() {
        return Err(ExecError::internal(
            "LIMIT or OFFSET with an unbound parameter",
        ));
    }
    let mut out = Vec::new();
    for (row, n) in rows {
        if n < 0 {
            return Err(ExecError::internal(format!(
                "negative multiplicity {n} for row {row}"
            )));
        }
        for _ in 0..n {
            out.push(row.clone());
        }
    }
    if !finishing.order_by.is_empty() {
        out.sort_by(|a, b| kpg_types::plan::compare_rows(a, b, &finishing.order_by));
    }
    let rows = out
        .into_iter()
        .skip(finishing.offset)
        .take(finishing.limit.unwrap_or(usize::MAX));
    Ok(rows.map(|r| r.project(&finishing.project)).collect())
}

/// A prepared statement planned with its parameters (`Coordinator::plan_prepared`).
pub struct PreparedPlan {
    /// The plan, or why planning without the parameters' values failed.
    pub planned: Result<PlannedStatement, ExecError>,
    /// Every parameter's type, where one was declared or fixed (`kpg_sql::Prepared::types`).
    pub types: Vec<Option<ScalarType>>,
    /// The catalog generation the plan was made at.
    pub generation: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_sql::ColumnOrder;
    use kpg_types::Datum;

    #[test]
    fn finishing_orders_nulls_and_limits() {
        let rows = vec![
            (Row::new(vec![Datum::Int32(2)]), 1),
            (Row::new(vec![Datum::Null]), 1),
            (Row::new(vec![Datum::Int32(1)]), 2),
        ];
        let f = RowSetFinishing {
            order_by: vec![ColumnOrder {
                column: 0,
                desc: true,
                nulls_last: false,
            }],
            limit: Some(3),
            offset: 0,
            counts: None,
            project: vec![0],
        };
        let out = finish(rows, &f).unwrap();
        assert_eq!(
            out,
            vec![
                Row::new(vec![Datum::Null]),
                Row::new(vec![Datum::Int32(2)]),
                Row::new(vec![Datum::Int32(1)])
            ]
        );
    }
}
