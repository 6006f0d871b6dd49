//! Trace handles: reads, compaction bounds, freeing, import and import_frontier, dropping an
//! importing dataflow.

mod common;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use common::*;
use kpg_engine::{InputSession, TraceAgent};
use timely::dataflow::operators::probe::Handle as ProbeHandle;
use timely::dataflow::operators::Probe;
use timely::progress::frontier::Antichain;

type Trace = TraceAgent<u64, u64, u64, i64>;

fn read_map(trace: &mut Trace, time: u64) -> BTreeMap<Kv, i64> {
    trace
        .read_at(&time)
        .into_iter()
        .map(|(k, v, r)| ((k, v), r))
        .collect()
}

#[test]
fn read_at_matches_input_on_every_worker_union() {
    let mut rng = Rng::new(11);
    let input = random_updates(&mut rng, 30, 12, 8, 4);
    let triples = as_triples(&input);
    let shards = std::sync::Arc::new(std::sync::Mutex::new(
        BTreeMap::<u64, BTreeMap<Kv, i64>>::new(),
    ));
    let sink = std::sync::Arc::clone(&shards);
    let input = std::sync::Arc::new(input);
    timely::execute(timely::Config::process(2), move |worker| {
        let mut session = InputSession::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        let mut trace = worker.dataflow::<u64, _, _>(|scope| {
            let arranged = session.to_collection(scope).arrange_by_key();
            arranged.stream.clone().probe_with(&probe);
            arranged.trace
        });
        for time in 0..30u64 {
            if worker.index() == 0 {
                for (t, d, r) in input.iter().filter(|u| u.0 == time) {
                    session.update_at(*d, *t, *r);
                }
            }
            session.advance_to(time + 1);
            session.flush();
            worker.step_while(|| probe.less_than(&(time + 1)));
            assert!(
                trace.try_read_at(&(time + 1)).is_err(),
                "time {} is not complete yet",
                time + 1
            );
            let shard = read_map(&mut trace, time);
            let mut all = sink.lock().unwrap();
            let entry = all.entry(time).or_default();
            for (d, r) in shard {
                *entry.entry(d).or_insert(0) += r;
            }
            // Readers before `time` are done: let the trace compact up to it.
            trace.set_logical_compaction(Antichain::from_elem(time).borrow());
        }
    })
    .unwrap();
    for (time, got) in shards.lock().unwrap().iter() {
        let mut got = got.clone();
        got.retain(|_, r| *r != 0);
        assert_eq!(
            got,
            accumulate(&triples, *time),
            "read_at({time}) over both workers"
        );
    }
}

#[test]
fn compaction_bounds_memory_and_dropping_handles_frees_trace() {
    timely::execute(timely::Config::thread(), |worker| {
        let mut session = InputSession::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        let output = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&output);
        let mut trace = worker.dataflow::<u64, _, _>(|scope| {
            let arranged = session.to_collection(scope).arrange_by_key();
            arranged
                .as_collection(|k, v| (*k, *v))
                .inspect(move |x| sink.borrow_mut().push(*x))
                .probe_with(&probe);
            arranged.trace
        });
        let keys = 10u64;
        for time in 0..400u64 {
            for k in 0..keys {
                // Replace each key's value every round: one insert and one retraction per key.
                session.update((k, time), 1);
                if time > 0 {
                    session.update((k, time - 1), -1);
                }
            }
            session.advance_to(time + 1);
            session.flush();
            worker.step_while(|| probe.less_than(&(time + 1)));
            trace.set_logical_compaction(Antichain::from_elem(time + 1).borrow());
        }
        assert!(
            trace.len() <= (8 * keys) as usize,
            "compacted trace should hold about one update per key, holds {} in {} batches",
            trace.len(),
            trace.batch_count()
        );
        assert_eq!(read_map(&mut trace, 400).len(), keys as usize);

        let liveness = trace.liveness();
        drop(trace);
        assert!(
            !liveness.is_alive(),
            "dropping the last handle frees the trace"
        );
        // The arrange operator keeps emitting batches.
        output.borrow_mut().clear();
        session.update((99, 0), 1);
        session.advance_to(401);
        session.flush();
        worker.step_while(|| probe.less_than(&401));
        assert_eq!(*output.borrow(), vec![((99, 0), 400, 1)]);
    })
    .unwrap();
}

