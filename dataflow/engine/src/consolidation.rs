//! Consolidation: sort updates and sum the diffs of equal data, dropping zeros.
//!
//! Owns: [`consolidate`] for `(D, R)` and [`consolidate_updates`] for `(D, T, R)` (with
//! [`consolidate_updates_keyed`], which also returns the sort keys, for the batcher). Invariant:
//! after the call the vector is sorted, has no two equal `D` (resp. `(D, T)`), and no zero diff;
//! the multiset of updates it represents is unchanged. Everything that stores updates (batcher,
//! batches, operators' outputs) goes through here, which keeps memory proportional to distinct
//! (data, time) pairs.

use kpg_sortkey::SortKey;

use crate::difference::Semigroup;

/// Below this many updates a plain sort is as fast as building keys.
const KEYED_SORT_MIN: usize = 32;

/// Sorts updates by (data, time). Data with a [`SortKey`] are sorted through a permutation of
/// `(key, index)` pairs: most comparisons are one integer compare (the data themselves are
/// compared only when keys tie), and the 16-byte pairs move instead of the updates, which are
/// then put in place once, following the permutation's cycles.
pub fn sort_updates<D: Ord + SortKey, T: Ord, R>(vec: &mut [(D, T, R)]) {
    sort_updates_keyed(vec, false);
}

/// As [`sort_updates`]; when `keys` is asked for and `D` has keys, returns the sort keys of
/// the sorted updates, in their order (empty otherwise).
fn sort_updates_keyed<D: Ord + SortKey, T: Ord, R>(vec: &mut [(D, T, R)], keys: bool) -> Vec<u64> {
    if !D::HAS_KEY || vec.len() < KEYED_SORT_MIN || u32::try_from(vec.len()).is_err() {
        vec.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        return if D::HAS_KEY && keys {
            vec.iter().map(|u| u.0.sort_key()).collect()
        } else {
            Vec::new()
        };
    }
    let mut order: Vec<(u64, u32)> = vec
        .iter()
        .enumerate()
        .map(|(i, u)| (u.0.sort_key(), i as u32))
        .collect();
    order.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| {
            let (x, y) = (&vec[a.1 as usize], &vec[b.1 as usize]);
            (&x.0, &x.1).cmp(&(&y.0, &y.1))
        })
    });
    // Position `i` takes the update at `order[i].1`: walk each cycle once, marking slots done.
    const DONE: u32 = u32::MAX;
    for start in 0..order.len() {
        if order[start].1 == DONE {
            continue;
        }
        let mut at = start;
        loop {
            let next = order[at].1 as usize;
            order[at].1 = DONE;
            if next == start {
                break;
            }
            vec.swap(at, next);
            at = next;
        }
    }
    if keys {
        order.into_iter().map(|(key, _)| key).collect()
    } else {
        Vec::new()
    }
}

/// Sorts `vec` by data and sums diffs of equal data, removing zero sums.
pub fn consolidate<D: Ord, R: Semigroup>(vec: &mut Vec<(D, R)>) {
    consolidate_from(vec, 0);
}

/// As [`consolidate`], on the suffix of `vec` starting at `offset`.
pub fn consolidate_from<D: Ord, R: Semigroup>(vec: &mut Vec<(D, R)>, offset: usize) {
    // Most calls (a val's few updates in a merge, a group's values) are tiny: skip the sort.
    match vec.len() - offset {
        0 => return,
        1 => {
            if vec[offset].1.is_zero() {
                vec.truncate(offset);
            }
            return;
        }
        _ => {}
    }
    // Equal data are summed, so the order among them does not matter: the unstable sort is
    // enough and faster.
    let slice = &mut vec[offset..];
    slice.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut write = offset;
    for read in offset..vec.len() {
        if write > offset && vec[write - 1].0 == vec[read].0 {
            let (left, right) = vec.split_at_mut(read);
            left[write - 1].1.plus_equals(&right[0].1);
        } else {
            if write > offset && vec[write - 1].1.is_zero() {
                write -= 1;
            }
            vec.swap(write, read);
            write += 1;
        }
    }
    if write > offset && vec[write - 1].1.is_zero() {
        write -= 1;
    }
    vec.truncate(write);
}

