//! DDL statements the coordinator runs: CREATE TABLE, INDEX, VIEW, MATERIALIZED VIEW and
//! CONNECTION, and DROP — each checked against the catalog, entered in one catalog
//! transaction, and then built in the workers. (Sources are in `sources.rs` and
//! `external.rs`, sinks in `sink.rs`, CREATE TABLE AS in `table_as.rs`.)

use kpg_sql::{CatalogItem, IndexItem, ItemKind};
use kpg_types::command::Command;
use kpg_types::{DataflowDescription, DataflowSink, GlobalId, Plan, RelationDesc, ScalarExpr};

use super::sequence::ExecuteResult;
use super::temporary;
use super::{Coordinator, State};
use crate::catalog::{Entry, Kind, Op};
use crate::error::ExecError;

impl Coordinator {
    /// CREATE INDEX.
    pub(super) fn create_index_statement(
        &self,
        name: String,
        on: GlobalId,
        key: Vec<ScalarExpr>,
        if_not_exists: bool,
    ) -> Result<ExecuteResult, ExecError> {
        let mut state = self.lock();
        if state.catalog.name_taken(&name) {
            return exists_result(&name, if_not_exists, "CREATE INDEX");
        }
        self.create_index(&mut state, name, on, key)?;
        Ok(ExecuteResult::Command("CREATE INDEX".into()))
    }

    /// CREATE TABLE, kept as `create_sql`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn create_table_statement(
        &self,
        name: String,
        desc: RelationDesc,
        keys: Vec<kpg_sql::UniqueKey>,
        defaults: Vec<Option<kpg_sql::ColumnDefault>>,
        if_not_exists: bool,
        temporary: bool,
        create_sql: Option<String>,
    ) -> Result<ExecuteResult, ExecError> {
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
        self.create_table(&mut state, name, desc, keys, defaults, session, create_sql)?;
        Ok(ExecuteResult::Command("CREATE TABLE".into()))
    }

    /// CREATE [MATERIALIZED] VIEW reading `named`; `texts`: its query's and its statement's
    /// SQL, as the catalog keeps them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn create_view(
        &self,
        name: String,
        desc: RelationDesc,
        plan: Plan,
        materialized: bool,
        if_not_exists: bool,
        named: Vec<GlobalId>,
        texts: ViewTexts,
    ) -> Result<ExecuteResult, ExecError> {
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
            let entry = view_entry(id, name, ItemKind::View, desc, named, plan, texts);
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
            texts,
        );
        state
            .catalog
            .transact(vec![Op::Create { entry, temp: None }])?;
        // The record's commit first, so that its fsync overlaps the dataflow's build.
        self.persist_created(&mut state, id);
        self.install(&mut state, id, desc_df);
        Ok(ExecuteResult::Command(tag.into()))
    }

    /// CREATE CONNECTION.
    pub(super) fn create_connection(
        &self,
        name: String,
        if_not_exists: bool,
        broker: String,
        progress_topic: Option<String>,
        sql: String,
    ) -> Result<ExecuteResult, ExecError> {
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

    pub(super) fn drop_objects(&self, ids: &[GlobalId], cascade: bool) -> Result<(), ExecError> {
        let mut state = self.lock();
        let catalog = &state.catalog;
        if ids.first().and_then(|id| catalog.kind(*id)).is_none() {
            return Ok(());
        }
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
            let before = state.shares.len();
            state.shares.retain(|(source, _), _| *source != id);
            if state.shares.len() < before {
                self.compute.send(Command::StopShares { id });
            }
            if let Some(sink) = state.sinks.remove(&id) {
                sink.store(true, std::sync::atomic::Ordering::SeqCst);
            }
            state.dataflows.remove(&id);
            if collections.contains(&id) {
                self.compute.send(Command::DropCollection { id });
            }
        }
        Ok(())
    }
}

/// A view's defining query's SQL and its CREATE statement's, as the catalog keeps them.
pub(super) type ViewTexts = (Option<String>, Option<String>);

/// The catalog entry of the view or materialized view `id`: it reads `depends_on`, is
/// defined by `plan`, and keeps its defining query's SQL and its statement (`texts`).
fn view_entry(
    id: GlobalId,
    name: String,
    kind: ItemKind,
    desc: RelationDesc,
    depends_on: Vec<GlobalId>,
    plan: Plan,
    (sql, create_sql): ViewTexts,
) -> Entry {
    let mut entry = Entry::new(CatalogItem {
        id,
        name,
        kind,
        desc,
    });
    entry.depends_on = depends_on;
    entry.definition = Some(plan);
    entry.sql = sql;
    entry.create_sql = create_sql;
    entry
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
