//! The merge-sorting batcher: buffers unsorted updates until their times are complete.
//!
//! Owns: [`Batcher`]. Invariants: the buffer is a list of sorted, consolidated chains whose sizes
//! decrease geometrically (a chain is merged into its predecessor when it grows to within a
//! factor two of it), plus fewer than [`STAGED`] updates not yet sorted, so buffered memory is
//! proportional to distinct (data, time) pairs plus a constant, and each update is merged
//! O(log n) times. A chain of data with sort keys (`SortKey`) keeps each update's key beside it,
//! so merges compare two integers and the data only where keys tie. `extract(F)` removes
//! exactly the updates whose times are not
//! beyond `F`, in sorted consolidated order, and reports the least times still buffered (for the
//! arrange operator's capabilities).

use std::cmp::Ordering;

use timely::progress::frontier::{Antichain, AntichainRef};

use kpg_sortkey::SortKey;

use crate::consolidation::consolidate_updates_keyed;
use crate::difference::Semigroup;
use crate::lattice::Lattice;

/// Sorted, consolidated updates and, when `D` has sort keys, each one's key (else no keys).
struct Chain<D, T, R> {
    updates: Vec<(D, T, R)>,
    keys: Vec<u64>,
}

impl<D, T, R> Chain<D, T, R> {
    fn len(&self) -> usize {
        self.updates.len()
    }
}

/// Updates gathered before they are sorted into a chain: one sort of many small pushes is
/// cheaper than sorting each and merging them, and this bounded amount is all that is ever held
/// unconsolidated.
const STAGED: usize = 1 << 15;

/// Buffers `(data, time, diff)` updates in geometrically sized sorted chains.
pub struct Batcher<D, T, R> {
    chains: Vec<Chain<D, T, R>>,
    /// Unsorted updates, fewer than [`STAGED`] between pushes.
    staged: Vec<(D, T, R)>,
}

impl<D: Ord + Clone + SortKey, T: Lattice, R: Semigroup> Default for Batcher<D, T, R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D: Ord + Clone + SortKey, T: Lattice, R: Semigroup> Batcher<D, T, R> {
    /// An empty batcher.
    pub fn new() -> Self {
        Batcher {
            chains: Vec::new(),
            staged: Vec::new(),
        }
    }

    /// Number of buffered updates.
    pub fn len(&self) -> usize {
        self.chains.iter().map(Chain::len).sum::<usize>() + self.staged.len()
    }

    /// True when nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.staged.is_empty() && self.chains.iter().all(|c| c.updates.is_empty())
    }

    /// Adds unsorted updates (taking their contents).
    pub fn push(&mut self, updates: &mut Vec<(D, T, R)>) {
        if self.staged.is_empty() {
            std::mem::swap(&mut self.staged, updates);
        } else {
            let total = self.staged.len() + updates.len();
            if total > self.staged.capacity() && total > STAGED / 4 {
                // Past a quarter of a flush a buffer grows once, to what a flush takes,
                // instead of doubling there and copying (and faulting in) every step; at most
                // four times what it holds, as doubling leaves at most twice.
                self.staged
                    .reserve_exact(STAGED.max(total) - self.staged.len());
            }
            self.staged.append(updates);
        }
        if self.staged.len() >= STAGED {
            self.flush();
        }
    }

    /// Sorts the staged updates into a chain, merging chains of similar sizes.
    fn flush(&mut self) {
        if self.staged.is_empty() {
            return;
        }
        let mut updates = std::mem::take(&mut self.staged);
        let keys = consolidate_updates_keyed(&mut updates);
        self.chains.push(Chain { updates, keys });
        while self.chains.len() > 1 {
            let n = self.chains.len();
            if self.chains[n - 1].len() * 2 < self.chains[n - 2].len() {
                break;
            }
            let newer = self.chains.pop().expect("two chains present");
            let older = self.chains.pop().expect("two chains present");
            self.chains.push(merge_chains(older, newer));
        }
    }

    /// Removes the updates whose times are not beyond `frontier`, sorted and consolidated, and
    /// returns them with the frontier of the least times still buffered.
    pub fn extract(&mut self, frontier: AntichainRef<T>) -> (Vec<(D, T, R)>, Antichain<T>) {
        self.flush();
        let mut merged: Option<Chain<D, T, R>> = None;
        for chain in self.chains.drain(..) {
            merged = Some(match merged {
                None => chain,
                Some(m) => merge_chains(m, chain),
            });
        }
        let all = merged.map(|c| c.updates).unwrap_or_default();
        // Usually (always, with totally ordered times and a closed-loop input) every buffered
        // update is complete: hand the merged chain over without copying it.
        if all.iter().all(|update| !frontier.less_equal(&update.1)) {
            return (all, Antichain::new());
        }
        let mut ready = Vec::with_capacity(all.len());
        let mut kept = Vec::new();
        let mut lower = Antichain::new();
        for update in all {
            if frontier.less_equal(&update.1) {
                lower.insert_ref(&update.1);
                kept.push(update);
            } else {
                ready.push(update);
            }
        }
        if !kept.is_empty() {
            let keys = if D::HAS_KEY {
                kept.iter().map(|u| u.0.sort_key()).collect()
            } else {
                Vec::new()
            };
            self.chains.push(Chain {
                updates: kept,
                keys,
            });
        }
        (ready, lower)
    }

    /// The least times among buffered updates.
    pub fn lower(&self) -> Antichain<T> {
        let mut lower = Antichain::new();
        let chains = self.chains.iter().map(|c| &c.updates);
        for chain in chains.chain(std::iter::once(&self.staged)) {
            for update in chain.iter() {
                lower.insert_ref(&update.1);
            }
        }
        lower
    }
}

