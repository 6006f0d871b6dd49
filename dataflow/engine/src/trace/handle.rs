//! Shared ownership of a trace: strong reader handles, the writer's weak reference, listeners.
//!
//! Owns: [`TraceAgent`] (the cloneable reader handle), [`TraceWriter`] (the arrange operator's
//! weak reference) and the replay queues that `import` listens on. Invariants:
//! - Each handle holds a logical and a physical compaction frontier; the trace compacts only to
//!   the meet of the live handles' frontiers (tracked with counts in `MutableAntichain`s), so no
//!   handle ever reads a time advanced past its own frontier. A handle's logical frontier only
//!   advances; a clone starts at its source's frontiers.
//! - Only handles are strong. When the last one is dropped the trace (spine and batches it alone
//!   holds) is freed; the writer notices the dead weak reference and keeps producing batches.
//! - Listeners (imports in other dataflows) are weak too: dropping such a dataflow drops the
//!   queue, and the trace forgets it on the next insert.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use timely::progress::frontier::{Antichain, AntichainRef, MutableAntichain};
use timely::progress::timestamp::Refines;
use timely::progress::Timestamp;
use timely::scheduling::Activator;
use timely::PartialOrder;

use super::batch::Batch;
use super::cursor::TraceCursor;
use super::enter::{lift, Entered, Storage};
use super::spine::{Effort, Spine};
use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::{BatchRef, Data, ReadError};

/// What a trace tells an importing dataflow.
pub(crate) enum Replay<K, V, T, R> {
    /// A batch to forward.
    Batch(Rc<Batch<K, V, T, R>>),
    /// The trace's upper advanced.
    Upper(Antichain<T>),
}

/// The queue an import drains, with the activator that wakes it.
pub(crate) struct Listener<K, V, T, R> {
    pub(crate) queue: VecDeque<Replay<K, V, T, R>>,
    pub(crate) activator: Activator,
}

pub(crate) type ListenerRc<K, V, T, R> = Rc<RefCell<Listener<K, V, T, R>>>;

/// A listener as the trace holds it: weakly, so dropping the importing dataflow drops it.
type ListenerWeak<K, V, T, R> = Weak<RefCell<Listener<K, V, T, R>>>;

/// Shared batches, as the trace hands them out to readers and listeners.
type Batches<K, V, T, R> = Vec<BatchRef<K, V, T, R>>;

/// What an import starts from: its replay queue, the batches stored now, and the trace's upper.
type Listening<K, V, T, R> = (ListenerRc<K, V, T, R>, Batches<K, V, T, R>, Antichain<T>);

/// The shared state behind every handle of one trace.
pub(crate) struct TraceBox<K, V, T: Timestamp, R> {
    store: Box<dyn Storage<K, V, T, R>>,
    logical: MutableAntichain<T>,
    physical: MutableAntichain<T>,
    listeners: Vec<ListenerWeak<K, V, T, R>>,
}

impl<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> TraceBox<K, V, T, R> {
    fn adjust(
        &mut self,
        logical: (AntichainRef<T>, AntichainRef<T>),
        physical: (AntichainRef<T>, AntichainRef<T>),
    ) {
        if logical.0 != logical.1 {
            let changes = logical
                .0
                .iter()
                .map(|t| (t.clone(), -1))
                .chain(logical.1.iter().map(|t| (t.clone(), 1)));
            self.logical.update_iter(changes);
            self.store.set_logical(self.logical.frontier());
        }
        if physical.0 != physical.1 {
            let changes = physical
                .0
                .iter()
                .map(|t| (t.clone(), -1))
                .chain(physical.1.iter().map(|t| (t.clone(), 1)));
            self.physical.update_iter(changes);
            self.store.set_physical(self.physical.frontier());
        }
    }

    fn notify(&mut self, replay: impl Fn() -> Replay<K, V, T, R>) {
        self.listeners.retain(|weak| match weak.upgrade() {
            Some(listener) => {
                let mut listener = listener.borrow_mut();
                listener.queue.push_back(replay());
                listener.activator.activate();
                true
            }
            None => false,
        });
    }
}

/// The arrange operator's weak reference to its trace.
pub struct TraceWriter<K, V, T: Timestamp, R> {
    trace: Weak<RefCell<TraceBox<K, V, T, R>>>,
}

impl<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> TraceWriter<K, V, T, R> {
    /// Inserts a sealed batch (possibly empty) if the trace still lives.
    pub fn insert(&self, batch: Rc<Batch<K, V, T, R>>) {
        if let Some(trace) = self.trace.upgrade() {
            let mut trace = trace.borrow_mut();
            let upper = batch.upper().to_owned();
            trace.store.insert(Rc::clone(&batch));
            if !batch.is_empty() {
                trace.notify(|| Replay::Batch(Rc::clone(&batch)));
            }
            trace.notify(|| Replay::Upper(upper.clone()));
        }
    }

