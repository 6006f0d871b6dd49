//! Fueled merging of two adjacent batches, with compaction.
//!
//! Owns: [`Merger`]. Invariants: the result holds exactly the updates of both inputs with every
//! time replaced by `rep_since(time)` and consolidated, described by
//! `lower = older.lower`, `upper = newer.upper`, `since`. Work is done in steps that each consume
//! fuel proportional to the updates read, so the spine can spread a large merge over many
//! inserts and no single insert stalls the worker.

use std::rc::Rc;

use timely::progress::frontier::Antichain;

use super::batch::{Batch, BatchBuilder, Description};
use crate::consolidation::consolidate;
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::ArenaCopy;

/// An in-progress merge of `older` and `newer`.
pub struct Merger<K, V, T, R> {
    older: Rc<Batch<K, V, T, R>>,
    newer: Rc<Batch<K, V, T, R>>,
    /// Next key index in each input.
    pos: (usize, usize),
    since: Antichain<T>,
    builder: BatchBuilder<K, V, T, R>,
    scratch: Vec<(T, R)>,
}

impl<K: Ord + ArenaCopy, V: Ord + ArenaCopy, T: Lattice, R: Semigroup> Merger<K, V, T, R> {
    /// Starts merging two batches, `older` immediately preceding `newer` in time.
    pub fn new(
        older: Rc<Batch<K, V, T, R>>,
        newer: Rc<Batch<K, V, T, R>>,
        since: Antichain<T>,
    ) -> Self {
        let builder = BatchBuilder::with_capacities(
            older.key_count() + newer.key_count(),
            older.val_count() + newer.val_count(),
            older.stored_len() + newer.stored_len(),
            older.arena_used() + newer.arena_used(),
        );
        Merger {
            older,
            newer,
            pos: (0, 0),
            since,
            builder,
            scratch: Vec::new(),
        }
    }

    /// Bytes the partial result holds so far (the inputs are counted as batches).
    pub fn heap_bytes(
        &self,
        key_heap: &dyn Fn(&K) -> usize,
        val_heap: &dyn Fn(&V) -> usize,
    ) -> usize {
        self.builder.heap_bytes(key_heap, val_heap)
    }

    /// True once every key of both inputs has been merged.
    pub fn is_done(&self) -> bool {
        self.pos.0 >= self.older.key_count() && self.pos.1 >= self.newer.key_count()
    }

    /// Merges keys until `fuel` (in updates read) runs out or the merge is done.
    pub fn work(&mut self, fuel: &mut isize) {
        while *fuel > 0 && !self.is_done() {
            let (a, b) = (&self.older, &self.newer);
            let order = match (self.pos.0 < a.key_count(), self.pos.1 < b.key_count()) {
                (true, true) => a.key(self.pos.0).cmp(b.key(self.pos.1)),
                (true, false) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let read = match order {
                std::cmp::Ordering::Less => {
                    let k = self.pos.0;
                    self.pos.0 += 1;
                    self.copy_key(Some(k), None)
                }
                std::cmp::Ordering::Greater => {
                    let k = self.pos.1;
                    self.pos.1 += 1;
                    self.copy_key(None, Some(k))
                }
                std::cmp::Ordering::Equal => {
                    let (ka, kb) = self.pos;
                    self.pos = (ka + 1, kb + 1);
                    self.copy_key(Some(ka), Some(kb))
                }
            };
            *fuel -= read.max(1) as isize;
        }
    }

    /// Merges the vals of key `ka` of `older` and/or `kb` of `newer`; returns updates read.
    fn copy_key(&mut self, ka: Option<usize>, kb: Option<usize>) -> usize {
        let Merger {
            older: a,
            newer: b,
            since,
            builder,
            scratch,
            ..
        } = self;
        let key = match (ka, kb) {
            (Some(k), _) => a.key(k),
            (None, Some(k)) => b.key(k),
            (None, None) => unreachable!("copy_key needs a key"),
        };
        let mut va = ka.map_or(0..0, |k| a.vals_of(k));
        let mut vb = kb.map_or(0..0, |k| b.vals_of(k));
        let mut read = 0;
        let mut new_key = true;
        loop {
            let order = match (va.start < va.end, vb.start < vb.end) {
                (true, true) => a.val(va.start).cmp(b.val(vb.start)),
                (true, false) => std::cmp::Ordering::Less,
                (false, true) => std::cmp::Ordering::Greater,
                (false, false) => break,
            };
            scratch.clear();
            let val = match order {
                std::cmp::Ordering::Less => a.val(va.start),
                _ => b.val(vb.start),
            };
            if order != std::cmp::Ordering::Greater {
                for u in a.upds_of(va.start) {
                    let (t, r) = a.upd(u);
                    scratch.push((t.into_owned(), r.clone()));
                }
                va.start += 1;
            }
            if order != std::cmp::Ordering::Less {
                for u in b.upds_of(vb.start) {
                    let (t, r) = b.upd(u);
                    scratch.push((t.into_owned(), r.clone()));
                }
                vb.start += 1;
            }
            read += scratch.len();
            for (t, _) in scratch.iter_mut() {
                t.advance_by(since.borrow());
            }
            // One stored update is already consolidated (and never zero).
            if scratch.len() > 1 {
                consolidate(scratch);
            }
            if !scratch.is_empty() {
                builder.push_val(key, new_key, val, scratch);
                new_key = false;
            }
        }
        read
    }

    /// The merged batch; the merge must be done.
    pub fn done(self) -> Batch<K, V, T, R> {
        assert!(
            self.is_done(),
            "Merger::done called before the merge finished"
        );
        let desc = Description::new(
            self.older.description().lower.clone(),
            self.newer.description().upper.clone(),
            self.since,
        );
        self.builder.done(desc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consolidation::consolidate_updates;

    fn batch(
        updates: Vec<((u64, u64), u64, i64)>,
        lower: u64,
        upper: u64,
    ) -> Rc<Batch<u64, u64, u64, i64>> {
        let mut updates = updates;
        consolidate_updates(&mut updates);
        let desc = Description::new(
            Antichain::from_elem(lower),
            Antichain::from_elem(upper),
            Antichain::from_elem(0),
        );
        Rc::new(BatchBuilder::from_sorted(updates, desc))
    }

    #[test]
    fn merge_with_compaction_in_small_steps() {
        let a = batch(vec![((1, 1), 0, 1), ((1, 2), 1, 1), ((2, 1), 2, 1)], 0, 3);
        let b = batch(vec![((1, 1), 3, -1), ((1, 3), 4, 1), ((3, 1), 5, 2)], 3, 6);
        let mut merger = Merger::new(a, b, Antichain::from_elem(4));
        while !merger.is_done() {
            let mut fuel = 1;
            merger.work(&mut fuel);
        }
        let merged = merger.done();
        assert_eq!(merged.lower().to_owned(), Antichain::from_elem(0));
        assert_eq!(merged.upper().to_owned(), Antichain::from_elem(6));
        // (1,1) at 0 (+1) and 3 (-1) both advance to 4 and cancel.
        assert_eq!(
            merged.updates(),
            vec![
                ((1, 2), 4, 1),
                ((1, 3), 4, 1),
                ((2, 1), 4, 1),
                ((3, 1), 5, 2)
            ]
        );
    }
}
