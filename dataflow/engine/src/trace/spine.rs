//! The spine: a trace stored as O(log n) batches in geometrically sized levels.
//!
//! Owns: [`Spine`] and [`Effort`]. Invariants:
//! - Levels are ordered by age: every batch at level `i` is older (earlier in time) than every
//!   batch at a level below `i`, so merges only ever combine time-adjacent batches and the merged
//!   description (`older.lower`, `newer.upper`) is exact.
//! - Level `i` holds nothing, one batch, or two batches being merged; a completed merge stays at
//!   `i` if it still fits (compaction may shrink it) or moves up to `i + 1`.
//! - Inserting `n` updates gives `effort × n` fuel to every in-progress merge, and a merge that
//!   must make room is finished at once, so work is amortized and the level count stays
//!   logarithmic.
//! - A batch takes part in merges only once its `upper` is not beyond the physical compaction
//!   frontier (readers that need batch boundaries, e.g. join, hold that frontier back); until then
//!   it waits in `pending`. Merges advance times by the logical compaction frontier, which is the
//!   meet of all live readers' frontiers, so no reader ever sees a time moved past its frontier.
//! - Empty batches only advance `upper`; they are never stored and never cost a merge.

use std::collections::VecDeque;
use std::rc::Rc;

use timely::progress::frontier::{Antichain, AntichainRef};
use timely::PartialOrder;

use super::batch::Batch;
use super::merge::Merger;
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::ArenaCopy;

/// How much merge work each inserted update pays for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Effort {
    /// Finish every merge as soon as it starts (lowest memory, spiky latency).
    Eager,
    /// Four units of merge work per inserted update.
    #[default]
    Default,
    /// One unit per inserted update; merges finish only when forced.
    Lazy,
}

impl Effort {
    fn fuel(self, inserted: usize) -> isize {
        match self {
            Effort::Eager => isize::MAX,
            Effort::Default => 4 * inserted.max(1) as isize,
            Effort::Lazy => inserted.max(1) as isize,
        }
    }
}

type BatchRc<K, V, T, R> = Rc<Batch<K, V, T, R>>;

enum Level<K, V, T, R> {
    Vacant,
    Single(BatchRc<K, V, T, R>),
    Merging(
        BatchRc<K, V, T, R>,
        BatchRc<K, V, T, R>,
        Box<Merger<K, V, T, R>>,
    ),
}

/// A fueled, compacting collection of batches.
pub struct Spine<K, V, T, R> {
    upper: Antichain<T>,
    logical: Antichain<T>,
    physical: Antichain<T>,
    levels: Vec<Level<K, V, T, R>>,
    pending: VecDeque<BatchRc<K, V, T, R>>,
    effort: Effort,
}