/// Sorts `vec` by (data, time) and sums diffs of equal pairs, removing zero sums.
pub fn consolidate_updates<D: Ord + SortKey, T: Ord, R: Semigroup>(vec: &mut Vec<(D, T, R)>) {
    consolidate_with_keys(vec, false);
}

/// As [`consolidate_updates`]; returns the sort keys of the updates left, in their order, when
/// `D` has keys (empty otherwise), for merges that compare keys before data.
pub fn consolidate_updates_keyed<D: Ord + SortKey, T: Ord, R: Semigroup>(
    vec: &mut Vec<(D, T, R)>,
) -> Vec<u64> {
    consolidate_with_keys(vec, true)
}

fn consolidate_with_keys<D: Ord + SortKey, T: Ord, R: Semigroup>(
    vec: &mut Vec<(D, T, R)>,
    keys: bool,
) -> Vec<u64> {
    // The keys a large sort computes anyway also spare the comparisons of data below.
    let return_keys = keys;
    let want_keys = keys || vec.len() >= KEYED_SORT_MIN;
    let mut keys = sort_updates_keyed(vec, want_keys);
    let keyed = !keys.is_empty();
    let mut write = 0;
    for read in 0..vec.len() {
        // Different keys are different data: the data are compared only where keys tie.
        if write > 0
            && (!keyed || keys[write - 1] == keys[read])
            && vec[write - 1].0 == vec[read].0
            && vec[write - 1].1 == vec[read].1
        {
            let (left, right) = vec.split_at_mut(read);
            left[write - 1].2.plus_equals(&right[0].2);
        } else {
            if write > 0 && vec[write - 1].2.is_zero() {
                write -= 1;
            }
            vec.swap(write, read);
            if keyed {
                keys[write] = keys[read];
            }
            write += 1;
        }
    }
    if write > 0 && vec[write - 1].2.is_zero() {
        write -= 1;
    }
    vec.truncate(write);
    keys.truncate(write);
    if !return_keys {
        keys.clear();
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn consolidate_matches_map() {
        let mut seed = 12345u64;
        for round in 0..300 {
            let mut vec = Vec::new();
            let mut map = BTreeMap::new();
            for _ in 0..(round % 40) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let d = (seed >> 33) % 7;
                let t = (seed >> 40) % 3;
                let r = ((seed >> 50) % 5) as i64 - 2;
                vec.push((d, t, r));
                *map.entry((d, t)).or_insert(0i64) += r;
            }
            let mut pairs: Vec<((u64, u64), i64)> =
                vec.iter().map(|(d, t, r)| ((*d, *t), *r)).collect();
            consolidate_updates(&mut vec);
            consolidate(&mut pairs);
            let expected: Vec<_> = map.into_iter().filter(|(_, r)| *r != 0).collect();
            assert_eq!(pairs, expected);
            let got: Vec<_> = vec.into_iter().map(|(d, t, r)| ((d, t), r)).collect();
            assert_eq!(got, expected);
        }
    }

    /// Strings keyed by their first byte only: most comparisons tie on the key.
    #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Coarse(String);

    impl SortKey for Coarse {
        const HAS_KEY: bool = true;
        fn sort_key(&self) -> u64 {
            kpg_sortkey::bytes_key(&self.0.as_bytes()[..self.0.len().min(1)])
        }
    }

    /// The keyed sort (a permutation by prefix, ties by the data) agrees with a plain sort,
    /// with many ties on the key and on the data.
    #[test]
    fn keyed_sort_matches_plain_sort() {
        let mut seed = 99u64;
        for round in 0..200 {
            let mut vec = Vec::new();
            for _ in 0..(round * 7 % 500) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let d = Coarse(format!("{}{}", (seed >> 33) % 3, (seed >> 36) % 13));
                vec.push((d, (seed >> 45) % 4, (seed >> 50) % 3));
            }
            let mut plain = vec.clone();
            plain.sort();
            sort_updates(&mut vec);
            // Equal (data, time) may come in either order: compare with diffs sorted within.
            let mut got = vec.clone();
            got.sort();
            assert_eq!(got, plain);
            assert!(vec
                .windows(2)
                .all(|w| (&w[0].0, &w[0].1) <= (&w[1].0, &w[1].1)));
        }
    }
}
