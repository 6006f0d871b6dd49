//! The server's catalog: named tables, sources, views, materialized views and indexes, their
//! schemas, definitions and dependencies.
//!
//! The coordinator owns it; the planner reads it through `kpg_sql::Catalog`. Every object has a
//! `GlobalId` from the catalog's counter (`ids.rs` says which ids are users', system or
//! transient), which is also the id of its arrangement in the workers. Every change is one
//! `transact` of a statement's operations, applied whole or not at all (`transact.rs`). Indexes
//! share the relations' name space (as in PostgreSQL) but are not relations: `resolve` never
//! returns one. An index belongs to the object it arranges and is dropped with it; a view that
//! reads an index depends on it, so the index cannot be dropped from under the view. A subsource
//! (one table of a multi-output source) belongs to its source the same way.
//!
//! A temporary table (and its indexes) belongs to one session (`temp.rs`): only that session
//! resolves or lists it, before the shared objects of the same name.

pub mod ids;
pub mod temp;
mod transact;

pub use transact::Op;

use std::collections::BTreeMap;

use kpg_sql::connection::ConnectionItem;
use kpg_sql::{CatalogItem, ColumnDefault, IndexItem, ItemKind, UniqueKey};
use kpg_types::{GlobalId, Plan};

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
    /// The statement that created it, as it reads back (a subsource has its source's).
    pub create_sql: Option<String>,
}

impl Entry {
    /// The entry of `item`, reading nothing, with no definition, SQL, owner, keys or defaults.
    pub fn new(item: CatalogItem) -> Entry {
        Entry {
            item,
            depends_on: Vec::new(),
            definition: None,
            sql: None,
            owner: None,
            keys: Vec::new(),
            defaults: Vec::new(),
            create_sql: None,
        }
    }
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
    /// The id the next user's object gets (`transact.rs`).
    next_id: GlobalId,
    /// Each table's rows, counted as writes are handed to the committer (`note_rows`): what
    /// the planner's row estimates read, as PostgreSQL's `reltuples`. Not a catalog change.
    rows: BTreeMap<GlobalId, i64>,
    /// What a source's generator says of its contents (a TPC-H table's rows and keys at its
    /// scale factor), for the same estimates.
    statistics: BTreeMap<GlobalId, kpg_sql::Statistics>,
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

    /// Enters `entry`, a temporary object of `session` if it has one (a shared object of its
    /// name stays).
    fn enter_entry(&mut self, entry: Entry, session: Option<u64>) {
        let (id, name) = (entry.item.id, entry.item.name.clone());
        let shared = self.by_name.get(&name).copied();
        self.entries.insert(id, entry);
        self.enter(id, session);
        if let (Some(_), Some(shared)) = (session, shared) {
            self.by_name.insert(name, shared);
        }
    }

    /// Enters `id` (already in `entries` or `indexes`) under its key: its name, or for a
    /// temporary object of `session` its name in the session's schema.
    fn enter(&mut self, id: GlobalId, session: Option<u64>) {
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
    fn enter_index(&mut self, index: IndexItem) {
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

    /// Every sink.
    pub fn sinks(&self) -> impl Iterator<Item = (&GlobalId, &SinkEntry)> + '_ {
        self.sinks.iter()
    }

    /// Every connection, with its statement.
    pub fn connections(&self) -> impl Iterator<Item = &(ConnectionItem, String)> + '_ {
        self.connections.values()
    }

    fn remove(&mut self, id: GlobalId) {
        self.entries.remove(&id);
        self.rows.remove(&id);
        self.statistics.remove(&id);
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
}

impl Catalog {
    /// Counts rows written to the table `id` (the sum of the diffs of a commit's updates).
    pub fn note_rows(&mut self, id: GlobalId, diff: i64) {
        *self.rows.entry(id).or_default() += diff;
    }

