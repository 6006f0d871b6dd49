//! Collections: streams of `(data, time, diff)` updates, and their record-at-a-time operators.
//!
//! Owns: [`Collection`] and the operators that need no index (`map`, `filter`, `flat_map`,
//! `concat`, `negate`, `inspect`, `enter`/`leave`, `probe_with`). Invariant: a collection at time
//! `t` is the sum of the diffs of its updates with time `<= t`; every operator here acts on each
//! update independently, so it commutes with that accumulation and needs no state. Operators that
//! need state (`arrange_*`, `consolidate`, join, reduce) go through an arrangement.

use timely::dataflow::operators::probe::Handle as ProbeHandle;
use timely::dataflow::operators::vec::{Filter, Map};
use timely::dataflow::operators::{Concat, Enter, Inspect, Leave, Probe};
use timely::dataflow::{Scope, StreamVec};
use timely::order::Product;
use timely::progress::timestamp::Refines;
use timely::progress::Timestamp;

use crate::difference::{Abelian, Semigroup};
use crate::lattice::Lattice;

/// A collection of `D` varying over times `T`, as a stream of updates `(data, time, diff)`.
pub struct Collection<'scope, T: Timestamp, D, R = i64> {
    /// The underlying timely stream of updates.
    pub inner: StreamVec<'scope, T, (D, T, R)>,
}

impl<'scope, T: Timestamp, D: Clone + 'static, R: Clone + 'static> Clone
    for Collection<'scope, T, D, R>
{
    fn clone(&self) -> Self {
        Collection {
            inner: self.inner.clone(),
        }
    }
}

impl<'scope, T: Timestamp + Lattice, D: crate::Data, R: Semigroup> Collection<'scope, T, D, R> {
    /// Wraps a stream of updates.
    pub fn new(inner: StreamVec<'scope, T, (D, T, R)>) -> Self {
        Collection { inner }
    }

    /// The scope containing the collection.
    pub fn scope(&self) -> Scope<'scope, T> {
        self.inner.scope()
    }

    /// Applies `logic` to every record.
    pub fn map<D2: crate::Data>(
        self,
        mut logic: impl FnMut(D) -> D2 + 'static,
    ) -> Collection<'scope, T, D2, R> {
        Collection::new(self.inner.map(move |(d, t, r)| (logic(d), t, r)))
    }

    /// Keeps the records satisfying `predicate`.
    pub fn filter(self, mut predicate: impl FnMut(&D) -> bool + 'static) -> Self {
        Collection::new(self.inner.filter(move |(d, _, _)| predicate(d)))
    }

    /// Replaces every record by the records `logic` produces for it.
    pub fn flat_map<I>(
        self,
        mut logic: impl FnMut(D) -> I + 'static,
    ) -> Collection<'scope, T, I::Item, R>
    where
        I: IntoIterator,
        I::Item: crate::Data,
    {
        Collection::new(self.inner.flat_map(move |(d, t, r)| {
            logic(d)
                .into_iter()
                .map(move |d2| (d2, t.clone(), r.clone()))
        }))
    }

    /// Replaces every update by the `(data, diff)` pairs `logic` makes of its data and diff,
    /// at the same time: the way to move information into the differences (e.g. a value
    /// into the sum it contributes to, which consolidation then adds up).
    pub fn explode<D2, R2, I>(
        self,
        mut logic: impl FnMut(D, R) -> I + 'static,
    ) -> Collection<'scope, T, D2, R2>
    where
        D2: crate::Data,
        R2: Semigroup,
        I: IntoIterator<Item = (D2, R2)>,
    {
        Collection::new(self.inner.flat_map(move |(d, t, r)| {
            logic(d, r)
                .into_iter()
                .map(move |(d2, r2)| (d2, t.clone(), r2))
        }))
    }

    /// The sum of `self` and `other`.
    pub fn concat(self, other: Self) -> Self {
        Collection::new(self.inner.concat(other.inner))
    }

    /// Observes every update as it passes.
    pub fn inspect(self, mut logic: impl FnMut(&(D, T, R)) + 'static) -> Self {
        Collection::new(self.inner.inspect(move |x| logic(x)))
    }

    /// Attaches a probe that reports the collection's frontier.
    pub fn probe_with(self, handle: &ProbeHandle<T>) -> Self {
        Collection::new(self.inner.probe_with(handle))
    }

    /// Attaches a new probe.
    pub fn probe(self) -> (ProbeHandle<T>, Self) {
        let (handle, inner) = self.inner.probe();
        (handle, Collection::new(inner))
    }

    /// Brings the collection into a nested scope (e.g. `iterative`), extending times.
    pub fn enter<'inner, T2>(self, inner: Scope<'inner, T2>) -> Collection<'inner, T2, D, R>
    where
        T2: Timestamp + Lattice + Refines<T>,
    {
        Collection::new(
            self.inner
                .enter(inner)
                .map(|(d, t, r)| (d, T2::to_inner(t), r)),
        )
    }

    /// Brings an iterative collection back out, dropping the round counter.
    pub fn leave<'outer, TO>(self, outer: Scope<'outer, TO>) -> Collection<'outer, TO, D, R>
    where
        TO: Timestamp + Lattice,
        T: Refines<TO>,
    {
        Collection::new(
            self.inner
                .leave(outer)
                .map(|(d, t, r)| (d, t.to_outer(), r)),
        )
    }
}

impl<'scope, T: Timestamp + Lattice, D: crate::Data, R: Abelian> Collection<'scope, T, D, R> {
    /// Negates every diff.
    pub fn negate(self) -> Self {
        Collection::new(self.inner.map(|(d, t, mut r)| {
            r.negate();
            (d, t, r)
        }))
    }
}

/// The timestamp inside one level of iteration: `(outer, round)`.
pub type Iter<T> = Product<T, u64>;
