//! What the planner may ask of the catalog: resolve a name to an object with a schema, find the
//! indexes on an object, and read a view's definition.
//!
//! A (non-materialized) view has no collection of its own: readers plan its definition in
//! place, unless an index on the view exists, in which case they read the index (the view is
//! maintained once indexed). `read_plan` is the one place that makes that choice.

use std::cell::RefCell;

use kpg_types::{GlobalId, Plan, RelationDesc, ScalarExpr};

use crate::defaults::ColumnDefault;
use crate::error::PlanError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    Table,
    View,
    MaterializedView,
    /// A source, or a subsource (one table of a source with several).
    Source,
}

impl ItemKind {
    /// The noun PostgreSQL uses in messages.
    pub fn noun(self) -> &'static str {
        match self {
            ItemKind::Table => "table",
            ItemKind::View => "view",
            ItemKind::MaterializedView => "materialized view",
            ItemKind::Source => "source",
        }
    }
}

#[derive(Clone, Debug)]
pub struct CatalogItem {
    pub id: GlobalId,
    pub name: String,
    pub kind: ItemKind,
    pub desc: RelationDesc,
}

/// An index: an arrangement of the object `on`, keyed by `key` (expressions over its columns).
#[derive(Clone, Debug, PartialEq)]
pub struct IndexItem {
    pub id: GlobalId,
    pub name: String,
    pub on: GlobalId,
    pub key: Vec<ScalarExpr>,
}

/// The planner's read-only view of the catalog.
pub trait Catalog {
    /// The object named `name` (already case-folded as PostgreSQL does), if any.
    fn resolve(&self, name: &str) -> Option<CatalogItem>;

    /// The object named `name` in schema `public`, where `resolve` would find the session's
    /// temporary object of that name first (`public.t`).
    fn resolve_shared(&self, name: &str) -> Option<CatalogItem> {
        self.resolve(name)
    }

    /// The session's temporary object named `name` (`pg_temp.t`), if any.
    fn resolve_temporary(&self, _name: &str) -> Option<CatalogItem> {
        None
    }

    /// The index named `name`, if any.
    fn resolve_index(&self, _name: &str) -> Option<IndexItem> {
        None
    }

    /// The indexes on the object `id`.
    fn indexes_on(&self, _id: GlobalId) -> Vec<IndexItem> {
        Vec::new()
    }

    /// What is known of the contents of the collection `id` (rows, unique keys), for row
    /// estimates (`estimate.rs`); `None` when nothing is.
    fn statistics(&self, _id: GlobalId) -> Option<crate::estimate::Statistics> {
        None
    }

    /// The name of the object or index `id` (for EXPLAIN).
    fn name_of(&self, _id: GlobalId) -> Option<String> {
        None
    }

    /// The defining plan of the view or materialized view `id` (before index selection).
    fn definition(&self, _id: GlobalId) -> Option<Plan> {
        None
    }

    /// The defining query of the view or materialized view `id` as SQL (for `EXPLAIN RAW`,
    /// which binds it again without decorrelating).
    fn definition_sql(&self, _id: GlobalId) -> Option<String> {
        None
    }

    /// Facts by OID that pg_catalog functions and `reg*` casts look up (see `pg_compat.rs`):
    /// `(oid, sub, text)` rows, `sub` being 0 unless the lookup has a second key.
    fn pg_lookup(&self, _what: PgLookup) -> Vec<(i64, i64, String)> {
        Vec::new()
    }

    /// The DEFAULT of each column of the table `id` (empty if it has none).
    fn column_defaults(&self, _id: GlobalId) -> Vec<Option<ColumnDefault>> {
        Vec::new()
    }

    /// Whether the relation `id` holds no rows by construction (a system catalog of something
    /// kpg does not have, such as policies or publications).
    /// The connection called `name`.
    fn resolve_connection(&self, _name: &str) -> Option<crate::connection::ConnectionItem> {
        None
    }

    /// The sink called `name`.
    fn resolve_sink(&self, _name: &str) -> Option<GlobalId> {
        None
    }

    fn always_empty(&self, _id: GlobalId) -> bool {
        false
    }

    /// The session's `TimeZone` as SHOW prints it, in which timestamptz values meet local
    /// times (`session_zone.rs`).
    fn time_zone(&self) -> String {
        "UTC".into()
    }

    /// The start of the session's transaction and of its statement (`now()` in what the
    /// planner evaluates), or `None` for the wall clock.
    fn clock(&self) -> Option<crate::session_zone::Clock> {
        None
    }

    /// The session's settings that steer date/time and interval input (`DateStyle`'s field
    /// order, `IntervalStyle` sql_standard; `datetime::with_date_input`).
    fn input_style(&self) -> kpg_types::datetime::InputStyle {
        kpg_types::datetime::InputStyle::default()
    }

