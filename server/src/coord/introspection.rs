//! Introspection relations: `kpg_arrangements`, `kpg_dataflows`, and for external sources
//! `kpg_sources` (each partition's state, offsets, lag and counts) and `kpg_source_errors` (every
//! record that could not be decoded), queryable and joinable with SQL like any view.
//!
//! A statement is planned reading them by id (`Plan::Get`), so a prepared statement is planned
//! once like any other; when a planned statement that reads one runs, the coordinator asks every
//! worker for its arrangements and dataflows (`Command::Introspect`), merges the workers'
//! shards, and binds the rows as they are into the plan (`bind_rows`), as it binds the clock.
//! Views, materialized views and indexes over them are refused (they would freeze one snapshot).
//!
//! The coordinator contributes what only it knows about dataflows: their names, what they
//! import and export, and when they were installed.
//!
//! `SystemCatalog` also adds PostgreSQL's system catalogs (`pg_catalog.rs`), which are views
//! over constants in the same way, computed from the catalog alone.

use std::collections::BTreeMap;

use kpg_sql::{CatalogItem, IndexItem, ItemKind, PlannedStatement};
use kpg_types::command::{ArrangementInfo, DataflowInfo};
use kpg_types::{
    ColumnType, DataflowDescription, DataflowSink, Datum, GlobalId, Plan, RelationDesc, Row,
    ScalarType,
};

use super::pg_catalog;
use crate::catalog::ids::{shown, ObjectId};
use crate::catalog::Catalog;

pub const KPG_ARRANGEMENTS: (&str, GlobalId) = ("kpg_arrangements", ObjectId::System(1).global());
pub const KPG_DATAFLOWS: (&str, GlobalId) = ("kpg_dataflows", ObjectId::System(2).global());
pub const KPG_SOURCES: (&str, GlobalId) = ("kpg_sources", ObjectId::System(3).global());
pub const KPG_SOURCE_ERRORS: (&str, GlobalId) = ("kpg_source_errors", ObjectId::System(4).global());

/// Whether `id` is one of the introspection relations or system catalogs.
pub fn is_system(id: GlobalId) -> bool {
    crate::catalog::ids::is_system(id)
}

/// The introspection relations as pg_class lists them: (OID, name, columns).
pub fn relations() -> Vec<(i64, &'static str, RelationDesc)> {
    vec![
        (12101, KPG_ARRANGEMENTS.0, ArrangementRow::desc()),
        (12102, KPG_DATAFLOWS.0, DataflowRow::desc()),
        (12103, KPG_SOURCES.0, super::external::SourceRow::desc()),
        (
            12104,
            KPG_SOURCE_ERRORS.0,
            super::external::SourceErrorRow::desc(),
        ),
    ]
}

/// What the coordinator records about each dataflow it installs.
#[derive(Clone, Debug)]
pub struct DataflowMeta {
    pub name: String,
    pub imports: Vec<GlobalId>,
    pub export: Option<GlobalId>,
    pub installed_at: chrono::NaiveDateTime,
}

impl DataflowMeta {
    pub fn new(desc: &DataflowDescription) -> Self {
        // The arrangements it imports: collections read whole, and indexes (not the objects
        // the indexes are on).
        let mut imports = Vec::new();
        desc.plan.visit(&mut |p| match p {
            Plan::Get { id } => imports.push(*id),
            Plan::IndexedGet { index, .. } => imports.push(*index),
            _ => {}
        });
        imports.sort_unstable();
        imports.dedup();
        DataflowMeta {
            name: desc.name.clone(),
            imports,
            export: match &desc.sink {
                DataflowSink::Materialize { id } | DataflowSink::Index { id, .. } => Some(*id),
                DataflowSink::Peek { .. } | DataflowSink::Subscribe { .. } => None,
            },
            installed_at: chrono::Utc::now().naive_utc(),
        }
    }

    /// A source's dataflow: its generator's outputs, arranged (the source's id stands for its
    /// subsources too).
    pub fn source(name: &str, id: GlobalId) -> Self {
        DataflowMeta {
            name: format!("source-{name}"),
            ..Self::table(name, id)
        }
    }

    /// A table's dataflow: its input, arranged.
    pub fn table(name: &str, id: GlobalId) -> Self {
        DataflowMeta {
            name: format!("table-{name}"),
            imports: Vec::new(),
            export: Some(id),
            installed_at: chrono::Utc::now().naive_utc(),
        }
    }
}

