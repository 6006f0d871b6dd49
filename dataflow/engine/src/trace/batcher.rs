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

/// Merges two sorted consolidated chains into one; keys, when the chains have them, decide
/// every comparison whose keys differ.
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
    let mut a = a.updates.into_iter().peekable();
    let mut b = b.updates.into_iter().peekable();
    loop {
        let order = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => {
                let by_key = if keyed {
                    a_keys[i].cmp(&b_keys[j])
                } else {
                    Ordering::Equal
                };
                by_key.then_with(|| (&x.0, &x.1).cmp(&(&y.0, &y.1)))
            }
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        match order {
            Ordering::Less => {
                updates.push(a.next().expect("peeked"));
                if keyed {
                    keys.push(a_keys[i]);
                }
                i += 1;
            }
            Ordering::Greater => {
                updates.push(b.next().expect("peeked"));
                if keyed {
                    keys.push(b_keys[j]);
                }
                j += 1;
            }
            Ordering::Equal => {
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
    Chain { updates, keys }
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
