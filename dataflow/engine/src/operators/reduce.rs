//! Reduce: per-key logic over accumulated values, with the output kept in its own arrangement.
//!
//! Owns: `Arranged::reduce_abelian` (totally ordered times). Invariant (ENGINE-NOTES "Reduce"):
//! for every key and every time `t` not beyond the input frontier, the accumulated output at `t`
//! equals `logic(key, accumulated input at t)`. The operator keeps, per key, the times at which
//! new input arrived; when the frontier passes such a time it accumulates input and output there,
//! runs the logic and emits `logic(input) − output`. With totally ordered times the times that
//! can change are exactly the new input times, visited per key in increasing order, so only keys
//! with new input are reconsidered. Times not yet complete stay pending with a capability.
//!
//! The output is built into a trace the operator writes (and reads, for the current output); its
//! own handles on input and output traces are compacted to the input frontier.

use std::collections::BTreeMap;
use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::Capability;
use timely::order::TotalOrder;
use timely::progress::frontier::Antichain;
use timely::progress::Timestamp;

use crate::consolidation::consolidate_updates;
use crate::difference::{Abelian, Semigroup};
use crate::lattice::Lattice;
use crate::operators::arrange::Arranged;
use crate::trace::batch::{BatchBuilder, Description};
use crate::trace::cursor::TraceCursor;
use crate::trace::handle::TraceAgent;
use crate::trace::spine::Effort;
use crate::{BatchRef, Data};

impl<'scope, T, K, V, R> Arranged<'scope, T, K, V, R>
where
    T: Timestamp + Lattice + TotalOrder,
    K: Data,
    V: Data,
    R: Semigroup,
{
    /// Maps each key's accumulated input `(val, diff)` list (consolidated, sorted by val, never
    /// empty) to output `(val, diff)` pairs, maintained incrementally as an arrangement.
    pub fn reduce_abelian<V2, R2, L>(
        &self,
        name: &str,
        mut logic: L,
    ) -> Arranged<'scope, T, K, V2, R2>
    where
        V2: Data,
        R2: Abelian,
        L: FnMut(&K, &[(&V, R)], &mut Vec<(V2, R2)>) + 'static,
    {
        let (out_agent, writer) = TraceAgent::<K, V2, T, R2>::new(Effort::Default);
        let mut out_reader = out_agent.clone();
        let mut in_reader = self.trace.clone();
        let stream = self
            .stream
            .clone()
            .unary_frontier::<CapacityContainerBuilder<Vec<BatchRef<K, V2, T, R2>>>, _, _, _>(
                Pipeline,
                name,
                move |_capability, _info| {
                    let mut capability: Option<Capability<T>> = None;
                    // (key, time) pairs whose output may change, not yet processed.
                    let mut pending: Vec<(K, T)> = Vec::new();
                    let mut prev_frontier = Antichain::from_elem(T::minimum());
                    let mut input_acc: BTreeMap<V, R> = BTreeMap::new();
                    let mut output_acc: BTreeMap<V2, R2> = BTreeMap::new();
                    let mut produced: Vec<(V2, R2)> = Vec::new();
                    move |(input, frontier), output| {
                        input.for_each(|cap, batches| {
                            if let Some(time) = cap.least() {
                                if capability.as_ref().is_none_or(|c| time < c.time()) {
                                    capability = Some(cap.delayed(time, 0));
                                }
                            }
                            for batch in batches.drain(..) {
                                collect_key_times(&batch, &mut pending);
                            }
                        });
                        let current = frontier.frontier().to_owned();
                        if current == prev_frontier {
                            return;
                        }
                        // Split pending (key, time) pairs into ready (complete) and still pending.
                        pending.sort();
                        pending.dedup();
                        let (ready, later): (Vec<_>, Vec<_>) =
                            pending.drain(..).partition(|(_, t)| !current.less_equal(t));
                        pending = later;

                        let mut corrections: Vec<((K, V2), T, R2)> = Vec::new();
                        if !ready.is_empty() {
                            let mut in_cursor = in_reader.cursor();
                            let mut out_cursor = out_reader.cursor();
                            let mut start = 0;
                            while start < ready.len() {
                                let key = &ready[start].0;
                                let end = start
                                    + ready[start..].iter().take_while(|(k, _)| k == key).count();
                                let history_in = key_history(&mut in_cursor, key);
                                let history_out = key_history(&mut out_cursor, key);
                                let (mut i, mut o) = (0, 0);
                                input_acc.clear();
                                output_acc.clear();
                                for (_, time) in ready[start..end].iter() {
                                    while i < history_in.len() && history_in[i].1.less_equal(time) {
                                        accumulate(
                                            &mut input_acc,
                                            &history_in[i].0,
                                            &history_in[i].2,
                                        );
                                        i += 1;
                                    }
                                    while o < history_out.len() && history_out[o].1.less_equal(time)
                                    {
                                        accumulate(
                                            &mut output_acc,
                                            &history_out[o].0,
                                            &history_out[o].2,
                                        );
                                        o += 1;
                                    }
                                    produced.clear();
                                    if !input_acc.is_empty() {
                                        let slice: Vec<(&V, R)> =
                                            input_acc.iter().map(|(v, r)| (v, r.clone())).collect();
                                        logic(key, &slice, &mut produced);
                                    }
                                    for (v, mut r) in output_acc
                                        .iter()
                                        .map(|(v, r)| (v.clone(), r.clone()))
                                        .collect::<Vec<_>>()
                                    {
                                        r.negate();
                                        produced.push((v, r));
                                    }
                                    crate::consolidation::consolidate(&mut produced);
                                    for (v, r) in produced.drain(..) {
                                        accumulate(&mut output_acc, &v, &r);
                                        corrections.push(((key.clone(), v), time.clone(), r));
                                    }
                                }
                                start = end;
                            }
                        }
                        consolidate_updates(&mut corrections);
                        let desc = Description::new(
                            prev_frontier.clone(),
                            current.clone(),
                            Antichain::from_elem(T::minimum()),
                        );
                        if corrections.is_empty() {
                            writer.seal(current.clone());
                        } else {
                            let batch = Rc::new(BatchBuilder::from_sorted(corrections, desc));
                            writer.insert(Rc::clone(&batch));
                            let cap = capability
                                .as_ref()
                                .expect("a capability is held while input is unprocessed");
                            output.session(cap).give(batch);
                        }
                        // Keep a capability only for the least pending time.
                        match pending.iter().map(|(_, t)| t).min() {
                            Some(least) => {
                                if let Some(cap) = capability.as_mut() {
                                    cap.downgrade(least);
                                }
                            }
                            None => capability = None,
                        }
                        in_reader.set_logical_compaction(current.borrow());
                        out_reader.set_logical_compaction(current.borrow());
                        prev_frontier = current;
                    }
                },
            );
        Arranged {
            stream,
            trace: out_agent,
        }
    }
}

