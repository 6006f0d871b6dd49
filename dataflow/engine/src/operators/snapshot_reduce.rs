//! The snapshot reduce: each key's group reduced as it is at one time, grouped by hashing.
//!
//! Owns: `Collection::snapshot_reduce`. The one-shot counterpart of `reduce_abelian` (see
//! `snapshot_join.rs` for why one-shot reads want one): updates are exchanged by the key's
//! hash (the routing `arrange` uses), updates beyond `time` are dropped, and once the input is
//! complete through `time` the updates are chained by key hash; each key's values are sorted
//! and consolidated — only within the group — and handed to `logic` exactly as
//! `reduce_abelian` hands them (consolidated, sorted by value, never empty), a bounded number
//! of groups per activation.
//!
//! Invariants: the output holds, at `time`, `logic`'s output for every key whose accumulated
//! values at `time` are not all zero, and nothing at any other time; nothing is emitted before
//! the input's frontier has passed `time`.

use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::Operator;
use timely::progress::Timestamp;

use crate::collection::Collection;
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::operators::arrange::hash_key;
use crate::operators::hash_table::HashTable;
use crate::Data;

/// Key hashes (groups, unless keys collide) reduced per activation before yielding.
const CHAINS_PER_ACTIVATION: usize = 1 << 12;

/// The input once complete: its updates chained by key hash, and the chains still to reduce.
struct Groups<K, V, R> {
    table: HashTable<K, V, R>,
    heads: std::vec::IntoIter<usize>,
}

impl<'scope, T, K, V, R> Collection<'scope, T, (K, V), R>
where
    T: Timestamp + Lattice,
    K: Data,
    V: Data,
    R: Semigroup,
{
    /// Maps each key's values accumulated at `time` (consolidated, sorted by value, never
    /// empty) to output `(val, diff)` pairs, emitted as `(key, val)` at `time`. Updates beyond
    /// `time` are ignored: the result is only correct read at `time` (for one-shot reads).
    pub fn snapshot_reduce<V2, R2, L>(
        self,
        name: &str,
        time: T,
        mut logic: L,
    ) -> Collection<'scope, T, (K, V2), R2>
    where
        V2: Data,
        R2: Semigroup,
        L: FnMut(&K, &[(&V, R)], &mut Vec<(V2, R2)>) + 'static,
    {
        let scope = self.scope();
        let by_key = Exchange::new(|update: &((K, V), T, R)| hash_key(&(update.0).0));
        let stream = self
            .inner
            .unary_frontier::<CapacityContainerBuilder<Vec<((K, V2), T, R2)>>, _, _, _>(
                by_key,
                name,
                move |capability, info| {
                    let activator = scope.activator_for(Rc::clone(&info.address));
                    let mut capability = Some(capability.delayed(&time));
                    let mut updates: Vec<(K, V, R)> = Vec::new();
                    let mut groups: Option<Groups<K, V, R>> = None;
                    let mut chain: Vec<usize> = Vec::new();
                    let mut out: Vec<(V2, R2)> = Vec::new();
                    move |(input, frontier), output| {
                        input.for_each(|_cap, data| {
                            let kept = data.drain(..).filter(|(_, t, _)| t.less_equal(&time));
                            updates.extend(kept.map(|((k, v), _, r)| (k, v, r)));
                        });
                        let Some(cap) = capability.as_ref() else {
                            updates.clear();
                            return;
                        };
                        if groups.is_none() {
                            if frontier.frontier().less_equal(&time) {
                                return;
                            }
                            let table = HashTable::build(std::mem::take(&mut updates));
                            let heads: Vec<usize> = table.heads.values().copied().collect();
                            groups = Some(Groups {
                                table,
                                heads: heads.into_iter(),
                            });
                        }
                        let Groups { table, heads } = groups.as_mut().expect("built above");
                        let mut session = output.session(cap);
                        let mut vals: Vec<(&V, R)> = Vec::new();
                        for head in heads.by_ref().take(CHAINS_PER_ACTIVATION) {
                            chain.clear();
                            let mut at = head;
                            while at != usize::MAX {
                                chain.push(at);
                                at = table.next[at];
                            }
                            let entries = &table.entries;
                            chain.sort_by(|&a, &b| {
                                let (x, y) = (&entries[a], &entries[b]);
                                (&x.0, &x.1).cmp(&(&y.0, &y.1))
                            });
                            // Each key of the chain in turn: its values consolidated.
                            let mut i = 0;
                            while i < chain.len() {
                                let key = &entries[chain[i]].0;
                                vals.clear();
                                while i < chain.len() && entries[chain[i]].0 == *key {
                                    let (_, v, r) = &entries[chain[i]];
                                    match vals.last_mut() {
                                        Some((last, sum)) if *last == v => sum.plus_equals(r),
                                        _ => vals.push((v, r.clone())),
                                    }
                                    i += 1;
                                }
                                vals.retain(|(_, r)| !r.is_zero());
                                if vals.is_empty() {
                                    continue;
                                }
                                logic(key, &vals, &mut out);
                                for (v2, r2) in out.drain(..) {
                                    session.give(((key.clone(), v2), time.clone(), r2));
                                }
                            }
                        }
                        drop(session);
                        if heads.len() == 0 {
                            groups = None;
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
