//! Count, distinct and threshold for totally ordered times: no output arrangement.
//!
//! Owns: `count_total`, `distinct_total`, `threshold_total` (on collections) and
//! `Arranged::accumulate_total`. With totally ordered times a key's accumulation changes only at
//! the times of its own input updates, so for each batch of the key-only input arrangement the
//! operator reads the key's count before the batch from the input trace (the batches before it),
//! walks the batch's updates in time order, and emits `f(new) − f(old)` (consolidated: nothing
//! where the output does not change) at each time where the count changes. Nothing else is
//! stored: the general reduce keeps and reads an output arrangement, which these save (half the
//! state, and no output merges).
//!
//! Invariant: at every time `t`, the accumulated output equals `f(key, count at t)` for every
//! key with a nonzero count. "Before the batch" is by batch, not by time: the count is summed
//! over exactly the batches received earlier (`Acknowledged`, as the join reads the other side),
//! so an import whose replayed batches all carry times advanced to one `as_of` is counted right,
//! and the handle can be compacted to the input frontier (every time is summed).

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::Operator;
use timely::order::TotalOrder;
use timely::progress::Timestamp;

use crate::collection::Collection;
use crate::consolidation::consolidate;
use crate::difference::Abelian;
use crate::lattice::Lattice;
use crate::operators::acknowledged::Acknowledged;
use crate::operators::arrange::Arranged;
use crate::trace::batch::BatchCursor;
use crate::{BatchRef, Data};

impl<'scope, T, K, R> Arranged<'scope, T, K, (), R>
where
    T: Timestamp + Lattice + TotalOrder,
    K: Data,
    R: Abelian + Data,
{
    /// For each key, the records `f(key, count)` (called only for nonzero counts), maintained
    /// as the key's count changes.
    pub fn accumulate_total<D, R2, F>(&self, name: &str, mut f: F) -> Collection<'scope, T, D, R2>
    where
        D: Data,
        R2: Abelian + Data,
        F: FnMut(&K, &R, &mut Vec<(D, R2)>) + 'static,
    {
        let mut before = Acknowledged::new(self.trace.clone());
        let stream = self
            .stream
            .clone()
            .unary_frontier::<CapacityContainerBuilder<Vec<(D, T, R2)>>, _, _, _>(
                Pipeline,
                name,
                move |_capability, _info| {
                    let mut times: Vec<(T, R)> = Vec::new();
                    let mut produced: Vec<(D, R2)> = Vec::new();
                    move |(input, frontier), output| {
                        input.for_each(|cap, batches| {
                            let mut session = output.session(&cap);
                            for batch in batches.drain(..) {
                                let mut history = before.acknowledged_cursor();
                                let mut changes = BatchCursor::new(BatchRef::clone(&batch));
                                while changes.key_valid() {
                                    times.clear();
                                    while changes.val_valid() {
                                        changes
                                            .map_times(|t, r| times.push((t.clone(), r.clone())));
                                        changes.step_val();
                                    }
                                    consolidate(&mut times);
                                    let key = changes.key();
                                    let mut count = R::zero();
                                    history.seek_key(key);
                                    if history.key_valid() && history.key() == key {
                                        while history.val_valid() {
                                            history.map_times(|_, r| count.plus_equals(r));
                                            history.step_val();
                                        }
                                    }
                                    for (time, diff) in times.drain(..) {
                                        if !count.is_zero() {
                                            f(key, &count, &mut produced);
                                            produced.iter_mut().for_each(|(_, r)| r.negate());
                                        }
                                        count.plus_equals(&diff);
                                        if !count.is_zero() {
                                            f(key, &count, &mut produced);
                                        }
                                        // A change that leaves the output as it was (a class
                                        // still present, a count of NULLs) sends nothing.
                                        consolidate(&mut produced);
                                        for (d, r) in produced.drain(..) {
                                            session.give((d, time.clone(), r));
                                        }
                                    }
                                    changes.step_key();
                                }
                                before.acknowledge(&batch);
                            }
                        });
                        if frontier.is_empty() {
                            before.release();
                        } else if let Some(trace) = before.trace.as_mut() {
                            trace.set_logical_compaction(frontier.frontier());
                        }
                    }
                },
            );
        Collection::new(stream)
    }
}

impl<'scope, T, K, R> Collection<'scope, T, K, R>
where
    T: Timestamp + Lattice + TotalOrder,
    K: Data,
    R: Abelian + Data + From<i8>,
{
    /// As `count`, for totally ordered times: `(record, count)` with diff 1.
    pub fn count_total(self) -> Collection<'scope, T, (K, R), R> {
        self.arrange_by_self()
            .accumulate_total("CountTotal", |key, count, out| {
                out.push(((key.clone(), count.clone()), R::from(1)))
            })
    }

    /// As `distinct`, for totally ordered times.
    pub fn distinct_total(self) -> Self {
        self.threshold_total(|_key, count| crate::operators::count::presence(count))
    }

    /// As `threshold`, for totally ordered times: each record with multiplicity
    /// `logic(record, count)`.
    pub fn threshold_total(self, mut logic: impl FnMut(&K, &R) -> R + 'static) -> Self {
        self.arrange_by_self()
            .accumulate_total("ThresholdTotal", move |key, count, out| {
                let r = logic(key, count);
                if !r.is_zero() {
                    out.push((key.clone(), r));
                }
            })
    }
}
