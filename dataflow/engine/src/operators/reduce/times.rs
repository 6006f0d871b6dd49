//! Per-key reduce work: the key's history, the join closure of its interesting times, and the
//! evaluation of the logic at each complete one.
//!
//! Owns: [`KeyWork`] and [`close`]. Invariants: `load` reads a key's whole input and output
//! history (keys asked in increasing order); `process` evaluates exactly the complete times of
//! the closure of the key's ready times with that history, in `Ord` order (which extends `<=`),
//! and returns the incomplete closure times as pending. When the ready times and the history form
//! a chain the closure is every time from the least ready one on, and no joins are computed.

use std::collections::BTreeSet;

use timely::progress::frontier::Antichain;

use crate::consolidation::consolidate;
use crate::difference::{Abelian, Semigroup};
use crate::lattice::Lattice;
use crate::trace::cursor::TraceCursor;
use crate::Data;

/// Scratch state and user logic for reducing one key at a time.
pub(super) struct KeyWork<K, V, V2, T, R, R2, L> {
    logic: L,
    history_in: Vec<(V, T, R)>,
    history_out: Vec<(V2, T, R2)>,
    /// Corrections made for the current key in this activation.
    made: Vec<(V2, T, R2)>,
    times: Vec<T>,
    produced: Vec<(V2, R2)>,
    _key: std::marker::PhantomData<K>,
}

impl<K, V, V2, T, R, R2, L> KeyWork<K, V, V2, T, R, R2, L>
where
    K: Data,
    V: Data,
    V2: Data,
    T: Lattice,
    R: Semigroup,
    R2: Abelian,
    L: FnMut(&K, &[(&V, R)], &mut Vec<(V2, R2)>),
{
    pub(super) fn new(logic: L) -> Self {
        KeyWork {
            logic,
            history_in: Vec::new(),
            history_out: Vec::new(),
            made: Vec::new(),
            times: Vec::new(),
            produced: Vec::new(),
            _key: std::marker::PhantomData,
        }
    }

    /// Reads `key`'s input and output history from the cursors.
    pub(super) fn load(
        &mut self,
        key: &K,
        input: &mut TraceCursor<K, V, T, R>,
        output: &mut TraceCursor<K, V2, T, R2>,
    ) {
        key_history(input, key, &mut self.history_in);
        key_history(output, key, &mut self.history_out);
    }

    /// Evaluates `key` at every complete time of the closure of `ready` (sorted, distinct, all
    /// complete) with the loaded history; appends corrections and incomplete closure times.
    pub(super) fn process(
        &mut self,
        key: &K,
        ready: impl Iterator<Item = T>,
        frontier: &Antichain<T>,
        corrections: &mut Vec<((K, V2), T, R2)>,
        pending: &mut Vec<(K, T)>,
    ) {
        let ready: Vec<T> = ready.collect();
        self.times.clear();
        self.times.extend(ready.iter().cloned());
        self.times
            .extend(self.history_in.iter().map(|(_, t, _)| t.clone()));
        self.times
            .extend(self.history_out.iter().map(|(_, t, _)| t.clone()));
        self.times.sort();
        self.times.dedup();
        // The times whose accumulated input changed: the closure of the ready times with the
        // history, restricted to times above some ready time. In a chain that is every time from
        // the least ready one on — including history times above it, which exist when compaction
        // advanced older history past the new input (product times: (0, 3) compacted to
        // {(2, 2)} is (2, 3), above new input at (2, 2)), or when the trace already holds
        // batches this operator has not received.
        let chain = self.times.windows(2).all(|w| w[0].less_equal(&w[1]));
        let closure = if chain {
            let first = self.times.partition_point(|t| t < &ready[0]);
            self.times[first..].to_vec()
        } else {
            close(&ready, &self.times)
        };
        let mut eval = Vec::with_capacity(closure.len());
        for t in closure {
            if frontier.less_equal(&t) {
                pending.push((key.clone(), t));
            } else {
                eval.push(t);
            }
        }
        self.made.clear();
        for time in eval {
            self.evaluate(key, &time);
            for (v, r) in self.produced.drain(..) {
                corrections.push(((key.clone(), v.clone()), time.clone(), r.clone()));
                self.made.push((v, time.clone(), r));
            }
        }
    }

    /// Leaves `logic(input at time) − output at time` in `self.produced`.
    fn evaluate(&mut self, key: &K, time: &T) {
        let mut input: Vec<(&V, R)> = self
            .history_in
            .iter()
            .filter(|(_, t, _)| t.less_equal(time))
            .map(|(v, _, r)| (v, r.clone()))
            .collect();
        consolidate(&mut input);
        self.produced.clear();
        if !input.is_empty() {
            (self.logic)(key, &input, &mut self.produced);
        }
        for (v, t, r) in self.history_out.iter().chain(self.made.iter()) {
            if t.less_equal(time) {
                let mut r = r.clone();
                r.negate();
                self.produced.push((v.clone(), r));
            }
        }
        consolidate(&mut self.produced);
    }
}

/// Every update of `key` in the cursor into `history`. Keys must be asked in increasing order.
fn key_history<K: Data, V: Data, T: Lattice, R: Semigroup>(
    cursor: &mut TraceCursor<K, V, T, R>,
    key: &K,
    history: &mut Vec<(V, T, R)>,
) {
    history.clear();
    cursor.seek_key(key);
    if cursor.key_valid() && cursor.key() == key {
        while cursor.val_valid() {
            let val = cursor.val().clone();
            cursor.map_times(|t, r| history.push((val.clone(), t.clone(), r.clone())));
            cursor.step_val();
        }
    }
}

/// The times `>=` some seed in the join closure of `seeds` and `history`, sorted.
pub(crate) fn close<T: Lattice>(seeds: &[T], history: &[T]) -> Vec<T> {
    let mut set: BTreeSet<T> = seeds.iter().cloned().collect();
    let mut queue: Vec<T> = seeds.to_vec();
    while let Some(c) = queue.pop() {
        let known: Vec<T> = set.iter().cloned().collect();
        for other in history.iter().chain(known.iter()) {
            let j = c.join(other);
            if !set.contains(&j) {
                set.insert(j.clone());
                queue.push(j);
            }
        }
    }
    set.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use timely::order::Product;

    #[test]
    fn closure_adds_joins_of_incomparable_times() {
        let p = |a: u64, b: u64| Product::new(a, b);
        let closed = close(&[p(1, 0)], &[p(0, 1), p(0, 0), p(2, 2)]);
        assert_eq!(closed, vec![p(1, 0), p(1, 1), p(2, 2)]);
        let closed = close(&[3u64], &[1, 5]);
        assert_eq!(closed, vec![3, 5]);
    }
}
