//! Issue 2: `COPY (SUBSCRIBE v) TO STDOUT` streams `mz_timestamp, mz_diff, <columns>`: the
//! snapshot first (all at one timestamp), then every change made by other sessions, until the
//! client cancels or disconnects. Read here with tokio-postgres `copy_out` (which sends the
//! statement through the extended protocol: Parse/Describe/Bind/Execute); `psql.rs` covers the
//! simple protocol.

use std::time::Duration;

use kpg_tests::tokio_postgres::NoTls;
use kpg_tests::*;

async fn setup(kpg: &KpgServer) -> tokio_postgres::Client {
    let c = kpg.connect().await;
    execute(
        &c,
        "CREATE TABLE accounts (id int4, owner text, balance numeric(10,2), active boolean)",
    )
    .await;
    execute(
        &c,
        "INSERT INTO accounts VALUES (1, 'ann', 10.00, true), (2, 'bob', 20.50, true), (3, 'cid', 0, false)",
    )
    .await;
    execute(
        &c,
        "CREATE MATERIALIZED VIEW active_accounts AS SELECT id, owner, balance FROM accounts WHERE active",
    )
    .await;
    c
}

fn assert_non_decreasing(rows: &[SubRow]) {
    for w in rows.windows(2) {
        assert!(
            w[0].ts <= w[1].ts,
            "mz_timestamp went backwards: {:?} then {:?}",
            w[0],
            w[1]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_sees_snapshot_then_inserts_updates_deletes() {
    let kpg = KpgServer::start().await;
    let writer = setup(&kpg).await;
    let sub_client = kpg.connect().await;
    let mut sub = Subscription::start(&sub_client, "COPY (SUBSCRIBE active_accounts) TO STDOUT")
        .await
        .unwrap_or_else(|e| panic!("COPY (SUBSCRIBE ...) failed: {}", describe_error(&e)));

    // Snapshot: both active accounts, diff +1, one timestamp.
    let snapshot = sub
        .read_until(&[
            (srow(&["1", "ann", "10.00"]), 1),
            (srow(&["2", "bob", "20.50"]), 1),
        ])
        .await;
    assert!(
        snapshot.iter().all(|r| r.diff > 0),
        "snapshot has retractions: {snapshot:?}"
    );
    let snap_ts = snapshot[0].ts;
    assert!(
        snapshot.iter().all(|r| r.ts == snap_ts),
        "snapshot spans timestamps: {snapshot:?}"
    );
    assert_eq!(
        snapshot[0].cols.len(),
        3,
        "columns after mz_timestamp, mz_diff: {snapshot:?}"
    );

    // INSERT from another connection.
    execute(
        &writer,
        "INSERT INTO accounts VALUES (4, 'dee', 4.25, true)",
    )
    .await;
    let ins = sub.read_until(&[(srow(&["4", "dee", "4.25"]), 1)]).await;
    assert!(
        ins[0].ts > snap_ts,
        "change at {} not after snapshot at {snap_ts}",
        ins[0].ts
    );

    // A row the view filters out produces nothing; the next matching insert comes next.
    execute(
        &writer,
        "INSERT INTO accounts VALUES (5, 'eve', 5.00, false)",
    )
    .await;
    execute(
        &writer,
        "INSERT INTO accounts VALUES (6, 'fay', 6.00, true)",
    )
    .await;
    let ins2 = sub.read_until(&[(srow(&["6", "fay", "6.00"]), 1)]).await;
    assert!(ins2[0].ts > ins[0].ts);

    // DELETE: a retraction.
    execute(&writer, "DELETE FROM accounts WHERE id = 1").await;
    let del = sub.read_until(&[(srow(&["1", "ann", "10.00"]), -1)]).await;
    assert_eq!(del[0].diff, -1);

    // UPDATE: retraction of the old row and insertion of the new one, at one timestamp.
    execute(
        &writer,
        "UPDATE accounts SET balance = balance + 1 WHERE id = 2",
    )
    .await;
    let upd = sub
        .read_until(&[
            (srow(&["2", "bob", "20.50"]), -1),
            (srow(&["2", "bob", "21.50"]), 1),
        ])
        .await;
    assert!(
        upd.iter().all(|r| r.ts == upd[0].ts),
        "one UPDATE, one timestamp: {upd:?}"
    );

    // An UPDATE that moves a row out of the view.
    execute(&writer, "UPDATE accounts SET active = false WHERE id = 4").await;
    sub.read_until(&[(srow(&["4", "dee", "4.25"]), -1)]).await;

    // A multi-row INSERT is one write: one timestamp.
    execute(
        &writer,
        "INSERT INTO accounts VALUES (7, 'gus', 7.00, true), (8, 'hal', 8.00, true)",
    )
    .await;
    let multi = sub
        .read_until(&[
            (srow(&["7", "gus", "7.00"]), 1),
            (srow(&["8", "hal", "8.00"]), 1),
        ])
        .await;
    assert!(
        multi.iter().all(|r| r.ts == multi[0].ts),
        "one INSERT, one timestamp: {multi:?}"
    );

    assert_non_decreasing(&sub.received);
    // Nothing else arrives while nobody writes.
    sub.expect_quiet(Duration::from_millis(500)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_to_grouped_join_view() {
    let kpg = KpgServer::start().await;
    let writer = kpg.connect().await;
    execute(&writer, "CREATE TABLE owners (id int4, region text)").await;
    execute(
        &writer,
        "CREATE TABLE pets (owner_id int4, name text, age int4)",
    )
    .await;
    execute(
        &writer,
        "INSERT INTO owners VALUES (1, 'north'), (2, 'south')",
    )
    .await;
    execute(
        &writer,
        "INSERT INTO pets VALUES (1, 'rex', 3), (1, 'tom', 5), (2, 'kit', 1)",
    )
    .await;
    execute(
        &writer,
        "CREATE MATERIALIZED VIEW pets_per_region AS SELECT o.region, count(*) AS n, sum(p.age) AS ages, \
         max(p.name) AS last_name FROM pets p JOIN owners o ON p.owner_id = o.id GROUP BY o.region",
    )
    .await;
    let sub_client = kpg.connect().await;
    let mut sub = Subscription::start(&sub_client, "COPY (SUBSCRIBE pets_per_region) TO STDOUT")
        .await
        .unwrap_or_else(|e| panic!("COPY (SUBSCRIBE ...) failed: {}", describe_error(&e)));
    sub.read_until(&[
        (srow(&["north", "2", "8", "tom"]), 1),
        (srow(&["south", "1", "1", "kit"]), 1),
    ])
    .await;
    execute(&writer, "INSERT INTO pets VALUES (2, 'zed', 10)").await;
    sub.read_until(&[
        (srow(&["south", "1", "1", "kit"]), -1),
        (srow(&["south", "2", "11", "zed"]), 1),
    ])
    .await;
    // A new owner row makes an orphan pet join.
    execute(&writer, "INSERT INTO pets VALUES (3, 'ace', 2)").await;
    execute(&writer, "INSERT INTO owners VALUES (3, 'east')").await;
    sub.read_until(&[(srow(&["east", "1", "2", "ace"]), 1)])
        .await;
    // Deleting the owner retracts the group.
    execute(&writer, "DELETE FROM owners WHERE id = 3").await;
    sub.read_until(&[(srow(&["east", "1", "2", "ace"]), -1)])
        .await;
    assert_non_decreasing(&sub.received);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_subscribers_and_empty_snapshot() {
    let kpg = KpgServer::start().await;
    let writer = kpg.connect().await;
    execute(&writer, "CREATE TABLE t (k int4, v text)").await;
    execute(
        &writer,
        "CREATE MATERIALIZED VIEW v AS SELECT k, v FROM t WHERE k > 0",
    )
    .await;
    let (c1, c2) = (kpg.connect().await, kpg.connect().await);
    let mut s1 = Subscription::start(&c1, "COPY (SUBSCRIBE v) TO STDOUT")
        .await
        .expect("subscribe 1");
    let mut s2 = Subscription::start(&c2, "COPY (SUBSCRIBE v) TO STDOUT")
        .await
        .expect("subscribe 2");
    // Empty view: nothing until the first write.
    s1.expect_quiet(Duration::from_millis(300)).await;
    execute(
        &writer,
        "INSERT INTO t VALUES (1, 'one'), (-1, 'minus one'), (2, NULL)",
    )
    .await;
    for s in [&mut s1, &mut s2] {
        let got = s
            .read_until(&[(srow(&["1", "one"]), 1), (srow(&["2", "NULL"]), 1)])
            .await;
        assert!(got.iter().all(|r| r.ts == got[0].ts));
    }
    execute(&writer, "DELETE FROM t").await;
    for s in [&mut s1, &mut s2] {
        s.read_until(&[(srow(&["1", "one"]), -1), (srow(&["2", "NULL"]), -1)])
            .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_ends_on_cancel_and_session_goes_on() {
    let kpg = KpgServer::start().await;
    let writer = setup(&kpg).await;
    let sub_client = kpg.connect().await;
    let mut sub = Subscription::start(&sub_client, "COPY (SUBSCRIBE active_accounts) TO STDOUT")
        .await
        .expect("subscribe");
    sub.read_until(&[
        (srow(&["1", "ann", "10.00"]), 1),
        (srow(&["2", "bob", "20.50"]), 1),
    ])
    .await;

    sub_client
        .cancel_token()
        .cancel_query(NoTls)
        .await
        .expect("send cancel request");
    // The stream ends with "canceling statement due to user request" (57014), as in
    // PostgreSQL and Materialize.
    match sub.try_next(STEP_TIMEOUT).await {
        Ok(Some(row)) => panic!("row after cancel: {row:?}"),
        Err(NextError::Pg(e)) => assert_eq!(
            sqlstate(&e).as_deref(),
            Some("57014"),
            "{}",
            describe_error(&e)
        ),
        other => panic!("expected the subscription to end with SQLSTATE 57014, got {other:?}"),
    }
    drop(sub);
    // The session is usable again.
    assert_eq!(
        query(&sub_client, "SELECT id FROM active_accounts ORDER BY id").await,
        rows(&[&["1"], &["2"]])
    );
    // And the server goes on serving writes and new subscriptions.
    execute(
        &writer,
        "INSERT INTO accounts VALUES (9, 'ivy', 9.00, true)",
    )
    .await;
    let mut again = Subscription::start(&sub_client, "COPY (SUBSCRIBE active_accounts) TO STDOUT")
        .await
        .expect("subscribe again");
    again
        .read_until(&[
            (srow(&["1", "ann", "10.00"]), 1),
            (srow(&["2", "bob", "20.50"]), 1),
            (srow(&["9", "ivy", "9.00"]), 1),
        ])
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriber_disconnect_leaves_server_healthy() {
    let mut kpg = KpgServer::start().await;
    let writer = setup(&kpg).await;
    for _ in 0..3 {
        let c = kpg.connect().await;
        let mut sub = Subscription::start(&c, "COPY (SUBSCRIBE active_accounts) TO STDOUT")
            .await
            .expect("subscribe");
        sub.read_until(&[
            (srow(&["1", "ann", "10.00"]), 1),
            (srow(&["2", "bob", "20.50"]), 1),
        ])
        .await;
        drop(sub);
        drop(c); // closes the socket mid-stream
    }
    // Writes after the subscribers vanished still work, and reads see them.
    for i in 10..20 {
        execute(
            &writer,
            &format!("INSERT INTO accounts VALUES ({i}, 'x', 1, true)"),
        )
        .await;
    }
    assert_eq!(
        query(&writer, "SELECT id FROM active_accounts").await.len(),
        12
    );
    assert!(kpg.is_running(), "kpg exited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_to_unknown_view_is_an_error() {
    let kpg = KpgServer::start().await;
    let c = setup(&kpg).await;
    match Subscription::start(&c, "COPY (SUBSCRIBE no_such_view) TO STDOUT").await {
        Ok(_) => panic!("subscribing to an unknown view succeeded"),
        Err(e) => {
            assert_eq!(
                sqlstate(&e).as_deref(),
                Some("42P01"),
                "{}",
                describe_error(&e)
            );
            assert!(
                describe_error(&e).contains("no_such_view"),
                "{}",
                describe_error(&e)
            );
        }
    }
    assert_eq!(
        query(&c, "SELECT id FROM active_accounts ORDER BY id").await,
        rows(&[&["1"], &["2"]])
    );
}

/// Describe says what Execute sends: a bare SUBSCRIBE's rows (`mz_timestamp`,
/// [`mz_progressed`,] `mz_diff` and the columns), which the extended protocol streams as
/// DataRows; no rows for `COPY (SUBSCRIBE ...) TO STDOUT` (COPY data), with or without
/// parameters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_is_described_as_it_streams() {
    let kpg = KpgServer::start().await;
    let c = setup(&kpg).await;
    let columns = |st: &tokio_postgres::Statement| -> Vec<(String, String)> {
        st.columns()
            .iter()
            .map(|c| (c.name().to_string(), c.type_().name().to_string()))
            .collect()
    };
    let bare = c
        .prepare("SUBSCRIBE active_accounts")
        .await
        .expect("prepare");
    let expected = [
        ("mz_timestamp", "int8"),
        ("mz_diff", "int8"),
        ("id", "int4"),
        ("owner", "text"),
        ("balance", "numeric"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    assert_eq!(columns(&bare), expected);
    let progress = c
        .prepare("SUBSCRIBE (SELECT id FROM accounts WHERE id > $1) WITH (PROGRESS)")
        .await
        .expect("prepare");
    let names: Vec<String> = columns(&progress).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["mz_timestamp", "mz_progressed", "mz_diff", "id"]);
    for sql in [
        "COPY (SUBSCRIBE active_accounts) TO STDOUT",
        "COPY (SUBSCRIBE (SELECT id FROM accounts WHERE id > $1)) TO STDOUT",
    ] {
        let st = c.prepare(sql).await.expect("prepare");
        assert!(columns(&st).is_empty(), "{sql}: {:?}", columns(&st));
    }
    // And the bare SUBSCRIBE streams rows of those columns: the snapshot's first row.
    let rows = c
        .query_raw(&bare, std::iter::empty::<i32>())
        .await
        .expect("SUBSCRIBE");
    let first = first_row(rows).await;
    assert_eq!(first.get::<_, i64>("mz_diff"), 1);
    assert!([1, 2].contains(&first.get::<_, i32>("id")));

    // With a parameter, the stream reads the value bound to it: the snapshot is the rows
    // with id > 2, one row.
    let other = kpg.connect().await;
    let filtered = other
        .prepare("SUBSCRIBE (SELECT id FROM accounts WHERE id > $1)")
        .await
        .expect("prepare");
    let rows = other
        .query_raw(&filtered, [2i32])
        .await
        .expect("SUBSCRIBE with a parameter");
    let first = first_row(rows).await;
    assert_eq!(
        (first.get::<_, i64>("mz_diff"), first.get::<_, i32>("id")),
        (1, 3)
    );
}

/// The first row a streamed SUBSCRIBE sends (within 10 s); the stream is dropped after it.
async fn first_row(rows: tokio_postgres::RowStream) -> tokio_postgres::Row {
    let mut rows = Box::pin(rows);
    tokio::time::timeout(Duration::from_secs(10), futures::StreamExt::next(&mut rows))
        .await
        .expect("a row within 10 s")
        .expect("a row")
        .expect("no error")
}

/// A SUBSCRIBE inside a transaction block is a read: it streams, as outside one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_streams_inside_a_block() {
    let kpg = KpgServer::start().await;
    let mut c = setup(&kpg).await;
    let block = c.transaction().await.expect("BEGIN");
    let rows = block
        .query_raw("SUBSCRIBE active_accounts", std::iter::empty::<i32>())
        .await
        .expect("SUBSCRIBE in a block");
    let first = first_row(rows).await;
    assert_eq!(first.get::<_, i64>("mz_diff"), 1);
}
