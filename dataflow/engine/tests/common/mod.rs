//! Shared test harness: seeded random update streams, a timely driver that feeds them from worker
//! 0 while every worker advances time (with random batch boundaries), and naive references.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use differential_dataflow::input::InputSession as DdInput;
use differential_dataflow::VecCollection;
use kpg_engine::{Collection, InputSession};
use timely::dataflow::operators::probe::Handle as ProbeHandle;
use timely::dataflow::operators::{Inspect, Probe};

/// A small deterministic PRNG (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub type Kv = (u64, u64);
/// `(time, data, diff)` updates, time-sorted.
pub type Updates = Vec<(u64, Kv, i64)>;

/// Random updates over `rounds` times, on few keys and values, with cancellations: about half the
/// updates retract something inserted earlier.
pub fn random_updates(rng: &mut Rng, rounds: u64, per_round: u64, keys: u64, vals: u64) -> Updates {
    let mut result = Vec::new();
    let mut live: Vec<Kv> = Vec::new();
    for time in 0..rounds {
        for _ in 0..rng.below(per_round + 1) {
            if !live.is_empty() && rng.below(2) == 0 {
                let idx = rng.below(live.len() as u64) as usize;
                let kv = live.swap_remove(idx);
                result.push((time, kv, -1));
            } else {
                let kv = (rng.below(keys), rng.below(vals));
                let diff = if rng.below(5) == 0 { 2 } else { 1 };
                for _ in 0..diff {
                    live.push(kv);
                }
                result.push((time, kv, diff));
            }
        }
    }
    result
}

/// The accumulated collection at `time`: sum of diffs of updates at times `<= time`, no zeros.
pub fn accumulate<D: Ord + Clone>(updates: &[(D, u64, i64)], time: u64) -> BTreeMap<D, i64> {
    let mut acc = BTreeMap::new();
    for (d, t, r) in updates.iter() {
        if *t <= time {
            *acc.entry(d.clone()).or_insert(0) += r;
        }
    }
    acc.retain(|_, r| *r != 0);
    acc
}

pub fn as_triples(updates: &Updates) -> Vec<(Kv, u64, i64)> {
    updates.iter().map(|(t, d, r)| (*d, *t, *r)).collect()
}

/// Runs `build` on two inputs fed with `left` and `right` from worker 0, on `workers` threads,
/// advancing all inputs by random steps (seeded by `seed`, identical on every worker); returns
/// every output update from every worker.
pub fn run_two<O, F>(
    workers: usize,
    seed: u64,
    left: Updates,
    right: Updates,
    build: F,
) -> Vec<(O, u64, i64)>
where
    O: kpg_engine::Data + Send,
    F: for<'s> Fn(Collection<'s, u64, Kv>, Collection<'s, u64, Kv>) -> Collection<'s, u64, O>
        + Send
        + Sync
        + 'static,
{
    let output = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&output);
    let left = Arc::new(left);
    let right = Arc::new(right);
    timely::execute(timely::Config::process(workers), move |worker| {
        let mut in1 = InputSession::<u64, Kv, i64>::new();
        let mut in2 = InputSession::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        let sink = Arc::clone(&sink);
        worker.dataflow::<u64, _, _>(|scope| {
            let c1 = in1.to_collection(scope);
            let c2 = in2.to_collection(scope);
            build(c1, c2)
                .inspect(move |x| sink.lock().unwrap().push(x.clone()))
                .probe_with(&probe);
        });
        let max_time = left
            .iter()
            .chain(right.iter())
            .map(|u| u.0)
            .max()
            .unwrap_or(0)
            + 1;
        let mut rng = Rng::new(seed);
        let mut time = 0;
        while time < max_time {
            let next = (time + 1 + rng.below(3)).min(max_time);
            if worker.index() == 0 {
                for (t, d, r) in left.iter().filter(|u| u.0 >= time && u.0 < next) {
                    in1.update_at(*d, *t, *r);
                }
                for (t, d, r) in right.iter().filter(|u| u.0 >= time && u.0 < next) {
                    in2.update_at(*d, *t, *r);
                }
            }
            in1.advance_to(next);
            in2.advance_to(next);
            in1.flush();
            in2.flush();
            if rng.below(2) == 0 {
                worker.step_while(|| probe.less_than(&next));
            }
            time = next;
        }
        drop(in1);
        drop(in2);
        while worker.step() {}
    })
    .expect("timely computation runs");
    let result = output.lock().unwrap().clone();
    result
}

/// Asserts that two update lists accumulate to the same collection at every time `< until`.
pub fn assert_same_accumulation<D: Ord + Clone + std::fmt::Debug>(
    got: &[(D, u64, i64)],
    want: &[(D, u64, i64)],
    until: u64,
    what: &str,
) {
    for t in 0..until {
        assert_eq!(
            accumulate(got, t),
            accumulate(want, t),
            "{what}: accumulations differ at time {t}"
        );
    }
}

/// Runs a differential-dataflow computation on the same feeding schedule as `run_two`.
pub fn run_dd<O, F>(
    rounds: u64,
    workers: usize,
    left: Updates,
    right: Updates,
    build: F,
) -> Vec<(O, u64, i64)>
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
        for time in 0..rounds {
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