    /// Advances the trace's upper without data, if the trace still lives.
    pub fn seal(&self, upper: Antichain<T>) {
        if let Some(trace) = self.trace.upgrade() {
            let mut trace = trace.borrow_mut();
            trace.store.seal(upper.clone());
            trace.notify(|| Replay::Upper(upper.clone()));
        }
    }

    /// Spends `fuel` on the trace's in-progress merges (the arrange operator does, when it
    /// runs, so that merges left open when input stops still finish and free their inputs);
    /// returns whether merges remain.
    pub fn exert(&self, fuel: isize) -> bool {
        match self.trace.upgrade() {
            Some(trace) => {
                let mut trace = trace.borrow_mut();
                if trace.store.merging() {
                    trace.store.exert(fuel);
                }
                trace.store.merging()
            }
            None => false,
        }
    }

    /// True while the trace has a merge in progress.
    pub fn merging(&self) -> bool {
        self.trace
            .upgrade()
            .is_some_and(|trace| trace.borrow().store.merging())
    }

    /// True while some handle keeps the trace alive.
    pub fn is_alive(&self) -> bool {
        self.trace.strong_count() > 0
    }
}

/// Observes whether a trace is still alive without keeping it alive.
pub struct TraceLiveness<K, V, T: Timestamp, R> {
    trace: Weak<RefCell<TraceBox<K, V, T, R>>>,
}

impl<K, V, T: Timestamp, R> TraceLiveness<K, V, T, R> {
    /// True while some handle holds the trace.
    pub fn is_alive(&self) -> bool {
        self.trace.strong_count() > 0
    }
}

/// Size and sharing figures of a live trace, for introspection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceStats {
    /// Updates stored, over all batches.
    pub records: usize,
    pub batches: usize,
    /// Bytes the trace's storage holds: every column of every stored batch at its capacity
    /// (keys, vals, offsets, times, differences), what the keys and vals own on the heap, and
    /// the partial results of merges in progress (whose inputs are stored batches too). Batches
    /// shared by several traces are counted in each.
    pub bytes: usize,
    /// Handles holding the trace: its owner's and each importing dataflow's (an import's source
    /// holds one of its own until the trace's upper is empty, besides those of the operators
    /// reading the import).
    pub handles: usize,
    /// Imports currently following its new batches (the dataflows that share it).
    pub readers: usize,
}

impl<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> TraceLiveness<K, V, T, R> {
    /// The trace's figures, or `None` once it is gone; `key_heap` and `val_heap` give what one
    /// key or val owns on the heap (beyond its own `size_of`). Walks every stored key and val.
    pub fn stats(
        &self,
        key_heap: impl Fn(&K) -> usize,
        val_heap: impl Fn(&V) -> usize,
    ) -> Option<TraceStats> {
        let trace = self.trace.upgrade()?;
        let handles = Rc::strong_count(&trace) - 1; // not counting this temporary one
        let trace = trace.borrow();
        Some(TraceStats {
            records: trace.store.len(),
            batches: trace.store.batches().len(),
            bytes: trace.store.heap_bytes(&key_heap, &val_heap),
            handles,
            readers: trace
                .listeners
                .iter()
                .filter(|l| l.strong_count() > 0)
                .count(),
        })
    }
}

/// A strong, cloneable reader handle on a shared trace.
pub struct TraceAgent<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> {
    trace: Rc<RefCell<TraceBox<K, V, T, R>>>,
    logical: Antichain<T>,
    physical: Antichain<T>,
    /// When set, readers see every time advanced by this frontier (an `import_frontier` view).
    as_of: Option<Rc<Antichain<T>>>,
}

impl<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> TraceAgent<K, V, T, R> {
    /// A new empty trace: its first handle and the writer's weak reference.
    ///
    /// The handle starts with logical compaction `{minimum}` (all history kept) and physical
    /// compaction empty (batch boundaries may be merged away freely).
    pub fn new(effort: Effort) -> (Self, TraceWriter<K, V, T, R>) {
        let mut spine = Spine::new(effort);
        spine.set_physical(Antichain::new().borrow());
        let trace = TraceBox {
            store: Box::new(spine) as Box<dyn Storage<K, V, T, R>>,
            logical: MutableAntichain::from_elem(T::minimum()),
            physical: MutableAntichain::new(),
            listeners: Vec::new(),
        };
        let trace = Rc::new(RefCell::new(trace));
        let writer = TraceWriter {
            trace: Rc::downgrade(&trace),
        };
        let agent = TraceAgent {
            trace,
            logical: Antichain::from_elem(T::minimum()),
            physical: Antichain::new(),
            as_of: None,
        };
        (agent, writer)
    }