/// After this many updates in a row from the same chain a merge stops comparing one at a time
/// and searches (exponentially, then by halves) for where that chain's run ends.
const MIN_GALLOP: usize = 8;

/// Merges two sorted consolidated chains into one; keys, when the chains have them, decide
/// every comparison whose keys differ. Chains whose data come in ranges (an arrangement of rows
/// that arrive sorted, or nearly: a table read in its order) are mostly runs of one chain
/// before the other's next update, which a merge moves whole once a run is long (`MIN_GALLOP`):
/// a merge of disjoint chains is a few comparisons and two copies.
fn merge_chains<D: Ord, T: Ord, R: Semigroup>(
    a: Chain<D, T, R>,
    b: Chain<D, T, R>,
) -> Chain<D, T, R> {
    if a.updates.is_empty() {
        return b;
    }
    if b.updates.is_empty() {
        return a;
    }
    let keyed = !a.keys.is_empty() && !b.keys.is_empty();
    let n = a.len() + b.len();
    let mut updates = Vec::with_capacity(n);
    let mut keys = Vec::with_capacity(if keyed { n } else { 0 });
    let (a_keys, b_keys) = (a.keys, b.keys);
    let (mut i, mut j) = (0, 0);
    let mut a = a.updates.into_iter();
    let mut b = b.updates.into_iter();
    // The order of update `x` (key `kx`) against `y` (key `ky`).
    let order = |kx: u64, x: &(D, T, R), ky: u64, y: &(D, T, R)| {
        let by_key = if keyed { kx.cmp(&ky) } else { Ordering::Equal };
        by_key.then_with(|| (&x.0, &x.1).cmp(&(&y.0, &y.1)))
    };
    let key_of = |keys: &[u64], at: usize| if keyed { keys[at] } else { 0 };
    // Consecutive updates taken from `a` (positive) or from `b` (negative).
    let mut streak: isize = 0;
    while let (Some(x), Some(y)) = (a.as_slice().first(), b.as_slice().first()) {
        match order(key_of(&a_keys, i), x, key_of(&b_keys, j), y) {
            Ordering::Less => {
                streak = streak.max(0) + 1;
                let run = if streak as usize >= MIN_GALLOP {
                    streak = 0;
                    run_below(a.as_slice(), &a_keys, i, keyed, |kx, x| {
                        order(kx, x, key_of(&b_keys, j), y).is_lt()
                    })
                } else {
                    1
                };
                updates.extend(a.by_ref().take(run));
                if keyed {
                    keys.extend_from_slice(&a_keys[i..i + run]);
                }
                i += run;
            }
            Ordering::Greater => {
                streak = streak.min(0) - 1;
                let run = if streak.unsigned_abs() >= MIN_GALLOP {
                    streak = 0;
                    run_below(b.as_slice(), &b_keys, j, keyed, |ky, y| {
                        order(ky, y, key_of(&a_keys, i), x).is_lt()
                    })
                } else {
                    1
                };
                updates.extend(b.by_ref().take(run));
                if keyed {
                    keys.extend_from_slice(&b_keys[j..j + run]);
                }
                j += run;
            }
            Ordering::Equal => {
                streak = 0;
                let mut x = a.next().expect("peeked");
                let y = b.next().expect("peeked");
                x.2.plus_equals(&y.2);
                if !x.2.is_zero() {
                    updates.push(x);
                    if keyed {
                        keys.push(a_keys[i]);
                    }
                }
                i += 1;
                j += 1;
            }
        }
    }
    // One chain is exhausted: the other's rest follows as it is.
    if keyed {
        keys.extend_from_slice(&a_keys[i..]);
        keys.extend_from_slice(&b_keys[j..]);
    }
    updates.extend(a);
    updates.extend(b);
    Chain { updates, keys }
}

