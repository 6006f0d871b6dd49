//! Several processes (timely's cluster configuration): arrange, count, join and iterate over two
//! processes of one worker each, connected over localhost TCP, must give the same accumulated
//! results as one process, and as a naive reference. Every update crossing between processes is
//! serialized, so this also checks that the engine's exchanged types encode the way timely needs.

mod common;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use common::*;
use kpg_engine::InputSession;
use timely::dataflow::operators::probe::Handle as ProbeHandle;
use timely::CommunicationConfig;

/// `(tag, key, a, b)`: tag 0 = join `(key, left val, right val)`, tag 1 = count `(key, count)`,
/// tag 2 = a node reachable from node 0 along the left collection's `(src, dst)` pairs.
type Out = (u8, u64, u64, u64);

/// Runs the dataflow under `config`; every worker feeds the updates whose position modulo the
/// number of workers is its index, so data starts on every process.
fn run(
    config: timely::Config,
    peers_expected: usize,
    left: Arc<Updates>,
    right: Arc<Updates>,
    sink: Arc<Mutex<Vec<(Out, u64, i64)>>>,
) {
    let rounds = 1 + left
        .iter()
        .chain(right.iter())
        .map(|u| u.0)
        .max()
        .unwrap_or(0);
    let guards = timely::execute(config, move |worker| {
        let (index, peers) = (worker.index(), worker.peers());
        assert_eq!(peers, peers_expected);
        let mut roots = InputSession::<u64, u64, i64>::new();
        let mut in1 = InputSession::<u64, Kv, i64>::new();
        let mut in2 = InputSession::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        let sink = Arc::clone(&sink);
        worker.dataflow::<u64, _, _>(|scope| {
            let c1 = in1.to_collection(scope);
            let c2 = in2.to_collection(scope);
            let joined = c1
                .clone()
                .arrange_by_key()
                .join_core(&c2.arrange_by_key(), |k, a, b| Some((0u8, *k, *a, *b)));
            let counts = c1
                .clone()
                .map(|(k, _)| k)
                .count()
                .map(|(k, c)| (1u8, k, c as u64, 0));
            let edges = c1.arrange_by_key();
            let roots = roots.to_collection(scope);
            let reach = roots
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
                .map(|n| (2u8, n, 0, 0));
            joined
                .concat(counts)
                .concat(reach)
                .inspect(move |x| sink.lock().unwrap().push(*x))
                .probe_with(&probe);
        });
        for time in 0..rounds {
            for (i, (t, d, r)) in left.iter().enumerate() {
                if *t == time && i % peers == index {
                    in1.update_at(*d, *t, *r);
                }
            }
            for (i, (t, d, r)) in right.iter().enumerate() {
                if *t == time && i % peers == index {
                    in2.update_at(*d, *t, *r);
                }
            }
            if time == 0 && index == 0 {
                roots.update_at(0, 0, 1);
            }
            roots.advance_to(time + 1);
            roots.flush();
            in1.advance_to(time + 1);
            in2.advance_to(time + 1);
            in1.flush();
            in2.flush();
            worker.step_while(|| probe.less_than(&(time + 1)));
        }
    })
    .expect("timely starts");
    drop(guards);
}

/// Localhost addresses on ports free right now, one per process.
fn free_addresses(n: usize) -> Vec<String> {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind a free port"))
        .collect();
    listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}", l.local_addr().unwrap().port()))
        .collect()
}

fn reference(left: &Updates, right: &Updates, time: u64) -> BTreeMap<Out, i64> {
    let (a, b) = (
        accumulate(&as_triples(left), time),
        accumulate(&as_triples(right), time),
    );
    let mut want = BTreeMap::new();
    for ((k1, v1), d1) in a.iter() {
        for ((k2, v2), d2) in b.iter() {
            if k1 == k2 {
                *want.entry((0, *k1, *v1, *v2)).or_insert(0) += d1 * d2;
            }
        }
    }
    let mut counts = BTreeMap::new();
    for ((k, _), d) in a.iter() {
        *counts.entry(*k).or_insert(0i64) += d;
    }
    for (k, c) in counts {
        if c != 0 {
            *want.entry((1, k, c as u64, 0)).or_insert(0) += 1;
        }
    }
    let mut reached = std::collections::BTreeSet::from([0u64]);
    let mut frontier = vec![0u64];
    while let Some(node) = frontier.pop() {
        for ((src, dst), _) in a.iter() {
            if *src == node && reached.insert(*dst) {
                frontier.push(*dst);
            }
        }
    }
    for node in reached {
        *want.entry((2, node, 0, 0)).or_insert(0) += 1;
    }
    want.retain(|_, d| *d != 0);
    want
}

#[test]
fn two_processes_agree_with_one_process() {
    let mut rng = Rng::new(2026);
    let left = Arc::new(random_updates(&mut rng, 16, 40, 12, 5));
    let right = Arc::new(random_updates(&mut rng, 16, 40, 12, 5));

    let single: Arc<Mutex<Vec<(Out, u64, i64)>>> = Default::default();
    run(
        timely::Config::process(1),
        1,
        Arc::clone(&left),
        Arc::clone(&right),
        Arc::clone(&single),
    );

    let cluster: Arc<Mutex<Vec<(Out, u64, i64)>>> = Default::default();
    let addresses = free_addresses(2);
    let processes: Vec<_> = (0..2)
        .map(|process| {
            let config = timely::Config {
                communication: CommunicationConfig::Cluster {
                    threads: 1,
                    process,
                    addresses: addresses.clone(),
                    report: false,
                    zerocopy: false,
                },
                worker: timely::WorkerConfig::default(),
            };
            let (left, right, sink) = (Arc::clone(&left), Arc::clone(&right), Arc::clone(&cluster));
            std::thread::spawn(move || run(config, 2, left, right, sink))
        })
        .collect();
    for process in processes {
        process.join().expect("process thread finishes");
    }

    let (single, cluster) = (single.lock().unwrap(), cluster.lock().unwrap());
    assert!(!cluster.is_empty());
    for time in 0..16 {
        let want = reference(&left, &right, time);
        assert!(!want.is_empty() || time == 0);
        assert_eq!(accumulate(&single, time), want, "one process at {time}");
        assert_eq!(accumulate(&cluster, time), want, "two processes at {time}");
    }
}
