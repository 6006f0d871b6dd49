//! A cursor over one shared batch.
//!
//! Owns: [`BatchCursor`]. Invariants: the cursor walks keys in order and the vals of the
//! current key in order; `map_times` reports the current (key, val)'s updates with times as
//! read (a view's advanced times consolidated in the cursor's reusable scratch buffer).

use std::rc::Rc;

use super::Batch;
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::ArenaCopy;

/// A cursor over one shared batch: a position in its keys and in the current key's vals.
pub struct BatchCursor<K, V, T, R> {
    batch: Rc<Batch<K, V, T, R>>,
    key_pos: usize,
    val_pos: usize,
    /// Where a view's advanced times are consolidated (reused across `map_times` calls).
    scratch: std::cell::RefCell<Vec<(T, R)>>,
}

impl<K: Ord + ArenaCopy, V: Ord + ArenaCopy, T: Lattice, R: Semigroup> BatchCursor<K, V, T, R> {
    /// A cursor at the first key and val of `batch`.
    pub fn new(batch: Rc<Batch<K, V, T, R>>) -> Self {
        let mut cursor = BatchCursor {
            batch,
            key_pos: 0,
            val_pos: 0,
            scratch: std::cell::RefCell::new(Vec::new()),
        };
        cursor.rewind_vals();
        cursor
    }
    /// The batch under the cursor.
    pub fn batch(&self) -> &Rc<Batch<K, V, T, R>> {
        &self.batch
    }
    /// True while the cursor is at a key.
    pub fn key_valid(&self) -> bool {
        self.key_pos < self.batch.key_count()
    }
    /// True while the cursor is at a val of the current key.
    pub fn val_valid(&self) -> bool {
        self.key_valid() && self.val_pos < self.batch.key_off(self.key_pos + 1)
    }
    /// The current key; only when `key_valid`.
    pub fn key(&self) -> &K {
        self.batch.key(self.key_pos)
    }
    /// The current val; only when `val_valid`.
    pub fn val(&self) -> &V {
        self.batch.val(self.val_pos)
    }
    /// Calls `logic` on each (time, diff) of the current (key, val).
    /// Times are distinct and sorted (a view's advanced times are consolidated first).
    pub fn map_times(&self, logic: impl FnMut(&T, &R)) {
        if self.val_valid() {
            match self.scratch.try_borrow_mut() {
                Ok(mut scratch) => self.batch.map_upds_with(self.val_pos, &mut scratch, logic),
                // Re-entered from `logic`: consolidate in a fresh buffer.
                Err(_) => self.batch.map_upds(self.val_pos, logic),
            }
        }
    }
    /// Moves to the next key.
    pub fn step_key(&mut self) {
        if self.key_valid() {
            self.key_pos += 1;
            self.rewind_vals();
        }
    }
    /// Moves to the first key `>= key`.
    pub fn seek_key(&mut self, key: &K) {
        let pos = self.batch.seek_key_from(self.key_pos, key);
        if pos != self.key_pos {
            self.key_pos = pos;
            self.rewind_vals();
        }
    }
    /// Moves to the next val of the current key.
    pub fn step_val(&mut self) {
        if self.val_valid() {
            self.val_pos += 1;
        }
    }
    /// Moves to the first val `>= val` of the current key.
    pub fn seek_val(&mut self, val: &V) {
        if self.key_valid() {
            let end = self.batch.key_off(self.key_pos + 1);
            self.val_pos = self.batch.seek_val_from(self.val_pos, end, val);
        }
    }
    /// Moves back to the first val of the current key.
    pub fn rewind_vals(&mut self) {
        if self.key_valid() {
            self.val_pos = self.batch.key_off(self.key_pos);
        }
    }
}