/// The workers' reports, merged: one entry per arrangement (summed over the workers' shards)
/// and per dataflow.
#[derive(Default)]
pub struct Figures {
    arrangements: BTreeMap<(u64, String), ArrangementInfo>,
    /// Hydration per dataflow: the slowest worker's, `None` while any worker is not hydrated.
    hydration: BTreeMap<u64, Option<f64>>,
}

impl Figures {
    pub fn add(&mut self, arrangements: Vec<ArrangementInfo>, dataflows: Vec<DataflowInfo>) {
        for a in arrangements {
            match self.arrangements.get_mut(&(a.owner, a.name.clone())) {
                Some(acc) => {
                    acc.records += a.records;
                    acc.batches += a.batches;
                    acc.bytes += a.bytes;
                    acc.readers = acc.readers.max(a.readers);
                }
                None => {
                    self.arrangements.insert((a.owner, a.name.clone()), a);
                }
            }
        }
        for d in dataflows {
            let entry = self.hydration.entry(d.id).or_insert(Some(0.0));
            *entry = match (*entry, d.hydration_ms) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
        }
    }
}

pub(super) fn column(name: &str, scalar: ScalarType, nullable: bool) -> (String, ColumnType) {
    (name.to_string(), ColumnType::new(scalar, nullable))
}