#[test]
fn import_and_import_frontier_replay_then_follow() {
    for workers in [1usize, 2] {
        let mut rng = Rng::new(31 + workers as u64);
        let before = random_updates(&mut rng, 20, 10, 6, 4);
        let mut after = random_updates(&mut rng, 20, 10, 6, 4);
        for u in after.iter_mut() {
            u.0 += 20;
        }
        let other = random_updates(&mut rng, 40, 6, 6, 3);
        let all: Vec<_> = before.iter().chain(after.iter()).cloned().collect();
        let triples = as_triples(&all);
        let other_triples = as_triples(&other);
        let as_of = 12u64;
        type Out = std::sync::Arc<std::sync::Mutex<Vec<(u8, (u64, u64, u64), u64, i64)>>>;
        let outputs: Out = Default::default();
        let sink = std::sync::Arc::clone(&outputs);
        let (before, after, other) = (
            std::sync::Arc::new(before),
            std::sync::Arc::new(after),
            std::sync::Arc::new(other),
        );
        timely::execute(timely::Config::process(workers), move |worker| {
            let mut session = InputSession::<u64, Kv, i64>::new();
            let mut other_session = InputSession::<u64, Kv, i64>::new();
            let probe = ProbeHandle::new();
            let (mut trace, mut keys) = worker.dataflow::<u64, _, _>(|scope| {
                let arranged = session.to_collection(scope).arrange_by_key();
                arranged.stream.clone().probe_with(&probe);
                let keys = arranged.as_collection(|k, _| *k).arrange_by_self();
                keys.stream.clone().probe_with(&probe);
                (arranged.trace, keys.trace)
            });
            let feed = |session: &mut InputSession<u64, Kv, i64>,
                        updates: &[(u64, Kv, i64)],
                        time: u64,
                        index: usize| {
                if index == 0 {
                    for (t, d, r) in updates.iter().filter(|u| u.0 == time) {
                        session.update_at(*d, *t, *r);
                    }
                }
            };
            for time in 0..20u64 {
                feed(&mut session, &before, time, worker.index());
                session.advance_to(time + 1);
                session.flush();
                worker.step_while(|| probe.less_than(&(time + 1)));
            }
            trace.set_logical_compaction(Antichain::from_elem(as_of).borrow());
            keys.set_logical_compaction(Antichain::from_elem(as_of).borrow());
            let probe2 = ProbeHandle::new();
            let dataflow = worker.next_dataflow_index();
            worker.dataflow::<u64, _, _>(|scope| {
                let tag = |tag: u8, sink: &Out| {
                    let sink = std::sync::Arc::clone(sink);
                    move |x: &((u64, u64, u64), u64, i64)| {
                        sink.lock().unwrap().push((tag, x.0, x.1, x.2))
                    }
                };
                let plain = trace.import(scope);
                plain
                    .as_collection(|k, v| (*k, *v, 0))
                    .inspect(tag(0, &sink))
                    .probe_with(&probe2);
                let advanced = trace.import_frontier(scope, Antichain::from_elem(as_of).borrow());
                advanced
                    .as_collection(|k, v| (*k, *v, 0))
                    .inspect(tag(1, &sink))
                    .probe_with(&probe2);
                // The total-order count reads "the batches before this one" of a replay whose
                // times all read as advanced to as_of.
                keys.import_frontier(scope, Antichain::from_elem(as_of).borrow())
                    .accumulate_total("CountTotal", |k, c: &i64, out| {
                        out.push(((*k, *c as u64, 0), 1))
                    })
                    .inspect(tag(4, &sink))
                    .probe_with(&probe2);
                let others = other_session.to_collection(scope).arrange_by_key();
                advanced
                    .join_core(&others, |k, v1, v2| Some((*k, *v1, *v2)))
                    .inspect(tag(2, &sink))
                    .probe_with(&probe2);
            });
            for time in 0..20u64 {
                feed(&mut other_session, &other, time, worker.index());
            }
            other_session.advance_to(20);
            other_session.flush();
            for time in 20..40u64 {
                feed(&mut session, &after, time, worker.index());
                feed(&mut other_session, &other, time, worker.index());
                session.advance_to(time + 1);
                other_session.advance_to(time + 1);
                session.flush();
                other_session.flush();
                worker.step_while(|| probe.less_than(&(time + 1)) || probe2.less_than(&(time + 1)));
            }
            // Dropping the importing dataflow leaves the trace and the original dataflow intact.
            worker.drop_dataflow(dataflow);
            if worker.index() == 0 {
                session.update((77, 7), 1);
            }
            session.advance_to(41);
            session.flush();
            worker.step_while(|| probe.less_than(&41));
            let mut mine: BTreeMap<Kv, i64> = read_map(&mut trace, 40);
            let mut sink = sink.lock().unwrap();
            for (k, v, r) in mine.iter_mut().map(|((k, v), r)| (*k, *v, *r)) {
                sink.push((3, (k, v, 0), 40, r));
            }
        })
        .unwrap();
        let outputs = outputs.lock().unwrap();
        let pick = |tag: u8| {
            outputs
                .iter()
                .filter(|o| o.0 == tag)
                .map(|o| (o.1, o.2, o.3))
                .collect::<Vec<_>>()
        };
        let want: Vec<_> = triples
            .iter()
            .map(|((k, v), t, r)| ((*k, *v, 0), *t, *r))
            .collect();
        for t in as_of..40 {
            assert_eq!(
                accumulate(&pick(0), t),
                accumulate(&want, t),
                "import at {t} ({workers} workers)"
            );
            assert_eq!(
                accumulate(&pick(1), t),
                accumulate(&want, t),
                "import_frontier at {t} ({workers} workers)"
            );
            let (a, b) = (accumulate(&triples, t), accumulate(&other_triples, t));
            let mut join = BTreeMap::new();
            for ((k1, v1), d1) in a.iter() {
                for ((k2, v2), d2) in b.iter() {
                    if k1 == k2 {
                        *join.entry((*k1, *v1, *v2)).or_insert(0) += d1 * d2;
                    }
                }
            }
            join.retain(|_, d| *d != 0);
            assert_eq!(
                accumulate(&pick(2), t),
                join,
                "join with an imported arrangement at {t} ({workers} workers)"
            );
            let mut counts: BTreeMap<u64, i64> = BTreeMap::new();
            for ((k, _), d) in a.iter() {
                *counts.entry(*k).or_insert(0) += d;
            }
            let counts: BTreeMap<(u64, u64, u64), i64> = counts
                .into_iter()
                .filter(|(_, c)| *c != 0)
                .map(|(k, c)| ((k, c as u64, 0), 1))
                .collect();
            assert_eq!(
                accumulate(&pick(4), t),
                counts,
                "count_total of an imported arrangement at {t} ({workers} workers)"
            );
        }
        assert!(
            pick(1).iter().all(|u| u.1 >= as_of),
            "import_frontier emits no time before as_of"
        );
        assert!(
            pick(2).iter().all(|u| u.1 >= as_of),
            "join of an as_of import emits no time before as_of"
        );
        let mut last = want.clone();
        last.push(((77, 7, 0), 40, 1));
        assert_eq!(
            accumulate(&pick(3), 40),
            accumulate(&last, 40),
            "trace after dropping the importing dataflow"
        );
    }
}

