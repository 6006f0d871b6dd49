//! The traces a worker keeps, by id: the arrangements of catalog objects (tables and
//! materialized views, keyed by whole rows) and of indexes (keyed by their key expressions).
//!
//! Each has a trace of its rows and, except tables, a trace of its errors. Dataflows import them
//! as of their `as_of`; peeks read them directly; the coordinator advances their compaction.
//! A table's rows end with their position (see `Plan::GetWithPosition`), which an import drops
//! unless it asks for it; an import reads the rows through the map, filter and project chain
//! above it, so rows it drops are never copied out of the arrangement.

use std::collections::HashMap;

use kpg_engine::Collection;
use kpg_types::{EvalError, GlobalId, MapFilterProject, Row, ScalarExpr};
use timely::dataflow::operators::core::OkErr;
use timely::dataflow::Scope;
use timely::progress::Antichain;

use crate::typedefs::{empty_errs, ErrTrace, Errs, KeyedTrace, Oks, RowTrace};

/// The arrangements of one table or materialized view.
pub struct CollectionTraces {
    pub oks: RowTrace,
    /// Tables cannot hold errors; views can.
    pub errs: Option<ErrTrace>,
    /// Whether each row ends with its position (a table's rows do).
    pub positions: bool,
}

/// The arrangement of one index: rows keyed by the index key.
pub struct IndexTraces {
    pub oks: KeyedTrace,
    pub errs: ErrTrace,
    /// The key expressions, over the indexed rows (for introspection).
    pub key: Vec<ScalarExpr>,
}

#[derive(Default)]
pub struct TraceCatalog {
    pub collections: HashMap<GlobalId, CollectionTraces>,
    pub indexes: HashMap<GlobalId, IndexTraces>,
}

impl TraceCatalog {
    /// Allows the traces of `id` (a collection or an index) to forget distinctions between
    /// times before `since`.
    pub fn allow_compaction(&mut self, id: GlobalId, since: u64) {
        let frontier = Antichain::from_elem(since);
        let f = frontier.borrow();
        if let Some(c) = self.collections.get_mut(&id) {
            c.oks.set_logical_compaction(f);
            c.oks.set_physical_compaction(f);
            if let Some(errs) = &mut c.errs {
                errs.set_logical_compaction(f);
                errs.set_physical_compaction(f);
            }
        }
        if let Some(i) = self.indexes.get_mut(&id) {
            i.oks.set_logical_compaction(f);
            i.oks.set_physical_compaction(f);
            i.errs.set_logical_compaction(f);
            i.errs.set_physical_compaction(f);
        }
    }

    pub fn remove(&mut self, id: GlobalId) {
        self.collections.remove(&id);
        self.indexes.remove(&id);
    }
}

/// A collection's rows imported into a dataflow, still arranged (see `CollectionTraces::import`).
pub type ImportedRows<'s> = kpg_engine::Arranged<'s, u64, Row, (), i64>;

impl CollectionTraces {
    /// Imports both traces into `scope`, with history before `as_of` collapsed to `as_of`: the
    /// rows still arranged (`rows` reads them), and the errors.
    pub fn import<'s>(
        &mut self,
        scope: Scope<'s, u64>,
        as_of: u64,
    ) -> (ImportedRows<'s>, Errs<'s>) {
        let frontier = Antichain::from_elem(as_of);
        let imported = self.oks.import_frontier(scope, frontier.borrow());
        let errs = match &mut self.errs {
            Some(errs) => import_errs(errs, scope, as_of),
            None => empty_errs(scope),
        };
        (imported, errs)
    }
}

/// The rows of an imported collection passed through `mfp` (a chain of map, filter and project
/// read in place, so that rows a filter drops are never copied), and the errors it raises. A
/// table's rows (`positions`) lose their positions first unless `with_positions`.
pub fn rows<'s>(
    imported: &ImportedRows<'s>,
    positions: bool,
    with_positions: bool,
    mfp: MapFilterProject,
) -> (Oks<'s>, Errs<'s>) {
    let mut mfp = match positions && !with_positions {
        true => mfp.after_dropping_last(),
        false => mfp,
    };
    if mfp.is_identity() {
        return (
            imported.as_collection(|row: &Row, _: &()| row.clone()),
            empty_errs(imported.scope()),
        );
    }
    let (oks, errs) = imported
        .flat_map_ref(move |row: &Row, _: &()| mfp.apply_ref(row))
        .inner
        .ok_err(|(res, t, r)| match res {
            Ok(d) => Ok((d, t, r)),
            Err(e) => Err((e, t, r)),
        });
    (Collection::new(oks), Collection::new(errs))
}

/// Imports an error trace as a collection of errors.
pub fn import_errs<'s>(errs: &mut ErrTrace, scope: Scope<'s, u64>, as_of: u64) -> Errs<'s> {
    let frontier = Antichain::from_elem(as_of);
    errs.import_frontier(scope, frontier.borrow())
        .as_collection(|e: &EvalError, _: &()| e.clone())
}
