//! The arrange operator and the [`Arranged`] pair (batch stream + shared trace).
//!
//! Owns: [`Arranged`], `arrange_by_key` / `arrange_by_self` / `consolidate` on collections, and
//! `as_collection` / `flat_map_ref`. Invariants (ENGINE-NOTES "The arrange operator"): updates are exchanged by a
//! hash of the key, buffered in a consolidating batcher, and when the input frontier moves from
//! `F1` to `F2` exactly one batch `[F1, F2)` holding every buffered update not beyond `F2` is
//! sealed, inserted into the trace (if any handle still lives) and sent under the capabilities it
//! retires; capabilities are then kept only for the least times still buffered. Frontier moves
//! with nothing to retire only advance the trace's upper and send nothing.

use std::hash::Hash;
use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::{Capability, CapabilitySet};
use timely::dataflow::{Scope, Stream, StreamVec};
use timely::progress::frontier::Antichain;
use timely::progress::Timestamp;
use timely::PartialOrder;

use crate::collection::Collection;
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::trace::batch::{BatchBuilder, Description};
use crate::trace::batcher::Batcher;
use crate::trace::handle::TraceAgent;
use crate::trace::spine::Effort;
use crate::{BatchRef, Data};

/// A stream of shared batches.
pub type BatchStream<'scope, T, K, V, R> = Stream<'scope, T, Vec<BatchRef<K, V, T, R>>>;

/// An arranged collection: the batches as they are sealed, and a handle on their trace.
pub struct Arranged<'scope, T: Timestamp + Lattice, K: Data, V: Data, R: Semigroup> {
    /// Each sealed batch, sent under the capabilities for its times.
    pub stream: BatchStream<'scope, T, K, V, R>,
    /// A handle on the trace holding every batch so far (compacted).
    pub trace: TraceAgent<K, V, T, R>,
}

impl<'scope, T: Timestamp + Lattice, K: Data, V: Data, R: Semigroup> Clone
    for Arranged<'scope, T, K, V, R>
{
    fn clone(&self) -> Self {
        Arranged {
            stream: self.stream.clone(),
            trace: self.trace.clone(),
        }
    }
}

/// A stable hash of a key, used to route updates to workers (the same on every process of one
/// build: a fixed seed). foldhash's quality variant: fast on the small keys arrangements route,
/// and its high and low bits are both well mixed (workers are chosen by the low bits).
pub fn hash_key<K: Hash>(key: &K) -> u64 {
    use std::hash::BuildHasher;
    // `hash_one` is `build_hasher`, `hash`, `finish` (foldhash keeps std's default), and `&K`
    // hashes as `K`: the same values as before.
    foldhash::quality::FixedState::with_seed(0).hash_one(key)
}

impl<'scope, T: Timestamp + Lattice, K: Data, V: Data, R: Semigroup> Arranged<'scope, T, K, V, R> {
    /// The scope containing the arrangement.
    pub fn scope(&self) -> Scope<'scope, T> {
        self.stream.scope()
    }

    /// The updates of the arrangement as a collection of `logic(key, val)`.
    pub fn as_collection<D: Data>(
        &self,
        mut logic: impl FnMut(&K, &V) -> D + 'static,
    ) -> Collection<'scope, T, D, R> {
        self.flat_map_ref(move |k, v| Some(logic(k, v)))
    }

    /// The updates of the arrangement as a collection of `logic(key, val)` where it is `Some`:
    /// `logic` sees each (key, val) once, by reference, so a filter drops a record without
    /// copying it. The result is moved into its last update (cloned only for further times).
    pub fn flat_map_ref<D: Data>(
        &self,
        mut logic: impl FnMut(&K, &V) -> Option<D> + 'static,
    ) -> Collection<'scope, T, D, R> {
        let mut times: Vec<(T, R)> = Vec::new();
        let stream = self
            .stream
            .clone()
            .unary::<CapacityContainerBuilder<Vec<(D, T, R)>>, _, _, _>(
                Pipeline,
                "AsCollection",
                move |_cap, _info| {
                    move |input, output| {
                        input.for_each(|cap, batches| {
                            let mut session = output.session(&cap);
                            for batch in batches.drain(..) {
                                let mut cursor = crate::trace::batch::BatchCursor::new(batch);
                                while cursor.key_valid() {
                                    while cursor.val_valid() {
                                        if let Some(d) = logic(cursor.key(), cursor.val()) {
                                            cursor.map_times(|t, r| {
                                                times.push((t.clone(), r.clone()))
                                            });
                                            if let Some((t, r)) = times.pop() {
                                                for (t, r) in times.drain(..) {
                                                    session.give((d.clone(), t, r));
                                                }
                                                session.give((d, t, r));
                                            }
                                        }
                                        cursor.step_val();
                                    }
                                    cursor.step_key();
                                }
                            }
                        });
                    }
                },
            );
        Collection::new(stream)
    }
}

