//! The server's catalog: named tables and materialized views, their schemas and dependencies.
//!
//! The coordinator owns it; the planner reads it through `kpg_sql::Catalog`. Every object has a
//! `GlobalId` from one counter, which is also the id of its arrangement in the workers.

use std::collections::BTreeMap;

use kpg_sql::{CatalogItem, ItemKind};
use kpg_types::{GlobalId, RelationDesc};

#[derive(Clone, Debug)]
pub struct Entry {
    pub item: CatalogItem,
    /// The objects this one reads (for views).
    pub depends_on: Vec<GlobalId>,
}

#[derive(Default)]
pub struct Catalog {
    by_name: BTreeMap<String, GlobalId>,
    entries: BTreeMap<GlobalId, Entry>,
}

impl Catalog {
    pub fn insert(
        &mut self,
        id: GlobalId,
        name: String,
        kind: ItemKind,
        desc: RelationDesc,
        depends_on: Vec<GlobalId>,
    ) {
        self.by_name.insert(name.clone(), id);
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
            },
        );
    }

    pub fn get(&self, id: GlobalId) -> Option<&Entry> {
        self.entries.get(&id)
    }

    pub fn remove(&mut self, id: GlobalId) -> Option<Entry> {
        let entry = self.entries.remove(&id)?;
        self.by_name.remove(&entry.item.name);
        Some(entry)
    }

    /// Objects that read `id` directly.
    pub fn dependents(&self, id: GlobalId) -> Vec<GlobalId> {
        self.entries
            .values()
            .filter(|e| e.depends_on.contains(&id))
            .map(|e| e.item.id)
            .collect()
    }

    /// `ids` and everything that depends on them, transitively, dependents first.
    pub fn with_dependents(&self, ids: &[GlobalId]) -> Vec<GlobalId> {
        let mut order = Vec::new();
        fn visit(catalog: &Catalog, id: GlobalId, order: &mut Vec<GlobalId>) {
            if order.contains(&id) {
                return;
            }
            for dep in catalog.dependents(id) {
                visit(catalog, dep, order);
            }
            order.push(id);
        }
        for id in ids {
            visit(self, *id, &mut order);
        }
        order
    }

    pub fn ids(&self) -> impl Iterator<Item = GlobalId> + '_ {
        self.entries.keys().copied()
    }
}

impl kpg_sql::Catalog for Catalog {
    fn resolve(&self, name: &str) -> Option<CatalogItem> {
        let id = self.by_name.get(name)?;
        self.entries.get(id).map(|e| e.item.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_sql::Catalog as _;

    #[test]
    fn dependents_come_first() {
        let mut c = Catalog::default();
        c.insert(
            1,
            "t".into(),
            ItemKind::Table,
            RelationDesc::default(),
            vec![],
        );
        c.insert(
            2,
            "v".into(),
            ItemKind::MaterializedView,
            RelationDesc::default(),
            vec![1],
        );
        c.insert(
            3,
            "w".into(),
            ItemKind::MaterializedView,
            RelationDesc::default(),
            vec![2],
        );
        assert_eq!(c.dependents(1), vec![2]);
        assert_eq!(c.with_dependents(&[1]), vec![3, 2, 1]);
        assert!(c.resolve("v").is_some());
        c.remove(2);
        assert!(c.resolve("v").is_none());
    }
}
