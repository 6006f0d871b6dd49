//! Immutable columnar batches of updates, their builder, and a cursor over one batch.
//!
//! Owns: [`Description`], [`Batch`], [`BatchBuilder`], [`BatchCursor`]. Invariants: a batch's
//! updates are sorted by (key, val, time), consolidated (no zero diff, no repeated
//! (key, val, time)), and every time is beyond `lower` and not beyond `upper`; keys are stored once
//! with offsets into vals, vals once with offsets into the (time, diff) columns. Batches never
//! change after building, so they are shared by `Rc` between the trace, operators and imports.
//! Views share a batch's storage and change only how times are read: entered (`(t, 0)`) or
//! advanced to an `as_of` frontier, whose per-(key, val) updates are consolidated when read.

use std::rc::Rc;

use timely::progress::frontier::{Antichain, AntichainRef};

use crate::consolidation::consolidate;
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::Data;
use timely::progress::timestamp::Refines;
use timely::progress::Timestamp;

/// The interval of times a batch covers, and how far its times were compacted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description<T> {
    /// Every time in the batch is beyond `lower`.
    pub lower: Antichain<T>,
    /// No time in the batch is beyond `upper`.
    pub upper: Antichain<T>,
    /// Times were advanced by `since` (rep_F); only reads at times beyond `since` are exact.
    pub since: Antichain<T>,
}

impl<T: Clone> Description<T> {
    /// A description from its three frontiers.
    pub fn new(lower: Antichain<T>, upper: Antichain<T>, since: Antichain<T>) -> Self {
        Description {
            lower,
            upper,
            since,
        }
    }
}

/// An immutable, sorted, consolidated, columnar collection of `(key, val, time, diff)` updates.
///
/// A batch may also be a *view* of another batch's storage (nothing copied): entered into a
/// nested scope (times computed as `(t, 0)`), or advanced to an `as_of` frontier (times read as
/// `rep_as_of(t)`, see [`Batch::advanced_view`]). A view's times, as read, may repeat within a
/// (key, val); readers then see them consolidated (`map_upds`).
#[derive(Debug)]
pub struct Batch<K, V, T, R> {
    /// Keys, vals, offsets and diffs: shared with the views of this batch.
    cols: Rc<Columns<K, V, R>>,
    times: Times<T>,
    /// When set, every stored time is read advanced by this frontier.
    advance: Option<Rc<Antichain<T>>>,
    /// True when the times of each (key, val), as read, are distinct and sorted (a built batch);
    /// false for advanced views, whose reads consolidate.
    distinct_times: bool,
    desc: Description<T>,
}

/// The time-independent columns of a batch.
#[derive(Debug)]
struct Columns<K, V, R> {
    keys: Vec<K>,
    /// `key_offs[i]..key_offs[i+1]` are the vals of `keys[i]`; length `keys.len() + 1`.
    key_offs: Vec<usize>,
    vals: Vec<V>,
    /// `val_offs[j]..val_offs[j+1]` are the updates of `vals[j]`; length `vals.len() + 1`.
    val_offs: Vec<usize>,
    diffs: Vec<R>,
}

/// A batch's time column: stored, or computed on the fly from another batch's times (the batch
/// of an arrangement entered into an iterative scope, whose times gain a round `0`).
enum Times<T> {
    Owned(Rc<Vec<T>>),
    Derived(Rc<dyn Fn(usize) -> T>),
}

impl<T> Clone for Times<T> {
    fn clone(&self) -> Self {
        match self {
            Times::Owned(times) => Times::Owned(Rc::clone(times)),
            Times::Derived(f) => Times::Derived(Rc::clone(f)),
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Times<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Times::Owned(times) => times.fmt(f),
            Times::Derived(_) => f.write_str("<derived times>"),
        }
    }
}

impl<T: Clone> Times<T> {
    #[inline]
    fn get(&self, u: usize) -> std::borrow::Cow<'_, T> {
        match self {
            Times::Owned(times) => std::borrow::Cow::Borrowed(&times[u]),
            Times::Derived(f) => std::borrow::Cow::Owned(f(u)),
        }
    }
}

