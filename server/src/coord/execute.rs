//! Executing planned statements: DDL against the catalog and the workers, writes to tables,
//! reads through peeks, subscriptions.

use std::sync::Arc;

use kpg_sql::{
    CatalogItem, IndexItem, ItemKind, ParsedStatement, PlannedStatement, RowSetFinishing,
    StatementKind,
};
use kpg_types::command::Command;
use kpg_types::{
    ColumnType, DataflowDescription, DataflowSink, Datum, GlobalId, Plan, RelationDesc, Row,
    ScalarExpr, ScalarType,
};

use super::durable::DurableText;
use super::introspection::{is_system, mentions_system, system_rows, SystemCatalog, SystemData};
use super::returning::{by_position, written};
use super::temporary;
use super::{Coordinator, State, Subscription};
use crate::catalog::{Entry, Kind, Op};
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

/// A constant INSERT planned for a transaction block: the table, the rows to write with their
/// multiplicities, and what the statement answers.
pub type ConstantInsert = (GlobalId, Vec<(Row, i64)>, ExecuteResult);

impl Coordinator {
    /// Plans a statement against the current catalog (also used to describe statements).
    pub fn plan(&self, stmt: &ParsedStatement) -> Result<PlannedStatement, ExecError> {
        self.plan_with(stmt, &SystemData::default())
    }

    /// Plans against the catalog plus the introspection relations holding `data`.
    fn plan_with(
        &self,
        stmt: &ParsedStatement,
        data: &SystemData,
    ) -> Result<PlannedStatement, ExecError> {
        if let Some(planned) = crate::statement_context::bound_plan(stmt) {
            check_system_use(&planned)?;
            return Ok(planned);
        }
        let state = self.lock();
        let catalog = SystemCatalog {
            inner: &state.catalog,
            data,
        };
        // A planner bug must cost this statement, not the server: a panic here would poison
        // the coordinator's lock for every session. The planner only reads the catalog, so
        // nothing is left half-changed.
        let planned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            kpg_sql::plan(stmt, &catalog)
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
        Ok(planned)
    }

