//! Every operator against a naive reference on random inputs, with 1 and 2 worker threads.

mod common;

use std::collections::BTreeMap;

use common::*;

const ROUNDS: u64 = 24;

fn reference_over_time<O: Ord + Clone>(
    until: u64,
    at: impl Fn(u64) -> BTreeMap<O, i64>,
) -> Vec<(O, u64, i64)> {
    // Turn "collection at each time" into updates: the difference between consecutive times.
    let mut result = Vec::new();
    let mut prev = BTreeMap::new();
    for t in 0..until {
        let now = at(t);
        for (d, r) in now.iter() {
            let old = prev.get(d).copied().unwrap_or(0);
            if *r != old {
                result.push((d.clone(), t, r - old));
            }
        }
        for (d, r) in prev.iter() {
            if !now.contains_key(d) {
                result.push((d.clone(), t, -r));
            }
        }
        prev = now;
    }
    result
}

#[test]
fn arrange_and_consolidate_match_input() {
    for seed in 0..6u64 {
        let mut rng = Rng::new(seed);
        let input = random_updates(&mut rng, ROUNDS, 12, 6, 4);
        let want = as_triples(&input);
        for workers in [1, 2] {
            let got = run_two(workers, seed, input.clone(), Vec::new(), |c1, _c2| {
                c1.arrange_by_key().as_collection(|k, v| (*k, *v))
            });
            assert_same_accumulation(&got, &want, ROUNDS + 1, "arrange_by_key");
            let got = run_two(workers, seed, input.clone(), Vec::new(), |c1, _c2| {
                c1.consolidate()
            });
            assert_same_accumulation(&got, &want, ROUNDS + 1, "consolidate");
            let mut sorted = got.clone();
            sorted.sort();
            for pair in sorted.windows(2) {
                assert!(
                    pair[0].0 != pair[1].0 || pair[0].1 != pair[1].1,
                    "consolidate emitted a repeated (data, time)"
                );
            }
        }
    }
}

#[test]
fn join_matches_reference() {
    for seed in 0..6u64 {
        let mut rng = Rng::new(100 + seed);
        let left = random_updates(&mut rng, ROUNDS, 10, 5, 4);
        let right = random_updates(&mut rng, ROUNDS, 10, 5, 4);
        let (l, r) = (as_triples(&left), as_triples(&right));
        let want = reference_over_time(ROUNDS + 1, |t| {
            let (a, b) = (accumulate(&l, t), accumulate(&r, t));
            let mut out = BTreeMap::new();
            for ((k1, v1), d1) in a.iter() {
                for ((k2, v2), d2) in b.iter() {
                    if k1 == k2 {
                        *out.entry((*k1, *v1, *v2)).or_insert(0) += d1 * d2;
                    }
                }
            }
            out.retain(|_, d| *d != 0);
            out
        });
        for workers in [1, 2] {
            let got = run_two(workers, seed, left.clone(), right.clone(), |c1, c2| {
                c1.arrange_by_key()
                    .join_core(&c2.arrange_by_key(), |k, v1, v2| Some((*k, *v1, *v2)))
            });
            assert_same_accumulation(&got, &want, ROUNDS + 1, "join_core");
        }
    }
}

/// `snapshot_join` at a time `s` holds, at `s`, the join of the inputs accumulated to `s`, and
/// every one of its updates is at `s` (its output is read at `s` only).
#[test]
fn snapshot_join_matches_reference_at_its_time() {
    for seed in 0..6u64 {
        let mut rng = Rng::new(200 + seed);
        // Many values per key, so that both sides build the table on some worker.
        let left = random_updates(&mut rng, ROUNDS, 10 + 10 * (seed % 2), 4, 6);
        let right = random_updates(&mut rng, ROUNDS, 10 + 10 * (1 - seed % 2), 4, 6);
        let (l, r) = (as_triples(&left), as_triples(&right));
        for at in [0, ROUNDS / 3, ROUNDS - 1, ROUNDS + 5] {
            let (a, b) = (accumulate(&l, at), accumulate(&r, at));
            let mut want = BTreeMap::new();
            for ((k1, v1), d1) in a.iter() {
                for ((k2, v2), d2) in b.iter() {
                    if k1 == k2 {
                        *want.entry((*k1, *v1, *v2)).or_insert(0) += d1 * d2;
                    }
                }
            }
            want.retain(|_, d| *d != 0);
            for workers in [1, 2] {
                let got = run_two(workers, seed, left.clone(), right.clone(), move |c1, c2| {
                    c1.snapshot_join(c2, at, |k, v1, v2| Some((*k, *v1, *v2)))
                });
                assert!(
                    got.iter().all(|u| u.1 == at),
                    "snapshot_join emitted at a time other than {at}"
                );
                assert_eq!(
                    accumulate(&got, at),
                    want,
                    "snapshot_join at {at}, seed {seed}"
                );
            }
        }
    }
}

