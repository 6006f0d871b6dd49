//! The bilinear join of two arrangements with the same key.
//!
//! Owns: `Arranged::join_core` (and `join` on collections). Invariants (ENGINE-NOTES "Join"):
//! - Every pair of updates `(k, v1, t1, d1)`, `(k, v2, t2, d2)` yields `logic(k, v1, v2)` at
//!   `join(t1, t2)` with diff `d1 × d2` exactly once: a batch received on one input is joined
//!   against the other input's batches *acknowledged* so far (received earlier), then itself
//!   acknowledged. Input 1's batches of an activation are taken before input 2's, so of any two
//!   batches the later one sees the earlier.
//! - The acknowledged part of the other side is read from its trace (`batches_through` the
//!   acknowledged frontier, which the join holds as its physical compaction so boundaries
//!   survive); while the trace cannot provide that exact cut (merges that began before the join
//!   registered, e.g. during an import's replay), the join uses its own list of received batches.
//! - Work is a queue of units, each owning its batch, a snapshot cursor of the other side and the
//!   capabilities for its output; a unit stops when its fuel is spent and resumes on the next
//!   activation, so a large replay does not stall the worker. Keys are matched by alternating
//!   galloping seeks, so work follows the smaller side.
//! - Each trace handle is compacted to the other input's frontier and dropped when the other
//!   input closes.

use std::collections::VecDeque;
use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::CapabilitySet;
use timely::progress::Timestamp;

use crate::collection::Collection;
use crate::consolidation::consolidate_updates;
use crate::difference::{Multiply, Semigroup};
use crate::lattice::Lattice;
use crate::operators::acknowledged::Acknowledged;
use crate::operators::arrange::Arranged;
use crate::trace::batch::BatchCursor;
use crate::trace::cursor::TraceCursor;
use crate::Data;

/// Output records a join produces per activation before yielding.
const FUEL_PER_ACTIVATION: isize = 1 << 16;

/// A unit of join work: a new batch against a snapshot of the other side.
struct Deferred<K, VA, VB, T: Timestamp, R> {
    caps: CapabilitySet<T>,
    batch: BatchCursor<K, VA, T, R>,
    other: TraceCursor<K, VB, T, R>,
}

impl<K: Data, VA: Data, VB: Data, T: Timestamp + Lattice, R: Semigroup + Multiply<Output = R>>
    Deferred<K, VA, VB, T, R>
{
    /// Joins matching keys until fuel runs out; returns true when finished.
    fn work(&mut self, fuel: &mut isize, mut emit: impl FnMut(&K, &VA, &VB, T, R)) -> bool {
        let mut theirs: Vec<(VB, T, R)> = Vec::new();
        let mut ours: Vec<(T, R)> = Vec::new();
        while *fuel > 0 && self.batch.key_valid() && self.other.key_valid() {
            match self.batch.key().cmp(self.other.key()) {
                std::cmp::Ordering::Less => self.batch.seek_key(self.other.key()),
                std::cmp::Ordering::Greater => self.other.seek_key(self.batch.key()),
                std::cmp::Ordering::Equal => {
                    theirs.clear();
                    while self.other.val_valid() {
                        let val = self.other.val().clone();
                        self.other
                            .map_times(|t, r| theirs.push((val.clone(), t.clone(), r.clone())));
                        self.other.step_val();
                    }
                    while self.batch.val_valid() {
                        ours.clear();
                        self.batch
                            .map_times(|t, r| ours.push((t.clone(), r.clone())));
                        for (t1, r1) in ours.iter() {
                            for (v2, t2, r2) in theirs.iter() {
                                emit(
                                    self.batch.key(),
                                    self.batch.val(),
                                    v2,
                                    t1.join(t2),
                                    r1.multiply(r2),
                                );
                            }
                        }
                        *fuel -= (ours.len() * theirs.len()) as isize;
                        self.batch.step_val();
                    }
                    self.batch.step_key();
                    self.other.step_key();
                }
            }
        }
        !(self.batch.key_valid() && self.other.key_valid())
    }
}

