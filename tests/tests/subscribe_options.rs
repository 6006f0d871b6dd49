//! SUBSCRIBE options and cursors (issue 5): `WITH (SNAPSHOT = false)`, `WITH (PROGRESS)`,
//! `AS OF ts [UP TO ts]`, `AS OF AT LEAST`, and `DECLARE c CURSOR FOR SUBSCRIBE ...` read with
//! `FETCH [n | ALL] c [WITH (TIMEOUT = ...)]`. Query cursors (`DECLARE ... FOR SELECT`) are
//! compared with PostgreSQL's.

use std::time::Duration;

use futures::StreamExt;
use kpg_tests::tokio_postgres::{Client, SimpleQueryMessage};
use kpg_tests::*;

const WAIT: Duration = Duration::from_secs(20);

async fn next(sub: &mut Subscription) -> SubRow {
    sub.try_next(WAIT)
        .await
        .expect("a subscription row")
        .expect("the subscription is open")
}

/// The rows of a simple-protocol statement, as text.
async fn simple_rows(c: &Client, sql: &str) -> Vec<Vec<Option<String>>> {
    let messages = c
        .simple_query(sql)
        .await
        .unwrap_or_else(|e| panic!("`{sql}`: {}", describe_error(&e)));
    messages
        .into_iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => {
                Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_progress_as_of_and_up_to() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE t (a int4)").await;
    execute(&c, "INSERT INTO t VALUES (1), (2)").await;

    // SNAPSHOT = false: the first row is the first change, not the contents.
    let s1 = kpg.connect().await;
    let mut quiet =
        Subscription::start(&s1, "COPY (SUBSCRIBE t WITH (SNAPSHOT = false)) TO STDOUT")
            .await
            .unwrap();
    // A plain subscription records the timestamps of the changes below.
    let s2 = kpg.connect().await;
    let mut all = Subscription::start(&s2, "COPY (SUBSCRIBE t) TO STDOUT")
        .await
        .unwrap();
    let (a, b) = (next(&mut all).await, next(&mut all).await);
    assert_eq!(
        (a.ts, a.diff, b.ts, b.diff),
        (a.ts, 1, a.ts, 1),
        "snapshot {a:?} {b:?}"
    );
    execute(&c, "INSERT INTO t VALUES (3)").await;
    let first = next(&mut quiet).await;
    assert_eq!(
        (first.diff, first.cols.clone()),
        (1, vec![Some("3".into())])
    );
    let ts3 = next(&mut all).await.ts;
    execute(&c, "DELETE FROM t WHERE a = 1").await;
    let ts_del = next(&mut all).await.ts;
    execute(&c, "INSERT INTO t VALUES (4)").await;
    let ts4 = next(&mut all).await.ts;
    assert!(ts3 < ts_del && ts_del < ts4);

    // AS OF ts3 UP TO ts4: the contents at ts3, the delete, and then the end (4 is not seen).
    let s3 = kpg.connect().await;
    let mut window = Subscription::start(
        &s3,
        &format!("COPY (SUBSCRIBE t AS OF {ts3} UP TO {ts4}) TO STDOUT"),
    )
    .await
    .unwrap();
    let mut got = Vec::new();
    while let Some(row) = window.try_next(WAIT).await.expect("rows, then the end") {
        got.push((row.ts, row.diff, row.cols[0].clone().unwrap()));
    }
    got.sort();
    let want: Vec<(u64, i64, String)> = vec![
        (ts3, 1, "1".into()),
        (ts3, 1, "2".into()),
        (ts3, 1, "3".into()),
        (ts_del, -1, "1".into()),
    ];
    assert_eq!(got, want);

    // PROGRESS: an mz_progressed column; progress rows advance with NULL mz_diff and columns.
    let s4 = kpg.connect().await;
    let stream = s4
        .copy_out("COPY (SUBSCRIBE t WITH (SNAPSHOT = false, PROGRESS = true)) TO STDOUT")
        .await
        .unwrap();
    let mut stream = Box::pin(stream);
    let mut text = String::new();
    while text.matches('\n').count() < 3 {
        let chunk = tokio::time::timeout(WAIT, stream.next())
            .await
            .expect("progress rows")
            .expect("the stream is open")
            .unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    let mut last = 0u64;
    for line in text.lines().take(3) {
        let fields = decode_copy_line(line);
        assert_eq!(
            fields[1..],
            [Some("t".into()), None, None],
            "a progress row: {line:?}"
        );
        let ts: u64 = fields[0].as_deref().unwrap().parse().unwrap();
        assert!(ts > last, "progress advances: {line:?} after {last}");
        last = ts;
    }
    drop(stream);

    // A time compacted away is refused; AT LEAST moves up to a readable time.
    let (code, _) = expect_error(&c, "SUBSCRIBE t AS OF 5").await;
    assert_eq!(code, "22023");
    let s5 = kpg.connect().await;
    let mut at_least = Subscription::start(&s5, "COPY (SUBSCRIBE t AS OF AT LEAST 5) TO STDOUT")
        .await
        .unwrap();
    let row = next(&mut at_least).await;
    assert_eq!(row.diff, 1, "{row:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursors_over_subscriptions() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE t (a int4, b text)").await;
    execute(&c, "INSERT INTO t VALUES (1, 'x'), (2, 'y')").await;
    let reader = kpg.connect().await;
    simple_rows(&reader, "BEGIN").await;
    simple_rows(&reader, "DECLARE c CURSOR FOR SUBSCRIBE t").await;
    let mut snapshot = simple_rows(&reader, "FETCH ALL c WITH (TIMEOUT = '5s')").await;
    // FETCH ALL returns what is ready once the first row is there: the whole snapshot.
    while snapshot.len() < 2 {
        snapshot.extend(simple_rows(&reader, "FETCH ALL c WITH (TIMEOUT = '5s')").await);
    }
    let mut values: Vec<_> = snapshot
        .iter()
        .map(|r| (r[1].clone(), r[2].clone(), r[3].clone()))
        .collect();
    values.sort();
    assert_eq!(
        values,
        vec![
            (Some("1".into()), Some("1".into()), Some("x".into())),
            (Some("1".into()), Some("2".into()), Some("y".into()))
        ]
    );
    // Nothing new: a zero timeout returns no rows at once.
    assert!(simple_rows(&reader, "FETCH 10 c WITH (TIMEOUT = '0s')")
        .await
        .is_empty());
    // A FETCH without timeout waits for the next change, made by another session.
    let fetch = tokio::spawn(async move {
        let rows = simple_rows(&reader, "FETCH 1 c").await;
        (reader, rows)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    execute(&c, "DELETE FROM t WHERE a = 2").await;
    let (reader, rows) = tokio::time::timeout(WAIT, fetch).await.unwrap().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0][1..],
        [Some("-1".into()), Some("2".into()), Some("y".into())]
    );
    simple_rows(&reader, "CLOSE c").await;
    let (code, _) = expect_error(&reader, "FETCH 1 c").await;
    assert_eq!(code, "34000");
    simple_rows(&reader, "ROLLBACK").await;

    // PROGRESS through a cursor: progress rows have NULL mz_diff and columns.
    simple_rows(&reader, "BEGIN").await;
    simple_rows(
        &reader,
        "DECLARE p CURSOR FOR SUBSCRIBE t WITH (SNAPSHOT = false, PROGRESS)",
    )
    .await;
    let rows = simple_rows(&reader, "FETCH 1 p WITH (TIMEOUT = '5s')").await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][1..], [Some("t".into()), None, None, None]);
    simple_rows(&reader, "COMMIT").await;
    // Cursors end with their transaction.
    let (code, _) = expect_error(&reader, "FETCH 1 p").await;
    assert_eq!(code, "34000");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_cursors_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (a int4, b text)").await;
    s.exec("INSERT INTO t VALUES (3, 'c'), (1, 'a'), (2, NULL), (4, 'd')")
        .await;
    for (k, p) in [(&s.kpg, &s.pg)] {
        for sql in [
            "BEGIN",
            "DECLARE q CURSOR FOR SELECT a, b FROM t ORDER BY a",
        ] {
            simple_rows(k, sql).await;
            simple_rows(p, sql).await;
        }
        for sql in ["FETCH 2 q", "FETCH q", "FETCH ALL q", "FETCH ALL q"] {
            assert_eq!(
                simple_rows(k, sql).await,
                simple_rows(p, sql).await,
                "{sql}"
            );
        }
        for sql in ["CLOSE q", "COMMIT"] {
            simple_rows(k, sql).await;
            simple_rows(p, sql).await;
        }
    }
    // Outside a transaction block, and an unknown cursor: PostgreSQL's SQLSTATEs.
    s.check_error("DECLARE q CURSOR FOR SELECT a FROM t").await;
    s.check_error("FETCH 1 nope").await;
}