    /// Plans a prepared statement once, its parameters typed as `declared` (where declared)
    /// or by their use (`kpg_sql::plan_prepared`): the plan, the parameters' types and the
    /// catalog generation it holds for.
    pub fn plan_prepared(
        &self,
        stmt: &ParsedStatement,
        declared: &[Option<kpg_types::ScalarType>],
    ) -> Result<(PlannedStatement, Vec<kpg_types::ScalarType>, u64), ExecError> {
        let data = SystemData::default();
        let state = self.lock();
        let catalog = SystemCatalog {
            inner: &state.catalog,
            data: &data,
        };
        let planned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            kpg_sql::plan_prepared(stmt, &catalog, declared)
        }))
        .map_err(|_| ExecError::internal("planning failed"))?
        .map_err(ExecError::from)?;
        check_system_use(&planned.0)?;
        Ok((planned.0, planned.1, state.catalog.generation()))
    }

    /// The catalog's generation (`Catalog::generation`).
    pub fn catalog_generation(&self) -> u64 {
        self.lock().catalog.generation()
    }

    /// Plans a statement about to run: with the current introspection figures if it names an
    /// introspection relation.
    pub(super) async fn plan_for_execution(
        &self,
        stmt: &ParsedStatement,
    ) -> Result<PlannedStatement, ExecError> {
        // The SQL text of a plain statement (short), not its syntax tree's debug form (which
        // lists every token's position, and cost 4% of the CPU of many small INSERTs).
        let text = stmt.scan_text();
        if !mentions_system(&text) {
            return self.plan(stmt);
        }
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
        self.plan_with(stmt, &data)
    }

    /// Executes one statement. Reads run concurrently; writes and DDL run one at a time, and
    /// return once what they changed is durable.
    pub async fn execute(
        self: &Arc<Self>,
        stmt: &ParsedStatement,
    ) -> Result<ExecuteResult, ExecError> {
        self.execute_within(stmt, None).await
    }

    /// Executes one statement, canceled (57014) if it takes longer than `limit`. A write can
    /// be canceled only until it is handed to the committer (the last thing it does): after
    /// that it is applied, so it is waited for.
    pub async fn execute_within(
        self: &Arc<Self>,
        stmt: &ParsedStatement,
        limit: Option<std::time::Duration>,
    ) -> Result<ExecuteResult, ExecError> {
        let is_read = stmt.kind() == StatementKind::Query
            || matches!(
                stmt,
                ParsedStatement::Subscribe { .. } | ParsedStatement::Explain { .. }
            );
        if let Some(result) = self.show(stmt) {
            return result;
        }
        if is_read {
            return within(limit, async {
                let planned = self.plan_for_execution(stmt).await?;
                self.run(stmt, planned).await
            })
            .await;
        }
        self.write(within(limit, async {
            let planned = self.plan_for_execution(stmt).await?;
            let Some(text) = DurableText::of(stmt, &planned) else {
                return self.run(stmt, planned).await;
            };
            // DDL starts from a durable, readable state: no write of a table it drops, or
            // that a view it creates reads, is still in flight.
            self.flush().await;
            let before = self.lock().catalog.durable_ids();
            let result = super::durable::stored_after(&text, self.run(stmt, planned)).await?;
            self.refuse_on_provisional(&before)?;
            self.persist_ddl(&before, text)?;
            Ok(result)
        }))
        .await
    }

    /// Runs a planned statement (the caller holds the write lock if it writes).
    pub(super) async fn run(
        self: &Arc<Self>,
        stmt: &ParsedStatement,
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
            } => {
                let mut state = self.lock();
                if state.catalog.name_taken(&name) {
                    return exists_result(&name, if_not_exists, "CREATE INDEX");
                }
                self.create_index(&mut state, name, on, key)?;
                Ok(ExecuteResult::Command("CREATE INDEX".into()))
            }
            PlannedStatement::CreateTable {
                name,
                desc,
                keys,
                defaults,
                if_not_exists,
                temporary,
            } => {
                let session = temporary::owner(temporary)?;
                let mut state = self.lock();
                if temporary::taken(&state, &name, session) {
                    return exists_result(&name, if_not_exists, "CREATE TABLE");
                }
                if let Some(taken) = keys
                    .iter()
                    .find(|k| temporary::taken(&state, &k.name, session))
                {
                    return exists_result(&taken.name, false, "CREATE TABLE");
                }
                let create_sql = stmt.durable_sql();
                self.create_table(&mut state, name, desc, keys, defaults, session, create_sql)?;
                Ok(ExecuteResult::Command("CREATE TABLE".into()))
            }
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
            } => {
                let tag = if materialized {
                    "CREATE MATERIALIZED VIEW"
                } else {
                    "CREATE VIEW"
                };
                let mut state = self.lock();
                if let Some(gone) = named.iter().find(|id| !state.catalog.contains(**id)) {
                    return Err(ExecError::new(
                        "42P01",
                        format!("relation u{gone} was dropped while the view was planned"),
                    ));
                }
                let session = temporary::view_owner(&state, &named, materialized)?;
                if temporary::taken(&state, &name, session) {
                    return exists_result(&name, if_not_exists, tag);
                }
                let id = Self::allocate_id(&mut state);
                if !materialized {
                    // Readers plan the definition in place; nothing runs until it is indexed.
                    let entry = view_entry(id, name, ItemKind::View, desc, named, plan, stmt);
                    state.catalog.transact(vec![Op::Create {
                        entry,
                        temp: session,
                    }])?;
                    return Ok(ExecuteResult::Command(tag.into()));
                }
                let mut optimized = Self::optimize(&state, plan.clone())?;
                Self::check_imports(&state, &optimized)?;
                Self::check_maintainable(&optimized)?;
                Self::bind_durable_zone(&mut optimized)?;
                // The view reads its inputs, the views it names and any index it imports;
                // none of them may be dropped while the view exists.
                let mut depends_on = named;
                depends_on.extend(optimized.imports());
                depends_on.extend(optimized.index_imports());
                depends_on.sort_unstable();
                depends_on.dedup();
                let as_of = state.upper - 1;
                let desc_df = DataflowDescription {
                    name: format!("materialized-view-{name}"),
                    plan: optimized,
                    as_of,
                    sink: DataflowSink::Materialize { id },
                };
                let entry = view_entry(
                    id,
                    name,
                    ItemKind::MaterializedView,
                    desc,
                    depends_on,
                    plan,
                    stmt,
                );
                state
                    .catalog
                    .transact(vec![Op::Create { entry, temp: None }])?;
                // The record's commit first, so that its fsync overlaps the dataflow's build.
                self.persist_created(&mut state, id);
                self.install(&mut state, id, desc_df);
                Ok(ExecuteResult::Command(tag.into()))
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
            } => {
                let tag = "CREATE CONNECTION";
                let mut state = self.lock();
                if state.catalog.name_taken(&name) {
                    return match if_not_exists {
                        true => Ok(ExecuteResult::Command(tag.into())),
                        false => Err(ExecError::new(
                            "42710",
                            format!("connection \"{name}\" already exists"),
                        )),
                    };
                }
                let id = Self::allocate_id(&mut state);
                let item = kpg_sql::connection::ConnectionItem {
                    id,
                    name,
                    broker,
                    progress_topic,
                };
                state
                    .catalog
                    .transact(vec![Op::CreateConnection { item, sql }])?;
                Ok(ExecuteResult::Command(tag.into()))
            }
            PlannedStatement::Drop { ids, cascade } => self.drop_objects(&ids, cascade),
            PlannedStatement::Insert {
                table,
                plan,
                returning,
                on_conflict,
            } => {
                let rows = match plan {
                    Plan::Constant { rows } => rows,
                    plan => self.peek(plan).await?,
                };
                if let Some(on_conflict) = on_conflict {
                    return self
                        .insert_on_conflict(table, rows, on_conflict, returning)
                        .await;
                }
                let writes = vec![(table, rows)];
                self.check_writes(&writes).await?;
                let result = written(
                    "INSERT 0",
                    returning.as_ref(),
                    writes[0].1.iter().map(|(r, n)| (r.datums(), *n)),
                )?;
                self.append(writes);
                Ok(result)
            }
            PlannedStatement::Update {
                table,
                predicates,
                assignments,
                returning,
            } => {
                let mut old = self.stored_rows(table, predicates).await?;
                by_position(&mut old);
                // The statement's time, one value for every row (current_date and friends).
                let (txn_start, now) = crate::statement_context::clock();
                let assignments: Vec<_> = assignments
                    .into_iter()
                    .map(|mut e| {
                        e.bind_clock(txn_start, now);
                        e
                    })
                    .collect();
                let mut updates = Vec::with_capacity(old.len() * 2);
                for (row, n) in old {
                    let new = Row::new(
                        assignments
                            .iter()
                            .map(|e| e.eval(&row.datums()))
                            .collect::<Result<Vec<_>, _>>()?,
                    );
                    updates.push((row, -n));
                    updates.push((new, n));
                }
                let writes = vec![(table, updates)];
                self.check_writes(&writes).await?;
                let result = written(
                    "UPDATE",
                    returning.as_ref(),
                    writes[0]
                        .1
                        .iter()
                        .filter(|(_, n)| *n > 0)
                        .map(|(r, n)| (r.datums(), *n)),
                )?;
                self.append(writes);
                Ok(result)
            }
            PlannedStatement::Delete {
                table,
                predicates,
                returning,
            } => {
                let mut old = self.stored_rows(table, predicates).await?;
                by_position(&mut old);
                let result = written(
                    "DELETE",
                    returning.as_ref(),
                    old.iter().map(|(r, n)| (r.datums(), *n)),
                )?;
                self.append(vec![(
                    table,
                    old.into_iter().map(|(r, n)| (r, -n)).collect(),
                )]);
                Ok(result)
            }
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
        }
    }

    /// Enters the table `name` in the catalog and creates its collection, with an index
    /// enforcing each of its `keys`; a temporary table of `session`, if given. `create_sql`
    /// is the statement that creates it, if it has its own.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn create_table(
        &self,
        state: &mut State,
        name: String,
        desc: RelationDesc,
        keys: Vec<kpg_sql::UniqueKey>,
        defaults: Vec<Option<kpg_sql::ColumnDefault>>,
        session: Option<u64>,
        create_sql: Option<String>,
    ) -> Result<GlobalId, ExecError> {
        let id = Self::allocate_id(state);
        let mut entry = Entry::new(CatalogItem {
            id,
            name: name.clone(),
            kind: ItemKind::Table,
            desc,
        });
        entry.keys = keys.clone();
        entry.defaults = defaults;
        entry.create_sql =
            create_sql.or_else(|| Some(super::show::create_table_sql(&entry, session.is_some())));
        let mut ops = vec![Op::Create {
            entry,
            temp: session,
        }];
        // Each constraint is enforced through an index on its columns, which readers use like
        // any other.
        let mut indexes = Vec::with_capacity(keys.len());
        for key in keys {
            let columns = key.columns.iter().map(|&c| ScalarExpr::Column(c)).collect();
            let (index_ops, index, dataflow) =
                self.plan_index(state, key.name, id, columns, Some(Kind::Table))?;
            ops.extend(index_ops);
            indexes.push((index, dataflow));
        }
        state.catalog.transact(ops)?;
        state
            .dataflows
            .insert(id, super::introspection::DataflowMeta::table(&name, id));
        self.compute.send(Command::CreateTable {
            id,
            since: state.upper,
        });
        for (index, dataflow) in indexes {
            self.install(state, index, dataflow);
        }
        Ok(id)
    }

    /// Builds the index `name` of `on` keyed by `key` and enters it in the catalog.
    fn create_index(
        &self,
        state: &mut State,
        name: String,
        on: GlobalId,
        key: Vec<ScalarExpr>,
    ) -> Result<(), ExecError> {
        let (ops, id, dataflow) = self.plan_index(state, name, on, key, None)?;
        state.catalog.transact(ops)?;
        self.install(state, id, dataflow);
        Ok(())
    }

    /// The catalog change and the dataflow of the index `name` of `on` keyed by `key`;
    /// `on_kind` is what `on` is when it is not in the catalog yet (a table created with it).
    fn plan_index(
        &self,
        state: &mut State,
        name: String,
        on: GlobalId,
        mut key: Vec<ScalarExpr>,
        on_kind: Option<Kind>,
    ) -> Result<(Vec<Op>, GlobalId, DataflowDescription), ExecError> {
        let Some(kind) = on_kind.or_else(|| state.catalog.kind(on)) else {
            return Err(ExecError::new("42P01", "the indexed relation was dropped"));
        };
        crate::coord::zoned_index::check_key(&key)?;
        Self::bind_durable_key_zone(&mut key)?;
        let mut ops = Vec::with_capacity(2);
        // An index on a view computes the view: from here on the view is maintained,
        // and readers read the index instead of planning the definition.
        let plan = match kind {
            Kind::View => {
                let definition = kpg_sql::Catalog::definition(&state.catalog, on)
                    .ok_or_else(|| ExecError::internal("view without a definition"))?;
                let mut plan = Self::optimize(state, definition)?;
                Self::check_imports(state, &plan)?;
                Self::check_maintainable(&plan)?;
                crate::coord::zoned_index::check_view(&plan)?;
                Self::bind_durable_zone(&mut plan)?;
                ops.push(Op::AddDependencies {
                    id: on,
                    on: plan.index_imports(),
                });
                plan
            }
            _ => Plan::Get { id: on },
        };
        let id = Self::allocate_id(state);
        let as_of = state.upper - 1;
        let dataflow = DataflowDescription {
            name: format!("index-{name}"),
            plan,
            as_of,
            sink: DataflowSink::Index {
                id,
                key: key.clone(),
            },
        };
        ops.push(Op::CreateIndex(IndexItem { id, name, on, key }));
        Ok((ops, id, dataflow))
    }

    /// Plans an INSERT of constant rows for a transaction block (to be checked, not yet
    /// written), with what it answers: its tag, or its RETURNING rows.
    pub fn plan_constant_insert(
        &self,
        stmt: &ParsedStatement,
    ) -> Result<ConstantInsert, ExecError> {
        self.plan_insert_of_constants(stmt)?.ok_or_else(|| {
            let what = match stmt.kind() {
                StatementKind::Insert {
                    on_conflict: true, ..
                } => "INSERT ... ON CONFLICT",
                StatementKind::Insert { .. } => "INSERT ... SELECT",
                _ => "this statement",
            };
            ExecError::unsupported(format!("{what} inside a transaction block"))
        })
    }

    /// Plans `stmt` as an INSERT of constant rows without ON CONFLICT, with what it answers;
    /// `None` if it is another statement (an INSERT ... SELECT, ON CONFLICT, not an INSERT).
    pub fn plan_insert_of_constants(
        &self,
        stmt: &ParsedStatement,
    ) -> Result<Option<ConstantInsert>, ExecError> {
        if !matches!(stmt.kind(), StatementKind::Insert { .. }) {
            return Ok(None);
        }
        match self.plan(stmt)? {
            PlannedStatement::Insert {
                table,
                plan: Plan::Constant { rows },
                returning,
                on_conflict: None,
            } => {
                let result = written(
                    "INSERT 0",
                    returning.as_ref(),
                    rows.iter().map(|(r, n)| (r.datums(), *n)),
                )?;
                Ok(Some((table, rows, result)))
            }
            _ => Ok(None),
        }
    }

    /// The answer to a SHOW statement about the catalog, or `None` if `stmt` is not one.
    pub fn show(&self, stmt: &ParsedStatement) -> Option<Result<ExecuteResult, ExecError>> {
        super::show::show(stmt, &self.lock().catalog)
    }

    /// The table or view called `name`.
    pub fn resolve(&self, name: &str) -> Option<kpg_sql::CatalogItem> {
        kpg_sql::Catalog::resolve(&self.lock().catalog, name)
    }

    /// Checks rows bound for `table` (e.g. from COPY) and appends them at one timestamp.
    pub async fn insert_rows(
        self: &Arc<Self>,
        table: GlobalId,
        rows: Vec<(Row, i64)>,
    ) -> Result<(), ExecError> {
        self.commit_writes(vec![(table, rows)]).await
    }

    /// Checks a committed transaction's writes together against the tables' constraints and
    /// appends them at one timestamp.
    pub async fn commit_writes(
        self: &Arc<Self>,
        writes: Vec<(GlobalId, Vec<(Row, i64)>)>,
    ) -> Result<(), ExecError> {
        self.write(async {
            {
                let state = self.lock();
                if let Some((table, _)) =
                    writes.iter().find(|(t, _)| state.catalog.get(*t).is_none())
                {
                    return Err(ExecError::new(
                        "42P01",
                        format!("table u{table} was dropped during the transaction"),
                    ));
                }
            }
            self.check_writes(&writes).await?;
            self.append(writes);
            Ok(())
        })
        .await
    }

    pub(super) fn drop_objects(
        &self,
        ids: &[GlobalId],
        cascade: bool,
    ) -> Result<ExecuteResult, ExecError> {
        let mut state = self.lock();
        let catalog = &state.catalog;
        let Some(first_kind) = ids.first().and_then(|id| catalog.kind(*id)) else {
            return Ok(ExecuteResult::Command("DROP".into()));
        };
        if let Some((table, key)) = ids.iter().find_map(|id| catalog.constraint_of(*id)) {
            return Err(ExecError::new(
                "2BP01",
                format!(
                    "cannot drop index {} because constraint {} on table {} requires it",
                    key.name, key.name, table.item.name
                ),
            ));
        }
        if let Some(sub) = ids.iter().find(|id| catalog.owner(**id).is_some()) {
            let source = catalog
                .owner(*sub)
                .and_then(|s| catalog.name(s))
                .unwrap_or("?");
            return Err(ExecError::unsupported(format!(
                "DROP SOURCE of a subsource on its own (\"{}\" belongs to source \"{source}\"; \
                 drop that source)",
                catalog.name(*sub).unwrap_or("?")
            )));
        }
        let all = catalog.with_dependents(ids);
        if !cascade {
            // An object's own indexes go with it; anything else that depends on it must be
            // dropped first, or with CASCADE.
            let owned: Vec<GlobalId> = ids.iter().flat_map(|id| catalog.owned(*id)).collect();
            if let Some(dependent) = all
                .iter()
                .find(|id| !ids.contains(id) && !owned.contains(id))
            {
                let object = *ids
                    .iter()
                    .find(|id| catalog.with_dependents(&[**id]).contains(dependent))
                    .unwrap_or(&ids[0]);
                let describe = |id: GlobalId| {
                    let kind = catalog.kind(id).map_or("object", |k| k.noun());
                    format!("{kind} {}", catalog.name(id).unwrap_or("?"))
                };
                return Err(ExecError::new(
                    "2BP01",
                    format!(
                        "cannot drop {} because other objects depend on it",
                        describe(object)
                    ),
                )
                .with_detail(format!(
                    "{} depends on {}",
                    describe(*dependent),
                    describe(object)
                ))
                .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
            }
        }
        let collections: Vec<GlobalId> = all
            .iter()
            .copied()
            .filter(|id| {
                !matches!(
                    catalog.kind(*id),
                    Some(Kind::View | Kind::Connection | Kind::Sink)
                )
            })
            .collect();
        state
            .catalog
            .transact(all.iter().map(|id| Op::Drop(*id)).collect())?;
        for id in all {
            for ingest in state.ingests.remove(&id).unwrap_or_default() {
                ingest.stop();
            }
            if let Some(sink) = state.sinks.remove(&id) {
                sink.store(true, std::sync::atomic::Ordering::SeqCst);
            }
            state.dataflows.remove(&id);
            if collections.contains(&id) {
                self.compute.send(Command::DropCollection { id });
            }
        }
        let tag = match first_kind {
            Kind::Table => "DROP TABLE",
            Kind::View => "DROP VIEW",
            Kind::MaterializedView => "DROP MATERIALIZED VIEW",
            Kind::Index => "DROP INDEX",
            Kind::Source => "DROP SOURCE",
            Kind::Connection => "DROP CONNECTION",
            Kind::Sink => "DROP SINK",
        };
        Ok(ExecuteResult::Command(tag.into()))
    }
}

