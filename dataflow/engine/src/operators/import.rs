//! Importing a trace into another dataflow on the same worker.
//!
//! Owns: `TraceAgent::import` and `TraceAgent::import_frontier`. Invariants (ENGINE-NOTES
//! "Import"): the imported stream first carries the trace's stored batches (oldest first, as
//! merged and compacted), then every batch inserted later, each under a capability at its `lower`;
//! capabilities follow the trace's upper, so the imported stream's frontier is the trace's upper.
//! With `import_frontier(as_of)` every time is advanced by `as_of`, lazily: each batch is sent as
//! a view sharing the trace batch's storage (`Batch::advanced_view`, times advanced and
//! consolidated as they are read, nothing copied) and the handle reads through an `as_of` view,
//! so the imported collection equals the original at every time beyond `as_of` and installing
//! a dataflow costs nothing per stored update. The trace references the source's listener queue
//! weakly, so dropping the importing dataflow never harms the trace; the source holds a handle
//! that keeps the trace alive until the trace's upper is empty (or the dataflow is dropped), so
//! the imported stream always completes, but that handle constrains no compaction.

use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::operators::generic::operator::source;
use timely::dataflow::operators::CapabilitySet;
use timely::dataflow::Scope;
use timely::progress::frontier::{Antichain, AntichainRef};
use timely::progress::Timestamp;

use crate::difference::Semigroup;
use crate::lattice::{join_frontiers, Lattice};
use crate::operators::arrange::Arranged;
use crate::trace::handle::{Replay, TraceAgent};
use crate::{BatchRef, Data};

impl<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> TraceAgent<K, V, T, R> {
    /// Imports the trace into a dataflow built later on the same worker.
    pub fn import<'s>(&mut self, scope: Scope<'s, T>) -> Arranged<'s, T, K, V, R> {
        let trace = self.clone();
        import_core(scope, trace, None)
    }

    /// Imports the trace with every time advanced by `as_of`.
    pub fn import_frontier<'s>(
        &mut self,
        scope: Scope<'s, T>,
        as_of: AntichainRef<T>,
    ) -> Arranged<'s, T, K, V, R> {
        let trace = self.view_as_of(as_of);
        import_core(scope, trace, Some(as_of.to_owned()))
    }
}

fn import_core<'s, K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup>(
    scope: Scope<'s, T>,
    trace: TraceAgent<K, V, T, R>,
    as_of: Option<Antichain<T>>,
) -> Arranged<'s, T, K, V, R> {
    let reader = trace.clone();
    let stream = source::<_, CapacityContainerBuilder<Vec<BatchRef<K, V, T, R>>>, _, _>(
        scope,
        "ImportTrace",
        move |capability, info| {
            let activator = scope.activator_for(Rc::clone(&info.address));
            let (listener, existing, upper) = reader.listen(activator);
            // The source keeps the trace alive (so it can follow every later batch) but reads
            // nothing through this handle: it constrains neither compaction nor merging.
            let mut keeper = Some(reader);
            if let Some(keeper) = keeper.as_mut() {
                keeper.set_logical_compaction(Antichain::new().borrow());
                keeper.set_physical_compaction(Antichain::new().borrow());
            }
            {
                let mut listener = listener.borrow_mut();
                for batch in existing {
                    listener.queue.push_back(Replay::Batch(batch));
                }
                listener.queue.push_back(Replay::Upper(upper));
                listener.activator.activate();
            }
            let advance = as_of.clone();
            let shift = move |frontier: AntichainRef<T>| match &as_of {
                Some(as_of) => join_frontiers(frontier, as_of.borrow()),
                None => frontier.to_owned(),
            };
            let mut capabilities = CapabilitySet::from_elem(capability);
            move |output| {
                let mut listener = listener.borrow_mut();
                while let Some(replay) = listener.queue.pop_front() {
                    match replay {
                        Replay::Batch(batch) => {
                            let times = shift(batch.lower());
                            let delayed: CapabilitySet<T> =
                                times.iter().map(|t| capabilities.delayed(t)).collect();
                            let batch = match &advance {
                                Some(as_of) => Rc::new(batch.advanced_view(as_of.borrow())),
                                None => batch,
                            };
                            output.session(&delayed).give(batch);
                        }
                        Replay::Upper(upper) => {
                            let target = shift(upper.borrow());
                            capabilities.downgrade(&target.borrow()[..]);
                            if upper.is_empty() {
                                drop(keeper.take());
                            }
                        }
                    }
                }
            }
        },
    );
    Arranged { stream, trace }
}
