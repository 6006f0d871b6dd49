//! What the planner may ask of the catalog: resolve a name to an object with a schema.

use kpg_types::{GlobalId, RelationDesc, ScalarExpr};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    Table,
    MaterializedView,
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

    /// The index named `name`, if any.
    fn resolve_index(&self, _name: &str) -> Option<IndexItem> {
        None
    }

    /// The indexes on the object `id`.
    fn indexes_on(&self, _id: GlobalId) -> Vec<IndexItem> {
        Vec::new()
    }
}
