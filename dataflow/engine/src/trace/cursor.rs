//! A cursor over several batches at once (a "cursor list").
//!
//! Owns: [`TraceCursor`]. Invariants: the cursor presents the union of its batches as one sorted
//! collection — `key()` is the least key among the batch cursors still valid, `val()` the least
//! val of that key among them; `map_times` reports every (time, diff) of the current (key, val)
//! from every batch, with times advanced by the optional `as_of` view frontier (used by
//! `import_frontier`, so that no reader of the view sees a time below `as_of`). Seeking a key seeks
//! every batch (galloping), stepping advances only the batches at the least key.

use std::rc::Rc;

use timely::progress::frontier::Antichain;

use super::batch::{Batch, BatchCursor};
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::ArenaCopy;

/// A merged cursor over a list of shared batches.
pub struct TraceCursor<K, V, T, R> {
    cursors: Vec<BatchCursor<K, V, T, R>>,
    /// Indices of cursors positioned at the least key.
    at_key: Vec<usize>,
    /// Indices (subset of `at_key`) positioned at the least val of that key.
    at_val: Vec<usize>,
    as_of: Option<Rc<Antichain<T>>>,
}

impl<K: Ord + ArenaCopy, V: Ord + ArenaCopy, T: Lattice, R: Semigroup> TraceCursor<K, V, T, R> {
    /// A cursor over `batches`, advancing times by `as_of` when given.
    pub fn new(batches: Vec<Rc<Batch<K, V, T, R>>>, as_of: Option<Rc<Antichain<T>>>) -> Self {
        let cursors = batches
            .into_iter()
            .filter(|b| !b.is_empty())
            .map(BatchCursor::new)
            .collect();
        let mut cursor = TraceCursor {
            cursors,
            at_key: Vec::new(),
            at_val: Vec::new(),
            as_of,
        };
        cursor.find_key();
        cursor
    }

    fn find_key(&mut self) {
        self.at_key.clear();
        let mut least: Option<&K> = None;
        for (i, c) in self.cursors.iter().enumerate() {
            if c.key_valid() {
                match least {
                    Some(k) if c.key() > k => {}
                    Some(k) if c.key() == k => self.at_key.push(i),
                    _ => {
                        least = Some(c.key());
                        self.at_key.clear();
                        self.at_key.push(i);
                    }
                }
            }
        }
        self.find_val();
    }

    fn find_val(&mut self) {
        self.at_val.clear();
        let mut least: Option<&V> = None;
        for &i in self.at_key.iter() {
            let c = &self.cursors[i];
            if c.val_valid() {
                match least {
                    Some(v) if c.val() > v => {}
                    Some(v) if c.val() == v => self.at_val.push(i),
                    _ => {
                        least = Some(c.val());
                        self.at_val.clear();
                        self.at_val.push(i);
                    }
                }
            }
        }
    }

    /// True while positioned at a key.
    pub fn key_valid(&self) -> bool {
        !self.at_key.is_empty()
    }
    /// True while positioned at a val of the current key.
    pub fn val_valid(&self) -> bool {
        !self.at_val.is_empty()
    }
    /// The current key; only when `key_valid`.
    pub fn key(&self) -> &K {
        self.cursors[self.at_key[0]].key()
    }
    /// The current val; only when `val_valid`.
    pub fn val(&self) -> &V {
        self.cursors[self.at_val[0]].val()
    }
    /// Calls `logic` on every (time, diff) of the current (key, val) across all batches.
    pub fn map_times(&self, mut logic: impl FnMut(&T, &R)) {
        for &i in self.at_val.iter() {
            match &self.as_of {
                None => self.cursors[i].map_times(&mut logic),
                Some(frontier) => self.cursors[i].map_times(|t, r| {
                    let mut t = t.clone();
                    t.advance_by(frontier.borrow());
                    logic(&t, r)
                }),
            }
        }
    }
    /// Moves to the next key.
    pub fn step_key(&mut self) {
        for &i in self.at_key.iter() {
            self.cursors[i].step_key();
        }
        self.find_key();
    }
    /// Moves to the first key `>= key`.
    pub fn seek_key(&mut self, key: &K) {
        for c in self.cursors.iter_mut() {
            c.seek_key(key);
        }
        self.find_key();
    }
    /// Moves to the next val of the current key.
    pub fn step_val(&mut self) {
        for &i in self.at_val.iter() {
            self.cursors[i].step_val();
        }
        self.find_val();
    }
    /// Moves to the first val `>= val` of the current key.
    pub fn seek_val(&mut self, val: &V) {
        for &i in self.at_key.iter() {
            self.cursors[i].seek_val(val);
        }
        self.find_val();
    }
    /// Moves back to the first val of the current key.
    pub fn rewind_vals(&mut self) {
        for &i in self.at_key.iter() {
            self.cursors[i].rewind_vals();
        }
        self.find_val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::batch::{BatchBuilder, Description};

    #[test]
    fn union_of_batches_in_order() {
        let desc = |l: u64, u: u64| {
            Description::new(
                Antichain::from_elem(l),
                Antichain::from_elem(u),
                Antichain::from_elem(0),
            )
        };
        let a = Rc::new(BatchBuilder::from_sorted(
            vec![((1u64, 1u64), 0u64, 1i64), ((3, 1), 0, 1)],
            desc(0, 1),
        ));
        let b = Rc::new(BatchBuilder::from_sorted(
            vec![((1, 0), 1, 1), ((1, 1), 1, -1), ((2, 2), 1, 1)],
            desc(1, 2),
        ));
        let mut cursor = TraceCursor::new(vec![a, b], Some(Rc::new(Antichain::from_elem(5))));
        let mut seen = Vec::new();
        while cursor.key_valid() {
            while cursor.val_valid() {
                let (k, v) = (*cursor.key(), *cursor.val());
                cursor.map_times(|t, r| seen.push((k, v, *t, *r)));
                cursor.step_val();
            }
            cursor.step_key();
        }
        assert_eq!(
            seen,
            vec![
                (1, 0, 5, 1),
                (1, 1, 5, 1),
                (1, 1, 5, -1),
                (2, 2, 5, 1),
                (3, 1, 5, 1)
            ]
        );
        cursor.seek_key(&2);
        assert!(!cursor.key_valid(), "seek never moves backwards");
    }
}
