//! Count, distinct and threshold: reductions whose input values are `()`.
//!
//! Owns: `count`, `distinct` and `threshold` on collections. They are reductions over the
//! key-only arrangement, so they inherit reduce's invariant (for any lattice of times): at every
//! complete time the output equals the function applied to the accumulated multiplicity of each
//! record.

use timely::progress::Timestamp;

use crate::collection::Collection;
use crate::difference::Abelian;
use crate::lattice::Lattice;
use crate::Data;

impl<'scope, T, K, R> Collection<'scope, T, K, R>
where
    T: Timestamp + Lattice,
    K: Data,
    R: Abelian + Data + From<i8>,
{
    /// Each distinct record with its multiplicity: `(record, count)` with diff 1.
    pub fn count(self) -> Collection<'scope, T, (K, R), R> {
        self.arrange_by_self()
            .reduce_abelian("Count", |_key, input, output| {
                output.push((input[0].1.clone(), R::from(1)))
            })
            .as_collection(|k, c| (k.clone(), c.clone()))
    }

    /// Each record with positive multiplicity, once.
    pub fn distinct(self) -> Self {
        self.threshold(|_key, count| presence(count))
    }

    /// Each record with multiplicity `logic(record, count)` (records mapped to zero vanish).
    pub fn threshold(self, mut logic: impl FnMut(&K, &R) -> R + 'static) -> Self {
        self.arrange_by_self()
            .reduce_abelian("Threshold", move |key, input, output| {
                let r = logic(key, &input[0].1);
                if !crate::difference::Semigroup::is_zero(&r) {
                    output.push(((), r));
                }
            })
            .as_collection(|k, _| k.clone())
    }
}

/// Distinct's multiplicity for a record with `count`: one when positive, else none.
pub(crate) fn presence<R: Abelian + Ord + From<i8>>(count: &R) -> R {
    if *count > R::zero() {
        R::from(1)
    } else {
        R::zero()
    }
}
