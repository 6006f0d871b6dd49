//! Issue 2: "A SELECT sees every write acknowledged before it began, also from other sessions."
//! One session writes; as soon as the write is acknowledged, another session reads the table
//! and a materialized view over it and must see the write.

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_in_another_session_sees_acknowledged_insert() {
    let kpg = KpgServer::start().await;
    let writer = kpg.connect().await;
    let reader = kpg.connect().await;
    execute(
        &writer,
        "CREATE TABLE events (id int4, kind text, amount int8)",
    )
    .await;
    execute(
        &writer,
        "CREATE MATERIALIZED VIEW totals AS SELECT kind, count(*) AS n, sum(amount) AS total FROM events GROUP BY kind",
    )
    .await;
    // The DDL of one session is visible to the other right away, too.
    assert_eq!(query(&reader, "SELECT * FROM events").await, rows(&[]));
    assert_eq!(query(&reader, "SELECT * FROM totals").await, rows(&[]));

    for i in 1..=25i64 {
        let n = execute(
            &writer,
            &format!("INSERT INTO events VALUES ({i}, 'click', {i})"),
        )
        .await;
        assert_eq!(n, 1);
        // Immediately after the acknowledgement, from the other session.
        let got = query(&reader, "SELECT id FROM events").await;
        assert_eq!(got.len() as i64, i, "table read after insert #{i}: {got:?}");
        let got = query(&reader, "SELECT n, total FROM totals WHERE kind = 'click'").await;
        let total = i * (i + 1) / 2;
        assert_eq!(
            got,
            rows(&[&[&i.to_string(), &total.to_string()]]),
            "view read after insert #{i}"
        );
    }

    // UPDATE and DELETE too.
    execute(&writer, "UPDATE events SET kind = 'view' WHERE id <= 5").await;
    assert_eq!(
        sorted(query(&reader, "SELECT kind, n, total FROM totals").await),
        rows(&[&["click", "20", "310"], &["view", "5", "15"]])
    );
    execute(&writer, "DELETE FROM events WHERE kind = 'click'").await;
    assert_eq!(
        query(&reader, "SELECT kind, n, total FROM totals").await,
        rows(&[&["view", "5", "15"]])
    );
    assert_eq!(
        query(&reader, "SELECT id FROM events ORDER BY id").await,
        rows(&[&["1"], &["2"], &["3"], &["4"], &["5"]])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_all_land() {
    let kpg = KpgServer::start().await;
    let admin = kpg.connect().await;
    execute(&admin, "CREATE TABLE hits (writer int4, seq int4)").await;
    execute(
        &admin,
        "CREATE MATERIALIZED VIEW per_writer AS SELECT writer, count(*) AS n, max(seq) AS last FROM hits GROUP BY writer",
    )
    .await;
    let mut tasks = Vec::new();
    for w in 0..4 {
        let c = kpg.connect().await;
        tasks.push(tokio::spawn(async move {
            for seq in 1..=20 {
                execute(&c, &format!("INSERT INTO hits VALUES ({w}, {seq})")).await;
                // Each writer reads its own writes through the view.
                let got = query(&c, &format!("SELECT n FROM per_writer WHERE writer = {w}")).await;
                assert_eq!(
                    got,
                    rows(&[&[&seq.to_string()]]),
                    "writer {w} after its insert #{seq}"
                );
            }
        }));
    }
    for t in tasks {
        t.await.expect("writer task");
    }
    let reader = kpg.connect().await;
    assert_eq!(
        query(&reader, "SELECT * FROM per_writer ORDER BY writer").await,
        rows(&[
            &["0", "20", "20"],
            &["1", "20", "20"],
            &["2", "20", "20"],
            &["3", "20", "20"]
        ])
    );
    assert_eq!(
        query(&reader, "SELECT writer, seq FROM hits").await.len(),
        80
    );
}
