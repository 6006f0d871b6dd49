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
use crate::{Arena, ArenaCopy};
use timely::progress::timestamp::Refines;
use timely::progress::Timestamp;

mod builder;
mod cursor;
mod offsets;
#[cfg(test)]
mod tests;

pub use builder::BatchBuilder;
pub use cursor::BatchCursor;
use offsets::Offsets;

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
///
/// Two layouts, chosen by the val type: a *keyed* batch stores `key_offs` (each key's range of
/// vals); a *key-only* batch (`V` zero-sized, e.g. `()`: each key has exactly one val, so those
/// offsets would be `0, 1, 2, ...`) stores none, and its `vals` column takes no memory either, so
/// it holds keys, one update offset per key, and the (time, diff) columns.
///
/// Repeated updates are stored once: a val whose only update equals the previously stored
/// (time, diff) gets an empty range in `val_offs` and reads that previous update (a val always
/// has at least one update, so an empty range is unambiguous). A trace loaded at one time with
/// diff 1 then stores a single (time, diff).
///
/// Keys and vals are stored by `ArenaCopy::arena_copy`: their heap bytes (a spilled row's) are
/// in `arena`, which lives exactly as long as they do; they are only ever handed out by
/// reference, and dropping them frees nothing of the arena's.
struct Columns<K, V, R> {
    keys: Vec<K>,
    /// `key_offs[i]..key_offs[i+1]` are the vals of `keys[i]`; length `keys.len() + 1`; empty in
    /// a key-only batch.
    key_offs: Offsets,
    vals: Vec<V>,
    /// `val_offs[j]..val_offs[j+1]` are the stored updates of `vals[j]` (empty: the previous
    /// stored update); length `vals.len() + 1`.
    val_offs: Offsets,
    diffs: Vec<R>,
    /// Number of updates, counting each repeated one.
    updates: usize,
    /// The heap bytes of `keys` and `vals`.
    arena: Arena,
}

impl<K: std::fmt::Debug, V: std::fmt::Debug, R: std::fmt::Debug> std::fmt::Debug
    for Columns<K, V, R>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Columns")
            .field("keys", &self.keys)
            .field("vals", &self.vals)
            .field("diffs", &self.diffs)
            .field("arena_bytes", &self.arena.used())
            .finish()
    }
}

impl<K, V, R> Columns<K, V, R> {
    fn heap_bytes(&self, key_heap: &dyn Fn(&K) -> usize, val_heap: &dyn Fn(&V) -> usize) -> usize {
        column_bytes(&self.keys, self.keys.capacity(), key_heap)
            + self.key_offs.heap_bytes()
            + column_bytes(&self.vals, self.vals.capacity(), val_heap)
            + self.val_offs.heap_bytes()
            + self.diffs.capacity() * std::mem::size_of::<R>()
            + self.arena.heap_bytes()
    }
}

/// Bytes of a column of `capacity` elements holding `column`: its allocation and what the
/// elements own on the heap (nothing is walked when `X` cannot own any, e.g. a zero-sized val).
pub(crate) fn column_bytes<X>(column: &[X], capacity: usize, heap: &dyn Fn(&X) -> usize) -> usize {
    let owned = if std::mem::size_of::<X>() == 0 {
        0
    } else {
        column.iter().map(heap).sum::<usize>()
    };
    capacity * std::mem::size_of::<X>() + owned
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

impl<K: Ord + ArenaCopy, V: Ord + ArenaCopy, T: Lattice, R: Semigroup> Batch<K, V, T, R> {
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
    /// Number of updates (a view may read fewer, after consolidating advanced times).
    pub fn len(&self) -> usize {
        self.cols.updates
    }
    /// Number of (time, diff) pairs actually stored (repeats are stored once).
    pub fn stored_len(&self) -> usize {
        self.cols.diffs.len()
    }
    /// True when the batch holds no updates.
    pub fn is_empty(&self) -> bool {
        self.cols.updates == 0
    }
    /// True when this batch type uses the key-only layout (no val offsets).
    pub const fn key_only() -> bool {
        std::mem::size_of::<V>() == 0
    }
    /// Index of the first val of key number `k` (`k == key_count()`: the end).
    #[inline]
    pub(crate) fn key_off(&self, k: usize) -> usize {
        if Self::key_only() {
            k
        } else {
            self.cols.key_offs.get(k)
        }
    }
    /// Number of (key, val) pairs.
    pub fn val_count(&self) -> usize {
        self.cols.vals.len()
    }
    /// Bytes of keys and vals in the batch's arena (what a copy of them would put in another).
    pub(crate) fn arena_used(&self) -> usize {
        self.cols.arena.used()
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
        self.key_off(k)..self.key_off(k + 1)
    }
    pub(crate) fn val(&self, v: usize) -> &V {
        &self.cols.vals[v]
    }
    /// The stored updates of val number `v`.
    #[inline]
    pub(crate) fn upds_of(&self, v: usize) -> std::ops::Range<usize> {
        let (start, end) = (self.cols.val_offs.get(v), self.cols.val_offs.get(v + 1));
        if start == end {
            // A repeat of the previous stored update.
            start - 1..start
        } else {
            start..end
        }
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
    /// Bytes this batch's storage holds: each column's allocation (its capacity, shared with
    /// the batch's views and counted here once per call) plus what each key and val owns on
    /// the heap as `key_heap` and `val_heap` measure it. A view whose times are derived (an
    /// entered batch) counts no time column.
    pub fn heap_bytes(
        &self,
        key_heap: &dyn Fn(&K) -> usize,
        val_heap: &dyn Fn(&V) -> usize,
    ) -> usize {
        let times = match &self.times {
            Times::Owned(times) => times.capacity() * std::mem::size_of::<T>(),
            Times::Derived(_) => 0,
        };
        self.cols.heap_bytes(key_heap, val_heap) + times
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