impl<'scope, T, K, V, R> Arranged<'scope, T, K, V, R>
where
    T: Timestamp + Lattice,
    K: Data,
    V: Data,
    R: Semigroup + Multiply<Output = R>,
{
    /// Joins two arrangements by key: `logic(key, v1, v2)` for every matching pair, at the join
    /// of their times, with the product of their diffs.
    pub fn join_core<V2, D, I, L>(
        &self,
        other: &Arranged<'scope, T, K, V2, R>,
        mut logic: L,
    ) -> Collection<'scope, T, D, R>
    where
        V2: Data,
        D: Data,
        I: IntoIterator<Item = D>,
        L: FnMut(&K, &V, &V2) -> I + 'static,
    {
        let mut side1 = Acknowledged::new(self.trace.clone());
        let mut side2 = Acknowledged::new(other.trace.clone());
        let scope = self.scope();
        let stream = self
            .stream
            .clone()
            .binary_frontier::<_, CapacityContainerBuilder<Vec<(D, T, R)>>, _, _, _, _>(
                other.stream.clone(),
                Pipeline,
                Pipeline,
                "JoinCore",
                move |_capability, info| {
                    let activator = scope.activator_for(Rc::clone(&info.address));
                    let mut todo1: VecDeque<Deferred<K, V, V2, T, R>> = VecDeque::new();
                    let mut todo2: VecDeque<Deferred<K, V2, V, T, R>> = VecDeque::new();
                    let mut buffer: Vec<(D, T, R)> = Vec::new();
                    move |(input1, frontier1), (input2, frontier2), output| {
                        input1.for_each(|cap, batches| {
                            let caps = cap.retain_stamp(0);
                            for batch in batches.drain(..) {
                                if side2.trace.is_some() && !batch.is_empty() {
                                    let other = side2.acknowledged_cursor();
                                    todo1.push_back(Deferred {
                                        caps: caps.clone(),
                                        batch: BatchCursor::new(Rc::clone(&batch)),
                                        other,
                                    });
                                }
                                side1.acknowledge(&batch);
                            }
                        });
                        input2.for_each(|cap, batches| {
                            let caps = cap.retain_stamp(0);
                            for batch in batches.drain(..) {
                                if side1.trace.is_some() && !batch.is_empty() {
                                    let other = side1.acknowledged_cursor();
                                    todo2.push_back(Deferred {
                                        caps: caps.clone(),
                                        batch: BatchCursor::new(Rc::clone(&batch)),
                                        other,
                                    });
                                }
                                side2.acknowledge(&batch);
                            }
                        });

                        // Future input-1 batches only ask input 2's trace about times beyond input
                        // 1's frontier, and vice versa; a closed input needs nothing more.
                        if let Some(trace) = side2.trace.as_mut() {
                            trace.set_logical_compaction(frontier1.frontier());
                        }
                        if let Some(trace) = side1.trace.as_mut() {
                            trace.set_logical_compaction(frontier2.frontier());
                        }
                        if frontier1.is_empty() {
                            side2.release();
                        }
                        if frontier2.is_empty() {
                            side1.release();
                        }

                        let mut fuel = FUEL_PER_ACTIVATION;
                        while fuel > 0 {
                            if let Some(work) = todo1.front_mut() {
                                let done = work.work(&mut fuel, |k, v1, v2, t, r| {
                                    buffer.extend(
                                        logic(k, v1, v2)
                                            .into_iter()
                                            .map(|d| (d, t.clone(), r.clone())),
                                    );
                                });
                                consolidate_updates(&mut buffer);
                                output.session(&work.caps).give_iterator(buffer.drain(..));
                                if done {
                                    todo1.pop_front();
                                }
                            } else if let Some(work) = todo2.front_mut() {
                                let done = work.work(&mut fuel, |k, v2, v1, t, r| {
                                    buffer.extend(
                                        logic(k, v1, v2)
                                            .into_iter()
                                            .map(|d| (d, t.clone(), r.clone())),
                                    );
                                });
                                consolidate_updates(&mut buffer);
                                output.session(&work.caps).give_iterator(buffer.drain(..));
                                if done {
                                    todo2.pop_front();
                                }
                            } else {
                                break;
                            }
                        }
                        if !todo1.is_empty() || !todo2.is_empty() {
                            activator.activate();
                        }
                    }
                },
            );
        Collection::new(stream)
    }
}

impl<'scope, T, K, V, R> Collection<'scope, T, (K, V), R>
where
    T: Timestamp + Lattice,
    K: Data,
    V: Data,
    R: Semigroup + Multiply<Output = R>,
{
    /// Joins two keyed collections: `(key, (v1, v2))` for every matching pair.
    pub fn join<V2: Data>(
        self,
        other: Collection<'scope, T, (K, V2), R>,
    ) -> Collection<'scope, T, (K, (V, V2)), R> {
        let left = self.arrange_by_key();
        let right = other.arrange_by_key();
        left.join_core(&right, |k, v1, v2| {
            Some((k.clone(), (v1.clone(), v2.clone())))
        })
    }
}
