//! The engine and the `differential-dataflow` crate on the same random inputs: two independent
//! implementations must accumulate to the same outputs at every time (arrange, join, reduce,
//! count, distinct, threshold, and the total-order count/distinct/threshold). Iteration against
//! differential-dataflow is in `iterate.rs`.

mod common;

use common::*;
use differential_dataflow::operators::{CountTotal, ThresholdTotal};

const ROUNDS: u64 = 20;

#[test]
fn engine_agrees_with_differential_dataflow() {
    for seed in 0..3u64 {
        let mut rng = Rng::new(500 + seed);
        let left = random_updates(&mut rng, ROUNDS, 12, 6, 4);
        let right = random_updates(&mut rng, ROUNDS, 12, 6, 4);
        for workers in [1, 2] {
            let ours = run_two(workers, seed, left.clone(), right.clone(), |a, b| {
                a.arrange_by_key()
                    .join_core(&b.arrange_by_key(), |k, x, y| Some((*k, *x, *y)))
            });
            let theirs = run_dd(ROUNDS, workers, left.clone(), right.clone(), |a, b| {
                a.join(b).map(|(k, (x, y))| (k, x, y))
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "join vs differential");

            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.consolidate()
            });
            let theirs = run_dd(ROUNDS, workers, left.clone(), Vec::new(), |a, _| {
                a.consolidate()
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "arrange vs differential");

            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.arrange_by_key()
                    .reduce_abelian("Max", |_k, vals, out: &mut Vec<(u64, i64)>| {
                        if let Some((v, _)) = vals.iter().rev().find(|(_, r)| *r > 0) {
                            out.push((**v, 1));
                        }
                    })
                    .as_collection(|k, v| (*k, *v))
            });
            let theirs = run_dd(ROUNDS, workers, left.clone(), Vec::new(), |a, _| {
                a.reduce(|_k, vals, out: &mut Vec<(u64, i64)>| {
                    if let Some((v, _)) = vals.iter().rev().find(|(_, r)| *r > 0) {
                        out.push((**v, 1));
                    }
                })
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "reduce vs differential");

            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).count()
            });
            let theirs = run_dd(ROUNDS, workers, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).count_core::<i64>()
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "count vs differential");

            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).distinct()
            });
            let theirs = run_dd(ROUNDS, workers, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).distinct_core::<i64>()
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "distinct vs differential");

            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).threshold(|_k, c| c % 3)
            });
            let theirs = run_dd(ROUNDS, workers, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).threshold(|_k, c| c % 3)
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "threshold vs differential");

            // The total-order specializations against differential's own.
            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).count_total()
            });
            let theirs = run_dd(ROUNDS, workers, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).count_total_core::<i64>()
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "count_total vs differential");

            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).threshold_total(|_k, c| c % 3)
            });
            let theirs = run_dd(ROUNDS, workers, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).threshold_total(|_k, c| c % 3)
            });
            assert_same_accumulation(
                &ours,
                &theirs,
                ROUNDS + 1,
                "threshold_total vs differential",
            );

            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).distinct_total()
            });
            let theirs = run_dd(ROUNDS, workers, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).distinct_total_core::<i64>()
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "distinct_total vs differential");
        }
    }
}
