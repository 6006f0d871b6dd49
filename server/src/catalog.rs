//! The server's catalog: named tables, sources, views, materialized views and indexes, their
//! schemas, definitions and dependencies.
//!
//! The coordinator owns it; the planner reads it through `kpg_sql::Catalog`. Every object has a
//! `GlobalId` from one counter, which is also the id of its arrangement in the workers. Indexes
//! share the relations' name space (as in PostgreSQL) but are not relations: `resolve` never
//! returns one. An index belongs to the object it arranges and is dropped with it; a view that
//! reads an index depends on it, so the index cannot be dropped from under the view. A subsource
//! (one table of a multi-output source) belongs to its source the same way.
//!
//! A temporary table (and its indexes) belongs to one session (`temp.rs`): only that session
//! resolves or lists it, before the shared objects of the same name.

pub mod ids;
pub mod temp;

use std::collections::BTreeMap;

use kpg_sql::connection::ConnectionItem;
use kpg_sql::{CatalogItem, ColumnDefault, IndexItem, ItemKind, UniqueKey};
use kpg_types::{GlobalId, Plan, RelationDesc};

#[derive(Clone, Debug)]
pub struct Entry {
    pub item: CatalogItem,
    /// The objects and indexes this one reads (for views).
    pub depends_on: Vec<GlobalId>,
    /// The defining plan of a view or materialized view, before index selection.
    pub definition: Option<Plan>,
    /// The defining query of a view or materialized view as SQL (for `pg_get_viewdef`), or the
    /// whole `CREATE SOURCE` statement of a source.
    pub sql: Option<String>,
    /// The source a subsource belongs to.
    pub owner: Option<GlobalId>,
    /// A table's PRIMARY KEY and UNIQUE constraints; each names the index that enforces it.
    pub keys: Vec<UniqueKey>,
    /// A table's column DEFAULTs, one per column (empty if it has none).
    pub defaults: Vec<Option<ColumnDefault>>,
}

/// What kind of thing an id names, for messages and command tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Table,
    View,
    MaterializedView,
    Index,
    Source,
    Connection,
    Sink,
}

impl Kind {
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Table => "table",
            Kind::View => "view",
            Kind::MaterializedView => "materialized view",
            Kind::Index => "index",
            Kind::Source => "source",
            Kind::Connection => "connection",
            Kind::Sink => "sink",
        }
    }
}

#[derive(Default)]
pub struct Catalog {
    by_name: BTreeMap<String, GlobalId>,
    /// The key each object and index has in `by_name` (its name, or for a temporary one its
    /// name in its session's schema).
    keys: BTreeMap<GlobalId, String>,
    /// The session each temporary object and index belongs to.
    temp: BTreeMap<GlobalId, u64>,
    entries: BTreeMap<GlobalId, Entry>,
    indexes: BTreeMap<GlobalId, IndexItem>,
    /// Connections (named brokers), with their `CREATE CONNECTION` statements. They share
    /// the name space but are not relations.
    connections: BTreeMap<GlobalId, (ConnectionItem, String)>,
    /// Sinks: name, and what they read (and their connection).
    sinks: BTreeMap<GlobalId, SinkEntry>,
    /// Counts the changes made: a plan made at another generation may name what is gone
    /// (prepared statements plan again, `pgwire_server/prepared.rs`).
    generation: u64,
}

/// A sink as the catalog keeps it (its statement is in the data directory's record).
#[derive(Clone, Debug)]
pub struct SinkEntry {
    pub name: String,
    pub depends_on: Vec<GlobalId>,
}

