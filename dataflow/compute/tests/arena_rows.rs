//! Rows stored in arrangement batches through their arena (`kpg_sortkey::ArenaCopy`): rows long
//! enough to spill (their bytes in the batch's arena) and short ones (inline) inserted and
//! retracted over many rounds, so that batches are built, merged, compacted and dropped many
//! times, read back at every time against a reference, and the trace's bytes counted as the
//! arenas hold them.

use std::collections::BTreeMap;

use kpg_engine::{InputSession, TraceAgent};
use kpg_types::test_rng::Rng;
use kpg_types::{Datum, Row};
use timely::dataflow::operators::probe::Handle as ProbeHandle;
use timely::dataflow::operators::Probe;
use timely::progress::frontier::Antichain;

type Trace = TraceAgent<Row, Row, u64, i64>;

/// Key `k` (short: inline) and a val that is short or long (spilled) by `v`.
fn pair(k: u64, v: u64) -> (Row, Row) {
    let key = Row::new(vec![Datum::Int64(k as i64)]);
    let text = "x".repeat((v % 5 * 17) as usize) + &v.to_string();
    let val = Row::new(vec![Datum::String(text), Datum::Int64(v as i64)]);
    (key, val)
}

#[test]
fn spilled_rows_read_back_through_merges_and_compaction() {
    let rounds = 60u64;
    let mut rng = Rng(0x9e3779b97f4a7c15);
    // (time, key, val, diff): inserts, and retractions of what is present.
    let mut updates: Vec<(u64, u64, u64, i64)> = Vec::new();
    let mut present: BTreeMap<(u64, u64), i64> = BTreeMap::new();
    for time in 0..rounds {
        for _ in 0..40 {
            let (k, v) = (rng.next_u64() % 25, rng.next_u64() % 40);
            let diff = if present.get(&(k, v)).copied().unwrap_or(0) > 0
                && rng.next_u64().is_multiple_of(3)
            {
                -1
            } else {
                1
            };
            *present.entry((k, v)).or_default() += diff;
            updates.push((time, k, v, diff));
        }
    }
    let reference = updates.clone();
    let updates = std::sync::Arc::new(updates);
    let results = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&results);
    timely::execute(timely::Config::process(2), move |worker| {
        let mut session = InputSession::<u64, (Row, Row), i64>::new();
        let probe = ProbeHandle::new();
        let mut trace: Trace = worker.dataflow::<u64, _, _>(|scope| {
            let arranged = session.to_collection(scope).arrange_by_key();
            arranged.stream.clone().probe_with(&probe);
            arranged.trace
        });
        for time in 0..rounds {
            if worker.index() == 0 {
                for &(_, k, v, diff) in updates.iter().filter(|u| u.0 == time) {
                    session.update_at(pair(k, v), time, diff);
                }
            }
            session.advance_to(time + 1);
            session.flush();
            worker.step_while(|| probe.less_than(&(time + 1)));
            let read: Vec<(Row, Row, i64)> = trace.read_at(&time);
            sink.lock().unwrap().push((time, read));
            // Let the trace compact up to this time, so merges advance and drop old batches.
            trace.set_logical_compaction(Antichain::from_elem(time).borrow());
            trace.set_physical_compaction(Antichain::from_elem(time + 1).borrow());
        }
    })
    .expect("timely runs");

    // Every worker read its shard at every time: their union is the reference's accumulation.
    let mut read: BTreeMap<u64, BTreeMap<(Row, Row), i64>> = BTreeMap::new();
    for (time, rows) in results.lock().unwrap().iter() {
        let at = read.entry(*time).or_default();
        for (k, v, r) in rows {
            *at.entry((k.clone(), v.clone())).or_default() += r;
        }
    }
    for time in 0..rounds {
        let mut expected: BTreeMap<(Row, Row), i64> = BTreeMap::new();
        for &(_, k, v, diff) in reference.iter().filter(|u| u.0 <= time) {
            *expected.entry(pair(k, v)).or_default() += diff;
        }
        expected.retain(|_, r| *r != 0);
        let mut got = read.remove(&time).unwrap_or_default();
        got.retain(|_, r| *r != 0);
        assert_eq!(got, expected, "time {time}");
        assert!(
            expected.keys().any(|(_, v)| v.packed().heap_size() > 0) || time < 2,
            "the test must store spilled rows"
        );
    }
}