    /// Records what a source's generator says of the contents of `id`.
    pub fn set_statistics(&mut self, id: GlobalId, statistics: kpg_sql::Statistics) {
        self.statistics.insert(id, statistics);
    }
}

impl kpg_sql::Catalog for Catalog {
    /// A source's statistics from its generator; a table's rows as counted, and its PRIMARY
    /// KEY and UNIQUE constraints.
    fn statistics(&self, id: GlobalId) -> Option<kpg_sql::Statistics> {
        if let Some(stats) = self.statistics.get(&id) {
            return Some(stats.clone());
        }
        let entry = self.entries.get(&id)?;
        (entry.item.kind == ItemKind::Table).then(|| kpg_sql::Statistics {
            rows: self.rows.get(&id).copied().unwrap_or(0).max(0) as f64,
            unique: entry.keys.iter().map(|k| k.columns.clone()).collect(),
            distinct: Vec::new(),
        })
    }

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
impl Catalog {
    /// A catalog of one table `t` (id 1) of `desc`, with the index `index` (id 2) on its
    /// column `column`: for tests of what reads it.
    pub fn with_indexed_table(
        desc: kpg_types::RelationDesc,
        index: &str,
        column: usize,
    ) -> Catalog {
        let mut catalog = Catalog::default();
        let item = CatalogItem {
            id: 1,
            name: "t".into(),
            kind: ItemKind::Table,
            desc,
        };
        catalog
            .transact(vec![
                Op::Create {
                    entry: Entry::new(item),
                    temp: None,
                },
                Op::CreateIndex(IndexItem {
                    id: 2,
                    name: index.into(),
                    on: 1,
                    key: vec![kpg_types::ScalarExpr::Column(column)],
                }),
            ])
            .expect("a table and its index");
        catalog
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_sql::Catalog as _;
    use kpg_types::{RelationDesc, ScalarExpr};

    fn create(id: GlobalId, name: &str, kind: ItemKind, depends_on: Vec<GlobalId>) -> Op {
        let mut entry = Entry::new(CatalogItem {
            id,
            name: name.into(),
            kind,
            desc: RelationDesc::default(),
        });
        entry.depends_on = depends_on;
        Op::Create { entry, temp: None }
    }

    fn index(id: GlobalId, name: &str, on: GlobalId) -> Op {
        Op::CreateIndex(IndexItem {
            id,
            name: name.into(),
            on,
            key: vec![ScalarExpr::Column(0)],
        })
    }

    #[test]
    fn dependents_and_indexes_come_first() {
        let mut c = Catalog::default();
        let view = ItemKind::MaterializedView;
        c.transact(vec![
            create(1, "t", ItemKind::Table, vec![]),
            index(4, "t_idx", 1),
        ])
        .unwrap();
        c.transact(vec![create(2, "v", view, vec![1, 4])]).unwrap();
        c.transact(vec![create(3, "w", view, vec![2])]).unwrap();
        assert_eq!(c.dependents(1), vec![2]);
        assert_eq!(c.dependents(4), vec![2]);
        assert_eq!(c.with_dependents(&[1]), vec![3, 2, 4, 1]);
        assert!(c.resolve("t_idx").is_none(), "an index is not a relation");
        assert_eq!(c.resolve_index("t_idx").map(|i| i.on), Some(1));
        c.transact(vec![Op::Drop(3), Op::Drop(2)]).unwrap();
        assert!(c.resolve("v").is_none());
        assert_eq!(c.kind(4), Some(Kind::Index));
    }

    #[test]
    fn a_transaction_applies_whole_or_not_at_all() {
        let mut c = Catalog::default();
        c.transact(vec![create(1, "t", ItemKind::Table, vec![])])
            .unwrap();
        let generation = c.generation();
        // The second index's name is taken by the table: nothing of the three goes in.
        let refused = c.transact(vec![
            create(2, "u", ItemKind::Table, vec![]),
            index(3, "u_idx", 2),
            index(4, "t", 2),
        ]);
        assert_eq!(refused.unwrap_err().code, "42P07");
        assert!(c.resolve("u").is_none() && c.resolve_index("u_idx").is_none());
        assert_eq!(c.generation(), generation);
        // A name used twice in one transaction, an index on nothing, a drop of nothing.
        let twice = c.transact(vec![
            create(2, "u", ItemKind::Table, vec![]),
            create(3, "u", ItemKind::Table, vec![]),
        ]);
        assert_eq!(twice.unwrap_err().code, "42P07");
        assert_eq!(
            c.transact(vec![index(5, "i", 9)]).unwrap_err().code,
            "42P01"
        );
        assert_eq!(c.transact(vec![Op::Drop(9)]).unwrap_err().code, "42P01");
        assert_eq!(
            c.transact(vec![create(1, "x", ItemKind::Table, vec![])])
                .unwrap_err()
                .code,
            "XX000",
            "an id in use"
        );
        assert!(c.resolve("u").is_none() && c.resolve("x").is_none());
        // One statement's change moves the generation once; a dropped name is free again
        // within the same transaction.
        c.transact(vec![
            Op::Drop(1),
            create(2, "t", ItemKind::Table, vec![]),
            index(3, "t_idx", 2),
            Op::AddDependencies { id: 2, on: vec![3] },
        ])
        .unwrap();
        assert_eq!(c.generation(), generation + 1);
        assert_eq!(c.resolve("t").map(|t| t.id), Some(2));
        assert_eq!(c.get(2).unwrap().depends_on, vec![3]);
        assert!(!c.contains(1));
    }

    #[test]
    fn temporary_objects_and_their_indexes() {
        let mut c = Catalog::default();
        c.transact(vec![create(1, "t", ItemKind::Table, vec![])])
            .unwrap();
        let Op::Create { entry, .. } = create(2, "t", ItemKind::Table, vec![]) else {
            unreachable!()
        };
        // A temporary table may take a shared table's name; its index is temporary too.
        c.transact(vec![
            Op::Create {
                entry,
                temp: Some(7),
            },
            index(3, "t_idx", 2),
        ])
        .unwrap();
        assert_eq!(c.temp_of(3), Some(7));
        assert!(c.temp_name_taken(7, "t") && c.temp_name_taken(7, "t_idx"));
        assert!(!c.name_taken("t_idx"), "not a shared name");
        assert_eq!(c.temp_objects(7), vec![2]);
        // The shared table keeps its name.
        assert!(c.name_taken("t"));
    }

    #[test]
    fn ids_count_up_from_the_stored_counter() {
        let mut c = Catalog::default();
        c.set_next_id(10, false);
        assert_eq!((c.allocate_id(), c.allocate_id()), (10, 11));
        c.set_next_id(5, true);
        assert_eq!(c.next_id(), 12, "at_least never moves the counter back");
        c.set_next_id(5, false);
        assert_eq!(
            c.allocate_id(),
            5,
            "a replay starts a statement at its first id"
        );
    }
}