impl Catalog {
    /// The number of changes made so far (see `generation`).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn insert(
        &mut self,
        id: GlobalId,
        name: String,
        kind: ItemKind,
        desc: RelationDesc,
        depends_on: Vec<GlobalId>,
        definition: Option<Plan>,
    ) {
        self.generation += 1;
        self.entries.insert(
            id,
            Entry {
                item: CatalogItem {
                    id,
                    name,
                    kind,
                    desc,
                },
                depends_on,
                definition,
                sql: None,
                owner: None,
                keys: Vec::new(),
                defaults: Vec::new(),
            },
        );
        self.enter(id, None);
    }

    /// Enters `item` as a temporary object of `session` (a shared object of its name stays).
    pub fn insert_temporary(
        &mut self,
        session: u64,
        item: CatalogItem,
        depends_on: Vec<GlobalId>,
        definition: Option<Plan>,
    ) {
        self.generation += 1;
        let CatalogItem {
            id,
            name,
            kind,
            desc,
        } = item;
        let shared = self.by_name.get(&name).copied();
        self.insert(id, name.clone(), kind, desc, depends_on, definition);
        self.enter(id, Some(session));
        if let Some(shared) = shared {
            self.by_name.insert(name, shared);
        }
    }

    /// Enters `id` (already in `entries` or `indexes`) under its key: its name, or for a
    /// temporary object of `session` its name in the session's schema.
    fn enter(&mut self, id: GlobalId, session: Option<u64>) {
        self.generation += 1;
        let Some(name) = self.name(id).map(str::to_string) else {
            return;
        };
        if let Some(old) = self.keys.remove(&id) {
            self.by_name.remove(&old);
        }
        let key = match session {
            Some(s) => {
                self.temp.insert(id, s);
                temp::key(s, &name)
            }
            None => name,
        };
        self.by_name.insert(key.clone(), id);
        self.keys.insert(id, key);
    }

    /// Records the SQL of a view's defining query.
    pub fn set_sql(&mut self, id: GlobalId, sql: String) {
        self.generation += 1;
        if let Some(entry) = self.entries.get_mut(&id) {
            entry.sql = Some(sql);
        }
    }

    /// Records that the subsource `id` belongs to the source `owner`.
    pub fn set_owner(&mut self, id: GlobalId, owner: GlobalId) {
        self.generation += 1;
        if let Some(entry) = self.entries.get_mut(&id) {
            entry.owner = Some(owner);
        }
    }

    /// Records a table's unique constraints.
    pub fn set_keys(&mut self, id: GlobalId, keys: Vec<UniqueKey>) {
        self.generation += 1;
        if let Some(entry) = self.entries.get_mut(&id) {
            entry.keys = keys;
        }
    }

    /// Records a table's column defaults.
    pub fn set_defaults(&mut self, id: GlobalId, defaults: Vec<Option<ColumnDefault>>) {
        self.generation += 1;
        if let Some(entry) = self.entries.get_mut(&id) {
            entry.defaults = defaults;
        }
    }

    /// The table and constraint that the index `index` enforces, if it enforces one.
    pub fn constraint_of(&self, index: GlobalId) -> Option<(&Entry, &UniqueKey)> {
        let index = self.indexes.get(&index)?;
        let table = self.entries.get(&index.on)?;
        let key = table.keys.iter().find(|k| k.name == index.name)?;
        Some((table, key))
    }

    /// The source the subsource `id` belongs to, if it is one.
    pub fn owner(&self, id: GlobalId) -> Option<GlobalId> {
        self.entries.get(&id)?.owner
    }

    /// The index `id`, if it is one.
    pub fn index(&self, id: GlobalId) -> Option<&IndexItem> {
        self.indexes.get(&id)
    }

    /// Enters an index; the index of a temporary table is temporary too.
    pub fn insert_index(&mut self, index: IndexItem) {
        self.generation += 1;
        let (id, on) = (index.id, index.on);
        self.indexes.insert(index.id, index);
        let session = self.temp_of(on);
        self.enter(id, session);
    }

    /// The session the object or index `id` is a temporary one of.
    pub fn temp_of(&self, id: GlobalId) -> Option<u64> {
        self.temp.get(&id).copied()
    }

    /// The temporary objects (not their indexes) of `session`.
    pub fn temp_objects(&self, session: u64) -> Vec<GlobalId> {
        self.temp
            .iter()
            .filter(|(id, s)| **s == session && self.entries.contains_key(id))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Whether the current session can see `id` (another session's temporary objects are
    /// hidden).
    fn visible(&self, id: GlobalId) -> bool {
        self.temp_of(id).is_none_or(|s| Some(s) == temp::current())
    }

    /// The id `name` resolves to for the current session: its temporary object of that name,
    /// or else the shared one; `public.name` is the shared one (see `name_of`).
    fn lookup(&self, name: &str) -> Option<GlobalId> {
        if let Some(shared) = name.strip_prefix("public.") {
            return self.by_name.get(shared).copied();
        }
        if let Some(session) = temp::current() {
            if let Some(id) = self.by_name.get(&temp::key(session, name)) {
                return Some(*id);
            }
        }
        self.by_name.get(name).copied()
    }

    /// Whether any object or index is called `name`.
    pub fn name_taken(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Whether `session` has a temporary object or index called `name`.
    pub fn temp_name_taken(&self, session: u64, name: &str) -> bool {
        self.by_name.contains_key(&temp::key(session, name))
    }

    pub fn get(&self, id: GlobalId) -> Option<&Entry> {
        self.entries.get(&id)
    }

    pub fn kind(&self, id: GlobalId) -> Option<Kind> {
        if self.indexes.contains_key(&id) {
            return Some(Kind::Index);
        }
        if self.connections.contains_key(&id) {
            return Some(Kind::Connection);
        }
        if self.sinks.contains_key(&id) {
            return Some(Kind::Sink);
        }
        self.entries.get(&id).map(|e| match e.item.kind {
            ItemKind::Table => Kind::Table,
            ItemKind::View => Kind::View,
            ItemKind::MaterializedView => Kind::MaterializedView,
            ItemKind::Source => Kind::Source,
        })
    }

    pub fn name(&self, id: GlobalId) -> Option<&str> {
        if let Some((c, _)) = self.connections.get(&id) {
            return Some(&c.name);
        }
        if let Some(s) = self.sinks.get(&id) {
            return Some(&s.name);
        }
        match self.indexes.get(&id) {
            Some(i) => Some(&i.name),
            None => self.entries.get(&id).map(|e| e.item.name.as_str()),
        }
    }

    /// Whether `id` names a live object, index or connection.
    pub fn contains(&self, id: GlobalId) -> bool {
        self.entries.contains_key(&id)
            || self.indexes.contains_key(&id)
            || self.connections.contains_key(&id)
            || self.sinks.contains_key(&id)
    }

    /// Enters a sink.
    pub fn insert_sink(&mut self, id: GlobalId, sink: SinkEntry) {
        self.generation += 1;
        self.sinks.insert(id, sink);
        self.enter(id, None);
    }

    /// Every sink.
    pub fn sinks(&self) -> impl Iterator<Item = (&GlobalId, &SinkEntry)> + '_ {
        self.sinks.iter()
    }

    /// Enters a connection (its statement is what `SHOW CREATE CONNECTION` shows).
    pub fn insert_connection(&mut self, item: ConnectionItem, sql: String) {
        self.generation += 1;
        let id = item.id;
        self.connections.insert(id, (item, sql));
        self.enter(id, None);
    }

    /// Every connection, with its statement.
    pub fn connections(&self) -> impl Iterator<Item = &(ConnectionItem, String)> + '_ {
        self.connections.values()
    }

    pub fn remove(&mut self, id: GlobalId) {
        self.generation += 1;
        self.entries.remove(&id);
        self.indexes.remove(&id);
        self.connections.remove(&id);
        self.sinks.remove(&id);
        if let Some(key) = self.keys.remove(&id) {
            self.by_name.remove(&key);
        }
        self.temp.remove(&id);
    }

    /// Views, sources and sinks that read `id` (an object, an index or a connection) directly.
    pub fn dependents(&self, id: GlobalId) -> Vec<GlobalId> {
        self.entries
            .values()
            .filter(|e| e.depends_on.contains(&id))
            .map(|e| e.item.id)
            .chain(
                self.sinks
                    .iter()
                    .filter(|(_, s)| s.depends_on.contains(&id))
                    .map(|(sink, _)| *sink),
            )
            .collect()
    }

    /// What goes with the object `id` when it is dropped: its indexes, and a source's
    /// subsources with their indexes.
    pub fn owned(&self, id: GlobalId) -> Vec<GlobalId> {
        let mut owned: Vec<GlobalId> = self
            .indexes
            .values()
            .filter(|i| i.on == id)
            .map(|i| i.id)
            .collect();
        for sub in self.entries.values().filter(|e| e.owner == Some(id)) {
            owned.push(sub.item.id);
            owned.extend(self.owned(sub.item.id));
        }
        owned
    }

    /// `ids`, what they own (indexes, subsources) and everything that depends on any of them, transitively,
    /// dependents first.
    pub fn with_dependents(&self, ids: &[GlobalId]) -> Vec<GlobalId> {
        let mut order = Vec::new();
        fn visit(catalog: &Catalog, id: GlobalId, order: &mut Vec<GlobalId>) {
            if order.contains(&id) {
                return;
            }
            for dep in catalog.dependents(id).into_iter().chain(catalog.owned(id)) {
                visit(catalog, dep, order);
            }
            order.push(id);
        }
        for id in ids {
            visit(self, *id, &mut order);
        }
        order
    }

    /// Every table and materialized view the current session sees, by name (its temporary
    /// ones after the shared ones).
    pub fn items(&self) -> impl Iterator<Item = &CatalogItem> + '_ {
        self.by_name
            .values()
            .filter(|id| self.visible(**id))
            .filter_map(|id| self.entries.get(id))
            .map(|e| &e.item)
    }

    /// Every index the current session sees, by name.
    pub fn all_indexes(&self) -> impl Iterator<Item = &IndexItem> + '_ {
        self.by_name
            .values()
            .filter(|id| self.visible(**id))
            .filter_map(|id| self.indexes.get(id))
    }

    /// The ids of every collection the workers hold (tables, materialized views, indexes),
    /// for compaction. Views have none.
    pub fn ids(&self) -> impl Iterator<Item = GlobalId> + '_ {
        self.entries
            .values()
            .filter(|e| e.item.kind != ItemKind::View)
            .map(|e| e.item.id)
            .chain(self.indexes.keys().copied())
    }

    /// Every object and index that outlives its session (all but temporary ones): what the
    /// data directory keeps.
    pub fn durable_ids(&self) -> std::collections::BTreeSet<GlobalId> {
        self.entries
            .keys()
            .chain(self.indexes.keys())
            .chain(self.connections.keys())
            .chain(self.sinks.keys())
            .copied()
            .filter(|id| !self.temp.contains_key(id))
            .collect()
    }

    /// Records that the view `id` also reads `ids` (indexes imported by its index's dataflow).
    pub fn add_dependencies(&mut self, id: GlobalId, ids: Vec<GlobalId>) {
        self.generation += 1;
        if let Some(entry) = self.entries.get_mut(&id) {
            entry.depends_on.extend(ids);
            entry.depends_on.sort_unstable();
            entry.depends_on.dedup();
        }
    }
}

