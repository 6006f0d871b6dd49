//! DISTINCT, set operations and GROUP BY over SQL-equal classes of rows.
//!
//! SQL calls `3` and `3.00` equal, but a row keeps the text it was given (see `kpg_types::datum`),
//! so the engine, which consolidates by identity, sees two rows. Operators that SQL defines by
//! equality key rows by their canonical form instead, and must then output one member of each
//! class. `Members` is the difference that lets them choose without reading the class's rows:
//! the class's count, plus the members that are not the canonical form with their counts (empty
//! in the usual case, a class holding only canonical rows, so it costs no allocation). It is
//! abelian — counts add — so it flows through arrangements and accumulates like an `i64`.
//!
//! The member chosen is the canonical row when present, else the smallest other present one,
//! and changes only when the class's membership does. PostgreSQL outputs the first member it
//! meets, which depends on its plan; either is one of the class's rows.

use kpg_engine::{consolidate, Abelian, Collection, Lattice, Semigroup, TraceAgent};
use kpg_types::Row;
use serde::{Deserialize, Serialize};
use timely::order::TotalOrder;
use timely::progress::Timestamp;

/// The rows of one SQL-equal class, as a difference: see the module doc.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Members {
    /// All of the class's rows.
    count: i64,
    /// The rows other than the canonical one, sorted, with nonzero counts.
    others: Vec<(Row, i64)>,
}

/// A difference, not a key: no sort key (the engine's default).
impl kpg_engine::SortKey for Members {}
/// Stored as a plain clone (the default).
impl kpg_engine::ArenaCopy for Members {}

impl Members {
    /// `row` with multiplicity `diff`, keyed by its canonical form.
    pub fn of(row: Row, diff: i64) -> (Row, Members) {
        match row.canonical() {
            None => (row, Members::counted(diff)),
            Some(key) => (
                key,
                Members {
                    count: diff,
                    others: vec![(row, diff)],
                },
            ),
        }
    }

    /// `n` canonical rows.
    pub fn counted(n: i64) -> Members {
        Members {
            count: n,
            others: Vec::new(),
        }
    }

    /// How many rows the class holds.
    pub fn count(&self) -> i64 {
        self.count
    }

    /// The member that stands for the class whose canonical row is `key`: `key` itself when
    /// present, else the smallest other present member. `None` when no member is present.
    pub fn representative<'a>(&'a self, key: &'a Row) -> Option<&'a Row> {
        self.present(key).next().map(|(r, _)| r)
    }

    /// `copies` of the class's rows (at most as many as are present), each member given no
    /// more copies than it has: `key` first, then the others in order. So `l - threshold(l - r)`
    /// (INTERSECT ALL) never takes from a member more than `l` holds.
    pub fn take<'a>(&'a self, key: &'a Row, copies: i64) -> Vec<(&'a Row, i64)> {
        let mut left = copies;
        let mut out = Vec::new();
        for (row, n) in self.present(key) {
            if left <= 0 {
                break;
            }
            out.push((row, n.min(left)));
            left -= n;
        }
        out
    }

    /// The members with positive counts: `key` (the canonical row) first, then the others.
    fn present<'a>(&'a self, key: &'a Row) -> impl Iterator<Item = (&'a Row, i64)> {
        let canonical = self.count - self.others.iter().map(|(_, n)| n).sum::<i64>();
        std::iter::once((key, canonical))
            .chain(self.others.iter().map(|(r, n)| (r, *n)))
            .filter(|(_, n)| *n > 0)
    }
}

impl Semigroup for Members {
    fn is_zero(&self) -> bool {
        self.count == 0 && self.others.is_empty()
    }

    fn plus_equals(&mut self, rhs: &Self) {
        self.count += rhs.count;
        match (self.others.as_mut_slice(), rhs.others.as_slice()) {
            (_, []) => {}
            ([], _) => self.others = rhs.others.clone(),
            // One member on each side, the same row: the common case of a merge.
            ([(a, n)], [(b, m)]) if a == b => {
                *n += m;
                if *n == 0 {
                    self.others.clear();
                }
            }
            _ => {
                self.others.extend(rhs.others.iter().cloned());
                consolidate(&mut self.others);
            }
        }
    }
}

impl Abelian for Members {
    fn negate(&mut self) {
        self.count = -self.count;
        self.others.iter_mut().for_each(|(_, n)| *n = -*n);
    }

    fn zero() -> Self {
        Members::counted(0)
    }
}

/// The rows keyed by their canonical form, each carrying itself as the class's difference.
fn classes<'s, T>(rows: Collection<'s, T, Row, i64>) -> Collection<'s, T, Row, Members>
where
    T: Timestamp + Lattice,
{
    rows.explode(|row: Row, diff: i64| Some(Members::of(row, diff)))
}

