//! End-to-end tests of the compute runtime without SQL: tables, views, peeks and subscriptions
//! driven by commands on two workers, checked against results computed directly.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{peek_description, row, stored};

use kpg_compute::ComputeHandle;
use kpg_types::command::{Command, Response};
use kpg_types::packed::DatumRef;
use kpg_types::{
    AggregateExpr, AggregateFunc, BinaryFunc, DataflowDescription, DataflowSink, Datum, Plan, Row,
    ScalarExpr,
};

fn peek(compute: &ComputeHandle, id: u64, plan: Plan, timestamp: u64) -> Vec<(Row, i64)> {
    let desc = peek_description(id, plan, timestamp);
    compute.send(Command::CreateDataflow { id, desc });
    let rows = collect_peek(compute, id);
    compute.send(Command::DropDataflow { id });
    rows
}

fn collect_peek(compute: &ComputeHandle, id: u64) -> Vec<(Row, i64)> {
    common::collect_peek(compute.workers(), id, || {
        compute
            .responses
            .recv_timeout(Duration::from_secs(20))
            .expect("peek answer")
    })
}

#[test]
fn table_view_join_and_reduce_on_two_workers() {
    let compute = kpg_compute::start(2).expect("start");
    compute.send(Command::AdvanceTables { time: 1 });
    compute.send(Command::CreateTable { id: 1, since: 1 });
    compute.send(Command::CreateTable { id: 2, since: 1 });
    // orders(customer, amount), customers(id, region)
    let orders: Vec<(Row, i64)> = (0..200).map(|i| (row(&[i % 17, i]), 1)).collect();
    let customers: Vec<(Row, i64)> = (0..17).map(|c| (row(&[c, c % 3]), 1)).collect();
    compute.send(Command::Append {
        id: 1,
        time: 1,
        updates: stored(orders.clone()),
    });
    compute.send(Command::Append {
        id: 2,
        time: 1,
        updates: stored(customers),
    });
    compute.send(Command::AdvanceTables { time: 2 });

    // sum(amount), count(*) per region, over the join.
    let join = Plan::Join {
        left: Box::new(Plan::Get { id: 1 }),
        right: Box::new(Plan::Get { id: 2 }),
        left_key: vec![ScalarExpr::Column(0)],
        right_key: vec![ScalarExpr::Column(0)],
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
    let view = DataflowDescription {
        name: "view".into(),
        plan: reduce,
        as_of: 1,
        sink: DataflowSink::Materialize { id: 3 },
    };
    compute.send(Command::CreateDataflow { id: 3, desc: view });

    let expected = |orders: &[(Row, i64)]| -> Vec<(Row, i64)> {
        let mut sums: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
        for (r, d) in orders {
            let (DatumRef::Int64(c), DatumRef::Int64(a)) = (r.get(0), r.get(1)) else {
                unreachable!()
            };
            let e = sums.entry(c % 3).or_default();
            e.0 += a * d;
            e.1 += d;
        }
        sums.into_iter()
            .filter(|(_, (_, n))| *n > 0)
            .map(|(g, (s, n))| {
                (
                    Row::new(vec![
                        Datum::Int64(g),
                        Datum::Numeric(s.into()),
                        Datum::Int64(n),
                    ]),
                    1,
                )
            })
            .collect()
    };
    assert_eq!(
        peek(&compute, 100, Plan::Get { id: 3 }, 1),
        expected(&orders)
    );

    // Incremental change: delete some orders, add others.
    let mut changes: Vec<(Row, i64)> = (0..50).map(|i| (row(&[i % 17, i]), -1)).collect();
    changes.push((row(&[5, 1000]), 1));
    compute.send(Command::Append {
        id: 1,
        time: 2,
        updates: stored(changes.clone()),
    });
    compute.send(Command::AdvanceTables { time: 3 });
    let mut now: Vec<(Row, i64)> = orders.iter().skip(50).cloned().collect();
    now.push((row(&[5, 1000]), 1));
    assert_eq!(peek(&compute, 101, Plan::Get { id: 3 }, 2), expected(&now));

    // A filter with an error-raising expression surfaces the error to the peek.
    let div =
        ScalarExpr::Column(1).call_binary(BinaryFunc::Div, ScalarExpr::Literal(Datum::Int64(0)));
    let bad = Plan::Map {
        input: Box::new(Plan::Get { id: 1 }),
        exprs: vec![div],
    };
    let desc = DataflowDescription {
        name: "bad".into(),
        plan: bad,
        as_of: 2,
        sink: DataflowSink::Peek {
            peek_id: 102,
            timestamp: 2,
        },
    };
    compute.send(Command::CreateDataflow { id: 102, desc });
    let mut errors = 0;
    let mut answered = 0;
    while answered < 2 {
        if let Response::PeekResult {
            peek_id: 102,
            result,
            ..
        } = compute
            .responses
            .recv_timeout(Duration::from_secs(20))
            .unwrap()
        {
            answered += 1;
            if let Err(e) = result {
                assert_eq!(e.sqlstate(), "22012");
                errors += 1;
            }
        }
    }
    assert!(errors >= 1, "the division by zero reaches the reader");
}

#[test]
fn subscription_reports_changes_in_time_order() {
    let compute = kpg_compute::start(2).expect("start");
    compute.send(Command::AdvanceTables { time: 10 });
    compute.send(Command::CreateTable { id: 1, since: 10 });
    compute.send(Command::Append {
        id: 1,
        time: 10,
        updates: stored(vec![(row(&[1]), 1), (row(&[2]), 1)]),
    });
    compute.send(Command::AdvanceTables { time: 11 });
    let desc = DataflowDescription {
        name: "sub".into(),
        plan: Plan::Get { id: 1 },
        as_of: 10,
        sink: DataflowSink::Subscribe { subscribe_id: 7 },
    };
    compute.send(Command::CreateDataflow { id: 7, desc });
    compute.send(Command::Append {
        id: 1,
        time: 11,
        updates: stored(vec![(row(&[1]), -1), (row(&[3]), 1)]),
    });
    compute.send(Command::AdvanceTables { time: 12 });
    let mut seen = Vec::new();
    let mut uppers = [0u64; 2];
    while uppers.iter().any(|u| *u < 12) {
        let resp = compute
            .responses
            .recv_timeout(Duration::from_secs(20))
            .unwrap();
        if let Response::SubscribeBatch {
            subscribe_id: 7,
            worker,
            updates,
            upper,
            ..
        } = resp
        {
            for (r, t, d) in updates {
                assert!(t < upper.unwrap(), "updates are complete when reported");
                seen.push((t, d, r));
            }
            uppers[worker] = upper.unwrap();
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        vec![
            (10, 1, row(&[1])),
            (10, 1, row(&[2])),
            (11, -1, row(&[1])),
            (11, 1, row(&[3]))
        ]
    );
}

#[test]
fn starts_and_stops() {
    let compute = kpg_compute::start(2).expect("start");
    compute.send(Command::AdvanceTables { time: 1 });
    compute.send(Command::CreateTable { id: 1, since: 1 });
    drop(compute);
}

#[test]
fn indexes_answer_lookups_and_serve_joins() {
    use kpg_types::command::PeekTarget;
    let compute = kpg_compute::start(2).expect("start");
    compute.send(Command::AdvanceTables { time: 1 });
    compute.send(Command::CreateTable { id: 1, since: 1 });
    compute.send(Command::CreateTable { id: 2, since: 1 });
    let facts: Vec<(Row, i64)> = (0..100).map(|i| (row(&[i % 10, i]), 1)).collect();
    let dims: Vec<(Row, i64)> = (0..10).map(|k| (row(&[k, k * 100]), 1)).collect();
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
    // An index on dims keyed by its first column.
    let key = vec![ScalarExpr::Column(0)];
    let index = DataflowDescription {
        name: "dims_idx".into(),
        plan: Plan::Get { id: 2 },
        as_of: 1,
        sink: DataflowSink::Index {
            id: 5,
            key: key.clone(),
        },
    };
    compute.send(Command::CreateDataflow { id: 5, desc: index });

    // A lookup of two keys through the index, with no dataflow.
    let target = PeekTarget::Index {
        id: 5,
        keys: Some(vec![row(&[3]), row(&[7]), row(&[42])]),
    };
    compute.send(Command::PeekTrace {
        peek_id: 10,
        target,
        timestamp: 1,
        predicates: vec![],
        projection: Some(vec![1]),
    });
    assert_eq!(
        collect_peek(&compute, 10),
        vec![(row(&[300]), 1), (row(&[700]), 1)]
    );

    // A join whose right input is read through the index.
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
    let view = DataflowDescription {
        name: "view".into(),
        plan: join,
        as_of: 1,
        sink: DataflowSink::Materialize { id: 6 },
    };
    compute.send(Command::CreateDataflow { id: 6, desc: view });
    compute.send(Command::Append {
        id: 2,
        time: 2,
        updates: stored(vec![(row(&[3, 300]), -1)]),
    });
    compute.send(Command::AdvanceTables { time: 3 });
    let predicates = vec![
        ScalarExpr::Column(0).call_binary(BinaryFunc::Eq, ScalarExpr::Literal(Datum::Int64(4)))
    ];
    compute.send(Command::PeekTrace {
        peek_id: 11,
        target: PeekTarget::Collection(6),
        timestamp: 2,
        predicates,
        projection: None,
    });
    let want: Vec<(Row, i64)> = (0..100)
        .filter(|i| i % 10 == 4)
        .map(|i| (row(&[4, i, 4, 400]), 1))
        .collect();
    let mut want = want;
    want.sort();
    assert_eq!(collect_peek(&compute, 11), want);
    compute.send(Command::PeekTrace {
        peek_id: 12,
        target: PeekTarget::Collection(6),
        timestamp: 2,
        predicates: vec![],
        projection: None,
    });
    assert_eq!(
        collect_peek(&compute, 12).len(),
        90,
        "the retracted dimension row leaves 90 matches"
    );
}

/// A table nobody writes or reads lags behind table time while another is written (its input
/// is advanced only when something reads it); a peek of it, a dataflow installed over it and a
/// join with the busy table still see it whole at the latest time, on every worker.
#[test]
fn tables_idle_while_others_are_written_answer_reads() {
    let compute = kpg_compute::start(2).expect("start");
    compute.send(Command::AdvanceTables { time: 1 });
    compute.send(Command::CreateTable { id: 1, since: 1 });
    compute.send(Command::CreateTable { id: 2, since: 1 });
    let idle: Vec<(Row, i64)> = (0..10).map(|i| (row(&[i, i * 10]), 1)).collect();
    compute.send(Command::Append {
        id: 2,
        time: 1,
        updates: stored(idle.clone()),
    });
    compute.send(Command::AdvanceTables { time: 2 });
    // One row into table 1 at each of `times`, each commit followed by an advance.
    let mut busy = Vec::new();
    let mut write_busy = |times: std::ops::Range<u64>| {
        for time in times {
            let update = (row(&[time as i64 % 10, time as i64]), 1);
            busy.push(update.clone());
            compute.send(Command::Append {
                id: 1,
                time,
                updates: stored(vec![update]),
            });
            compute.send(Command::AdvanceTables { time: time + 1 });
        }
    };
    write_busy(2..60);
    let now = 59;
    let mut expected_idle = idle.clone();
    expected_idle.sort();
    compute.send(Command::PeekTrace {
        peek_id: 200,
        target: kpg_types::command::PeekTarget::Collection(2),
        timestamp: now,
        predicates: vec![],
        projection: Some(vec![0, 1]),
    });
    assert_eq!(
        collect_peek(&compute, 200),
        expected_idle,
        "peek of the idle table"
    );
    assert_eq!(
        peek(&compute, 201, Plan::Get { id: 2 }, now),
        expected_idle,
        "a dataflow over the idle table"
    );
    // A maintained join of both (materialized as collection 3), installed now: it keeps up
    // as the busy table is written, although the idle one is not.
    let join = Plan::Join {
        left: Box::new(Plan::Get { id: 1 }),
        right: Box::new(Plan::Get { id: 2 }),
        left_key: vec![ScalarExpr::Column(0)],
        right_key: vec![ScalarExpr::Column(0)],
    };
    compute.send(Command::CreateDataflow {
        id: 3,
        desc: DataflowDescription {
            name: "join".into(),
            plan: join,
            as_of: now,
            sink: DataflowSink::Materialize { id: 3 },
        },
    });
    write_busy(60..70);
    let ints = |r: &Row| -> Vec<i64> {
        (0..r.len())
            .map(|i| match r.get(i) {
                DatumRef::Int64(v) => v,
                other => panic!("not a bigint: {other:?}"),
            })
            .collect()
    };
    let mut expected_join: Vec<(Row, i64)> = Vec::new();
    for (b, _) in &busy {
        for (i, _) in &idle {
            if ints(b)[0] == ints(i)[0] {
                expected_join.push((row(&[ints(b), ints(i)].concat()), 1));
            }
        }
    }
    expected_join.sort();
    compute.send(Command::PeekTrace {
        peek_id: 202,
        target: kpg_types::command::PeekTarget::Collection(3),
        timestamp: 69,
        predicates: vec![],
        projection: None,
    });
    assert_eq!(
        collect_peek(&compute, 202),
        expected_join,
        "the maintained join at the latest time"
    );
}