impl kpg_sql::Catalog for Catalog {
    fn resolve_connection(&self, name: &str) -> Option<ConnectionItem> {
        let id = self.by_name.get(name)?;
        self.connections.get(id).map(|(c, _)| c.clone())
    }

    fn resolve_sink(&self, name: &str) -> Option<GlobalId> {
        let id = self.by_name.get(name)?;
        self.sinks.contains_key(id).then_some(*id)
    }

    fn resolve(&self, name: &str) -> Option<CatalogItem> {
        let id = self.lookup(name)?;
        self.entries.get(&id).map(|e| e.item.clone())
    }

    fn resolve_index(&self, name: &str) -> Option<IndexItem> {
        let id = self.lookup(name)?;
        self.indexes.get(&id).cloned()
    }

    fn resolve_shared(&self, name: &str) -> Option<CatalogItem> {
        let id = self.by_name.get(name)?;
        self.entries.get(id).map(|e| e.item.clone())
    }

    fn resolve_temporary(&self, name: &str) -> Option<CatalogItem> {
        let id = self.by_name.get(&temp::key(temp::current()?, name))?;
        self.entries.get(id).map(|e| e.item.clone())
    }

    fn indexes_on(&self, id: GlobalId) -> Vec<IndexItem> {
        self.indexes
            .values()
            .filter(|i| i.on == id)
            .cloned()
            .collect()
    }

