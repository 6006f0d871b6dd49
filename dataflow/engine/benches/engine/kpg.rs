//! The benchmark cases on kpg's engine (`dd.rs` mirrors them on differential-dataflow).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kpg_engine::{Collection, InputSession};
use timely::dataflow::operators::probe::Handle as ProbeHandle;
use timely::dataflow::operators::Probe;
use timely::progress::frontier::Antichain;

use crate::{hash, round_updates, until, Params, Run};

type Kv = (u64, u64);
/// Called after each round with the next time, to advance held trace handles.
type Advance = Box<dyn FnMut(u64)>;
/// What a worker reports: its index, the updates it handled, each round's latency, wall time.
pub type Report = (usize, u64, Vec<Duration>, Duration);

/// Loads `keys` records at time 0, then runs the measured rounds (closed loop: each round as soon
/// as the previous one completes; open loop: rounds at the offered rate, latency from when the
/// round was due).
fn rounds<F>(workers: usize, p: &Params, open_loop: bool, build: F) -> Run
where
    F: for<'s> Fn(Collection<'s, u64, Kv>, &ProbeHandle<u64>) -> Advance + Send + Sync + 'static,
{
    let p = *p;
    let results = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&results);
    timely::execute(timely::Config::process(workers), move |worker| {
        let (index, peers) = (worker.index(), worker.peers());
        let mut input = InputSession::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        let mut advance =
            worker.dataflow::<u64, _, _>(|scope| build(input.to_collection(scope), &probe));
        for k in (index as u64..p.keys).step_by(peers) {
            input.update((k, 0), 1);
        }
        input.advance_to(1);
        input.flush();
        worker.step_while(|| probe.less_than(&1));
        advance(1);
        let interval = Duration::from_secs_f64((2 * p.batch) as f64 / p.offered);
        let start = Instant::now();
        let (mut latencies, mut updates) = (Vec::new(), 0u64);
        for r in 1..=p.rounds {
            let due = start + interval * (r - 1) as u32;
            if open_loop {
                until(due);
            }
            let began = if open_loop { due } else { Instant::now() };
            for (data, diff) in round_updates(&p, r, index, peers) {
                input.update(data, diff);
                updates += 1;
            }
            input.advance_to(r + 1);
            input.flush();
            worker.step_while(|| probe.less_than(&(r + 1)));
            advance(r + 1);
            latencies.push(began.elapsed());
        }
        sink.lock()
            .unwrap()
            .push((index, updates, latencies, start.elapsed()));
    })
    .expect("timely runs");
    collect(&results)
}

/// Sums updates over workers; latencies and wall time from worker 0.
pub fn collect(results: &Mutex<Vec<Report>>) -> Run {
    let results = results.lock().unwrap();
    let updates = results.iter().map(|r| r.1).sum();
    let first = results.iter().find(|r| r.0 == 0).expect("worker 0 reports");
    Run {
        updates,
        elapsed: first.3,
        rounds: first.2.clone(),
    }
}

pub fn arrange(workers: usize, p: &Params) -> Run {
    rounds(workers, p, false, |c, probe| {
        let arranged = c.arrange_by_key();
        arranged.stream.clone().probe_with(probe);
        let mut trace = arranged.trace;
        Box::new(move |t| trace.set_logical_compaction(Antichain::from_elem(t).borrow()))
    })
}

fn count(workers: usize, p: &Params, open_loop: bool) -> Run {
    rounds(workers, p, open_loop, |c, probe| {
        c.map(|(k, _)| k).count().probe_with(probe);
        Box::new(|_| {})
    })
}

/// `count` with the total-order specialization (no output arrangement).
pub fn count_total(workers: usize, p: &Params) -> Run {
    rounds(workers, p, false, |c, probe| {
        c.map(|(k, _)| k).count_total().probe_with(probe);
        Box::new(|_| {})
    })
}

pub fn count_closed(workers: usize, p: &Params) -> Run {
    count(workers, p, false)
}

pub fn count_open(workers: usize, p: &Params) -> Run {
    count(workers, p, true)
}

pub fn reduce_sum(workers: usize, p: &Params) -> Run {
    rounds(workers, p, false, |c, probe| {
        c.arrange_by_key()
            .reduce_abelian("Sum", |_k, vals, out: &mut Vec<(i64, i64)>| {
                out.push((vals.iter().map(|(v, r)| **v as i64 * r).sum(), 1))
            })
            .stream
            .probe_with(probe);
        Box::new(|_| {})
    })
}

