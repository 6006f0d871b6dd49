//! Two processes of one worker each (threads of this test standing in for processes, talking
//! over localhost TCP exactly as separate processes would) run the same commands as one process
//! of two workers and must give the same answers: peeks through dataflows and from an index,
//! a subscription's changes, and introspection summed over the workers. Responses of the second
//! process reach the coordinator through the response dataflow, so this also checks that route.

mod common;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::time::Duration;

use common::{peek_description, row, stored};
use kpg_compute::{ClusterConfig, ComputeHandle, Started};
use kpg_types::command::{Command, PeekTarget, Response};
use kpg_types::{
    AggregateExpr, AggregateFunc, DataflowDescription, DataflowSink, Plan, Row, ScalarExpr,
};

/// The coordinator's side in this test: receives responses, keeping subscription batches aside
/// (they arrive interleaved with everything else) for `subscribed` to read.
struct Driver<'a> {
    compute: &'a ComputeHandle,
    /// Subscription 7's changes, and each worker's reported frontier.
    changes: Vec<(u64, Row, i64)>,
    uppers: BTreeMap<usize, u64>,
}

impl Driver<'_> {
    /// The next response other than a batch of subscription 7.
    fn recv(&mut self) -> Response {
        loop {
            if let Some(response) = self.recv_one() {
                return response;
            }
        }
    }

    /// The next response, or `None` if it was a batch of subscription 7 (recorded).
    fn recv_one(&mut self) -> Option<Response> {
        let response = self
            .compute
            .responses
            .recv_timeout(Duration::from_secs(30))
            .expect("a response within 30s");
        let Response::SubscribeBatch {
            subscribe_id: 7,
            worker,
            updates,
            upper,
            ..
        } = response
        else {
            return Some(response);
        };
        let upper = upper.expect("open subscription");
        assert!(
            self.uppers.get(&worker).is_none_or(|u| *u <= upper),
            "each worker's frontier only advances"
        );
        for (r, t, d) in updates {
            assert!(t < upper, "updates are complete when reported");
            self.changes.push((t, r, d));
        }
        self.uppers.insert(worker, upper);
        None
    }

    /// Subscription 7's changes once every worker has passed `time`.
    fn subscribed(&mut self, time: u64) -> Vec<(u64, Row, i64)> {
        while self.uppers.len() < self.compute.workers() || self.uppers.values().any(|u| *u <= time)
        {
            if let Some(other) = self.recv_one() {
                panic!("unexpected response {other:?}");
            }
        }
        let mut changes = self.changes.clone();
        changes.sort();
        changes
    }
}

/// Every worker's answer to peek `id`, summed.
fn collect_peek(d: &mut Driver, id: u64) -> Vec<(Row, i64)> {
    let workers = d.compute.workers();
    common::collect_peek(workers, id, || d.recv())
}

fn peek_dataflow(d: &mut Driver, id: u64, plan: Plan, timestamp: u64) -> Vec<(Row, i64)> {
    let desc = peek_description(id, plan, timestamp);
    d.compute.send(Command::CreateDataflow { id, desc });
    let rows = collect_peek(d, id);
    d.compute.send(Command::DropDataflow { id });
    rows
}