    fn definition(&self, id: GlobalId) -> Option<Plan> {
        self.entries.get(&id)?.definition.clone()
    }

    fn definition_sql(&self, id: GlobalId) -> Option<String> {
        self.entries.get(&id)?.sql.clone()
    }

    /// A name that resolves to `id` again: a shared object hidden by one of the session's
    /// temporary objects is `public.name`.
    fn name_of(&self, id: GlobalId) -> Option<String> {
        let name = self.name(id)?;
        let hidden = self.temp_of(id).is_none()
            && temp::current().is_some_and(|s| self.temp_name_taken(s, name));
        Some(match hidden {
            true => format!("public.{name}"),
            false => name.to_string(),
        })
    }

    fn column_defaults(&self, id: GlobalId) -> Vec<Option<ColumnDefault>> {
        self.entries
            .get(&id)
            .map_or_else(Vec::new, |e| e.defaults.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_sql::Catalog as _;
    use kpg_types::ScalarExpr;

    #[test]
    fn dependents_and_indexes_come_first() {
        let mut c = Catalog::default();
        c.insert(
            1,
            "t".into(),
            ItemKind::Table,
            RelationDesc::default(),
            vec![],
            None,
        );
        c.insert_index(IndexItem {
            id: 4,
            name: "t_idx".into(),
            on: 1,
            key: vec![ScalarExpr::Column(0)],
        });
        c.insert(
            2,
            "v".into(),
            ItemKind::MaterializedView,
            RelationDesc::default(),
            vec![1, 4],
            None,
        );
        c.insert(
            3,
            "w".into(),
            ItemKind::MaterializedView,
            RelationDesc::default(),
            vec![2],
            None,
        );
        assert_eq!(c.dependents(1), vec![2]);
        assert_eq!(c.dependents(4), vec![2]);
        assert_eq!(c.with_dependents(&[1]), vec![3, 2, 4, 1]);
        assert!(c.resolve("t_idx").is_none(), "an index is not a relation");
        assert_eq!(c.resolve_index("t_idx").map(|i| i.on), Some(1));
        c.remove(2);
        assert!(c.resolve("v").is_none());
        assert_eq!(c.kind(4), Some(Kind::Index));
    }
}
