//! Lattice structure on timestamps, and the compaction map `rep_F` built from it.
//!
//! Owns: the [`Lattice`] trait (`join`, `meet`, `advance_by`) and its impls for integers, `()`
//! and timely's `Product`, plus helpers on antichains. Invariant: `join`/`meet` are the least
//! upper / greatest lower bounds of timely's `PartialOrder`, and `advance_by(F)` replaces `t` by
//! `rep_F(t) = meet_{f in F} join(t, f)`, which compares to every time beyond `F` exactly as `t`
//! does. Compaction (trace merges, `import_frontier`) is only correct because of that property.

use std::fmt::Debug;

use timely::order::Product;
use timely::progress::frontier::{Antichain, AntichainRef};
use timely::PartialOrder;

/// A partially ordered time with least upper and greatest lower bounds.
pub trait Lattice: PartialOrder + Ord + Clone + Debug + 'static {
    /// The least upper bound of `self` and `other`.
    fn join(&self, other: &Self) -> Self;
    /// The greatest lower bound of `self` and `other`.
    fn meet(&self, other: &Self) -> Self;
    /// Replaces `self` by `rep_F(self)`: the meet over `f` in `frontier` of `join(self, f)`.
    ///
    /// An empty frontier leaves `self` unchanged (no reader constrains it, and no time is
    /// beyond the empty frontier, so any representative would do; keeping `self` is simplest).
    fn advance_by(&mut self, frontier: AntichainRef<Self>) {
        let mut iter = frontier.iter();
        if let Some(first) = iter.next() {
            let mut result = self.join(first);
            for f in iter {
                result = result.meet(&self.join(f));
            }
            *self = result;
        }
    }
    /// Joins `self` with `other` in place.
    fn join_assign(&mut self, other: &Self) {
        *self = self.join(other);
    }
}

macro_rules! total_lattice {
    ($($t:ty),*) => {$(
        impl Lattice for $t {
            #[inline]
            fn join(&self, other: &Self) -> Self { std::cmp::max(*self, *other) }
            #[inline]
            fn meet(&self, other: &Self) -> Self { std::cmp::min(*self, *other) }
            #[inline]
            fn advance_by(&mut self, frontier: AntichainRef<Self>) {
                // A totally ordered frontier has at most one element f: rep_F(t) = max(t, f).
                if let Some(f) = frontier.iter().next() {
                    if *self < *f { *self = *f; }
                }
            }
        }
    )*};
}

total_lattice!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

impl Lattice for () {
    fn join(&self, _other: &Self) -> Self {}
    fn meet(&self, _other: &Self) -> Self {}
}

impl<O: Lattice, I: Lattice> Lattice for Product<O, I> {
    fn join(&self, other: &Self) -> Self {
        Product::new(self.outer.join(&other.outer), self.inner.join(&other.inner))
    }
    fn meet(&self, other: &Self) -> Self {
        Product::new(self.outer.meet(&other.outer), self.inner.meet(&other.inner))
    }
}

/// The antichain of pairwise joins of two frontiers: the least times beyond both.
pub fn join_frontiers<T: Lattice>(a: AntichainRef<T>, b: AntichainRef<T>) -> Antichain<T> {
    let mut result = Antichain::new();
    for x in a.iter() {
        for y in b.iter() {
            result.insert(x.join(y));
        }
    }
    result
}

/// The meet of two frontiers: the minimal elements of their union.
pub fn meet_frontiers<T: Lattice>(a: AntichainRef<T>, b: AntichainRef<T>) -> Antichain<T> {
    let mut result = a.to_owned();
    for y in b.iter() {
        result.insert(y.clone());
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    type P = Product<u64, u64>;

    fn p(a: u64, b: u64) -> P {
        Product::new(a, b)
    }

    #[test]
    fn product_join_meet() {
        assert_eq!(p(3, 1).join(&p(2, 5)), p(3, 5));
        assert_eq!(p(3, 1).meet(&p(2, 5)), p(2, 1));
        assert!(!p(3, 1).less_equal(&p(2, 5)) && !p(2, 5).less_equal(&p(3, 1)));
    }

    #[test]
    fn total_advance_is_max() {
        let mut t = 3u64;
        t.advance_by(Antichain::from_elem(7).borrow());
        assert_eq!(t, 7);
        t.advance_by(Antichain::from_elem(5).borrow());
        assert_eq!(t, 7);
        t.advance_by(Antichain::new().borrow());
        assert_eq!(t, 7);
    }

    /// rep_F is correct (compares alike to every time beyond F) and optimal (two times that
    /// compare alike to every time beyond F map to the same representative), on random
    /// product-order frontiers over a small grid where "every time beyond F" is enumerable.
    #[test]
    fn rep_correct_and_optimal_on_random_product_lattices() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let grid: Vec<P> = (0..6).flat_map(|a| (0..6).map(move |b| p(a, b))).collect();
        for _ in 0..200 {
            let mut frontier = Antichain::new();
            for _ in 0..(1 + next(3)) {
                frontier.insert(p(next(6), next(6)));
            }
            let beyond: Vec<&P> = grid.iter().filter(|g| frontier.less_equal(*g)).collect();
            let signature = |t: &P| beyond.iter().map(|b| t.less_equal(*b)).collect::<Vec<_>>();
            for t in grid.iter() {
                let mut r = *t;
                r.advance_by(frontier.borrow());
                assert_eq!(
                    signature(t),
                    signature(&r),
                    "rep_F({t:?}) = {r:?} not correct for {frontier:?}"
                );
                for u in grid.iter() {
                    if signature(t) == signature(u) {
                        let mut ru = *u;
                        ru.advance_by(frontier.borrow());
                        assert_eq!(
                            r, ru,
                            "rep_F not optimal: {t:?} and {u:?} under {frontier:?}"
                        );
                    }
                }
            }
        }
    }
}