/// Runs one workload and returns what the coordinator would see, in a comparable form.
fn workload(compute: &ComputeHandle) -> Vec<String> {
    let mut d = Driver {
        compute,
        changes: Vec::new(),
        uppers: BTreeMap::new(),
    };
    let mut seen = Vec::new();
    compute.send(Command::AdvanceTables { time: 1 });
    compute.send(Command::CreateTable { id: 1, since: 1 });
    compute.send(Command::CreateTable { id: 2, since: 1 });
    let facts: Vec<(Row, i64)> = (0..300).map(|i| (row(&[i % 23, i]), 1)).collect();
    let dims: Vec<(Row, i64)> = (0..23).map(|k| (row(&[k, k % 4]), 1)).collect();
    compute.send(Command::Append {
        id: 1,
        time: 1,
        updates: stored(facts),
    });
    compute.send(Command::Append {
        id: 2,
        time: 1,
        updates: stored(dims),
    });
    compute.send(Command::AdvanceTables { time: 2 });

    // An index on dims, and a maintained join + aggregate reading it.
    let key = vec![ScalarExpr::Column(0)];
    compute.send(Command::CreateDataflow {
        id: 5,
        desc: DataflowDescription {
            name: "dims_idx".into(),
            plan: Plan::Get { id: 2 },
            as_of: 1,
            sink: DataflowSink::Index {
                id: 5,
                key: key.clone(),
            },
        },
    });
    let join = Plan::Join {
        left: Box::new(Plan::Get { id: 1 }),
        right: Box::new(Plan::IndexedGet {
            id: 2,
            index: 5,
            key: key.clone(),
        }),
        left_key: vec![ScalarExpr::Column(0)],
        right_key: key,
    };
    let reduce = Plan::Reduce {
        input: Box::new(join),
        group_key: vec![ScalarExpr::Column(3)],
        aggregates: vec![
            AggregateExpr {
                func: AggregateFunc::SumInt64,
                expr: ScalarExpr::Column(1),
                distinct: false,
            },
            AggregateExpr {
                func: AggregateFunc::Count,
                expr: ScalarExpr::literal_true(),
                distinct: false,
            },
        ],
    };
    compute.send(Command::CreateDataflow {
        id: 6,
        desc: DataflowDescription {
            name: "view".into(),
            plan: reduce,
            as_of: 1,
            sink: DataflowSink::Materialize { id: 6 },
        },
    });
    compute.send(Command::CreateDataflow {
        id: 7,
        desc: DataflowDescription {
            name: "sub".into(),
            plan: Plan::Get { id: 6 },
            as_of: 1,
            sink: DataflowSink::Subscribe { subscribe_id: 7 },
        },
    });

    // Reads at time 1.
    seen.push(format!(
        "view@1 {:?}",
        peek_dataflow(&mut d, 100, Plan::Get { id: 6 }, 1)
    ));
    compute.send(Command::PeekTrace {
        peek_id: 101,
        target: PeekTarget::Index {
            id: 5,
            keys: Some(vec![row(&[3]), row(&[7]), row(&[99])]),
        },
        timestamp: 1,
        predicates: vec![],
        projection: None,
    });
    seen.push(format!("lookup@1 {:?}", collect_peek(&mut d, 101)));

    // Introspection: the index holds every dims row (all at one time, so one record each) across the workers' shards.
    compute.send(Command::Introspect { request_id: 1 });
    let (mut answers, mut records) = (0, 0);
    while answers < compute.workers() {
        if let Response::Introspection {
            request_id: 1,
            arrangements,
            ..
        } = d.recv()
        {
            answers += 1;
            records += arrangements
                .iter()
                .filter(|a| a.owner == 5 && a.name == "index")
                .map(|a| a.records)
                .sum::<u64>();
        }
    }
    seen.push(format!("index records {records}"));
    // Changes at time 2: deletes, an update of a dimension, inserts.
    let mut changes: Vec<(Row, i64)> = (0..40).map(|i| (row(&[i % 23, i]), -1)).collect();
    changes.push((row(&[5, 5000]), 1));
    compute.send(Command::Append {
        id: 1,
        time: 2,
        updates: stored(changes),
    });
    compute.send(Command::Append {
        id: 2,
        time: 2,
        updates: stored(vec![(row(&[7, 3]), -1), (row(&[7, 0]), 1)]),
    });
    compute.send(Command::AdvanceTables { time: 3 });
    seen.push(format!(
        "view@2 {:?}",
        peek_dataflow(&mut d, 102, Plan::Get { id: 6 }, 2)
    ));
    compute.send(Command::PeekTrace {
        peek_id: 103,
        target: PeekTarget::Collection(6),
        timestamp: 2,
        predicates: vec![],
        projection: None,
    });
    seen.push(format!("trace@2 {:?}", collect_peek(&mut d, 103)));

    // The subscription: every worker's changes at times 1 and 2.
    let changes = d.subscribed(2);
    seen.push(format!("subscribe {changes:?}"));

    seen
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

#[test]
fn two_processes_answer_like_one() {
    let single = {
        let compute = kpg_compute::start(2).expect("start");
        workload(&compute)
    };

    let addresses = free_addresses(2);
    let second = {
        let addresses = addresses.clone();
        std::thread::spawn(move || {
            match kpg_compute::start_cluster(ClusterConfig {
                process: 1,
                addresses,
                workers: 1,
            }) {
                Ok(Started::Workers(workers)) => workers.join(),
                Ok(Started::Coordinator(_)) => Err("process 1 got the coordinator".into()),
                Err(e) => Err(e),
            }
        })
    };
    let Started::Coordinator(compute) = kpg_compute::start_cluster(ClusterConfig {
        process: 0,
        addresses,
        workers: 1,
    })
    .expect("process 0 joins") else {
        panic!("process 0 must hold the coordinator");
    };
    assert_eq!(compute.workers(), 2);
    let cluster = workload(&compute);
    // Dropping the handle closes the command stream; the other process's workers then stop.
    drop(compute);
    second
        .join()
        .expect("process 1 thread")
        .expect("process 1 workers stop cleanly");

    assert!(
        single
            .iter()
            .all(|s| !s.ends_with("[]") && !s.ends_with(" 0")),
        "every observation has content: {single:?}"
    );
    assert_eq!(cluster, single);
}