    /// The user the session connected as (`current_user`, `session_user`).
    fn session_user(&self) -> String {
        crate::pg_compat::OWNER.to_string()
    }
}

/// What `Catalog::pg_lookup` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PgLookup {
    /// Relation (and index) OID → its name as `regclass` prints it.
    RelationName,
    /// Relation OID → "" for each relation visible on the search path.
    Visible,
    /// View OID → the SQL of its defining query.
    ViewDefinition,
    /// Index OID → its CREATE INDEX statement (`sub` 0) and the text of key column `sub`.
    IndexDefinition,
    /// Role OID → role name.
    RoleName,
    /// Namespace OID → schema name.
    NamespaceName,
}

/// The plan that reads `item` whole: its collection, or for a view its index if it has one and
/// otherwise its definition.
pub fn read_plan(catalog: &dyn Catalog, item: &CatalogItem) -> Result<Plan, PlanError> {
    if item.kind != ItemKind::View {
        return Ok(Plan::Get { id: item.id });
    }
    if let Some(index) = catalog.indexes_on(item.id).into_iter().next() {
        return Ok(Plan::IndexedGet {
            id: item.id,
            index: index.id,
            key: index.key,
        });
    }
    let mut plan = catalog.definition(item.id).ok_or_else(|| {
        PlanError::new("XX000", format!("view \"{}\" has no definition", item.name))
    })?;
    // A plain view reads text as dates, times and intervals in its reader's style.
    crate::zoned_casts::bind_input_style(&mut plan);
    Ok(plan)
}

/// A catalog that remembers every object resolved through it, so that a view records the
/// views it reads even though their definitions are planned in place.
pub struct RecordingCatalog<'a> {
    inner: &'a dyn Catalog,
    resolved: RefCell<Vec<GlobalId>>,
}

impl<'a> RecordingCatalog<'a> {
    pub fn new(inner: &'a dyn Catalog) -> Self {
        RecordingCatalog {
            inner,
            resolved: RefCell::new(Vec::new()),
        }
    }

    /// The ids resolved so far, sorted and without repeats.
    pub fn resolved(&self) -> Vec<GlobalId> {
        let mut ids = self.resolved.borrow().clone();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

impl Catalog for RecordingCatalog<'_> {
    fn resolve(&self, name: &str) -> Option<CatalogItem> {
        let item = self.inner.resolve(name)?;
        self.resolved.borrow_mut().push(item.id);
        Some(item)
    }

    fn resolve_shared(&self, name: &str) -> Option<CatalogItem> {
        let item = self.inner.resolve_shared(name)?;
        self.resolved.borrow_mut().push(item.id);
        Some(item)
    }

    fn resolve_temporary(&self, name: &str) -> Option<CatalogItem> {
        let item = self.inner.resolve_temporary(name)?;
        self.resolved.borrow_mut().push(item.id);
        Some(item)
    }

    fn resolve_index(&self, name: &str) -> Option<IndexItem> {
        self.inner.resolve_index(name)
    }

    fn indexes_on(&self, id: GlobalId) -> Vec<IndexItem> {
        self.inner.indexes_on(id)
    }

    fn definition(&self, id: GlobalId) -> Option<Plan> {
        self.inner.definition(id)
    }

    fn definition_sql(&self, id: GlobalId) -> Option<String> {
        self.inner.definition_sql(id)
    }

    fn name_of(&self, id: GlobalId) -> Option<String> {
        self.inner.name_of(id)
    }

    fn statistics(&self, id: GlobalId) -> Option<crate::estimate::Statistics> {
        self.inner.statistics(id)
    }

    fn pg_lookup(&self, what: PgLookup) -> Vec<(i64, i64, String)> {
        self.inner.pg_lookup(what)
    }

    fn resolve_connection(&self, name: &str) -> Option<crate::connection::ConnectionItem> {
        self.inner.resolve_connection(name)
    }

    fn resolve_sink(&self, name: &str) -> Option<GlobalId> {
        self.inner.resolve_sink(name)
    }

    fn always_empty(&self, id: GlobalId) -> bool {
        self.inner.always_empty(id)
    }

    fn time_zone(&self) -> String {
        self.inner.time_zone()
    }

    fn clock(&self) -> Option<crate::session_zone::Clock> {
        self.inner.clock()
    }

    fn input_style(&self) -> kpg_types::datetime::InputStyle {
        self.inner.input_style()
    }

    fn session_user(&self) -> String {
        self.inner.session_user()
    }

    fn column_defaults(&self, id: GlobalId) -> Vec<Option<ColumnDefault>> {
        self.inner.column_defaults(id)
    }
}