impl<K: Data, V: Data, T: Lattice + Timestamp, R: Semigroup> Batch<K, V, T, R> {
    /// The same updates at times `(t, 0)`, sharing this batch's columns (nothing is copied: the
    /// entered times are computed when read).
    pub fn enter<TI: Lattice + Refines<T>>(self: &Rc<Self>) -> Batch<K, V, TI, R> {
        let source = Rc::clone(self);
        let lift = |frontier: &Antichain<T>| -> Antichain<TI> {
            frontier.iter().map(|t| TI::to_inner(t.clone())).collect()
        };
        Batch {
            cols: Rc::clone(&self.cols),
            times: Times::Derived(Rc::new(move |u| TI::to_inner(source.time(u).into_owned()))),
            advance: None,
            distinct_times: self.distinct_times,
            desc: Description::new(
                lift(&self.desc.lower),
                lift(&self.desc.upper),
                lift(&self.desc.since),
            ),
        }
    }
}

impl<K: Ord + Clone, V: Ord + Clone, T: Lattice, R: Semigroup> Batch<K, V, T, R> {
    /// An empty batch with the given description.
    pub fn empty(desc: Description<T>) -> Self {
        BatchBuilder::new().done(desc)
    }
    /// The batch's description.
    pub fn description(&self) -> &Description<T> {
        &self.desc
    }
    /// `lower` of the description.
    pub fn lower(&self) -> AntichainRef<'_, T> {
        self.desc.lower.borrow()
    }
    /// `upper` of the description.
    pub fn upper(&self) -> AntichainRef<'_, T> {
        self.desc.upper.borrow()
    }
    /// Number of updates.
    pub fn len(&self) -> usize {
        self.cols.diffs.len()
    }
    /// True when the batch holds no updates.
    pub fn is_empty(&self) -> bool {
        self.cols.diffs.is_empty()
    }
    /// Number of distinct keys.
    pub fn key_count(&self) -> usize {
        self.cols.keys.len()
    }
    /// The updates of key number `k`: vals with their update ranges.
    pub(crate) fn key(&self, k: usize) -> &K {
        &self.cols.keys[k]
    }
    pub(crate) fn vals_of(&self, k: usize) -> std::ops::Range<usize> {
        self.cols.key_offs[k]..self.cols.key_offs[k + 1]
    }
    pub(crate) fn val(&self, v: usize) -> &V {
        &self.cols.vals[v]
    }
    pub(crate) fn upds_of(&self, v: usize) -> std::ops::Range<usize> {
        self.cols.val_offs[v]..self.cols.val_offs[v + 1]
    }
    /// The time of update `u` as read (advanced, for an advanced view).
    #[inline]
    fn time(&self, u: usize) -> std::borrow::Cow<'_, T> {
        let time = self.times.get(u);
        match &self.advance {
            None => time,
            Some(frontier) => {
                let mut time = time.into_owned();
                time.advance_by(frontier.borrow());
                std::borrow::Cow::Owned(time)
            }
        }
    }
    /// Update `u` as read (not consolidated with its neighbours, for a view).
    pub(crate) fn upd(&self, u: usize) -> (std::borrow::Cow<'_, T>, &R) {
        (self.time(u), &self.cols.diffs[u])
    }
    /// Calls `logic` on each (time, diff) of val number `v`, consolidated.
    #[inline]
    pub(crate) fn map_upds(&self, v: usize, logic: impl FnMut(&T, &R)) {
        self.map_upds_with(v, &mut Vec::new(), logic)
    }
    /// As `map_upds`, consolidating a view's advanced times in `scratch`.
    #[inline]
    pub(crate) fn map_upds_with(
        &self,
        v: usize,
        scratch: &mut Vec<(T, R)>,
        mut logic: impl FnMut(&T, &R),
    ) {
        let range = self.upds_of(v);
        if !self.distinct_times && range.len() > 1 {
            scratch.clear();
            for u in range {
                scratch.push((self.time(u).into_owned(), self.cols.diffs[u].clone()));
            }
            consolidate(scratch);
            for (t, r) in scratch.iter() {
                logic(t, r);
            }
            return;
        }
        match (&self.times, &self.advance) {
            (Times::Owned(times), None) => {
                for (t, r) in times[range.clone()]
                    .iter()
                    .zip(self.cols.diffs[range].iter())
                {
                    logic(t, r);
                }
            }
            _ => {
                for u in range {
                    logic(&self.time(u), &self.cols.diffs[u]);
                }
            }
        }
    }
    /// Index of the first key `>= key` at or after `from` (galloping, then binary search).
    pub(crate) fn seek_key_from(&self, from: usize, key: &K) -> usize {
        gallop(&self.cols.keys, from, |k| k < key)
    }
    /// Index of the first val `>= val` in `from..end` (galloping, then binary search).
    pub(crate) fn seek_val_from(&self, from: usize, end: usize, val: &V) -> usize {
        gallop(&self.cols.vals[..end], from, |v| v < val)
    }
    /// Every update as `((key, val), time, diff)`, in order.
    pub fn updates(&self) -> Vec<((K, V), T, R)> {
        let mut result = Vec::with_capacity(self.len());
        for k in 0..self.key_count() {
            for v in self.vals_of(k) {
                self.map_upds(v, |t, r| {
                    result.push((
                        (self.key(k).clone(), self.val(v).clone()),
                        t.clone(),
                        r.clone(),
                    ))
                });
            }
        }
        result
    }
    /// The same updates with every time advanced by `frontier` (rep_F), sharing this batch's
    /// storage: nothing is copied, times are advanced as they are read and each (key, val)'s
    /// updates are consolidated when read. `since` becomes the join of `since` and `frontier`.
    /// (A view of a view advances the stored times by the join of both frontiers, which is
    /// exact at every time beyond both, all the view's `since` promises.)
    pub fn advanced_view(&self, frontier: AntichainRef<T>) -> Self {
        let advance = match &self.advance {
            None => frontier.to_owned(),
            Some(earlier) => crate::lattice::join_frontiers(earlier.borrow(), frontier),
        };
        let mut desc = self.desc.clone();
        desc.since = crate::lattice::join_frontiers(desc.since.borrow(), frontier);
        Batch {
            cols: Rc::clone(&self.cols),
            times: self.times.clone(),
            advance: Some(Rc::new(advance)),
            distinct_times: false,
            desc,
        }
    }
    /// True when `self` and `other` read the same stored columns (one is a view of the other,
    /// or both of a third batch): a way to observe that a view copied nothing.
    pub fn shares_storage(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.cols, &other.cols)
    }
}

