//! The snapshot join: two collections joined as they are at one time, through a hash table.
//!
//! Owns: `Collection::snapshot_join`. A one-shot read — a query answered at one time, then torn
//! down — needs its joins' results at that time only. `join_core` maintains a join for every
//! later time too, which costs an arrangement of each input (sorting every update, building
//! batches, keeping a trace); a one-shot read uses none of that. Here both inputs are exchanged
//! by the key's hash (the routing `arrange` uses), updates at times beyond `time` are dropped,
//! and once both inputs are complete through `time` each worker builds a hash table of the
//! side it holds fewer updates of and probes it with the other, a bounded number of probes per
//! activation. The table's side is consolidated first (by hashing): a row repeated as n
//! updates on both sides would otherwise make n × m outputs, and repetitions would multiply
//! through a chain of joins; with one side consolidated they only carry through.
//!
//! Invariants: the output holds, at `time`, exactly the join of the two inputs' contents as of
//! `time` (every pair of updates `(k, v1, t1, d1)`, `(k, v2, t2, d2)` with `t1`, `t2` not beyond
//! `time` yields `logic(k, v1, v2)` once, at `time`, with diff `d1 × d2`), and nothing at any
//! other time: the output is only meant to be read at `time`. Nothing is emitted before both
//! inputs' frontiers have passed `time`; the operator holds its capability at `time` until its
//! last probe and then drops its inputs' updates.

use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::Operator;
use timely::progress::Timestamp;

use crate::collection::Collection;
use crate::difference::{Multiply, Semigroup};
use crate::lattice::Lattice;
use crate::operators::arrange::hash_key;
use crate::operators::hash_table::{consolidate_hashed, HashTable};
use crate::Data;

/// Probes a join makes per activation before yielding to other operators.
const PROBES_PER_ACTIVATION: usize = 1 << 14;

/// The join's work once both sides are complete: the smaller side in a table, the other side
/// still to probe it.
enum Probe<K, V1, V2, R> {
    LeftBuilt(HashTable<K, V1, R>, Chunks<(K, V2, R)>),
    RightBuilt(HashTable<K, V2, R>, Chunks<(K, V1, R)>),
}

/// A side's updates as they arrived, one vector per received container: collected without
/// ever copying a growing vector (at hundreds of thousands of rows, the reallocations were a
/// fifth of a join's time).
type Chunks<D> = std::iter::Flatten<std::vec::IntoIter<Vec<D>>>;

/// The number of updates in `chunks`.
fn count<D>(chunks: &[Vec<D>]) -> usize {
    chunks.iter().map(Vec::len).sum()
}

impl<K: Data, V1: Data, V2: Data, R: Semigroup + Multiply<Output = R>> Probe<K, V1, V2, R> {
    fn new(left: Vec<Vec<(K, V1, R)>>, right: Vec<Vec<(K, V2, R)>>) -> Self {
        let (l, r) = (count(&left), count(&right));
        if l <= r {
            Probe::LeftBuilt(
                HashTable::build(consolidate_hashed(left.into_iter().flatten(), l)),
                right.into_iter().flatten(),
            )
        } else {
            Probe::RightBuilt(
                HashTable::build(consolidate_hashed(right.into_iter().flatten(), r)),
                left.into_iter().flatten(),
            )
        }
    }

    /// Probes up to `limit` updates, calling `emit(key, left value, right value, diff)` for each
    /// match; true when every update has probed.
    fn work(&mut self, limit: usize, mut emit: impl FnMut(&K, &V1, &V2, R)) -> bool {
        let mut probed = 0;
        match self {
            Probe::LeftBuilt(table, probes) => {
                for (k, v2, r2) in probes.by_ref().take(limit) {
                    probed += 1;
                    for (_, v1, r1) in table.matches(&k) {
                        emit(&k, v1, &v2, r1.multiply(&r2));
                    }
                }
            }
            Probe::RightBuilt(table, probes) => {
                for (k, v1, r1) in probes.by_ref().take(limit) {
                    probed += 1;
                    for (_, v2, r2) in table.matches(&k) {
                        emit(&k, &v1, v2, r1.multiply(r2));
                    }
                }
            }
        }
        probed < limit
    }
}

impl<'scope, T, K, V, R> Collection<'scope, T, (K, V), R>
where
    T: Timestamp + Lattice,
    K: Data,
    V: Data,
    R: Semigroup + Multiply<Output = R>,
{
    /// The join of this collection and `other` as they are at `time`, placed at `time`:
    /// `logic(key, v1, v2)` for every matching pair, with the product of their diffs. Updates
    /// beyond `time` are ignored, so the result is only correct read at `time` (see the module
    /// documentation): for one-shot reads, not for maintained views.
    pub fn snapshot_join<V2, D, I, L>(
        self,
        other: Collection<'scope, T, (K, V2), R>,
        time: T,
        mut logic: L,
    ) -> Collection<'scope, T, D, R>
    where
        V2: Data,
        D: Data,
        I: IntoIterator<Item = D>,
        L: FnMut(&K, &V, &V2) -> I + 'static,
    {
        let scope = self.scope();
        let by_key1 = Exchange::new(|update: &((K, V), T, R)| hash_key(&(update.0).0));
        let by_key2 = Exchange::new(|update: &((K, V2), T, R)| hash_key(&(update.0).0));
        let stream = self
            .inner
            .binary_frontier::<_, CapacityContainerBuilder<Vec<(D, T, R)>>, _, _, _, _>(
                other.inner,
                by_key1,
                by_key2,
                "SnapshotJoin",
                move |capability, info| {
                    let activator = scope.activator_for(Rc::clone(&info.address));
                    let mut capability = Some(capability.delayed(&time));
                    let mut left: Vec<Vec<(K, V, R)>> = Vec::new();
                    let mut right: Vec<Vec<(K, V2, R)>> = Vec::new();
                    let mut probe: Option<Probe<K, V, V2, R>> = None;
                    move |(input1, frontier1), (input2, frontier2), output| {
                        input1.for_each(|_cap, data| left.push(kept_at(data, &time)));
                        input2.for_each(|_cap, data| right.push(kept_at(data, &time)));
                        let Some(cap) = capability.as_ref() else {
                            // Done: later updates are not part of the snapshot.
                            left.clear();
                            right.clear();
                            return;
                        };
                        if probe.is_none() {
                            let complete = |f: timely::progress::frontier::AntichainRef<T>| {
                                !f.less_equal(&time)
                            };
                            if !complete(frontier1.frontier()) || !complete(frontier2.frontier()) {
                                return;
                            }
                            probe = Some(Probe::new(
                                std::mem::take(&mut left),
                                std::mem::take(&mut right),
                            ));
                        }
                        let work = probe.as_mut().expect("probe built above");
                        let mut session = output.session(cap);
                        let done = work.work(PROBES_PER_ACTIVATION, |k, v1, v2, r| {
                            for d in logic(k, v1, v2) {
                                session.give((d, time.clone(), r.clone()));
                            }
                        });
                        drop(session);
                        if done {
                            probe = None;
                            capability = None;
                        } else {
                            activator.activate();
                        }
                    }
                },
            );
        Collection::new(stream)
    }
}

/// The updates of a received container at times not beyond `time`, without their times.
fn kept_at<K, V, T: Timestamp, R>(data: &mut Vec<((K, V), T, R)>, time: &T) -> Vec<(K, V, R)> {
    let mut kept = Vec::with_capacity(data.len());
    let at = data.drain(..).filter(|(_, t, _)| t.less_equal(time));
    kept.extend(at.map(|((k, v), _, r)| (k, v, r)));
    kept
}