/// Appends every (key, time) of `batch` to `pending`.
fn collect_key_times<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup>(
    batch: &BatchRef<K, V, T, R>,
    pending: &mut Vec<(K, T)>,
) {
    let mut cursor = crate::trace::batch::BatchCursor::new(Rc::clone(batch));
    while cursor.key_valid() {
        while cursor.val_valid() {
            let key = cursor.key();
            cursor.map_times(|t, _| pending.push((key.clone(), t.clone())));
            cursor.step_val();
        }
        cursor.step_key();
    }
}

/// Every update of `key` in the cursor, sorted by time. Keys must be asked in increasing order.
fn key_history<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup>(
    cursor: &mut TraceCursor<K, V, T, R>,
    key: &K,
) -> Vec<(V, T, R)> {
    let mut history = Vec::new();
    cursor.seek_key(key);
    if cursor.key_valid() && cursor.key() == key {
        while cursor.val_valid() {
            let val = cursor.val().clone();
            cursor.map_times(|t, r| history.push((val.clone(), t.clone(), r.clone())));
            cursor.step_val();
        }
    }
    history.sort_by(|a, b| a.1.cmp(&b.1));
    history
}

fn accumulate<V: Ord + Clone, R: Semigroup>(acc: &mut BTreeMap<V, R>, val: &V, diff: &R) {
    match acc.get_mut(val) {
        Some(sum) => {
            sum.plus_equals(diff);
            if sum.is_zero() {
                acc.remove(val);
            }
        }
        None => {
            if !diff.is_zero() {
                acc.insert(val.clone(), diff.clone());
            }
        }
    }
}