/// How many of `rest`'s leading updates satisfy `below` (at least one: the first does, and
/// `below` holds for a prefix); `keys[at..]` are their sort keys when `keyed`. Searches
/// exponentially, then by halves, so a run of `k` costs about `2 log k` comparisons.
fn run_below<D, T, R>(
    rest: &[(D, T, R)],
    keys: &[u64],
    at: usize,
    keyed: bool,
    below: impl Fn(u64, &(D, T, R)) -> bool,
) -> usize {
    let test = |k: usize| below(if keyed { keys[at + k] } else { 0 }, &rest[k]);
    // `lo` satisfies `below`; `hi` does not, or is past the end.
    let (mut lo, mut hi) = (0, 1);
    while hi < rest.len() && test(hi) {
        lo = hi;
        hi = (hi * 2 + 1).min(rest.len());
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if test(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extract_splits_by_frontier_and_consolidates() {
        let mut batcher = Batcher::<u64, u64, i64>::new();
        for round in 0..(STAGED as u64) {
            let mut updates = vec![
                (round % 5, round % 10, 1),
                (round % 5, round % 10, -1),
                (round % 3, round % 7, 1),
            ];
            batcher.push(&mut updates);
        }
        let sorted: usize = batcher.chains.iter().map(Chain::len).sum();
        assert!(
            sorted <= 2 * 3 * 7 && batcher.staged.len() < STAGED,
            "batcher keeps about the distinct (data, time) pairs, has {sorted} and {} staged",
            batcher.staged.len()
        );
        let (ready, lower) = batcher.extract(Antichain::from_elem(4).borrow());
        assert!(ready.iter().all(|u| u.1 < 4));
        assert_eq!(lower, Antichain::from_elem(4));
        let (rest, lower) = batcher.extract(Antichain::new().borrow());
        assert!(rest.iter().all(|u| u.1 >= 4));
        assert!(lower.is_empty());
        assert_eq!(
            ready.len() + rest.len(),
            21,
            "one update per distinct (data, time)"
        );
        let mut sorted = rest.clone();
        crate::consolidation::consolidate_updates(&mut sorted);
        assert_eq!(sorted, rest);
    }

    /// Runs of each chain long enough to gallop, ties at the runs' ends that cancel or add,
    /// with and without sort keys: the merged chains are the map-sum of every update.
    #[test]
    fn galloping_merges_of_ranges_sum_like_a_map() {
        fn check<D: Ord + Clone + SortKey + std::fmt::Debug>(make: impl Fn(u64) -> D) {
            let mut seed = 11u64;
            let mut next = |m: u64| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 33) % m
            };
            for round in 0..40 {
                let mut batcher = Batcher::<D, u64, i64>::new();
                let mut expected = std::collections::BTreeMap::new();
                // Overlapping ranges, each sorted: chains that interleave at their edges.
                let mut start = 0u64;
                for _ in 0..(2 + round % 7) {
                    let len = 1 + next(3 * STAGED as u64 / 2);
                    let mut updates: Vec<(D, u64, i64)> = Vec::new();
                    for d in start..start + len {
                        if next(4) != 0 {
                            let (t, r) = (next(2), next(5) as i64 - 2);
                            *expected.entry((make(d), t)).or_insert(0i64) += r;
                            updates.push((make(d), t, r));
                        }
                    }
                    batcher.push(&mut updates);
                    // The next range starts before this one ends, or after a gap.
                    start = (start + len).saturating_sub(next(50)) + next(3) * next(40);
                }
                let (got, _) = batcher.extract(Antichain::new().borrow());
                let want: Vec<(D, u64, i64)> = expected
                    .into_iter()
                    .filter(|(_, r)| *r != 0)
                    .map(|((d, t), r)| (d, t, r))
                    .collect();
                assert_eq!(got, want, "round {round}");
            }
        }
        check(Coarse);
        check(|d| (d, ()));
    }

    /// A value whose sort key is coarse (its tens), so keyed merges meet ties and differences.
    #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Coarse(u64);

    impl SortKey for Coarse {
        const HAS_KEY: bool = true;
        fn sort_key(&self) -> u64 {
            self.0 / 10
        }
    }

    #[test]
    fn keyed_chains_merge_as_a_map_sums() {
        let mut batcher = Batcher::<Coarse, u64, i64>::new();
        let mut expected = std::collections::BTreeMap::new();
        let mut seed = 7u64;
        for _ in 0..5 {
            let mut updates = Vec::new();
            for _ in 0..(STAGED + 123) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (d, t, r) = (
                    (seed >> 33) % 5000,
                    (seed >> 20) % 3,
                    ((seed >> 50) % 5) as i64 - 2,
                );
                updates.push((Coarse(d), t, r));
                *expected.entry((d, t)).or_insert(0i64) += r;
            }
            batcher.push(&mut updates);
        }
        assert!(batcher
            .chains
            .iter()
            .all(|c| c.keys.len() == c.updates.len()));
        let (ready, lower) = batcher.extract(Antichain::from_elem(2).borrow());
        let (rest, _) = batcher.extract(Antichain::new().borrow());
        assert_eq!(lower, Antichain::from_elem(2));
        let got: Vec<(u64, u64, i64)> = ready
            .into_iter()
            .chain(rest)
            .map(|(d, t, r)| (d.0, t, r))
            .collect();
        let mut want: Vec<(u64, u64, i64)> = expected
            .into_iter()
            .filter(|(_, r)| *r != 0)
            .map(|((d, t), r)| (d, t, r))
            .collect();
        want.sort_by_key(|&(d, t, _)| (t >= 2, d, t));
        assert_eq!(
            got, want,
            "updates before the frontier first, each part sorted and summed"
        );
    }
}
