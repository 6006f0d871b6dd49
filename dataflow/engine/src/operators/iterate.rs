//! Iteration: recursively defined collections in a nested scope with times `(outer, round)`.
//!
//! Owns: [`Variable`], `Collection::iterate` and `Arranged::enter`. Invariants (ENGINE-NOTES "Iterate"):
//! - A variable is a feedback edge whose summary advances the round. `Variable::new_from(source)`
//!   is `source` at round 0; `set(result)` feeds `result − source` back one round, so the variable
//!   at round `r + 1` accumulates to `result` at round `r`. `Variable::new` has no source: it is
//!   empty at round 0 and `result` at round `r` thereafter. Fixed point = no more updates.
//! - Several variables created in one scope and set from each other give mutual recursion.
//! - `iterate` enters the collection (`t ↦ (t, 0)`), runs the body on a variable seeded by it,
//!   and leaves the body's result (dropping the round). Since a collection at `(t, r)` accumulates
//!   every round `<= r`, the result leaving the scope accumulates, at `t`, to the fixed point.
//! - The loop only ends if the body's output stops changing; bodies should end in a consolidating
//!   operator (distinct, reduce, threshold) so cancelled updates do not circulate.

use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::{ConnectLoop, Enter, Feedback};
use timely::dataflow::Scope;
use timely::order::Product;
use timely::progress::timestamp::Refines;
use timely::progress::{PathSummary, Timestamp};

use crate::collection::{Collection, Iter};
use crate::difference::{Abelian, Semigroup};
use crate::lattice::Lattice;
use crate::operators::arrange::Arranged;
use crate::{BatchRef, Data};

/// A collection whose contents at the next round are set, later, from collections built on it.
pub struct Variable<'scope, T: Timestamp + Lattice, D: Data, R: Abelian> {
    collection: Collection<'scope, T, D, R>,
    feedback: timely::dataflow::operators::feedback::Handle<'scope, T, Vec<(D, T, R)>>,
    source: Option<Collection<'scope, T, D, R>>,
    step: T::Summary,
}

impl<'scope, T: Timestamp + Lattice, D: Data, R: Abelian> Variable<'scope, T, D, R> {
    /// An empty variable in `scope` whose next-round contents `set` will define; `step` must
    /// advance the round (e.g. `Product::new(Default::default(), 1)`).
    pub fn new(scope: Scope<'scope, T>, step: T::Summary) -> Self {
        let (feedback, stream) = scope.feedback::<Vec<(D, T, R)>>(step.clone());
        Variable {
            collection: Collection::new(stream),
            feedback,
            source: None,
            step,
        }
    }

    /// A variable equal to `source` until `set` defines its next rounds.
    pub fn new_from(source: Collection<'scope, T, D, R>, step: T::Summary) -> Self {
        let mut variable = Self::new(source.scope(), step);
        variable.collection = variable.collection.concat(source.clone());
        variable.source = Some(source);
        variable
    }

    /// The variable's current contents, to build the loop body from.
    pub fn collection(&self) -> &Collection<'scope, T, D, R> {
        &self.collection
    }

    /// Defines the variable at round `r + 1` as `result` at round `r`; returns `result`.
    pub fn set(self, result: &Collection<'scope, T, D, R>) -> Collection<'scope, T, D, R> {
        let step = self.step;
        let fed = match self.source {
            Some(source) => result.clone().concat(source.negate()),
            None => result.clone(),
        };
        // The feedback edge advances message stamps; the records carry their own times, which
        // must advance by the same summary before they enter the loop.
        let advanced = fed.inner.flat_map_times(move |t| step.results_in(&t));
        advanced.connect_loop(self.feedback);
        result.clone()
    }
}

impl<'scope, T: Timestamp + Lattice, D: Data, R: Abelian> std::ops::Deref
    for Variable<'scope, T, D, R>
{
    type Target = Collection<'scope, T, D, R>;
    fn deref(&self) -> &Self::Target {
        &self.collection
    }
}

/// Advances the times of update records (dropping those that leave the time domain).
trait AdvanceTimes<'scope, T: Timestamp, D, R> {
    fn flat_map_times(
        self,
        logic: impl FnMut(T) -> Option<T> + 'static,
    ) -> timely::dataflow::StreamVec<'scope, T, (D, T, R)>;
}

impl<'scope, T: Timestamp, D: Data, R: Abelian> AdvanceTimes<'scope, T, D, R>
    for timely::dataflow::StreamVec<'scope, T, (D, T, R)>
{
    fn flat_map_times(
        self,
        mut logic: impl FnMut(T) -> Option<T> + 'static,
    ) -> timely::dataflow::StreamVec<'scope, T, (D, T, R)> {
        use timely::dataflow::operators::vec::Map;
        self.flat_map(move |(d, t, r)| logic(t).map(|t| (d, t, r)))
    }
}

impl<'scope, T, D, R> Collection<'scope, T, D, R>
where
    T: Timestamp + Lattice,
    D: Data,
    R: Abelian,
{
    /// Iterates `logic` from this collection to a fixed point, in a nested scope whose times are
    /// `(t, round)`; returns the fixed point (at each outer time).
    pub fn iterate<F>(self, logic: F) -> Collection<'scope, T, D, R>
    where
        F: for<'inner> FnOnce(
            Collection<'inner, Iter<T>, D, R>,
        ) -> Collection<'inner, Iter<T>, D, R>,
    {
        let outer = self.scope();
        outer.iterative::<u64, _, _>(|inner| {
            let entered = self.enter(inner);
            let variable = Variable::new_from(entered, Product::new(Default::default(), 1));
            let result = logic(variable.collection().clone());
            variable.set(&result).leave(outer)
        })
    }
}

impl<'scope, T, K, V, R> Arranged<'scope, T, K, V, R>
where
    T: Timestamp + Lattice,
    K: Data,
    V: Data,
    R: Semigroup,
{
    /// Brings the arrangement into a nested scope (e.g. `iterative`) without copying it: each
    /// batch is wrapped so its times read as `(t, 0)`, and the trace handle reads the outer trace
    /// through the same wrapping (see `trace::enter`).
    pub fn enter<'inner, TI>(&self, inner: Scope<'inner, TI>) -> Arranged<'inner, TI, K, V, R>
    where
        TI: Timestamp + Lattice + Refines<T>,
    {
        let trace = self.trace.enter::<TI>();
        let stream = self
            .stream
            .clone()
            .enter(inner)
            .unary::<CapacityContainerBuilder<Vec<BatchRef<K, V, TI, R>>>, _, _, _>(
                Pipeline,
                "EnterArrangement",
                |_capability, _info| {
                    |input, output| {
                        input.for_each(|cap, batches| {
                            let mut session = output.session(&cap);
                            for batch in batches.drain(..) {
                                session.give(Rc::new(batch.enter::<TI>()));
                            }
                        });
                    }
                },
            );
        Arranged { stream, trace }
    }
}