impl<
        K: Ord + ArenaCopy,
        V: Ord + ArenaCopy,
        T: Lattice + timely::progress::Timestamp,
        R: Semigroup,
    > Spine<K, V, T, R>
{
    /// An empty spine with upper `{minimum}`.
    pub fn new(effort: Effort) -> Self {
        Spine {
            upper: Antichain::from_elem(T::minimum()),
            logical: Antichain::from_elem(T::minimum()),
            physical: Antichain::from_elem(T::minimum()),
            levels: Vec::new(),
            pending: VecDeque::new(),
            effort,
        }
    }

    /// The frontier up to which batches have been inserted.
    pub fn upper(&self) -> AntichainRef<'_, T> {
        self.upper.borrow()
    }

    /// Sets the merge effort.
    pub fn set_effort(&mut self, effort: Effort) {
        self.effort = effort;
    }

    /// Inserts the next batch; its `lower` must equal the current `upper`.
    pub fn insert(&mut self, batch: BatchRc<K, V, T, R>) {
        assert_eq!(
            batch.lower().to_owned(),
            self.upper,
            "spine batches must tile time: batch lower differs from trace upper"
        );
        self.upper = batch.upper().to_owned();
        if !batch.is_empty() {
            self.pending.push_back(batch);
            self.promote_pending();
        }
    }

    /// Advances `upper` without data (an empty batch).
    pub fn seal(&mut self, upper: Antichain<T>) {
        assert!(
            PartialOrder::less_equal(&self.upper, &upper),
            "spine upper must not regress"
        );
        self.upper = upper;
    }

    /// Sets the frontier that merges may advance times to.
    pub fn set_logical(&mut self, frontier: AntichainRef<T>) {
        self.logical = frontier.to_owned();
    }

    /// Sets the frontier through which batch boundaries may be merged away.
    pub fn set_physical(&mut self, frontier: AntichainRef<T>) {
        self.physical = frontier.to_owned();
        self.promote_pending();
    }

    /// Total number of stored updates (including both inputs of in-progress merges).
    pub fn len(&self) -> usize {
        self.batches().iter().map(|b| b.len()).sum()
    }

    /// True when no update is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every stored batch, oldest first.
    pub fn batches(&self) -> Vec<BatchRc<K, V, T, R>> {
        let mut result = Vec::new();
        for level in self.levels.iter().rev() {
            match level {
                Level::Vacant => {}
                Level::Single(b) => result.push(Rc::clone(b)),
                Level::Merging(a, b, _) => {
                    result.push(Rc::clone(a));
                    result.push(Rc::clone(b));
                }
            }
        }
        result.extend(self.pending.iter().cloned());
        result
    }

    /// Bytes held by the stored batches (both inputs of each in-progress merge included) and by
    /// the partial results of in-progress merges; `key_heap` and `val_heap` give what one key
    /// or val owns on the heap.
    pub fn heap_bytes(
        &self,
        key_heap: &dyn Fn(&K) -> usize,
        val_heap: &dyn Fn(&V) -> usize,
    ) -> usize {
        let merging: usize = self
            .levels
            .iter()
            .map(|level| match level {
                Level::Merging(_, _, merger) => merger.heap_bytes(key_heap, val_heap),
                _ => 0,
            })
            .sum();
        let batches: usize = self
            .batches()
            .iter()
            .map(|b| b.heap_bytes(key_heap, val_heap))
            .sum();
        merging + batches
    }

    /// The stored batches that end at or before `frontier`, if no stored batch straddles it.
    pub fn batches_through(&self, frontier: AntichainRef<T>) -> Option<Vec<BatchRc<K, V, T, R>>> {
        let mut result = Vec::new();
        for batch in self.batches() {
            if PartialOrder::less_equal(&batch.upper(), &frontier) {
                result.push(batch);
            } else if !PartialOrder::less_equal(&frontier, &batch.lower()) {
                return None;
            }
        }
        Some(result)
    }

    /// True when every batch that may take part in merges ends at or before `frontier`: then no
    /// present or future merge can straddle any frontier at or beyond it while a reader holds
    /// the physical compaction at it.
    pub fn settled_through(&self, frontier: AntichainRef<T>) -> bool {
        self.levels.iter().all(|level| match level {
            Level::Vacant => true,
            Level::Single(b) => PartialOrder::less_equal(&b.upper(), &frontier),
            Level::Merging(_, b, _) => PartialOrder::less_equal(&b.upper(), &frontier),
        })
    }

    /// Spends `fuel` in all on in-progress merges, e.g. when the input is quiet. Unlike an
    /// insert's fuel, which every merging level receives whole (the amortization), this is one
    /// budget: a caller bounding its time must not pay it once per level. Largest merge first:
    /// a smaller one finished early would move its result up into a level whose merge is still
    /// open, and that merge would then have to finish at once, unbounded.
    pub fn exert(&mut self, fuel: isize) {
        let mut budget = fuel;
        for i in (0..self.levels.len()).rev() {
            if budget <= 0 {
                break;
            }
            if let Level::Merging(_, _, merger) = &mut self.levels[i] {
                merger.work(&mut budget);
                if merger.is_done() {
                    let merged = self.take_level(i).expect("merging level holds batches");
                    self.finish_merge(merged, i);
                }
            }
        }
    }

    /// True while some merge is in progress (it holds both inputs and its partial result).
    pub fn merging(&self) -> bool {
        self.levels
            .iter()
            .any(|level| matches!(level, Level::Merging(..)))
    }

    fn promote_pending(&mut self) {
        while let Some(batch) = self.pending.front() {
            if !PartialOrder::less_equal(&batch.upper(), &self.physical.borrow()) {
                break;
            }
            let batch = self.pending.pop_front().expect("front exists");
            self.introduce(batch);
        }
    }

    fn level_for(len: usize) -> usize {
        len.max(1).next_power_of_two().trailing_zeros() as usize
    }

    fn introduce(&mut self, batch: BatchRc<K, V, T, R>) {
        self.apply_fuel(self.effort.fuel(batch.len()));
        let level = Self::level_for(batch.len());
        while self.levels.len() <= level {
            self.levels.push(Level::Vacant);
        }
        // Everything below `level` is newer than what sits at `level` and older than `batch`:
        // merge it into one batch (oldest first) and place it at `level` before `batch`.
        let mut rolled: Option<BatchRc<K, V, T, R>> = None;
        for i in (0..level).rev() {
            if let Some(b) = self.take_level(i) {
                rolled = Some(match rolled {
                    None => b,
                    Some(older) => self.merge_now(older, b),
                });
            }
        }
        if let Some(b) = rolled {
            self.insert_at(b, level);
        }
        self.insert_at(batch, level);
    }

    /// Empties level `i`, finishing any merge there.
    fn take_level(&mut self, i: usize) -> Option<BatchRc<K, V, T, R>> {
        match std::mem::replace(&mut self.levels[i], Level::Vacant) {
            Level::Vacant => None,
            Level::Single(b) => Some(b),
            Level::Merging(_, _, mut merger) => {
                merger.work(&mut isize::MAX.clone());
                Some(Rc::new(merger.done()))
            }
        }
    }

    fn merge_now(
        &self,
        older: BatchRc<K, V, T, R>,
        newer: BatchRc<K, V, T, R>,
    ) -> BatchRc<K, V, T, R> {
        let mut merger = Merger::new(older, newer, self.logical.clone());
        merger.work(&mut isize::MAX.clone());
        Rc::new(merger.done())
    }

    fn insert_at(&mut self, batch: BatchRc<K, V, T, R>, i: usize) {
        while self.levels.len() <= i {
            self.levels.push(Level::Vacant);
        }
        match std::mem::replace(&mut self.levels[i], Level::Vacant) {
            Level::Vacant => self.levels[i] = Level::Single(batch),
            Level::Single(older) => {
                let merger =
                    Merger::new(Rc::clone(&older), Rc::clone(&batch), self.logical.clone());
                self.levels[i] = Level::Merging(older, batch, Box::new(merger));
                if self.effort == Effort::Eager {
                    self.apply_fuel(isize::MAX);
                }
            }
            Level::Merging(a, b, merger) => {
                self.levels[i] = Level::Merging(a, b, merger);
                let merged = self.take_level(i).expect("merging level holds batches");
                self.finish_merge(merged, i);
                // The finished merge is older than `batch`; it now sits at `i` or above.
                self.insert_at(batch, i);
            }
        }
    }

    /// Places a just-finished merge result from level `i`: it stays if it fits, else moves up.
    fn finish_merge(&mut self, merged: BatchRc<K, V, T, R>, i: usize) {
        if merged.is_empty() && matches!(self.levels[i], Level::Vacant) {
            // Keep the description chain intact even when compaction cancelled everything.
            self.levels[i] = Level::Single(merged);
        } else if merged.len() <= (1usize << i) && matches!(self.levels[i], Level::Vacant) {
            self.levels[i] = Level::Single(merged);
        } else {
            self.insert_at(merged, i + 1);
        }
    }

    fn apply_fuel(&mut self, fuel: isize) {
        for i in 0..self.levels.len() {
            if let Level::Merging(_, _, merger) = &mut self.levels[i] {
                let mut budget = fuel;
                merger.work(&mut budget);
                if merger.is_done() {
                    let merged = self.take_level(i).expect("merging level holds batches");
                    self.finish_merge(merged, i);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::batch::{BatchBuilder, Description};

    fn batch(keys: std::ops::Range<u64>, time: u64) -> Rc<Batch<u64, (), u64, i64>> {
        let desc = Description::new(
            Antichain::from_elem(time),
            Antichain::from_elem(time + 1),
            Antichain::from_elem(0),
        );
        Rc::new(BatchBuilder::from_sorted(
            keys.map(|k| ((k, ()), time, 1)).collect(),
            desc,
        ))
    }

    /// The sum of every update's diff in the spine's batches.
    fn total_diff(spine: &Spine<u64, (), u64, i64>) -> i64 {
        spine
            .batches()
            .iter()
            .flat_map(|b| b.updates())
            .map(|u| u.2)
            .sum()
    }

    #[test]
    fn levels_stay_logarithmic_and_compaction_collapses() {
        for effort in [Effort::Eager, Effort::Default, Effort::Lazy] {
            let mut spine = Spine::<u64, (), u64, i64>::new(effort);
            spine.set_physical(Antichain::new().borrow());
            for t in 0..1000u64 {
                spine.insert(batch(0..(1 + t % 7), t));
                spine.set_logical(Antichain::from_elem(t + 1).borrow());
            }
            assert!(
                spine.batches().len() <= 2 * 12,
                "too many batches: {}",
                spine.batches().len()
            );
            assert_eq!(
                total_diff(&spine),
                (0..1000u64).map(|t| 1 + (t % 7) as i64).sum::<i64>()
            );
            assert!(
                spine.len() <= 7 * 2 * 12,
                "compaction should bound memory, holds {}",
                spine.len()
            );
            let batches = spine.batches();
            for pair in batches.windows(2) {
                assert_eq!(
                    pair[0].upper().to_owned(),
                    pair[1].lower().to_owned(),
                    "batches tile time"
                );
            }
        }
    }

    #[test]
    fn exert_is_one_budget_spent_on_the_largest_merge_first() {
        let mut spine = Spine::<u64, (), u64, i64>::new(Effort::Lazy);
        spine.set_physical(Antichain::new().borrow());
        // Two merges open: 1024 + 1024 updates at level 10, then 16 + 16 at level 4.
        spine.insert(batch(0..1024, 0));
        spine.insert(batch(1024..2048, 1));
        spine.insert(batch(2048..2064, 2));
        spine.insert(batch(2064..2080, 3));
        let open = |s: &Spine<u64, (), u64, i64>| -> Vec<usize> {
            (0..s.levels.len())
                .filter(|i| matches!(s.levels[*i], Level::Merging(..)))
                .collect()
        };
        assert_eq!(open(&spine), vec![4, 10]);
        // 100 units: enough for the small merge, were it paid to each level, but one budget
        // goes to the large merge, and the small one must not finish before it.
        spine.exert(100);
        assert_eq!(open(&spine), vec![4, 10]);
        while spine.merging() {
            spine.exert(100);
        }
        assert_eq!(spine.len(), 2080);
        assert_eq!(total_diff(&spine), 2080);
    }

    #[test]
    fn physical_frontier_holds_batches_back() {
        let mut spine = Spine::<u64, (), u64, i64>::new(Effort::Eager);
        for t in 0..10 {
            spine.insert(batch(0..4, t));
        }
        assert_eq!(
            spine.batches().len(),
            10,
            "nothing merges before the physical frontier moves"
        );
        assert!(spine
            .batches_through(Antichain::from_elem(5).borrow())
            .is_some());
        spine.set_physical(Antichain::from_elem(6).borrow());
        assert!(spine.batches().len() < 10);
        let through = spine
            .batches_through(Antichain::from_elem(6).borrow())
            .expect("boundary at 6 kept");
        assert!(through.iter().all(|b| b.upper().iter().all(|t| *t <= 6)));
    }
}
