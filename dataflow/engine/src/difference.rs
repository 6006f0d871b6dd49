//! Difference types: what an update's `diff` may be.
//!
//! Owns: [`Semigroup`] (addition with a zero test), [`Abelian`] (adds negation) and [`Multiply`]
//! (for the bilinear join). Invariant: `plus_equals` is associative and commutative and
//! `is_zero` recognises its identity; consolidation drops exactly the updates whose summed diff
//! `is_zero`, which is why every engine operator can cancel updates freely.

use std::fmt::Debug;

/// A commutative monoid of differences with a recognisable zero.
pub trait Semigroup: timely::ExchangeData + Clone + Debug + Ord + 'static {
    /// True when `self` is the additive identity.
    fn is_zero(&self) -> bool;
    /// Adds `rhs` into `self`.
    fn plus_equals(&mut self, rhs: &Self);
}

/// A semigroup with additive inverses.
pub trait Abelian: Semigroup {
    /// Replaces `self` by its additive inverse.
    fn negate(&mut self);
    /// The additive identity.
    fn zero() -> Self;
}

/// Multiplication of differences, used by join (`d1 × d2`).
pub trait Multiply<Rhs = Self> {
    /// The product type.
    type Output;
    /// Returns `self × rhs`.
    fn multiply(&self, rhs: &Rhs) -> Self::Output;
}

macro_rules! int_diff {
    ($($t:ty),*) => {$(
        impl Semigroup for $t {
            #[inline] fn is_zero(&self) -> bool { *self == 0 }
            #[inline] fn plus_equals(&mut self, rhs: &Self) { *self += *rhs; }
        }
        impl Abelian for $t {
            #[inline] fn negate(&mut self) { *self = -*self; }
            #[inline] fn zero() -> Self { 0 }
        }
        impl Multiply for $t {
            type Output = $t;
            #[inline] fn multiply(&self, rhs: &Self) -> Self { *self * *rhs }
        }
    )*};
}

int_diff!(i8, i16, i32, i64, i128, isize);