/// 1,000 keys, each replaced in every round (an insertion and a retraction): 2,000 updates per
/// round for 500 rounds (1M updates), with the handle's frontier advanced after each round. The
/// compacted trace must hold about one update per key however many rounds have passed, and never
/// grow past a small multiple of that between merges.
#[test]
fn compaction_keeps_about_one_update_per_key_over_many_rounds() {
    const KEYS: u64 = 1_000;
    const ROUNDS: u64 = 500;
    timely::execute(timely::Config::thread(), |worker| {
        let mut session = InputSession::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        let mut trace = worker.dataflow::<u64, _, _>(|scope| {
            let arranged = session.to_collection(scope).arrange_by_key();
            arranged.stream.clone().probe_with(&probe);
            arranged.trace
        });
        let mut max_len = 0;
        for time in 0..ROUNDS {
            for k in 0..KEYS {
                session.update((k, time), 1);
                if time > 0 {
                    session.update((k, time - 1), -1);
                }
            }
            session.advance_to(time + 1);
            session.flush();
            worker.step_while(|| probe.less_than(&(time + 1)));
            trace.set_logical_compaction(Antichain::from_elem(time + 1).borrow());
            max_len = max_len.max(trace.len());
        }
        trace.exert(isize::MAX);
        assert!(
            trace.len() <= (2 * KEYS) as usize,
            "compacted trace should hold about {KEYS} updates, holds {}",
            trace.len()
        );
        assert!(
            max_len <= (16 * KEYS) as usize,
            "trace grew to {max_len} updates between merges"
        );
        assert_eq!(read_map(&mut trace, ROUNDS).len(), KEYS as usize);
    })
    .unwrap();
}

