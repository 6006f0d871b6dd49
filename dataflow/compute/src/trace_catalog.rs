//! The traces a worker keeps for catalog objects (tables and materialized views), by id.
//!
//! Each object has a trace of its rows and, for views, a trace of its errors. Dataflows import
//! both as of their `as_of`; the coordinator advances each object's compaction frontier.

use timely::dataflow::Scope;
use timely::progress::Antichain;

use crate::typedefs::{empty_errs, ErrTrace, Errs, Oks, RowTrace};
use kpg_types::{EvalError, Row};

pub struct CollectionTraces {
    pub oks: RowTrace,
    /// Tables cannot hold errors; views can.
    pub errs: Option<ErrTrace>,
}

impl CollectionTraces {
    /// Imports both traces into `scope`, with history before `as_of` collapsed to `as_of`.
    pub fn import<'s>(&mut self, scope: Scope<'s, u64>, as_of: u64) -> (Oks<'s>, Errs<'s>) {
        let frontier = Antichain::from_elem(as_of);
        let oks = self
            .oks
            .import_frontier(scope, frontier.borrow())
            .as_collection(|row: &Row, _: &()| row.clone());
        let errs = match &mut self.errs {
            Some(errs) => errs
                .import_frontier(scope, frontier.borrow())
                .as_collection(|e: &EvalError, _: &()| e.clone()),
            None => empty_errs(scope),
        };
        (oks, errs)
    }

    /// Allows both traces to forget distinctions between times before `since`.
    pub fn allow_compaction(&mut self, since: u64) {
        let frontier = Antichain::from_elem(since);
        self.oks.set_logical_compaction(frontier.borrow());
        self.oks.set_physical_compaction(frontier.borrow());
        if let Some(errs) = &mut self.errs {
            errs.set_logical_compaction(frontier.borrow());
            errs.set_physical_compaction(frontier.borrow());
        }
    }
}