/// Declares the row of an introspection relation once: its columns in order, each with its
/// type and whether it may be NULL. A row is built as a struct literal (every column gets its
/// value by name); `desc` is the relation's schema and `into_row` the row in its order.
macro_rules! introspection_row {
    ($(#[$doc:meta])* $row:ident { $($column:ident: $scalar:ident $(($null:ident))?),* $(,)? }) => {
        $(#[$doc])*
        pub struct $row {
            $(pub $column: kpg_types::Datum),*
        }

        impl $row {
            pub fn desc() -> kpg_types::RelationDesc {
                kpg_types::RelationDesc::new(vec![$(
                    $crate::coord::introspection::column(
                        stringify!($column),
                        kpg_types::ScalarType::$scalar,
                        introspection_row!(@nullable $($null)?),
                    )
                ),*])
            }

            pub fn into_row(self) -> kpg_types::Row {
                kpg_types::Row::new(vec![$(self.$column),*])
            }
        }
    };
    (@nullable) => { false };
    (@nullable nullable) => { true };
}
pub(super) use introspection_row;

introspection_row! {
    /// A row of `kpg_arrangements`: one arrangement of one worker's figures, merged.
    ArrangementRow {
        owner_id: Text,
        owner: Text,
        owner_kind: Text,
        arrangement: Text,
        key: Text,
        records: Int64,
        batches: Int64,
        bytes: Int64,
        readers: Int64,
    }
}

introspection_row! {
    /// A row of `kpg_dataflows`.
    DataflowRow {
        id: Text,
        name: Text,
        imports: Text,
        exports: Text (nullable),
        installed_at: Timestamp,
        hydration_ms: Float64 (nullable),
    }
}

fn text(s: impl Into<String>) -> Datum {
    Datum::String(s.into())
}

/// The name and kind of `id`: a catalog object, or a transient dataflow.
fn describe(
    id: u64,
    catalog: &Catalog,
    dataflows: &BTreeMap<u64, DataflowMeta>,
) -> (String, String) {
    match (catalog.name(id), catalog.kind(id)) {
        (Some(name), Some(kind)) => (name.to_string(), kind.noun().to_string()),
        _ => (
            dataflows
                .get(&id)
                .map_or_else(|| shown(id), |d| d.name.clone()),
            "dataflow".to_string(),
        ),
    }
}

/// The rows of the relations, from the workers' figures and the coordinator's records
/// (`sources`: the rows of `kpg_sources` and `kpg_source_errors`).
pub fn system_rows(
    figures: &Figures,
    catalog: &Catalog,
    dataflows: &BTreeMap<u64, DataflowMeta>,
    sources: (Vec<Row>, Vec<Row>),
) -> SystemData {
    let arrangements = figures
        .arrangements
        .values()
        .map(|a| {
            let (owner, kind) = describe(a.owner, catalog, dataflows);
            let n = |v: u64| Datum::Int64(v as i64);
            ArrangementRow {
                owner_id: text(shown(a.owner)),
                owner: text(owner),
                owner_kind: text(kind),
                arrangement: text(a.name.clone()),
                key: text(a.key.clone()),
                records: n(a.records),
                batches: n(a.batches),
                bytes: n(a.bytes),
                readers: n(a.readers),
            }
            .into_row()
        })
        .collect();
    let names = |ids: &[GlobalId]| {
        let mut names: Vec<String> = ids
            .iter()
            .map(|id| describe(*id, catalog, dataflows).0)
            .collect();
        names.sort();
        names.join(", ")
    };
    let dataflow_rows = dataflows
        .iter()
        .map(|(id, d)| {
            let hydration = figures.hydration.get(id).copied().flatten();
            DataflowRow {
                id: text(shown(*id)),
                name: text(d.name.clone()),
                imports: text(names(&d.imports)),
                exports: d.export.map_or(Datum::Null, |e| text(names(&[e]))),
                installed_at: Datum::Timestamp(d.installed_at),
                hydration_ms: hydration.map_or(Datum::Null, |ms| Datum::Float64(ms.into())),
            }
            .into_row()
        })
        .collect();
    SystemData {
        arrangements,
        dataflows: dataflow_rows,
        sources: sources.0,
        source_errors: sources.1,
    }
}

/// The rows of the introspection relations for one statement.
#[derive(Default)]
pub struct SystemData {
    arrangements: Vec<Row>,
    dataflows: Vec<Row>,
    sources: Vec<Row>,
    source_errors: Vec<Row>,
}

/// The catalog plus the introspection relations (read by id, their rows bound as a
/// statement runs) and the system catalogs (views over constants).
pub struct SystemCatalog<'a> {
    pub inner: &'a Catalog,
}

impl kpg_sql::Catalog for SystemCatalog<'_> {
    fn time_zone(&self) -> String {
        crate::statement_context::time_zone()
    }

    fn clock(&self) -> Option<(chrono::NaiveDateTime, chrono::NaiveDateTime)> {
        Some(crate::statement_context::clock())
    }

    fn input_style(&self) -> kpg_types::datetime::InputStyle {
        crate::statement_context::input_style()
    }

    fn session_user(&self) -> String {
        crate::statement_context::user()
    }

    fn resolve(&self, name: &str) -> Option<CatalogItem> {
        if let Some((id, r)) = pg_catalog::by_name(name) {
            return Some(CatalogItem {
                id,
                name: r.name.to_string(),
                kind: ItemKind::View,
                desc: pg_catalog::desc(r),
            });
        }
        let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
        let (id, desc) = match name {
            n if n == KPG_ARRANGEMENTS.0 => (KPG_ARRANGEMENTS.1, ArrangementRow::desc()),
            n if n == KPG_DATAFLOWS.0 => (KPG_DATAFLOWS.1, DataflowRow::desc()),
            n if n == KPG_SOURCES.0 => (KPG_SOURCES.1, super::external::SourceRow::desc()),
            n if n == KPG_SOURCE_ERRORS.0 => {
                (KPG_SOURCE_ERRORS.1, super::external::SourceErrorRow::desc())
            }
            _ => return self.inner.resolve(name),
        };
        Some(CatalogItem {
            id,
            name: name.to_string(),
            kind: ItemKind::View,
            desc,
        })
    }

    fn resolve_index(&self, name: &str) -> Option<IndexItem> {
        self.inner.resolve_index(name)
    }

    fn resolve_connection(&self, name: &str) -> Option<kpg_sql::connection::ConnectionItem> {
        self.inner.resolve_connection(name)
    }

    fn resolve_sink(&self, name: &str) -> Option<GlobalId> {
        self.inner.resolve_sink(name)
    }

    fn resolve_shared(&self, name: &str) -> Option<CatalogItem> {
        self.inner.resolve_shared(name)
    }

    fn resolve_temporary(&self, name: &str) -> Option<CatalogItem> {
        self.inner.resolve_temporary(name)
    }

    fn indexes_on(&self, id: GlobalId) -> Vec<IndexItem> {
        self.inner.indexes_on(id)
    }

    fn statistics(&self, id: GlobalId) -> Option<kpg_sql::Statistics> {
        self.inner.statistics(id)
    }

    fn name_of(&self, id: GlobalId) -> Option<String> {
        match id {
            id if id == KPG_ARRANGEMENTS.1 => Some(KPG_ARRANGEMENTS.0.into()),
            id if id == KPG_DATAFLOWS.1 => Some(KPG_DATAFLOWS.0.into()),
            id if id == KPG_SOURCES.1 => Some(KPG_SOURCES.0.into()),
            id if id == KPG_SOURCE_ERRORS.1 => Some(KPG_SOURCE_ERRORS.0.into()),
            id => match pg_catalog::by_id(id) {
                Some(r) => Some(format!("{}.{}", r.schema, r.name)),
                None => self.inner.name_of(id),
            },
        }
    }

    fn pg_lookup(&self, what: kpg_sql::PgLookup) -> Vec<(i64, i64, String)> {
        pg_catalog::lookup(what, self.inner)
    }

    fn definition_sql(&self, id: GlobalId) -> Option<String> {
        self.inner.definition_sql(id)
    }

    fn always_empty(&self, id: GlobalId) -> bool {
        pg_catalog::by_id(id).is_some_and(|r| r.empty())
    }

    fn column_defaults(&self, id: GlobalId) -> Vec<Option<kpg_sql::ColumnDefault>> {
        self.inner.column_defaults(id)
    }

    fn definition(&self, id: GlobalId) -> Option<Plan> {
        if introspection(id) {
            // Its rows are bound into the plan when the statement runs (`bind_rows`).
            return Some(Plan::Get { id });
        }
        let Some(r) = pg_catalog::by_id(id) else {
            return self.inner.definition(id);
        };
        let rows = pg_catalog::rows(r, self.inner);
        Some(Plan::Constant {
            rows: rows.into_iter().map(|r| (Row::new(r), 1)).collect(),
        })
    }
}

