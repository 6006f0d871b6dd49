//! What a trace handle reads from: a spine of its own, or another trace seen from a nested scope.
//!
//! Owns: the [`Storage`] trait (the batch-level operations handles need) and [`Entered`], the
//! storage of an arrangement entered into an iterative scope. Invariants: an entered trace holds
//! a handle on the outer trace and nothing else; its batches are the outer trace's current
//! batches wrapped with `Batch::enter` (columns shared, times `(t, 0)` computed when read), so
//! entering copies no update and follows the outer trace's merges. Frontiers set on the entered
//! trace are projected to their outer parts (`(t, r) ↦ t`, the least outer frontier whose lift
//! is below them) and passed to the outer handle, which is therefore never compacted past what an
//! inner reader may still ask. An entered trace has no writer; `import` of one sees its stored
//! batches but no later ones (import the outer trace and enter it instead).

use std::rc::Rc;

use timely::progress::frontier::{Antichain, AntichainRef};
use timely::progress::timestamp::Refines;
use timely::progress::Timestamp;

use super::batch::Batch;
use super::handle::TraceAgent;
use super::spine::{Effort, Spine};
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::ArenaCopy;
use crate::Data;

type BatchRc<K, V, T, R> = Rc<Batch<K, V, T, R>>;

/// Batch-level storage behind a trace handle.
pub(crate) trait Storage<K, V, T, R> {
    fn upper(&self) -> Antichain<T>;
    fn insert(&mut self, batch: BatchRc<K, V, T, R>);
    fn seal(&mut self, upper: Antichain<T>);
    fn set_logical(&mut self, frontier: AntichainRef<T>);
    fn set_physical(&mut self, frontier: AntichainRef<T>);
    fn set_effort(&mut self, effort: Effort);
    fn exert(&mut self, fuel: isize);
    fn merging(&self) -> bool;
    fn len(&self) -> usize;
    /// Bytes the stored batches and in-progress merges hold (see `Spine::heap_bytes`).
    fn heap_bytes(&self, key_heap: &dyn Fn(&K) -> usize, val_heap: &dyn Fn(&V) -> usize) -> usize;
    fn batches(&self) -> Vec<BatchRc<K, V, T, R>>;
    fn batches_through(&self, frontier: AntichainRef<T>) -> Option<Vec<BatchRc<K, V, T, R>>>;
    fn settled_through(&self, frontier: AntichainRef<T>) -> bool;
}

impl<K: Ord + ArenaCopy, V: Ord + ArenaCopy, T: Lattice + Timestamp, R: Semigroup>
    Storage<K, V, T, R> for Spine<K, V, T, R>
{
    fn upper(&self) -> Antichain<T> {
        Spine::upper(self).to_owned()
    }
    fn insert(&mut self, batch: BatchRc<K, V, T, R>) {
        Spine::insert(self, batch)
    }
    fn seal(&mut self, upper: Antichain<T>) {
        Spine::seal(self, upper)
    }
    fn set_logical(&mut self, frontier: AntichainRef<T>) {
        Spine::set_logical(self, frontier)
    }
    fn set_physical(&mut self, frontier: AntichainRef<T>) {
        Spine::set_physical(self, frontier)
    }
    fn set_effort(&mut self, effort: Effort) {
        Spine::set_effort(self, effort)
    }
    fn exert(&mut self, fuel: isize) {
        Spine::exert(self, fuel)
    }
    fn merging(&self) -> bool {
        Spine::merging(self)
    }
    fn len(&self) -> usize {
        Spine::len(self)
    }
    fn heap_bytes(&self, key_heap: &dyn Fn(&K) -> usize, val_heap: &dyn Fn(&V) -> usize) -> usize {
        Spine::heap_bytes(self, key_heap, val_heap)
    }
    fn batches(&self) -> Vec<BatchRc<K, V, T, R>> {
        Spine::batches(self)
    }
    fn batches_through(&self, frontier: AntichainRef<T>) -> Option<Vec<BatchRc<K, V, T, R>>> {
        Spine::batches_through(self, frontier)
    }
    fn settled_through(&self, frontier: AntichainRef<T>) -> bool {
        Spine::settled_through(self, frontier)
    }
}

/// The storage of a trace entered into a nested scope with times `TI` refining `TO`.
pub(crate) struct Entered<K: Data, V: Data, TO: Timestamp + Lattice, R: Semigroup> {
    outer: TraceAgent<K, V, TO, R>,
}

impl<K: Data, V: Data, TO: Timestamp + Lattice, R: Semigroup> Entered<K, V, TO, R> {
    pub(crate) fn new(outer: TraceAgent<K, V, TO, R>) -> Self {
        Entered { outer }
    }
}

/// The outer parts of an inner frontier.
fn project<TO: Timestamp + Lattice, TI: Refines<TO>>(frontier: AntichainRef<TI>) -> Antichain<TO> {
    let mut outer = Antichain::new();
    for t in frontier.iter() {
        outer.insert(t.clone().to_outer());
    }
    outer
}

/// An outer frontier lifted to the inner scope (round 0).
pub(crate) fn lift<TO: Timestamp, TI: Refines<TO>>(frontier: AntichainRef<TO>) -> Antichain<TI> {
    frontier.iter().map(|t| TI::to_inner(t.clone())).collect()
}

impl<K, V, TO, TI, R> Storage<K, V, TI, R> for Entered<K, V, TO, R>
where
    K: Data,
    V: Data,
    TO: Timestamp + Lattice,
    TI: Timestamp + Lattice + Refines<TO>,
    R: Semigroup,
{
    fn upper(&self) -> Antichain<TI> {
        let mut upper = Antichain::new();
        self.outer.read_upper(&mut upper);
        lift(upper.borrow())
    }
    fn insert(&mut self, _batch: BatchRc<K, V, TI, R>) {
        unreachable!("an entered trace has no writer")
    }
    fn seal(&mut self, _upper: Antichain<TI>) {
        unreachable!("an entered trace has no writer")
    }
    fn set_logical(&mut self, frontier: AntichainRef<TI>) {
        self.outer
            .set_logical_compaction(project::<TO, TI>(frontier).borrow());
    }
    fn set_physical(&mut self, frontier: AntichainRef<TI>) {
        self.outer
            .set_physical_compaction(project::<TO, TI>(frontier).borrow());
    }
    fn set_effort(&mut self, effort: Effort) {
        self.outer.set_effort(effort)
    }
    fn exert(&mut self, fuel: isize) {
        self.outer.exert(fuel)
    }
    fn merging(&self) -> bool {
        self.outer.merging()
    }
    fn len(&self) -> usize {
        self.outer.len()
    }
    fn heap_bytes(&self, key_heap: &dyn Fn(&K) -> usize, val_heap: &dyn Fn(&V) -> usize) -> usize {
        self.outer.heap_bytes(key_heap, val_heap)
    }
    fn batches(&self) -> Vec<BatchRc<K, V, TI, R>> {
        self.outer
            .stored_batches()
            .iter()
            .map(|b| Rc::new(b.enter::<TI>()))
            .collect()
    }
    fn batches_through(&self, frontier: AntichainRef<TI>) -> Option<Vec<BatchRc<K, V, TI, R>>> {
        let (batches, _) = self
            .outer
            .batches_through(project::<TO, TI>(frontier).borrow())?;
        Some(batches.iter().map(|b| Rc::new(b.enter::<TI>())).collect())
    }
    fn settled_through(&self, frontier: AntichainRef<TI>) -> bool {
        self.outer
            .batches_through(project::<TO, TI>(frontier).borrow())
            .is_some_and(|(_, settled)| settled)
    }
}