/// Runs `body`, canceling it with SQLSTATE 57014 (dropping its reads) after `limit`.
async fn within<T>(
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
        _ => return Ok(()),
    };
    if ids.iter().any(|id| is_system(*id)) {
        return Err(ExecError::unsupported(format!(
            "{what} the introspection relations and system catalogs"
        )));
    }
    Ok(())
}

/// The catalog entry of the view or materialized view `id` that `stmt` creates: it reads
/// `depends_on`, is defined by `plan`, and keeps its defining query's SQL and its statement.
fn view_entry(
    id: GlobalId,
    name: String,
    kind: ItemKind,
    desc: RelationDesc,
    depends_on: Vec<GlobalId>,
    plan: Plan,
    stmt: &ParsedStatement,
) -> Entry {
    let mut entry = Entry::new(CatalogItem {
        id,
        name,
        kind,
        desc,
    });
    entry.depends_on = depends_on;
    entry.definition = Some(plan);
    entry.sql = stmt.view_query_sql();
    entry.create_sql = stmt.durable_sql();
    entry
}

/// The one text column of an EXPLAIN's result.
pub fn explain_desc(column: String) -> RelationDesc {
    RelationDesc::new(vec![(column, ColumnType::new(ScalarType::Text, false))])
}

pub(super) fn exists_result(
    name: &str,
    if_not_exists: bool,
    tag: &str,
) -> Result<ExecuteResult, ExecError> {
    if if_not_exists {
        Ok(ExecuteResult::Command(tag.into()))
    } else {
        Err(ExecError::new(
            "42P07",
            format!("relation \"{name}\" already exists"),
        ))
    }
}

/// Expands multiplicities, then orders, offsets, limits and projects the rows.
pub(super) fn finish(
    rows: Vec<(Row, i64)>,
    finishing: &RowSetFinishing,
) -> Result<Vec<Row>, ExecError> {
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
