//! Reduce: per-key logic over accumulated values, with the output kept in its own arrangement.
//!
//! Owns: `Arranged::reduce_abelian`, for any lattice of times. Invariant (ENGINE-NOTES
//! "Reduce"): for every key and every time `t` not beyond the input frontier, the accumulated
//! output at `t` equals `logic(key, accumulated input at t)`.
//!
//! Why it works: a key's accumulated input only changes at times in the join closure of its input
//! times, and if the output is right at every such time and only has updates there, it is right
//! everywhere (the accumulation at `t` equals the one at the join of the input times `<= t`).
//! When new input arrives at times `N` for a key (or a pending time `p` of the key completes),
//! the times whose input changed are exactly the closure elements `>= n` for some `n`: the
//! closure of `N` under joins with each other and with the key's input and output history
//! (`times::close`). Each such time that is complete is visited in an order extending `<=`
//! (lexicographic `Ord`), where the operator accumulates input and output (including the
//! corrections it just made) and emits `logic(input) − output`. Closure times not yet complete
//! become pending `(key, time)` pairs, held with capabilities until the frontier passes them —
//! e.g. inputs at `(1,0)` and `(0,1)` change the output at `(1,1)`, where no input exists.
//!
//! Fast path: when a key's history and new times form a chain (always so for totally ordered
//! times) the closure is the chain from the least new time on, with no joins to compute. That
//! includes history above a new time: with product times, compaction can advance old history past
//! new input ((0, 3) compacted to the frontier {(2, 2)} is (2, 3), above new input at (2, 2)).
//! Only keys with new input are touched.
//!
//! The output is built into a trace the operator writes (and reads, for the current output); its
//! own handles on input and output traces are compacted to the input frontier.

mod times;

use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::CapabilitySet;
use timely::progress::frontier::Antichain;
use timely::progress::Timestamp;

use crate::consolidation::consolidate_updates;
use crate::difference::{Abelian, Semigroup};
use crate::lattice::Lattice;
use crate::operators::arrange::Arranged;
use crate::trace::batch::{BatchBuilder, Description};
use crate::trace::handle::TraceAgent;
use crate::trace::spine::Effort;
use crate::{BatchRef, Data};

use times::KeyWork;

impl<'scope, T, K, V, R> Arranged<'scope, T, K, V, R>
where
    T: Timestamp + Lattice,
    K: Data,
    V: Data,
    R: Semigroup,
{
    /// Maps each key's accumulated input `(val, diff)` list (consolidated, sorted by val, never
    /// empty) to output `(val, diff)` pairs, maintained incrementally as an arrangement.
    pub fn reduce_abelian<V2, R2, L>(&self, name: &str, logic: L) -> Arranged<'scope, T, K, V2, R2>
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
                    let mut capabilities = CapabilitySet::<T>::new();
                    // (key, time) pairs whose output may change, not yet processed.
                    let mut pending: Vec<(K, T)> = Vec::new();
                    let mut prev_frontier = Antichain::from_elem(T::minimum());
                    let mut work = KeyWork::new(logic);
                    move |(input, frontier), output| {
                        input.for_each(|cap, batches| {
                            for capability in cap.retain_stamp(0).iter() {
                                capabilities.insert(capability.clone());
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
                                work.load(key, &mut in_cursor, &mut out_cursor);
                                let times = ready[start..end].iter().map(|(_, t)| t.clone());
                                work.process(key, times, &current, &mut corrections, &mut pending);
                                start = end;
                            }
                        }
                        consolidate_updates(&mut corrections);
                        let retired: CapabilitySet<T> = capabilities
                            .iter()
                            .filter(|c| !current.less_equal(c.time()))
                            .cloned()
                            .collect();
                        if corrections.is_empty() {
                            writer.seal(current.clone());
                        } else {
                            let desc = Description::new(
                                prev_frontier.clone(),
                                current.clone(),
                                Antichain::from_elem(T::minimum()),
                            );
                            let batch = Rc::new(BatchBuilder::from_sorted(corrections, desc));
                            writer.insert(Rc::clone(&batch));
                            assert!(
                                !retired.is_empty(),
                                "reduce holds a capability for every completed time"
                            );
                            output.session(&retired).give(batch);
                        }
                        // Keep capabilities only for the least pending times.
                        let mut least = Antichain::new();
                        for (_, t) in pending.iter() {
                            least.insert_ref(t);
                        }
                        let mut kept = CapabilitySet::new();
                        for t in least.iter() {
                            kept.insert(capabilities.delayed(t));
                        }
                        capabilities = kept;
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
        let key = cursor.key().clone();
        let start = pending.len();
        while cursor.val_valid() {
            cursor.map_times(|t, _| pending.push((key.clone(), t.clone())));
            cursor.step_val();
        }
        // A key usually repeats one time across its vals: drop the repeats early.
        pending[start..].sort_by(|a, b| a.1.cmp(&b.1));
        let mut keep = start;
        for i in start..pending.len() {
            if keep == start || pending[keep - 1].1 != pending[i].1 {
                pending.swap(keep, i);
                keep += 1;
            }
        }
        pending.truncate(keep);
        cursor.step_key();
    }
}
