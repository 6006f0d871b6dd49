//! The merge-sorting batcher: buffers unsorted updates until their times are complete.
//!
//! Owns: [`Batcher`]. Invariants: the buffer is a list of sorted, consolidated chains whose sizes
//! decrease geometrically (a chain is merged into its predecessor when it grows to within a
//! factor two of it), plus fewer than [`STAGED`] updates not yet sorted, so buffered memory is
//! proportional to distinct (data, time) pairs plus a constant, and each update is merged
//! O(log n) times. `extract(F)` removes exactly the updates whose times are not
//! beyond `F`, in sorted consolidated order, and reports the least times still buffered (for the
//! arrange operator's capabilities).

use std::cmp::Ordering;

use timely::progress::frontier::{Antichain, AntichainRef};

use kpg_sortkey::SortKey;

use crate::consolidation::consolidate_updates;
use crate::difference::Semigroup;
use crate::lattice::Lattice;

type Chain<D, T, R> = Vec<(D, T, R)>;

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
        self.chains.iter().map(|c| c.len()).sum::<usize>() + self.staged.len()
    }

    /// True when nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.staged.is_empty() && self.chains.iter().all(|c| c.is_empty())
    }

    /// Adds unsorted updates (taking their contents).
    pub fn push(&mut self, updates: &mut Vec<(D, T, R)>) {
        if self.staged.is_empty() {
            std::mem::swap(&mut self.staged, updates);
        } else {
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
        let mut chain = std::mem::take(&mut self.staged);
        consolidate_updates(&mut chain);
        self.chains.push(chain);
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
        let mut all = Vec::new();
        for chain in self.chains.drain(..) {
            all = merge_chains(all, chain);
        }
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
            self.chains.push(kept);
        }
        (ready, lower)
    }

    /// The least times among buffered updates.
    pub fn lower(&self) -> Antichain<T> {
        let mut lower = Antichain::new();
        for chain in self.chains.iter().chain(std::iter::once(&self.staged)) {
            for update in chain.iter() {
                lower.insert_ref(&update.1);
            }
        }
        lower
    }
}

/// Merges two sorted consolidated chains into one.
fn merge_chains<D: Ord, T: Ord, R: Semigroup>(
    a: Chain<D, T, R>,
    b: Chain<D, T, R>,
) -> Chain<D, T, R> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut result = Vec::with_capacity(a.len() + b.len());
    let mut a = a.into_iter().peekable();
    let mut b = b.into_iter().peekable();
    loop {
        let order = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => (&x.0, &x.1).cmp(&(&y.0, &y.1)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        match order {
            Ordering::Less => result.push(a.next().expect("peeked")),
            Ordering::Greater => result.push(b.next().expect("peeked")),
            Ordering::Equal => {
                let mut x = a.next().expect("peeked");
                let y = b.next().expect("peeked");
                x.2.plus_equals(&y.2);
                if !x.2.is_zero() {
                    result.push(x);
                }
            }
        }
    }
    result
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
        let sorted: usize = batcher.chains.iter().map(|c| c.len()).sum();
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
        consolidate_updates(&mut sorted);
        assert_eq!(sorted, rest);
    }
}