/// One row per class with rows present (SQL's DISTINCT), for totally ordered times; also the
/// arrangement of the classes it keeps (for introspection).
pub fn distinct_total<'s, T>(
    rows: Collection<'s, T, Row, i64>,
) -> (Collection<'s, T, Row, i64>, ClassTrace<T>)
where
    T: Timestamp + Lattice + TotalOrder,
{
    threshold_total(rows, |m| (m.count() > 0).into())
}

/// The arrangement of rows by class that DISTINCT and the set operations keep.
pub type ClassTrace<T> = TraceAgent<Row, (), T, Members>;

/// `logic(class)` copies of each class's rows (EXCEPT and INTERSECT count classes), taken
/// from its members (`Members::take`); also the arrangement of the classes.
pub fn threshold_total<'s, T>(
    rows: Collection<'s, T, Row, i64>,
    logic: impl Fn(&Members) -> i64 + 'static,
) -> (Collection<'s, T, Row, i64>, ClassTrace<T>)
where
    T: Timestamp + Lattice + TotalOrder,
{
    let arranged = classes(rows).arrange_by_self();
    let rows = arranged.accumulate_total("DistinctByValue", move |key, members, out| {
        take_copies(key, members, logic(members), out)
    });
    (rows, arranged.trace)
}

/// `copies` of a class's rows, taken from its members, onto `out`.
fn take_copies(key: &Row, members: &Members, copies: i64, out: &mut Vec<(Row, i64)>) {
    out.extend(
        members
            .take(key, copies)
            .into_iter()
            .map(|(row, n)| (row.clone(), n)),
    );
}

/// `threshold_total` for a one-shot read at `time`: the classes at `time` grouped by hashing
/// (`snapshot_reduce`) instead of arranged; the result is only correct read at `time`.
pub fn threshold_once<'s>(
    rows: Collection<'s, u64, Row, i64>,
    time: u64,
    logic: impl Fn(&Members) -> i64 + 'static,
) -> Collection<'s, u64, Row, i64> {
    classes(rows)
        .map(|row| (row, ()))
        .snapshot_reduce(
            "DistinctByValue",
            time,
            move |key: &Row, input: &[(&(), Members)], out: &mut Vec<(Row, i64)>| {
                let members = &input[0].1;
                take_copies(key, members, logic(members), out)
            },
        )
        .map(|(_key, row)| row)
}

/// One row per class with rows present, at any times (inside an iteration).
pub fn distinct<'s, T>(rows: Collection<'s, T, Row, i64>) -> Collection<'s, T, Row, i64>
where
    T: Timestamp + Lattice,
{
    classes(rows)
        .arrange_by_self()
        .reduce_abelian(
            "DistinctByValue",
            |key: &Row, input: &[(&(), Members)], out: &mut Vec<(Row, i64)>| {
                let members = &input[0].1;
                if members.count() > 0 {
                    if let Some(row) = members.representative(key) {
                        out.push((row.clone(), 1));
                    }
                }
            },
        )
        .as_collection(|_key: &Row, row: &Row| row.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::Datum;

    fn row(text: &str) -> Row {
        Row::new(vec![Datum::Numeric(text.parse().unwrap())])
    }

    fn sum(parts: &[(&str, i64)]) -> (Row, Members) {
        let mut key = None;
        let mut total = Members::zero();
        for (text, n) in parts {
            let (k, m) = Members::of(row(text), *n);
            assert!(key.as_ref().is_none_or(|prev| *prev == k), "one class");
            key = Some(k);
            total.plus_equals(&m);
        }
        (key.unwrap(), total)
    }

    #[test]
    fn canonical_member_stands_for_the_class_when_present() {
        let (key, m) = sum(&[("3.00", 1), ("3", 1), ("3.0", 2)]);
        assert_eq!(key, row("3"));
        assert_eq!(m.count(), 4);
        assert_eq!(m.representative(&key), Some(&row("3")));
    }

    #[test]
    fn otherwise_the_smallest_present_member() {
        let (key, m) = sum(&[("3.00", 1), ("3", 1), ("3.0", 2), ("3", -1), ("3.0", -2)]);
        assert_eq!(m.count(), 1);
        assert_eq!(m.representative(&key), Some(&row("3.00")));
        let (key, m) = sum(&[("3.00", 1), ("3.0", 1)]);
        assert_eq!(m.representative(&key), Some(&row("3.0")));
    }

    #[test]
    fn copies_are_taken_from_members_that_hold_them() {
        // l - r for l = {1.5, 1.50, 1.500}, r = {1.50}: two copies, from 1.5 and 1.500.
        let (key, m) = sum(&[("1.5", 1), ("1.50", 1), ("1.500", 1), ("1.50", -1)]);
        let taken: Vec<(Row, i64)> = m
            .take(&key, 2)
            .into_iter()
            .map(|(r, n)| (r.clone(), n))
            .collect();
        assert_eq!(taken, vec![(row("1.5"), 1), (row("1.500"), 1)]);
        let (key, m) = sum(&[("2.0", 3), ("2", 1)]);
        assert_eq!(m.take(&key, 2), vec![(&row("2"), 1), (&row("2.0"), 1)]);
        assert!(m.take(&key, 0).is_empty());
    }

    #[test]
    fn sums_match_a_plain_consolidation() {
        // Every sequence of four updates over three members of one class, summed one by one,
        // against the class's rows consolidated at once.
        let updates = [("2", 1), ("2.0", 1), ("2.00", 2), ("2.0", -1), ("2.00", -2)];
        for a in 0..5 {
            for b in 0..5 {
                for c in 0..5 {
                    for d in 0..5 {
                        let seq: Vec<(&str, i64)> =
                            [a, b, c, d].iter().map(|&i| updates[i]).collect();
                        let (_, total) = sum(&seq);
                        let mut plain: Vec<(Row, i64)> =
                            seq.iter().map(|(t, n)| (row(t), *n)).collect();
                        consolidate(&mut plain);
                        let count: i64 = seq.iter().map(|(_, n)| n).sum();
                        plain.retain(|(r, _)| r.canonical().is_some());
                        assert_eq!(
                            total,
                            Members {
                                count,
                                others: plain
                            },
                            "{seq:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn retractions_cancel_to_zero() {
        let (_, m) = sum(&[("3.00", 1), ("3", 2), ("3.00", -1), ("3", -2)]);
        assert!(m.is_zero());
        let (_, mut m) = sum(&[("3.00", 2), ("3", 1)]);
        let mut neg = m.clone();
        neg.negate();
        m.plus_equals(&neg);
        assert!(m.is_zero());
    }
}