impl<'scope, T: Timestamp + Lattice, K: Data, V: Data, R: Semigroup>
    Collection<'scope, T, (K, V), R>
{
    /// Arranges `(key, val)` records by key, exchanging them between workers by a hash of the key.
    pub fn arrange_by_key(self) -> Arranged<'scope, T, K, V, R> {
        self.arrange_named("ArrangeByKey")
    }

    /// As `arrange_by_key`, with an operator name.
    pub fn arrange_named(self, name: &str) -> Arranged<'scope, T, K, V, R> {
        let exchange = Exchange::new(|update: &((K, V), T, R)| hash_key(&(update.0).0));
        arrange_core(self.inner, exchange, name)
    }
}

impl<'scope, T: Timestamp + Lattice, K: Data, R: Semigroup> Collection<'scope, T, K, R> {
    /// Arranges records by themselves (key-only arrangement).
    pub fn arrange_by_self(self) -> Arranged<'scope, T, K, (), R> {
        let keyed = self.map(|k| (k, ()));
        keyed.arrange_named("ArrangeBySelf")
    }

    /// The same collection with each (record, time) appearing once, its diffs summed.
    pub fn consolidate(self) -> Self {
        self.arrange_by_self().as_collection(|k, _| k.clone())
    }
}

/// Merge work (updates read) the arrange operator spends on its trace's open merges each time it
/// runs while its input is quiet: large enough to finish a merge of a million updates within
/// a hundred activations, small enough (a millisecond or two) not to stall the worker's other
/// operators, or an update arriving meanwhile, for long.
const IDLE_MERGE_FUEL: isize = 1 << 14;

/// Builds the arrange operator over `stream` with parallelization contract `pact`.
pub(crate) fn arrange_core<'scope, T, K, V, R, P>(
    stream: StreamVec<'scope, T, ((K, V), T, R)>,
    pact: P,
    name: &str,
) -> Arranged<'scope, T, K, V, R>
where
    T: Timestamp + Lattice,
    K: Data,
    V: Data,
    R: Semigroup,
    P: timely::dataflow::channels::pact::ParallelizationContract<T, Vec<((K, V), T, R)>>,
{
    let (agent, writer) = TraceAgent::new(Effort::Default);
    let scope = stream.scope();
    let stream = stream
        .unary_frontier::<CapacityContainerBuilder<Vec<BatchRef<K, V, T, R>>>, _, _, _>(
            pact,
            name,
            move |_capability, info| {
                let activator = scope.activator_for(Rc::clone(&info.address));
                let mut batcher = Batcher::<(K, V), T, R>::new();
                let mut capabilities = Antichain::<Capability<T>>::new();
                let mut prev_frontier = Antichain::from_elem(T::minimum());
                move |(input, frontier), output| {
                    let mut received = false;
                    input.for_each(|cap, data| {
                        for capability in cap.retain_stamp(0).iter() {
                            capabilities.insert(capability.clone());
                        }
                        batcher.push(data);
                        received = true;
                    });
                    let current = frontier.frontier();
                    assert!(
                        PartialOrder::less_equal(&prev_frontier.borrow(), &current),
                        "arrange input frontier regressed"
                    );
                    if prev_frontier.borrow() == current {
                        // Merges the spine left open finish while the input is quiet, a
                        // bounded amount each time the operator runs, so that no merge holds
                        // its two inputs and its partial result for good once updates stop
                        // arriving. Not while updates flow: then each inserted batch pays for
                        // the merges (the spine's fuel), and finishing a large merge here at
                        // once stalled the worker for tens of milliseconds each time the trace
                        // doubled (freshness p99 of a streaming source).
                        let merging = if received {
                            writer.merging()
                        } else {
                            writer.exert(IDLE_MERGE_FUEL)
                        };
                        if merging {
                            activator.activate();
                        }
                        return;
                    }
                    let retired: CapabilitySet<T> = capabilities
                        .elements()
                        .iter()
                        .filter(|c| !current.less_equal(c.time()))
                        .cloned()
                        .collect();
                    if retired.is_empty() {
                        writer.seal(current.to_owned());
                    } else {
                        let (ready, lower) = batcher.extract(current);
                        let desc = Description::new(
                            prev_frontier.clone(),
                            current.to_owned(),
                            Antichain::from_elem(T::minimum()),
                        );
                        let batch = Rc::new(BatchBuilder::from_sorted(ready, desc));
                        writer.insert(Rc::clone(&batch));
                        output.session(&retired).give(batch);
                        let mut kept = Antichain::new();
                        for time in lower.iter() {
                            let cap = capabilities
                                .elements()
                                .iter()
                                .find(|c| c.time().less_equal(time))
                                .expect("a held capability precedes every buffered update");
                            kept.insert(cap.delayed(time));
                        }
                        capabilities = kept;
                    }
                    prev_frontier = current.to_owned();
                    // Come back when the input may be quiet, to work on open merges.
                    if writer.merging() {
                        activator.activate();
                    }
                }
            },
        );
    Arranged {
        stream,
        trace: agent,
    }
}