/// `import_frontier` sends views of the trace's own batches: each imported batch shares the
/// stored columns of a batch the trace holds (nothing is rewritten at import), and reads as that
/// batch with times advanced to `as_of` and consolidated.
#[test]
fn import_frontier_shares_the_traces_batches() {
    use kpg_engine::BatchRef;
    use timely::dataflow::operators::Inspect;
    timely::execute(timely::Config::thread(), |worker| {
        let mut rng = Rng::new(5);
        let updates = random_updates(&mut rng, 12, 200, 50, 5);
        let triples = as_triples(&updates);
        let mut session = InputSession::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        let mut trace = worker.dataflow::<u64, _, _>(|scope| {
            let arranged = session.to_collection(scope).arrange_by_key();
            arranged.stream.clone().probe_with(&probe);
            arranged.trace
        });
        for time in 0..12u64 {
            for (t, d, r) in updates.iter().filter(|u| u.0 == time) {
                session.update_at(*d, *t, *r);
            }
            session.advance_to(time + 1);
            session.flush();
            worker.step_while(|| probe.less_than(&(time + 1)));
        }
        let as_of = 7u64;
        trace.set_logical_compaction(Antichain::from_elem(as_of).borrow());
        let stored = trace.stored_batches();
        assert!(stored.len() > 1, "several batches to import");
        type Seen = Rc<RefCell<Vec<BatchRef<u64, u64, u64, i64>>>>;
        let (plain, advanced): (Seen, Seen) = Default::default();
        let probe2 = ProbeHandle::new();
        worker.dataflow::<u64, _, _>(|scope| {
            let sink = Rc::clone(&plain);
            trace
                .import(scope)
                .stream
                .inspect(move |b| sink.borrow_mut().push(Rc::clone(b)))
                .probe_with(&probe2);
            let sink = Rc::clone(&advanced);
            trace
                .import_frontier(scope, Antichain::from_elem(as_of).borrow())
                .stream
                .inspect(move |b| sink.borrow_mut().push(Rc::clone(b)))
                .probe_with(&probe2);
        });
        worker.step_while(|| probe2.less_than(&12));
        let (plain, advanced) = (plain.borrow(), advanced.borrow());
        assert_eq!(plain.len(), stored.len());
        assert_eq!(advanced.len(), stored.len());
        for ((p, a), s) in plain.iter().zip(advanced.iter()).zip(stored.iter()) {
            assert!(Rc::ptr_eq(p, s), "import forwards the trace's batch itself");
            assert!(a.shares_storage(s), "import_frontier copies no batch");
        }
        let read: Vec<(Kv, u64, i64)> = advanced.iter().flat_map(|b| b.updates()).collect();
        assert!(read.iter().all(|u| u.1 >= as_of), "no time before as_of");
        for t in as_of..12 {
            assert_eq!(accumulate(&read, t), accumulate(&triples, t), "at {t}");
        }
    })
    .unwrap();
}

/// Merges left open when updates stop arriving finish while the input is quiet (the arrange
/// operator spends fuel on them when it runs): no merge keeps its two inputs and its partial
/// result, so the reported bytes are what the batches' columns hold — for distinct `(u64, u64)`
/// pairs, a key, a val and two 32-bit offsets a pair (less each batch's trailing run of equal
/// update offsets, its last round's, which is a count), and a (time, diff) a round. (An open merge
/// would add its partial result, allocated for both inputs.)
#[test]
fn open_merges_finish_when_input_stops_and_bytes_are_the_columns() {
    const ROUNDS: u64 = 37;
    const PER_ROUND: u64 = 1_000;
    timely::execute(timely::Config::thread(), |worker| {
        let mut session = InputSession::<u64, Kv, i64>::new();
        let probe = ProbeHandle::new();
        let trace = worker.dataflow::<u64, _, _>(|scope| {
            let arranged = session.to_collection(scope).arrange_by_key();
            arranged.stream.clone().probe_with(&probe);
            arranged.trace
        });
        for round in 0..ROUNDS {
            for i in 0..PER_ROUND {
                session.update((round * PER_ROUND + i, round), 1);
            }
            session.advance_to(round + 1);
            session.flush();
            worker.step_while(|| probe.less_than(&(round + 1)));
        }
        let liveness = trace.liveness();
        for _ in 0..100 {
            worker.step();
        }
        let stats = liveness.stats(|_| 0, |_| 0).expect("the trace lives");
        let pairs = (ROUNDS * PER_ROUND) as usize;
        assert_eq!(stats.records, pairs);
        assert!(stats.batches <= 6, "{} batches", stats.batches);
        let columns = pairs * (8 + 8 + 4 + 4) - stats.batches * PER_ROUND as usize * 4;
        assert!(
            stats.bytes >= columns && stats.bytes <= columns + 64 * ROUNDS as usize,
            "{} bytes reported for {pairs} pairs ({columns} in their columns)",
            stats.bytes
        );
    })
    .unwrap();
}