/// Arranges `keys` records, then times installing a dataflow that joins `n` fresh records with
/// an import of that arrangement (as of time 1 when `as_of`, the way the SQL runtime imports),
/// until its output is complete.
fn join(workers: usize, p: &Params, n: u64, as_of: bool) -> Run {
    let p = *p;
    let results = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&results);
    timely::execute(timely::Config::process(workers), move |worker| {
        let (index, peers) = (worker.index(), worker.peers());
        let mut big = InputSession::<u64, Kv, i64>::new();
        let mut trace =
            worker.dataflow::<u64, _, _>(|scope| big.to_collection(scope).arrange_by_key().trace);
        for k in (index as u64..p.keys).step_by(peers) {
            big.update((k, hash(k, 7)), 1);
        }
        big.advance_to(1);
        big.flush();
        let mut upper = Antichain::new();
        loop {
            trace.read_upper(&mut upper);
            if !upper.less_equal(&0) {
                break;
            }
            worker.step();
        }
        trace.set_logical_compaction(Antichain::from_elem(1).borrow());
        let start = Instant::now();
        let mut small = InputSession::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        worker.dataflow::<u64, _, _>(|scope| {
            let imported = if as_of {
                trace.import_frontier(scope, Antichain::from_elem(1).borrow())
            } else {
                trace.import(scope)
            };
            small
                .to_collection(scope)
                .arrange_by_key()
                .join_core(&imported, |k, a, b| Some((*k, *a, *b)))
                .probe_with(&probe);
        });
        for j in (index as u64..n).step_by(peers) {
            small.update((hash(j, 99) % p.keys, j), 1);
        }
        small.advance_to(1);
        small.flush();
        worker.step_while(|| probe.less_than(&1));
        let elapsed = start.elapsed();
        sink.lock()
            .unwrap()
            .push((index, n / peers as u64, vec![elapsed], elapsed));
    })
    .expect("timely runs");
    let mut run = collect(&results);
    run.updates = n;
    run
}

pub fn join_100(workers: usize, p: &Params) -> Run {
    join(workers, p, 100, false)
}

pub fn join_10000(workers: usize, p: &Params) -> Run {
    join(workers, p, 10_000, false)
}

pub fn join_asof_100(workers: usize, p: &Params) -> Run {
    join(workers, p, 100, true)
}

pub fn join_asof_10000(workers: usize, p: &Params) -> Run {
    join(workers, p, 10_000, true)
}

/// Reachability from node 0 on a random graph, then single-edge changes (one retraction and one
/// insertion per round); throughput and latency are of the changes.
pub fn reach(workers: usize, p: &Params) -> Run {
    let p = *p;
    let results = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&results);
    timely::execute(timely::Config::process(workers), move |worker| {
        let (index, peers) = (worker.index(), worker.peers());
        let mut edges = InputSession::<u64, Kv, i64>::new();
        let mut roots = InputSession::<u64, u64, i64>::new();
        let probe = ProbeHandle::new();
        worker.dataflow::<u64, _, _>(|scope| {
            let edges = edges.to_collection(scope).arrange_by_key();
            let roots = roots.to_collection(scope);
            roots
                .clone()
                .iterate(move |reach| {
                    let inner = reach.scope();
                    reach
                        .map(|n| (n, ()))
                        .arrange_by_key()
                        .join_core(&edges.enter(inner), |_n, _, dst| Some(*dst))
                        .concat(roots.enter(inner))
                        .distinct()
                })
                .probe_with(&probe);
        });
        let edge = |e: u64| (hash(e, 1) % p.nodes, hash(e, 2) % p.nodes);
        for e in (index as u64..p.edges).step_by(peers) {
            edges.update(edge(e), 1);
        }
        if index == 0 {
            roots.update(0, 1);
        }
        edges.advance_to(1);
        roots.advance_to(1);
        edges.flush();
        roots.flush();
        let load = Instant::now();
        worker.step_while(|| probe.less_than(&1));
        if index == 0 {
            eprintln!("  kpg reach w={peers}: initial {:?}", load.elapsed());
        }
        let start = Instant::now();
        let mut latencies = Vec::new();
        for c in 1..=p.changes {
            let began = Instant::now();
            if index == 0 {
                edges.update(edge(c - 1), -1);
                edges.update(edge(p.edges + c), 1);
            }
            edges.advance_to(c + 1);
            roots.advance_to(c + 1);
            edges.flush();
            roots.flush();
            worker.step_while(|| probe.less_than(&(c + 1)));
            latencies.push(began.elapsed());
        }
        let updates = if index == 0 { 2 * p.changes } else { 0 };
        sink.lock()
            .unwrap()
            .push((index, updates, latencies, start.elapsed()));
    })
    .expect("timely runs");
    collect(&results)
}