/// Whether `id` is one of the introspection relations, whose rows change without the
/// catalog changing.
fn introspection(id: GlobalId) -> bool {
    [
        KPG_ARRANGEMENTS.1,
        KPG_DATAFLOWS.1,
        KPG_SOURCES.1,
        KPG_SOURCE_ERRORS.1,
    ]
    .contains(&id)
}

/// Whether a planned statement reads an introspection relation.
pub fn reads_introspection(planned: &mut PlannedStatement) -> bool {
    let mut found = false;
    planned.visit_plans_mut(&mut |p| {
        bind_gets(p, &mut |id| {
            found |= introspection(id);
            None
        })
    });
    found
}

/// Binds the introspection relations' rows of `data` into a planned statement: it was planned
/// (once, if prepared) reading them by id, and reads them as they are when it runs.
pub fn bind_rows(planned: &mut PlannedStatement, data: &SystemData) {
    planned.visit_plans_mut(&mut |p| {
        bind_gets(p, &mut |id| {
            let rows = match id {
                id if id == KPG_ARRANGEMENTS.1 => &data.arrangements,
                id if id == KPG_DATAFLOWS.1 => &data.dataflows,
                id if id == KPG_SOURCES.1 => &data.sources,
                id if id == KPG_SOURCE_ERRORS.1 => &data.source_errors,
                _ => return None,
            };
            Some(Plan::Constant {
                rows: rows.iter().map(|r| (r.clone(), 1)).collect(),
            })
        })
    });
}

/// Replaces each read of a collection for which `rows` gives a plan, in `plan` and in the
/// plans of its expressions' subqueries.
fn bind_gets(plan: &mut Plan, rows: &mut dyn FnMut(GlobalId) -> Option<Plan>) {
    fn nodes(plan: Plan, rows: &mut dyn FnMut(GlobalId) -> Option<Plan>) -> Plan {
        match plan {
            Plan::Get { id } => rows(id).unwrap_or(Plan::Get { id }),
            plan => plan.map_inputs(|input| nodes(input, rows)),
        }
    }
    let taken = std::mem::replace(plan, Plan::Constant { rows: Vec::new() });
    *plan = nodes(taken, rows);
    plan.visit_exprs_mut(&mut |e| {
        e.visit_mut(&mut |e| {
            if let kpg_types::ScalarExpr::Subquery(s) = e {
                bind_gets(&mut s.plan, rows)
            }
        })
    });
}
