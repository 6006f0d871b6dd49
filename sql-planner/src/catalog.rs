//! What the planner may ask of the catalog: resolve a name to an object with a schema.

use kpg_types::{GlobalId, RelationDesc};

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

/// The planner's read-only view of the catalog.
pub trait Catalog {
    /// The object named `name` (already case-folded as PostgreSQL does), if any.
    fn resolve(&self, name: &str) -> Option<CatalogItem>;
}