    /// Allows the trace to advance times to `frontier`: this handle will only read at times
    /// beyond it. A handle's frontier never regresses: it becomes the join of its current
    /// frontier and `frontier` (so asking for less than already granted is a no-op).
    pub fn set_logical_compaction(&mut self, frontier: AntichainRef<T>) {
        let new = if PartialOrder::less_equal(&self.logical.borrow(), &frontier) {
            frontier.to_owned()
        } else {
            crate::lattice::join_frontiers(self.logical.borrow(), frontier)
        };
        self.trace.borrow_mut().adjust(
            (self.logical.borrow(), new.borrow()),
            (self.physical.borrow(), self.physical.borrow()),
        );
        self.logical = new;
    }

    /// Allows batches ending at or before `frontier` to be merged: this handle only needs the
    /// batch boundaries at or beyond it (see `cursor_through`).
    pub fn set_physical_compaction(&mut self, frontier: AntichainRef<T>) {
        let new = frontier.to_owned();
        self.trace.borrow_mut().adjust(
            (self.logical.borrow(), self.logical.borrow()),
            (self.physical.borrow(), new.borrow()),
        );
        self.physical = new;
    }

    /// This handle's logical compaction frontier.
    pub fn get_logical_compaction(&self) -> AntichainRef<'_, T> {
        self.logical.borrow()
    }

    /// This handle's physical compaction frontier.
    pub fn get_physical_compaction(&self) -> AntichainRef<'_, T> {
        self.physical.borrow()
    }

    /// Writes the trace's upper frontier (all times not beyond it are complete) into `target`.
    pub fn read_upper(&self, target: &mut Antichain<T>) {
        target.clear();
        target.extend(self.trace.borrow().store.upper().iter().cloned());
    }

    /// Sets how much merge work each inserted update pays for.
    pub fn set_effort(&mut self, effort: Effort) {
        self.trace.borrow_mut().store.set_effort(effort);
    }

    /// Spends `fuel` units of merge work now (e.g. when the worker is idle).
    pub fn exert(&mut self, fuel: isize) {
        self.trace.borrow_mut().store.exert(fuel);
    }

    /// Bytes the trace's batches and in-progress merges hold (see [`TraceStats::bytes`]).
    pub fn heap_bytes(
        &self,
        key_heap: &dyn Fn(&K) -> usize,
        val_heap: &dyn Fn(&V) -> usize,
    ) -> usize {
        self.trace.borrow().store.heap_bytes(key_heap, val_heap)
    }

    /// True while the trace has a merge in progress.
    pub(crate) fn merging(&self) -> bool {
        self.trace.borrow().store.merging()
    }

    /// Number of updates the trace stores (a memory measure).
    pub fn len(&self) -> usize {
        self.trace.borrow().store.len()
    }

    /// True when the trace stores no update.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of batches the trace stores.
    pub fn batch_count(&self) -> usize {
        self.trace.borrow().store.batches().len()
    }

    /// A weak observer that reports whether the trace is still alive (held by some handle).
    pub fn liveness(&self) -> TraceLiveness<K, V, T, R> {
        TraceLiveness {
            trace: Rc::downgrade(&self.trace),
        }
    }

    /// The frontier every read through this handle is advanced by, if it is an `as_of` view.
    pub fn as_of(&self) -> Option<&Antichain<T>> {
        self.as_of.as_deref()
    }

    /// A cursor over every update in the trace.
    pub fn cursor(&self) -> TraceCursor<K, V, T, R> {
        TraceCursor::new(self.trace.borrow().store.batches(), self.as_of.clone())
    }

    /// A cursor over the batches ending at or before `frontier`, if no batch straddles it.
    pub fn cursor_through(&self, frontier: AntichainRef<T>) -> Option<TraceCursor<K, V, T, R>> {
        let batches = self.trace.borrow().store.batches_through(frontier)?;
        Some(TraceCursor::new(batches, self.as_of.clone()))
    }

    /// The stored batches ending at or before `frontier`, if no batch straddles it, and whether
    /// the cut is settled (no merge can later straddle `frontier` or a later frontier while this
    /// handle's physical compaction stays at or before them).
    pub(crate) fn batches_through(
        &self,
        frontier: AntichainRef<T>,
    ) -> Option<(Batches<K, V, T, R>, bool)> {
        let trace = self.trace.borrow();
        let batches = trace.store.batches_through(frontier)?;
        Some((batches, trace.store.settled_through(frontier)))
    }

    /// The accumulated contents at `time`: updates with time `<= time`, consolidated, zero diffs
    /// dropped, sorted by (key, val). `time` should be beyond this handle's logical compaction
    /// and not beyond the trace's upper; see [`TraceAgent::try_read_at`] for a checked version.
    pub fn read_at(&mut self, time: &T) -> Vec<(K, V, R)> {
        let mut result = Vec::new();
        self.for_each_at(time, |k, v, r| result.push((k.clone(), v.clone(), r)));
        result
    }

    /// Calls `logic` with what `read_at` returns, in the same order, borrowed: each (key, val)
    /// and its accumulated diff at `time`, if not zero (a reader that only adds up the diffs
    /// copies nothing).
    pub fn for_each_at(&mut self, time: &T, mut logic: impl FnMut(&K, &V, R)) {
        let mut cursor = self.cursor();
        while cursor.key_valid() {
            while cursor.val_valid() {
                let mut sum: Option<R> = None;
                cursor.map_times(|t, r| {
                    if t.less_equal(time) {
                        match &mut sum {
                            Some(s) => s.plus_equals(r),
                            None => sum = Some(r.clone()),
                        }
                    }
                });
                if let Some(s) = sum.take() {
                    if !s.is_zero() {
                        logic(cursor.key(), cursor.val(), s);
                    }
                }
                cursor.step_val();
            }
            cursor.step_key();
        }
    }

    /// As [`TraceAgent::read_at`], but checks that `time` is readable through this handle.
    pub fn try_read_at(&mut self, time: &T) -> Result<Vec<(K, V, R)>, ReadError> {
        if !self.logical.less_equal(time) {
            return Err(ReadError::BeforeSince);
        }
        if self.trace.borrow().store.upper().less_equal(time) {
            return Err(ReadError::NotComplete);
        }
        Ok(self.read_at(time))
    }

    /// Registers a replay queue for an import; returns the batches stored now and the upper.
    pub(crate) fn listen(&self, activator: Activator) -> Listening<K, V, T, R> {
        let listener = Rc::new(RefCell::new(Listener {
            queue: VecDeque::new(),
            activator,
        }));
        let mut trace = self.trace.borrow_mut();
        trace.listeners.push(Rc::downgrade(&listener));
        (listener, trace.store.batches(), trace.store.upper())
    }

    /// The batches the trace stores now, oldest first (shared, not copied).
    pub fn stored_batches(&self) -> Vec<Rc<Batch<K, V, T, R>>> {
        self.trace.borrow().store.batches()
    }

    /// A handle on this trace as seen from a nested scope with times `TI` (e.g. `(t, round)`):
    /// the same batches with times `(t, 0)` computed as they are read, nothing copied. The new
    /// handle holds a clone of this one, advanced by the outer parts of its own frontiers.
    pub fn enter<TI: Timestamp + Lattice + Refines<T>>(&self) -> TraceAgent<K, V, TI, R> {
        let logical: Antichain<TI> = lift(self.logical.borrow());
        let physical: Antichain<TI> = lift(self.physical.borrow());
        let mut logical_counts = MutableAntichain::new();
        logical_counts.update_iter(logical.iter().map(|t| (t.clone(), 1)));
        let mut physical_counts = MutableAntichain::new();
        physical_counts.update_iter(physical.iter().map(|t| (t.clone(), 1)));
        let trace = TraceBox {
            store: Box::new(Entered::new(self.clone())) as Box<dyn Storage<K, V, TI, R>>,
            logical: logical_counts,
            physical: physical_counts,
            listeners: Vec::new(),
        };
        TraceAgent {
            trace: Rc::new(RefCell::new(trace)),
            logical,
            physical,
            as_of: self.as_of.as_ref().map(|a| Rc::new(lift(a.borrow()))),
        }
    }

    /// A handle that reads every time advanced by `as_of` (and compacts the trace to it).
    pub(crate) fn view_as_of(&self, as_of: AntichainRef<T>) -> Self {
        let mut view = self.clone();
        view.set_logical_compaction(as_of);
        view.as_of = Some(Rc::new(as_of.to_owned()));
        view
    }
}

impl<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> Clone for TraceAgent<K, V, T, R> {
    fn clone(&self) -> Self {
        let empty = Antichain::new();
        self.trace.borrow_mut().adjust(
            (empty.borrow(), self.logical.borrow()),
            (empty.borrow(), self.physical.borrow()),
        );
        TraceAgent {
            trace: Rc::clone(&self.trace),
            logical: self.logical.clone(),
            physical: self.physical.clone(),
            as_of: self.as_of.clone(),
        }
    }
}

impl<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> Drop for TraceAgent<K, V, T, R> {
    fn drop(&mut self) {
        let empty = Antichain::new();
        self.trace.borrow_mut().adjust(
            (self.logical.borrow(), empty.borrow()),
            (self.physical.borrow(), empty.borrow()),
        );
    }
}
