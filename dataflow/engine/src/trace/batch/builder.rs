//! Building a batch from sorted, consolidated updates.
//!
//! Owns: [`BatchBuilder`]. Invariants: updates arrive in (key, val, time) order; the builder
//! writes the columnar layout of `super` (keys once, vals once per key, (time, diff) columns),
//! storing each key and val by `arena_copy` into the arena the batch will own.

use std::rc::Rc;

use super::{column_bytes, Batch, Columns, Description, Offsets, Times};
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::{Arena, ArenaCopy};

/// Where a pushed update goes.
enum Place {
    /// A key after the last one (and its first val).
    NewKey,
    /// A val after the last one, of the last key.
    NewVal,
    /// Another update of the last (key, val).
    Same,
}

/// Builds a [`Batch`] from updates pushed in (key, val, time) order, already consolidated.
pub struct BatchBuilder<K, V, T, R> {
    keys: Vec<K>,
    key_offs: Offsets,
    vals: Vec<V>,
    val_offs: Offsets,
    times: Vec<T>,
    diffs: Vec<R>,
    updates: usize,
    /// Heap bytes of `keys` and `vals`: they are only handed out by reference, and move with
    /// the arena into the batch (`Columns`).
    arena: Arena,
}

impl<K: Ord + ArenaCopy, V: Ord + ArenaCopy, T: Lattice, R: Semigroup> Default
    for BatchBuilder<K, V, T, R>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Ord + ArenaCopy, V: Ord + ArenaCopy, T: Lattice, R: Semigroup> BatchBuilder<K, V, T, R> {
    /// An empty builder.
    pub fn new() -> Self {
        Self::with_capacities(0, 0, 0, 0)
    }
    /// An empty builder with room for about `keys` keys, `vals` vals and `upds` stored updates
    /// (the columns are trimmed to their lengths when the batch is sealed), and `arena` bytes
    /// of their heap parts (the arena cannot be trimmed: a high estimate leaves slack).
    pub fn with_capacities(keys: usize, vals: usize, upds: usize, arena: usize) -> Self {
        let key_only = Batch::<K, V, T, R>::key_only();
        let mut key_offs = Offsets::with_capacity(if key_only { 0 } else { keys + 1 });
        if !key_only {
            key_offs.push(0);
        }
        let mut val_offs = Offsets::with_capacity(vals + 1);
        val_offs.push(0);
        BatchBuilder {
            keys: Vec::with_capacity(keys),
            key_offs,
            vals: Vec::with_capacity(vals),
            val_offs,
            times: Vec::with_capacity(upds),
            diffs: Vec::with_capacity(upds),
            updates: 0,
            arena: Arena::with_capacity(arena),
        }
    }
    /// `key` as the batch stores it.
    #[inline]
    fn store_key(&mut self, key: &K) -> K {
        // SAFETY: the copy lives in `self.keys`, then in the batch's columns beside the arena;
        // both hand it out only by reference (`Columns`).
        unsafe { key.arena_copy(&mut self.arena) }
    }
    /// `val` as the batch stores it.
    #[inline]
    fn store_val(&mut self, val: &V) -> V {
        // SAFETY: as `store_key`.
        unsafe { val.arena_copy(&mut self.arena) }
    }
    /// Number of updates pushed so far.
    pub fn len(&self) -> usize {
        self.updates
    }
    /// True when nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.updates == 0
    }
    /// Bytes the builder holds so far (its columns' allocations and what the pushed keys and
    /// vals own on the heap), as [`Batch::heap_bytes`] counts a batch.
    pub fn heap_bytes(
        &self,
        key_heap: &dyn Fn(&K) -> usize,
        val_heap: &dyn Fn(&V) -> usize,
    ) -> usize {
        column_bytes(&self.keys, self.keys.capacity(), key_heap)
            + self.key_offs.heap_bytes()
            + column_bytes(&self.vals, self.vals.capacity(), val_heap)
            + self.val_offs.heap_bytes()
            + self.times.capacity() * std::mem::size_of::<T>()
            + self.diffs.capacity() * std::mem::size_of::<R>()
            + self.arena.heap_bytes()
    }
    /// Appends one update; must follow the previous one in (key, val, time) order.
    pub fn push(&mut self, key: &K, val: &V, time: T, diff: R) {
        match self.place(key, val) {
            Place::NewKey => {
                let (key, val) = (self.store_key(key), self.store_val(val));
                self.keys.push(key);
                self.vals.push(val);
            }
            Place::NewVal => {
                let val = self.store_val(val);
                self.vals.push(val);
            }
            Place::Same => {}
        }
        self.push_update(time, diff);
    }
    /// `push` of a key and val moved in as they are, for types that keep no bytes in an arena.
    fn push_owned(&mut self, key: K, val: V, time: T, diff: R) {
        debug_assert!(!K::USES_ARENA && !V::USES_ARENA);
        match self.place(&key, &val) {
            Place::NewKey => {
                self.keys.push(key);
                self.vals.push(val);
            }
            Place::NewVal => self.vals.push(val),
            Place::Same => {}
        }
        self.push_update(time, diff);
    }
    /// Where an update for (`key`, `val`) goes, closing the open val and key ranges it ends.
    fn place(&mut self, key: &K, val: &V) -> Place {
        if self.keys.last() != Some(key) {
            assert!(
                self.keys.last().is_none_or(|k| k < key),
                "batch keys pushed out of order"
            );
            self.close_val();
            self.close_key();
            Place::NewKey
        } else if !Batch::<K, V, T, R>::key_only() && self.vals.last() != Some(val) {
            assert!(
                self.vals.last().is_none_or(|v| v < val),
                "batch vals pushed out of order"
            );
            self.close_val();
            Place::NewVal
        } else {
            Place::Same
        }
    }
    fn push_update(&mut self, time: T, diff: R) {
        self.times.push(time);
        self.diffs.push(diff);
        self.updates += 1;
    }
    /// Appends the consolidated updates of one (key, val) that follows everything pushed so far;
    /// `new_key` says whether `key` differs from the last key pushed (the caller knows, so no key
    /// is compared). Nothing is pushed when `upds` is empty.
    pub(crate) fn push_val(&mut self, key: &K, new_key: bool, val: &V, upds: &mut Vec<(T, R)>) {
        if upds.is_empty() {
            return;
        }
        self.close_val();
        if new_key {
            debug_assert!(self.keys.last().is_none_or(|k| k < key));
            self.close_key();
            let key = self.store_key(key);
            self.keys.push(key);
        } else {
            debug_assert!(self.keys.last() == Some(key) && !Batch::<K, V, T, R>::key_only());
        }
        let val = self.store_val(val);
        self.vals.push(val);
        self.updates += upds.len();
        for (t, r) in upds.drain(..) {
            self.times.push(t);
            self.diffs.push(r);
        }
    }
    /// Ends the open val's update range; a single update equal to the previously stored one is
    /// dropped and recorded as an empty range.
    fn close_val(&mut self) {
        if self.vals.len() + 1 > self.val_offs.len() {
            let start = self.val_offs.last().expect("val_offs starts with 0");
            let n = self.times.len();
            if n == start + 1
                && start > 0
                && self.times[n - 1] == self.times[n - 2]
                && self.diffs[n - 1] == self.diffs[n - 2]
            {
                self.times.pop();
                self.diffs.pop();
            }
            self.val_offs.push(self.times.len());
        }
    }
    fn close_key(&mut self) {
        if !Batch::<K, V, T, R>::key_only() && self.keys.len() + 1 > self.key_offs.len() {
            self.key_offs.push(self.vals.len());
        }
    }
    /// Seals the batch with `desc`.
    pub fn done(mut self, desc: Description<T>) -> Batch<K, V, T, R> {
        self.close_val();
        self.close_key();
        self.keys.shrink_to_fit();
        self.key_offs.shrink_to_fit();
        self.vals.shrink_to_fit();
        self.val_offs.shrink_to_fit();
        self.times.shrink_to_fit();
        self.diffs.shrink_to_fit();
        Batch {
            cols: Rc::new(Columns {
                keys: self.keys,
                key_offs: self.key_offs,
                vals: self.vals,
                val_offs: self.val_offs,
                diffs: self.diffs,
                updates: self.updates,
                arena: self.arena,
            }),
            times: Times::Owned(Rc::new(self.times)),
            advance: None,
            distinct_times: true,
            desc,
        }
    }
    /// Builds a batch from sorted, consolidated `((key, val), time, diff)` updates.
    pub fn from_sorted(updates: Vec<((K, V), T, R)>, desc: Description<T>) -> Batch<K, V, T, R> {
        // Room for the worst case of keys and vals (every update a new key); `done` trims the
        // columns, in place. The (time, diff) columns grow as needed: repeats are stored once,
        // so they are often far shorter than `updates`. The arena is sized exactly: each
        // distinct key, and each distinct val of a key, once.
        let n = updates.len();
        let mut arena = 0;
        let mut last: Option<&(K, V)> = None;
        let sized = if K::USES_ARENA || V::USES_ARENA {
            &updates[..]
        } else {
            &[]
        };
        for (kv, _, _) in sized.iter() {
            match last {
                Some(prev) if prev.0 == kv.0 => {
                    if prev.1 != kv.1 {
                        arena += kv.1.arena_len();
                    }
                }
                _ => arena += kv.0.arena_len() + kv.1.arena_len(),
            }
            last = Some(kv);
        }
        let mut builder = Self::with_capacities(n, n, 0, arena);
        if K::USES_ARENA || V::USES_ARENA {
            for ((k, v), t, r) in updates {
                builder.push(&k, &v, t, r);
            }
        } else {
            // Nothing goes to the arena: the keys and vals move in (a copy would clone each
            // `String` or `Vec` only to drop the original).
            for ((k, v), t, r) in updates {
                builder.push_owned(k, v, t, r);
            }
        }
        builder.done(desc)
    }
}
