//! Direct peeks (`ComputeHandle::peek_direct`) read exactly what a `Command::PeekTrace` sent at
//! the same moment reads: they start after every command sent before them (an index created
//! just before is found, rows appended just before are seen), wait until the index is complete
//! at their time, and every worker answers once; a key asked of the worker `key_worker` names
//! is found there. Checked on two workers against the same peeks
//! sent as commands and against the rows written.

// Not every helper is used here.
#[allow(dead_code)]
mod common;

use std::collections::BTreeMap;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use common::{row, stored};
use kpg_compute::{ComputeHandle, PeekRequest, PeekShare};
use kpg_types::command::{Command, PeekTarget};
use kpg_types::{DataflowDescription, DataflowSink, Plan, Row, ScalarExpr};

const INDEX: u64 = 5;

fn lookup(peek_id: u64, keys: &[i64], timestamp: u64) -> PeekRequest {
    PeekRequest {
        peek_id,
        target: PeekTarget::Index {
            id: INDEX,
            keys: Some(keys.iter().map(|k| row(&[*k])).collect()),
        },
        timestamp,
        predicates: Vec::new(),
        // The key and the value, without the position stored rows end with.
        projection: Some(vec![0, 1]),
    }
}

/// Sends a direct peek to every worker; the receiver gets each worker's (index, share).
fn send_direct(
    compute: &ComputeHandle,
    request: PeekRequest,
) -> mpsc::Receiver<(usize, PeekShare)> {
    send_direct_to(compute, request, None)
}

fn send_direct_to(
    compute: &ComputeHandle,
    request: PeekRequest,
    only: Option<usize>,
) -> mpsc::Receiver<(usize, PeekShare)> {
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let reply = Arc::new(move |worker, share| {
        let _ = tx.lock().expect("reply").send((worker, share));
    });
    assert!(
        compute.peek_direct(request, reply, only).is_ok(),
        "direct peeks run"
    );
    rx
}

/// The workers' shares summed; asserts that each worker answered exactly once.
fn gather(compute: &ComputeHandle, rx: &mpsc::Receiver<(usize, PeekShare)>) -> Vec<(Row, i64)> {
    gather_from(&(0..compute.workers()).collect::<Vec<_>>(), rx)
}

/// The shares of `workers` summed; asserts that each of them, and no other, answered once.
fn gather_from(workers: &[usize], rx: &mpsc::Receiver<(usize, PeekShare)>) -> Vec<(Row, i64)> {
    let mut acc: BTreeMap<Row, i64> = BTreeMap::new();
    let mut answered = Vec::new();
    for _ in workers {
        let (worker, share) = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("every worker answers");
        answered.push(worker);
        for (r, n) in share.expect("no errors") {
            *acc.entry(r).or_default() += n;
        }
    }
    answered.sort();
    assert_eq!(answered, workers);
    assert!(
        rx.recv_timeout(Duration::from_millis(50)).is_err(),
        "no worker answers twice"
    );
    acc.into_iter().filter(|(_, n)| *n != 0).collect()
}

/// The same lookup sent as a command, through the coordinator's response channel.
fn command_peek(compute: &ComputeHandle, request: PeekRequest) -> Vec<(Row, i64)> {
    let id = request.peek_id;
    compute.send(Command::PeekTrace {
        peek_id: request.peek_id,
        target: request.target,
        timestamp: request.timestamp,
        predicates: request.predicates,
        projection: request.projection,
    });
    common::collect_peek(compute.workers(), id, || {
        compute
            .responses
            .recv_timeout(Duration::from_secs(20))
            .expect("peek answer")
    })
}

fn expected(keys: &[i64], written: &BTreeMap<i64, i64>) -> Vec<(Row, i64)> {
    let mut rows: Vec<(Row, i64)> = keys
        .iter()
        .filter_map(|k| written.get(k).map(|v| (row(&[*k, *v]), 1)))
        .collect();
    rows.sort();
    rows.dedup();
    rows
}

#[test]
fn direct_peeks_read_as_sequenced_peeks_do() {
    let compute = kpg_compute::start(2).expect("start");
    assert!(compute.direct_peeks());
    compute.send(Command::AdvanceTables { time: 1 });
    compute.send(Command::CreateTable { id: 1, since: 1 });
    let mut written: BTreeMap<i64, i64> = (0..500).map(|k| (k, k * 7)).collect();
    let rows: Vec<(Row, i64)> = written.iter().map(|(k, v)| (row(&[*k, *v]), 1)).collect();
    compute.send(Command::Append {
        id: 1,
        time: 1,
        updates: stored(rows),
    });
    compute.send(Command::CreateDataflow {
        id: INDEX,
        desc: DataflowDescription {
            name: "index".into(),
            plan: Plan::Get { id: 1 },
            as_of: 1,
            sink: DataflowSink::Index {
                id: INDEX,
                key: vec![ScalarExpr::Column(0)],
            },
        },
    });
    // Sent right after the index's creation, before time 1 is complete: the peek finds the
    // index (it starts after the commands before it) and waits for time 1 to close.
    let keys = [3, 250, 499, 1000];
    let early = send_direct(&compute, lookup(100, &keys, 1));
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        early.try_recv().is_err(),
        "no worker answers before the index is complete at the peek's time"
    );
    compute.send(Command::AdvanceTables { time: 2 });
    assert_eq!(gather(&compute, &early), expected(&keys, &written));

    // A change at time 2, then lookups at time 2 sent at once: they see it; lookups of
    // every key agree with the same peeks sent as commands.
    let changes = vec![(row(&[3, 21]), -1), (row(&[3, 22]), 1), (row(&[600, 1]), 1)];
    compute.send(Command::Append {
        id: 1,
        time: 2,
        updates: stored(changes),
    });
    compute.send(Command::AdvanceTables { time: 3 });
    written.insert(3, 22);
    written.insert(600, 1);
    let all: Vec<i64> = (0..700).step_by(7).chain([3, 600]).collect();
    let direct = gather(&compute, &send_direct(&compute, lookup(101, &all, 2)));
    assert_eq!(direct, expected(&all, &written));
    assert_eq!(direct, command_peek(&compute, lookup(102, &all, 2)));
    for k in [3, 600, 7, 699] {
        let direct = gather(
            &compute,
            &send_direct(&compute, lookup(200 + k as u64, &[k], 2)),
        );
        assert_eq!(direct, expected(&[k], &written), "key {k}");
    }

    // A key asked of the one worker whose shard holds it (`key_worker`): every key is found
    // there, and both workers hold some of them.
    let mut owners = std::collections::BTreeSet::new();
    for k in (0..700).chain([3, 600]) {
        let owner = compute.key_worker(&row(&[k]));
        owners.insert(owner);
        let rx = send_direct_to(&compute, lookup(1000 + k as u64, &[k], 2), Some(owner));
        assert_eq!(
            gather_from(&[owner], &rx),
            expected(&[k], &written),
            "key {k}"
        );
    }
    assert_eq!(owners.len(), 2, "keys spread over both workers");

    // An unknown index: every worker answers, with no rows.
    let mut unknown = lookup(300, &[1], 2);
    unknown.target = PeekTarget::Index {
        id: 999,
        keys: Some(vec![row(&[1])]),
    };
    assert!(gather(&compute, &send_direct(&compute, unknown)).is_empty());
}
