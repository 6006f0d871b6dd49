//! CancelRequest cancels a running SELECT (issue 5): the statement fails with 57014 soon after
//! the cancel, its transient dataflow is torn down (`kpg_dataflows` no longer lists it), and the
//! session and server go on — through the simple and the extended query protocol.

use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::NoTls;
use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_request_stops_a_running_select() {
    cancel_a_running_select(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_request_stops_a_running_extended_protocol_select() {
    cancel_a_running_select(true).await;
}

async fn cancel_a_running_select(extended: bool) {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE a (x int4)").await;
    execute(&c, "CREATE TABLE b (y int4)").await;
    let values: Vec<String> = (0..1200).map(|i| format!("({i})")).collect();
    execute(&c, &format!("INSERT INTO a VALUES {}", values.join(", "))).await;
    execute(&c, &format!("INSERT INTO b VALUES {}", values.join(", "))).await;

    // A cross product of 1.44M rows: far longer than the test waits before cancelling.
    let runner = kpg.connect().await;
    let token = runner.cancel_token();
    let started = Instant::now();
    let running = tokio::spawn(async move {
        let sql = "SELECT count(*) FROM a, b WHERE a.x * b.y >= 0 AND a.x <> b.y";
        let r = if extended {
            runner.query(sql, &[]).await.map(|_| ())
        } else {
            runner.simple_query(sql).await.map(|_| ())
        };
        (runner, r)
    });
    // Let it start (the workers are then busy with it), then cancel.
    tokio::time::sleep(Duration::from_millis(500)).await;
    token.cancel_query(NoTls).await.expect("send CancelRequest");
    let (runner, result) = tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("the SELECT ends soon after the cancel")
        .unwrap();
    let err = result.expect_err("a cancelled SELECT fails");
    assert_eq!(sqlstate(&err).as_deref(), Some("57014"), "{err:?}");
    eprintln!("cancelled after {:?}", started.elapsed());

    // Its dataflow is gone (the workers drop it between steps of its operators); the session
    // and the server go on.
    // A worker applies commands between operator steps, and the step in progress (sorting
    // millions of joined rows, in a debug build) can take a while: allow for it.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let sql = "SELECT count(*) FROM kpg_dataflows WHERE name LIKE 'peek-%'";
        let n = tokio::time::timeout(Duration::from_secs(120), c.simple_query(sql))
            .await
            .expect("introspection answers once the workers are free")
            .expect("introspection");
        let count = n.iter().find_map(|m| match m {
            kpg_tests::tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
            _ => None,
        });
        if count.as_deref() == Some("0") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the cancelled SELECT's dataflow was not dropped"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        query(&runner, "SELECT count(*) FROM a").await,
        rows(&[&["1200"]])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_timeout_cancels_a_long_select() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE a (x int4)").await;
    let values: Vec<String> = (0..1200).map(|i| format!("({i})")).collect();
    execute(&c, &format!("INSERT INTO a VALUES {}", values.join(", "))).await;
    execute(&c, "SET statement_timeout = '300ms'").await;
    let started = Instant::now();
    let err = c
        .simple_query("SELECT count(*) FROM a a1, a a2 WHERE a1.x <> a2.x")
        .await
        .expect_err("the SELECT outlives its timeout");
    assert_eq!(sqlstate(&err).as_deref(), Some("57014"), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    // RESET lifts the limit (the next statement may wait for the workers to finish the step
    // the dropped read was in), and the session goes on.
    execute(&c, "RESET statement_timeout").await;
    assert_eq!(query(&c, "SHOW statement_timeout").await, rows(&[&["0"]]));
    assert_eq!(
        query(&c, "SELECT count(*) FROM a").await,
        rows(&[&["1200"]])
    );
}
