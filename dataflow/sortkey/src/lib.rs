//! The traits by which data types tell the engine how to store them, in a crate of their own
//! with no dependencies, so that the engine (which sorts and stores) and the data types (which
//! know their encoding) can both see them without the data types depending on the engine.
//!
//! `SortKey`: an order-preserving 64-bit prefix of a value ("normalized key"), so that sorts of
//! many values compare one integer first and the values themselves only on ties. The contract:
//! `a < b` implies `a.sort_key() <= b.sort_key()` (the key is monotone; equal keys say nothing,
//! so a sort compares the values themselves when keys tie). A type without a useful prefix keeps
//! the defaults (`HAS_KEY = false`), and sorts of it skip the keys entirely.
//!
//! `ArenaCopy` and `Arena` (`arena.rs`): how a batch stores a value's heap bytes.

mod arena;
pub use arena::{Arena, ArenaCopy};

/// An order-preserving `u64` prefix of a value (see the crate's documentation).
pub trait SortKey: Ord {
    /// Whether `sort_key` says anything; when false, sorts do not compute it.
    const HAS_KEY: bool = false;

    /// A key with `a < b` implying `a.sort_key() <= b.sort_key()`.
    #[inline]
    fn sort_key(&self) -> u64 {
        0
    }

    /// `sort_key`, and, when the value's key identifies it within its top `n` bits (any value
    /// whose key agrees with this one in those bits is equal to this one, and the bits below
    /// are zero), that `n`: a pair's key then goes on with its second field's key below them.
    #[inline]
    fn sort_key_prefix(&self) -> (u64, Option<u32>) {
        (self.sort_key(), None)
    }
}

/// Std scalars keep the defaults of both traits: their own comparisons are already one or a
/// few instructions, and a keyed sort's indirection (a permutation applied afterwards) would cost
/// them more than it saves (the engine's own benchmarks use them); their heap bytes, if any (a
/// `String`'s), are not worth an arena.
macro_rules! std_scalars {
    ($($t:ty),*) => {$(
        impl SortKey for $t {}
        impl ArenaCopy for $t {}
    )*};
}
std_scalars!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    bool,
    char,
    String,
    ()
);

/// The first 8 bytes, big-endian, zero-padded: byte strings order lexicographically, a prefix
/// first, and padding with zeros keeps that order (a tie at worst).
#[inline]
pub fn bytes_key(bytes: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    let n = bytes.len().min(8);
    buf[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(buf)
}

impl<T: Ord> SortKey for Vec<T> {}

/// `None` first, then `Some` by its value's key (saturating, which keeps the order).
impl<T: SortKey> SortKey for Option<T> {
    const HAS_KEY: bool = T::HAS_KEY;
    #[inline]
    fn sort_key(&self) -> u64 {
        match self {
            None => 0,
            Some(v) => v.sort_key().saturating_add(1),
        }
    }
}

/// `Ok` values first (by their key, halved to stay below every `Err`), then every `Err`.
impl<T: SortKey, E: Ord> SortKey for Result<T, E> {
    const HAS_KEY: bool = T::HAS_KEY;
    #[inline]
    fn sort_key(&self) -> u64 {
        match self {
            Ok(v) => v.sort_key() >> 1,
            Err(_) => u64::MAX,
        }
    }
}

impl<T: SortKey + ?Sized> SortKey for Box<T> {
    const HAS_KEY: bool = T::HAS_KEY;
    #[inline]
    fn sort_key(&self) -> u64 {
        (**self).sort_key()
    }
}

impl<T: SortKey + ?Sized> SortKey for std::rc::Rc<T> {
    const HAS_KEY: bool = T::HAS_KEY;
    #[inline]
    fn sort_key(&self) -> u64 {
        (**self).sort_key()
    }
}

impl<T: SortKey + ?Sized> SortKey for std::sync::Arc<T> {
    const HAS_KEY: bool = T::HAS_KEY;
    #[inline]
    fn sort_key(&self) -> u64 {
        (**self).sort_key()
    }
}

/// Tuples order by their first field first: its key is theirs (pairs go on into the second
/// field's key, below).
macro_rules! tuple {
    ($first:ident $(, $rest:ident)*) => {
        impl<$first: SortKey $(, $rest: Ord)*> SortKey for ($first, $($rest,)*) {
            const HAS_KEY: bool = $first::HAS_KEY;
            #[inline]
            fn sort_key(&self) -> u64 {
                self.0.sort_key()
            }
        }
    };
}
tuple!(A);
tuple!(A, B, C);
tuple!(A, B, C, D);
tuple!(A, B, C, D, E);

/// A pair (an arrangement's key and value) orders by its first field, then its second: when
/// the first's key identifies it in its top `n` bits, the second's key fills the bits below
/// (shifted, which keeps its order), so pairs with equal first fields are told apart by the
/// integer compare too. Monotone: pairs whose first fields differ differ within the top bits
/// of the one whose key identifies it, which order as the first fields' keys do.
impl<A: SortKey, B: SortKey> SortKey for (A, B) {
    const HAS_KEY: bool = A::HAS_KEY;
    #[inline]
    fn sort_key(&self) -> u64 {
        match self.0.sort_key_prefix() {
            (key, Some(n)) if B::HAS_KEY && n < 64 => key | self.1.sort_key() >> n,
            (key, _) => key,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test type keyed by its value.
    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Keyed(u64);

    impl SortKey for Keyed {
        const HAS_KEY: bool = true;
        fn sort_key(&self) -> u64 {
            self.0
        }
    }

    /// Checks the contract on every pair of `values`.
    fn monotone<T: SortKey + std::fmt::Debug>(values: &[T]) {
        for a in values {
            for b in values {
                if a < b {
                    assert!(
                        a.sort_key() <= b.sort_key(),
                        "{a:?} < {b:?} but keys disagree"
                    );
                }
            }
        }
    }

    #[test]
    fn keys_keep_the_order() {
        let strings: Vec<&[u8]> = vec![
            b"",
            b"\0",
            b"a",
            b"a\0",
            b"ab",
            b"abcdefgh",
            b"abcdefghi",
            b"b",
            b"\xff",
        ];
        for a in &strings {
            for b in &strings {
                if a < b {
                    assert!(bytes_key(a) <= bytes_key(b), "{a:?} < {b:?}");
                }
            }
        }
        monotone(&[
            None,
            Some(Keyed(u64::MAX)),
            Some(Keyed(0)),
            Some(Keyed(u64::MAX - 1)),
        ]);
        monotone(&[
            (Keyed(1), 5u64),
            (Keyed(1), 2),
            (Keyed(0), 9),
            (Keyed(2), 0),
        ]);
        monotone(&[
            Ok(Keyed(u64::MAX)),
            Ok(Keyed(0)),
            Err(3u8),
            Err(0),
            Ok(Keyed(5)),
        ]);
        // Tuples take their first field's key, or none (pairs may add the second's below it).
        const _: () = assert!(!<(u64, u64)>::HAS_KEY && <(Keyed, u64)>::HAS_KEY);
    }
}