/// `snapshot_reduce` at a time `s` holds, at `s`, each key's reduction of its values
/// accumulated to `s` (here: the values and their counts, as a list), and nothing elsewhere.
#[test]
fn snapshot_reduce_matches_reference_at_its_time() {
    for seed in 0..6u64 {
        let mut rng = Rng::new(300 + seed);
        let input = random_updates(&mut rng, ROUNDS, 12, 5, 4);
        let triples = as_triples(&input);
        for at in [0, ROUNDS / 2, ROUNDS + 1] {
            let mut groups: BTreeMap<u64, Vec<(u64, i64)>> = BTreeMap::new();
            for ((k, v), r) in accumulate(&triples, at) {
                groups.entry(k).or_default().push((v, r));
            }
            let want: BTreeMap<(u64, Vec<(u64, i64)>), i64> =
                groups.into_iter().map(|(k, vs)| ((k, vs), 1)).collect();
            for workers in [1, 2] {
                let got = run_two(workers, seed, input.clone(), Vec::new(), move |c1, _c2| {
                    c1.snapshot_reduce("Test", at, |_k, vals: &[(&u64, i64)], out| {
                        let list: Vec<(u64, i64)> = vals.iter().map(|(v, r)| (**v, *r)).collect();
                        out.push((list, 1i64));
                    })
                });
                assert!(
                    got.iter().all(|u| u.1 == at),
                    "snapshot_reduce emitted at a time other than {at}"
                );
                assert_eq!(
                    accumulate(&got, at),
                    want,
                    "snapshot_reduce at {at}, seed {seed}"
                );
            }
        }
    }
}

#[test]
fn reduce_count_distinct_match_reference() {
    for seed in 0..6u64 {
        let mut rng = Rng::new(200 + seed);
        let input = random_updates(&mut rng, ROUNDS, 12, 5, 4);
        let triples = as_triples(&input);
        // reduce: per key, the least value with positive multiplicity and the total multiplicity.
        let want_reduce = reference_over_time(ROUNDS + 1, |t| {
            let mut per_key: BTreeMap<u64, Vec<(u64, i64)>> = BTreeMap::new();
            for ((k, v), r) in accumulate(&triples, t) {
                per_key.entry(k).or_default().push((v, r));
            }
            per_key
                .into_iter()
                .map(|(k, vs)| {
                    let min = vs
                        .iter()
                        .filter(|(_, r)| *r > 0)
                        .map(|(v, _)| *v)
                        .min()
                        .unwrap_or(u64::MAX);
                    let total: i64 = vs.iter().map(|(_, r)| *r).sum();
                    ((k, min, total), 1)
                })
                .collect()
        });
        let keys: Vec<(u64, u64, i64)> = input.iter().map(|(t, (k, _), r)| (*k, *t, *r)).collect();
        let want_count = reference_over_time(ROUNDS + 1, |t| {
            accumulate(&keys, t)
                .into_iter()
                .map(|(k, c)| ((k, c), 1))
                .collect()
        });
        let want_distinct = reference_over_time(ROUNDS + 1, |t| {
            accumulate(&keys, t)
                .into_iter()
                .filter(|(_, c)| *c > 0)
                .map(|(k, _)| (k, 1))
                .collect()
        });
        for workers in [1, 2] {
            let got = run_two(workers, seed, input.clone(), Vec::new(), |c1, _| {
                c1.arrange_by_key()
                    .reduce_abelian("MinTotal", |_k, vals, out: &mut Vec<((u64, i64), i64)>| {
                        let min = vals
                            .iter()
                            .filter(|(_, r)| *r > 0)
                            .map(|(v, _)| **v)
                            .min()
                            .unwrap_or(u64::MAX);
                        let total = vals.iter().map(|(_, r)| *r).sum();
                        out.push(((min, total), 1));
                    })
                    .as_collection(|k, (min, total)| (*k, *min, *total))
            });
            assert_same_accumulation(&got, &want_reduce, ROUNDS + 1, "reduce_abelian");
            let got = run_two(workers, seed, input.clone(), Vec::new(), |c1, _| {
                c1.map(|(k, _)| k).count()
            });
            assert_same_accumulation(&got, &want_count, ROUNDS + 1, "count");
            let got = run_two(workers, seed, input.clone(), Vec::new(), |c1, _| {
                c1.map(|(k, _)| k).distinct()
            });
            assert_same_accumulation(&got, &want_distinct, ROUNDS + 1, "distinct");
        }
    }
}

#[test]
fn map_filter_flat_map_negate_concat() {
    let mut rng = Rng::new(7);
    let input = random_updates(&mut rng, ROUNDS, 10, 6, 4);
    let triples = as_triples(&input);
    let want = reference_over_time(ROUNDS + 1, |t| {
        let mut out = BTreeMap::new();
        for ((k, v), r) in accumulate(&triples, t) {
            if k % 2 == 0 {
                for i in 0..v {
                    *out.entry((k + 1, i)).or_insert(0) += r;
                }
            }
            *out.entry((k, v)).or_insert(0) -= r;
        }
        out.retain(|_, r| *r != 0);
        out
    });
    for workers in [1, 2] {
        let got = run_two(workers, 7, input.clone(), Vec::new(), |c1, _| {
            let evens = c1
                .clone()
                .filter(|(k, _)| k % 2 == 0)
                .map(|(k, v)| (k + 1, v))
                .flat_map(|(k, v)| (0..v).map(move |i| (k, i)));
            evens.concat(c1.negate())
        });
        assert_same_accumulation(&got, &want, ROUNDS + 1, "record operators");
    }
}

/// The total-order operators send nothing where a change leaves their output as it was: a
/// key whose count goes 1, 2, 3, 2, 1, 0 gives DISTINCT one row when it appears and its
/// retraction when it goes, not a retraction and a re-insertion at every change in between.
#[test]
fn distinct_total_sends_only_changes() {
    let left: Updates = vec![
        (0, (7, 0), 1),
        (1, (7, 1), 1),
        (2, (7, 2), 1),
        (3, (7, 0), -1),
        (4, (7, 1), -1),
        (5, (7, 2), -1),
    ];
    for workers in [1, 2] {
        for seed in 0..4 {
            let mut out = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).distinct_total()
            });
            out.sort();
            assert_eq!(
                out,
                vec![(7, 0, 1), (7, 5, -1)],
                "{workers} workers, seed {seed}"
            );
        }
    }
}
