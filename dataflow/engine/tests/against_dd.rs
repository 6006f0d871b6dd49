//! The engine and the `differential-dataflow` crate on the same random inputs: two independent
//! implementations must accumulate to the same outputs at every time (arrange, join, reduce,
//! count, distinct).

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use differential_dataflow::input::InputSession as DdInput;
use differential_dataflow::VecCollection;
use timely::dataflow::operators::probe::Handle as ProbeHandle;
use timely::dataflow::operators::{Inspect, Probe};

const ROUNDS: u64 = 20;

/// Runs a differential-dataflow computation on the same feeding schedule as `run_two`.
fn run_dd<O, F>(workers: usize, left: Updates, right: Updates, build: F) -> Vec<(O, u64, i64)>
where
    O: differential_dataflow::Data + Send + Clone,
    F: for<'s> Fn(
            VecCollection<'s, u64, Kv, i64>,
            VecCollection<'s, u64, Kv, i64>,
        ) -> VecCollection<'s, u64, O, i64>
        + Send
        + Sync
        + 'static,
{
    let output = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&output);
    let (left, right) = (Arc::new(left), Arc::new(right));
    timely::execute(timely::Config::process(workers), move |worker| {
        let mut in1 = DdInput::<u64, Kv, i64>::new();
        let mut in2 = DdInput::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        let sink = Arc::clone(&sink);
        worker.dataflow::<u64, _, _>(|scope| {
            let out = build(in1.to_collection(scope), in2.to_collection(scope));
            out.inner
                .inspect(move |x: &(O, u64, i64)| sink.lock().unwrap().push(x.clone()))
                .probe_with(&probe);
        });
        for time in 0..ROUNDS {
            if worker.index() == 0 {
                for (t, d, r) in left.iter().filter(|u| u.0 == time) {
                    in1.update_at(*d, *t, *r);
                }
                for (t, d, r) in right.iter().filter(|u| u.0 == time) {
                    in2.update_at(*d, *t, *r);
                }
            }
            in1.advance_to(time + 1);
            in2.advance_to(time + 1);
            in1.flush();
            in2.flush();
            worker.step_while(|| probe.less_than(&(time + 1)));
        }
    })
    .expect("differential computation runs");
    let result = output.lock().unwrap().clone();
    result
}

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
            let theirs = run_dd(workers, left.clone(), right.clone(), |a, b| {
                a.join(b).map(|(k, (x, y))| (k, x, y))
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "join vs differential");

            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.consolidate()
            });
            let theirs = run_dd(workers, left.clone(), Vec::new(), |a, _| a.consolidate());
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
            let theirs = run_dd(workers, left.clone(), Vec::new(), |a, _| {
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
            let theirs = run_dd(workers, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).count_core::<i64>()
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "count vs differential");

            let ours = run_two(workers, seed, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).distinct()
            });
            let theirs = run_dd(workers, left.clone(), Vec::new(), |a, _| {
                a.map(|(k, _)| k).distinct_core::<i64>()
            });
            assert_same_accumulation(&ours, &theirs, ROUNDS + 1, "distinct vs differential");
        }
    }
}
