//! Catalog transactions: every change of the catalog is a list of operations that
//! `Catalog::transact` checks as a whole and then applies as a whole — a CREATE TABLE with its
//! constraints' indexes, a source with its subsources, a DROP with everything that goes with it
//! — so no statement leaves half of its change behind, and the catalog's generation (which
//! prepared statements compare) moves once per statement. Ids come from the catalog's own
//! counter (`allocate_id`), which the data directory keeps.

use std::collections::{BTreeMap, BTreeSet};

use kpg_sql::connection::ConnectionItem;
use kpg_sql::IndexItem;
use kpg_types::GlobalId;

use super::{temp, Catalog, Entry, SinkEntry};

/// One change of the catalog.
#[derive(Debug)]
pub enum Op {
    /// A table, view, materialized view or source (a temporary one of the session `temp`).
    Create {
        entry: Entry,
        temp: Option<u64>,
    },
    /// An index; the index of a temporary table is temporary too.
    CreateIndex(IndexItem),
    /// A connection, with its statement.
    CreateConnection {
        item: ConnectionItem,
        sql: String,
    },
    CreateSink {
        id: GlobalId,
        sink: SinkEntry,
    },
    /// The view `id` also reads `on` (the indexes its index's dataflow imports).
    AddDependencies {
        id: GlobalId,
        on: Vec<GlobalId>,
    },
    /// An object, index, connection or sink goes (what goes with it is listed by the caller,
    /// `with_dependents`, each its own `Drop`).
    Drop(GlobalId),
}

/// Why a transaction was refused: nothing of it was applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogError {
    pub code: &'static str,
    pub message: String,
}

impl From<CatalogError> for crate::error::ExecError {
    fn from(e: CatalogError) -> Self {
        crate::error::ExecError::new(e.code, e.message)
    }
}

impl Catalog {
    /// An empty catalog whose first object gets the id `next_id`.
    pub fn starting_at(next_id: GlobalId) -> Catalog {
        Catalog {
            next_id,
            ..Catalog::default()
        }
    }

    /// A new id for a user's object.
    pub fn allocate_id(&mut self) -> GlobalId {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The id the next object gets.
    pub fn next_id(&self) -> GlobalId {
        self.next_id
    }

    /// Makes the next object get `id` (a restart replays each stored statement from the
    /// first id it had) — or, with `at_least`, moves the counter up to `id` if it is below.
    pub fn set_next_id(&mut self, id: GlobalId, at_least: bool) {
        self.next_id = match at_least {
            true => self.next_id.max(id),
            false => id,
        };
    }

    /// Applies `ops` in order, all or none: each is checked against the catalog as the ones
    /// before it leave it (a created name or id must be free, what an index, a dependency or a
    /// drop names must exist) before anything changes.
    pub fn transact(&mut self, ops: Vec<Op>) -> Result<(), CatalogError> {
        self.check(&ops)?;
        for op in ops {
            match op {
                Op::Create { entry, temp } => self.enter_entry(entry, temp),
                Op::CreateIndex(index) => self.enter_index(index),
                Op::CreateConnection { item, sql } => {
                    let id = item.id;
                    self.connections.insert(id, (item, sql));
                    self.enter(id, None);
                }
                Op::CreateSink { id, sink } => {
                    self.sinks.insert(id, sink);
                    self.enter(id, None);
                }
                Op::AddDependencies { id, on } => {
                    if let Some(entry) = self.entries.get_mut(&id) {
                        entry.depends_on.extend(on);
                        entry.depends_on.sort_unstable();
                        entry.depends_on.dedup();
                    }
                }
                Op::Drop(id) => self.remove(id),
            }
        }
        self.generation += 1;
        Ok(())
    }

    fn check(&self, ops: &[Op]) -> Result<(), CatalogError> {
        // What the transaction has created, dropped, and the name keys it took or freed.
        let (mut created, mut dropped) = (BTreeSet::new(), BTreeSet::new());
        let (mut taken, mut freed) = (BTreeSet::new(), BTreeSet::new());
        // The session of each temporary object the transaction creates.
        let mut temp_created = BTreeMap::new();
        let exists = |id: &GlobalId, created: &BTreeSet<GlobalId>, dropped: &BTreeSet<_>| {
            (self.contains(*id) || created.contains(id)) && !dropped.contains(id)
        };
        for op in ops {
            let (id, name, session) = match op {
                Op::Create { entry, temp } => {
                    if let Some(session) = temp {
                        temp_created.insert(entry.item.id, *session);
                    }
                    (entry.item.id, &entry.item.name, *temp)
                }
                Op::CreateIndex(index) => {
                    if !exists(&index.on, &created, &dropped) {
                        return Err(missing(index.on));
                    }
                    let session = temp_created
                        .get(&index.on)
                        .copied()
                        .or_else(|| self.temp_of(index.on));
                    (index.id, &index.name, session)
                }
                Op::CreateConnection { item, .. } => (item.id, &item.name, None),
                Op::CreateSink { id, sink } => (*id, &sink.name, None),
                Op::AddDependencies { id, on } => {
                    if let Some(gone) = std::iter::once(id)
                        .chain(on)
                        .find(|d| !exists(d, &created, &dropped))
                    {
                        return Err(missing(*gone));
                    }
                    continue;
                }
                Op::Drop(id) => {
                    if !exists(id, &created, &dropped) {
                        return Err(missing(*id));
                    }
                    dropped.insert(*id);
                    if let Some(key) = self.keys.get(id) {
                        freed.insert(key.clone());
                    }
                    continue;
                }
            };
            if self.contains(id) || !created.insert(id) {
                return Err(CatalogError {
                    code: "XX000",
                    message: format!("the catalog id u{id} is already in use"),
                });
            }
            let key = match session {
                Some(s) => temp::key(s, name),
                None => name.clone(),
            };
            let in_catalog = self.by_name.contains_key(&key) && !freed.contains(&key);
            if in_catalog || !taken.insert(key) {
                return Err(CatalogError {
                    code: "42P07",
                    message: format!("relation \"{name}\" already exists"),
                });
            }
        }
        Ok(())
    }
}

fn missing(id: GlobalId) -> CatalogError {
    CatalogError {
        code: "42P01",
        message: format!("relation u{id} does not exist"),
    }
}