/// First index `i >= from` with `!less(&slice[i])`, assuming `less` is true on a prefix.
pub(crate) fn gallop<X>(slice: &[X], from: usize, less: impl Fn(&X) -> bool) -> usize {
    let mut lo = from;
    if lo >= slice.len() || !less(&slice[lo]) {
        return lo;
    }
    // Invariant: less(slice[lo]) holds.
    let mut step = 1;
    while lo + step < slice.len() && less(&slice[lo + step]) {
        lo += step;
        step <<= 1;
    }
    let mut hi = std::cmp::min(lo + step, slice.len());
    lo += 1;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if less(&slice[mid]) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Builds a [`Batch`] from updates pushed in (key, val, time) order, already consolidated.
pub struct BatchBuilder<K, V, T, R> {
    keys: Vec<K>,
    key_offs: Vec<usize>,
    vals: Vec<V>,
    val_offs: Vec<usize>,
    times: Vec<T>,
    diffs: Vec<R>,
}

impl<K: Ord + Clone, V: Ord + Clone, T: Lattice, R: Semigroup> Default
    for BatchBuilder<K, V, T, R>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Ord + Clone, V: Ord + Clone, T: Lattice, R: Semigroup> BatchBuilder<K, V, T, R> {
    /// An empty builder.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }
    /// An empty builder with room for `cap` updates.
    pub fn with_capacity(cap: usize) -> Self {
        BatchBuilder {
            keys: Vec::new(),
            key_offs: vec![0],
            vals: Vec::new(),
            val_offs: vec![0],
            times: Vec::with_capacity(cap),
            diffs: Vec::with_capacity(cap),
        }
    }
    /// Number of updates pushed so far.
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// True when nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
    /// Appends one update; must follow the previous one in (key, val, time) order.
    pub fn push(&mut self, key: &K, val: &V, time: T, diff: R) {
        let new_key = self.keys.last() != Some(key);
        if new_key {
            assert!(
                self.keys.last().is_none_or(|k| k < key),
                "batch keys pushed out of order"
            );
            self.close_val();
            self.close_key();
            self.keys.push(key.clone());
            self.vals.push(val.clone());
        } else if self.vals.last() != Some(val) {
            assert!(
                self.vals.last().is_none_or(|v| v < val),
                "batch vals pushed out of order"
            );
            self.close_val();
            self.vals.push(val.clone());
        }
        self.times.push(time);
        self.diffs.push(diff);
    }
    fn close_val(&mut self) {
        if self.vals.len() + 1 > self.val_offs.len() {
            self.val_offs.push(self.times.len());
        }
    }
    fn close_key(&mut self) {
        if self.keys.len() + 1 > self.key_offs.len() {
            self.key_offs.push(self.vals.len());
        }
    }
    /// Seals the batch with `desc`.
    pub fn done(mut self, desc: Description<T>) -> Batch<K, V, T, R> {
        self.close_val();
        self.close_key();
        Batch {
            cols: Rc::new(Columns {
                keys: self.keys,
                key_offs: self.key_offs,
                vals: self.vals,
                val_offs: self.val_offs,
                diffs: self.diffs,
            }),
            times: Times::Owned(Rc::new(self.times)),
            advance: None,
            distinct_times: true,
            desc,
        }
    }
    /// Builds a batch from sorted, consolidated `((key, val), time, diff)` updates.
    pub fn from_sorted(updates: Vec<((K, V), T, R)>, desc: Description<T>) -> Batch<K, V, T, R> {
        let mut builder = Self::with_capacity(updates.len());
        for ((k, v), t, r) in updates {
            builder.push(&k, &v, t, r);
        }
        builder.done(desc)
    }
}

/// A cursor over one shared batch: a position in its keys and in the current key's vals.
pub struct BatchCursor<K, V, T, R> {
    batch: Rc<Batch<K, V, T, R>>,
    key_pos: usize,
    val_pos: usize,
    /// Where a view's advanced times are consolidated (reused across `map_times` calls).
    scratch: std::cell::RefCell<Vec<(T, R)>>,
}

impl<K: Ord + Clone, V: Ord + Clone, T: Lattice, R: Semigroup> BatchCursor<K, V, T, R> {
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
        self.key_valid() && self.val_pos < self.batch.cols.key_offs[self.key_pos + 1]
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
            let end = self.batch.cols.key_offs[self.key_pos + 1];
            self.val_pos = self.batch.seek_val_from(self.val_pos, end, val);
        }
    }
    /// Moves back to the first val of the current key.
    pub fn rewind_vals(&mut self) {
        if self.key_valid() {
            self.val_pos = self.batch.cols.key_offs[self.key_pos];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_layout_and_cursor() {
        let updates = vec![
            ((1u64, 10u64), 0u64, 1i64),
            ((1, 10), 2, -1),
            ((1, 11), 1, 1),
            ((3, 5), 0, 2),
            ((4, 1), 7, 1),
        ];
        let desc = Description::new(
            Antichain::from_elem(0),
            Antichain::from_elem(8),
            Antichain::from_elem(0),
        );
        let batch = Rc::new(BatchBuilder::from_sorted(updates.clone(), desc));
        assert_eq!(batch.len(), 5);
        assert_eq!(batch.key_count(), 3);
        assert_eq!(batch.updates(), updates);
        let mut cursor = BatchCursor::new(batch);
        cursor.seek_key(&2);
        assert_eq!(cursor.key(), &3);
        cursor.seek_val(&5);
        assert_eq!(cursor.val(), &5);
        cursor.step_val();
        assert!(!cursor.val_valid());
        cursor.seek_key(&4);
        let mut seen = Vec::new();
        cursor.map_times(|t, r| seen.push((*t, *r)));
        assert_eq!(seen, vec![(7, 1)]);
        cursor.step_key();
        assert!(!cursor.key_valid());
    }

    #[test]
    fn advanced_view_shares_storage_and_consolidates_when_read() {
        let updates = vec![
            ((1u64, 10u64), 0u64, 1i64),
            ((1, 10), 2, -1),
            ((1, 11), 1, 1),
            ((1, 11), 3, 1),
            ((1, 11), 6, 1),
            ((2, 5), 0, 2),
            ((2, 5), 4, -2),
        ];
        let desc = Description::new(
            Antichain::from_elem(0),
            Antichain::from_elem(8),
            Antichain::from_elem(0),
        );
        let batch = Rc::new(BatchBuilder::from_sorted(updates, desc));
        let view = Rc::new(batch.advanced_view(Antichain::from_elem(4).borrow()));
        assert!(view.shares_storage(&batch));
        assert_eq!(view.description().since, Antichain::from_elem(4));
        // (1,10) cancels at 4; (1,11) sums to 2 at 4 and keeps 6; (2,5) cancels at 4.
        assert_eq!(view.updates(), vec![((1, 11), 4, 2), ((1, 11), 6, 1)]);
        let mut cursor = BatchCursor::new(Rc::clone(&view));
        let mut seen = Vec::new();
        cursor.map_times(|t, r| seen.push((*t, *r)));
        assert!(seen.is_empty(), "(1,10) consolidates to nothing");
        cursor.step_val();
        cursor.map_times(|t, r| seen.push((*t, *r)));
        assert_eq!(seen, vec![(4, 2), (6, 1)]);
        // A view of a view advances by the join of both frontiers, still sharing storage.
        let again = view.advanced_view(Antichain::from_elem(5).borrow());
        assert!(again.shares_storage(&batch));
        assert_eq!(again.updates(), vec![((1, 11), 5, 2), ((1, 11), 6, 1)]);
    }

    #[test]
    fn advanced_view_with_product_times_matches_a_copy() {
        use timely::order::Product;
        type P = Product<u64, u64>;
        let p = |a: u64, b: u64| Product::new(a, b);
        let mut updates: Vec<((u64, u64), P, i64)> = Vec::new();
        let mut seed = 7u64;
        for _ in 0..200 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = seed >> 33;
            let diff = if x % 3 == 0 { -1 } else { 1 };
            updates.push(((x % 4, (x >> 4) % 3), p((x >> 8) % 5, (x >> 12) % 5), diff));
        }
        crate::consolidation::consolidate_updates(&mut updates);
        let desc = Description::new(
            Antichain::from_elem(p(0, 0)),
            Antichain::new(),
            Antichain::from_elem(p(0, 0)),
        );
        let batch = Rc::new(BatchBuilder::from_sorted(updates.clone(), desc));
        let mut frontier = Antichain::new();
        frontier.insert(p(2, 1));
        frontier.insert(p(1, 3));
        let mut copy: Vec<((u64, u64), P, i64)> = updates
            .iter()
            .map(|(d, t, r)| {
                let mut t = t.clone();
                t.advance_by(frontier.borrow());
                (*d, t, *r)
            })
            .collect();
        crate::consolidation::consolidate_updates(&mut copy);
        let view = batch.advanced_view(frontier.borrow());
        assert_eq!(view.updates(), copy);
        let entered = Rc::new(view).enter::<Product<P, u32>>();
        let lifted: Vec<_> = copy
            .iter()
            .map(|(d, t, r)| (*d, Product::new(t.clone(), 0u32), *r))
            .collect();
        assert_eq!(entered.updates(), lifted);
    }

    #[test]
    fn gallop_finds_lower_bound() {
        let data: Vec<u32> = (0..100).map(|x| x * 2).collect();
        for from in [0, 5, 50] {
            for target in 0..210u32 {
                let expected = data
                    .iter()
                    .position(|x| *x >= target)
                    .unwrap_or(100)
                    .max(from);
                assert_eq!(gallop(&data, from, |x| *x < target), expected);
            }
        }
    }
}
