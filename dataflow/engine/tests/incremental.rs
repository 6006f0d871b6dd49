//! Incrementality: a small change to a large input costs work proportional to the change.
//!
//! These tests count the work operators do (calls of reduce's logic, records join emits), not
//! time, so they are exact and repeatable: after a large input has been processed, one more
//! update must touch one key, not the whole collection.

use std::cell::Cell;
use std::rc::Rc;

use kpg_engine::InputSession;
use timely::dataflow::ProbeHandle;

#[test]
fn reduce_reconsiders_only_keys_with_new_input() {
    timely::execute(timely::Config::thread(), |worker| {
        let calls = Rc::new(Cell::new(0usize));
        let mut input: InputSession<u64, (u64, u64), i64> = InputSession::new();
        let probe = ProbeHandle::new();
        let logic_calls = Rc::clone(&calls);
        worker.dataflow::<u64, _, _>(|scope| {
            input
                .to_collection(scope)
                .arrange_by_key()
                .reduce_abelian(
                    "Sum",
                    move |_key: &u64, vals: &[(&u64, i64)], out: &mut Vec<(u64, i64)>| {
                        logic_calls.set(logic_calls.get() + 1);
                        out.push((vals.iter().map(|(v, n)| **v * *n as u64).sum(), 1));
                    },
                )
                .as_collection(|k, v| (*k, *v))
                .probe_with(&probe);
        });
        for key in 0..10_000u64 {
            input.insert((key, key));
        }
        input.advance_to(1);
        input.flush();
        while probe.less_than(input.time()) {
            worker.step();
        }
        assert_eq!(
            calls.get(),
            10_000,
            "the initial load visits every key once"
        );

        calls.set(0);
        input.insert((42, 1));
        input.advance_to(2);
        input.flush();
        while probe.less_than(input.time()) {
            worker.step();
        }
        assert_eq!(calls.get(), 1, "one new update reconsiders one key");
    })
    .expect("timely");
}

#[test]
fn join_of_one_new_record_emits_only_its_matches() {
    timely::execute(timely::Config::thread(), |worker| {
        let emitted = Rc::new(Cell::new(0usize));
        let mut left: InputSession<u64, (u64, u64), i64> = InputSession::new();
        let mut right: InputSession<u64, (u64, u64), i64> = InputSession::new();
        let probe = ProbeHandle::new();
        let counter = Rc::clone(&emitted);
        worker.dataflow::<u64, _, _>(|scope| {
            let l = left.to_collection(scope).arrange_by_key();
            let r = right.to_collection(scope).arrange_by_key();
            l.join_core(&r, move |k: &u64, a: &u64, b: &u64| {
                counter.set(counter.get() + 1);
                Some((*k, *a, *b))
            })
            .probe_with(&probe);
        });
        for key in 0..5_000u64 {
            left.insert((key, key));
            right.insert((key, key + 1));
        }
        for input_time in [&mut left, &mut right] {
            input_time.advance_to(1);
            input_time.flush();
        }
        while probe.less_than(&1) {
            worker.step();
        }
        assert_eq!(emitted.get(), 5_000);

        emitted.set(0);
        left.insert((7, 100));
        for input_time in [&mut left, &mut right] {
            input_time.advance_to(2);
            input_time.flush();
        }
        while probe.less_than(&2) {
            worker.step();
        }
        assert_eq!(emitted.get(), 1, "a new left record meets its one match");
    })
    .expect("timely");
}
