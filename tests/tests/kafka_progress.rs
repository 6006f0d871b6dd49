//! The progress relation of a Kafka source (`<source>_progress`, issue 19), against a real
//! broker: one row per partition with the next offset to read, written in the same commit as
//! the records it covers — so every read (here, while records keep arriving) sees offsets that
//! match the source's own rows exactly — kept across a kpg restart, read-only, and dropped with
//! its source.

use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// Partitions whose progress row disagrees with the source's rows, read at one timestamp: the
/// next offset must be one past the largest offset read (0 for a partition without records).
const MISMATCHES: &str = "SELECT count(*) FROM p_progress g LEFT JOIN \
    (SELECT part, max(\"offset\") + 1 AS next FROM p GROUP BY part) s ON s.part = g.partition \
    WHERE g.\"offset\" <> coalesce(s.next, 0)";

async fn progress(c: &Client) -> Rows {
    query(
        c,
        "SELECT partition, \"offset\" FROM p_progress ORDER BY partition",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_relation_binds_offsets_to_the_data() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("p", 3).await;
    let values =
        |from: usize, to: usize| -> Vec<String> { (from..to).map(|i| i.to_string()).collect() };
    let produce = |vals: Vec<String>, partition: i32| {
        let v: Vec<&str> = vals.iter().map(String::as_str).collect();
        kafka.produce_values("p", &v, Some(partition));
    };
    produce(values(0, 5), 0);
    produce(values(5, 8), 1);
    let c = kpg.connect().await;
    let b = kafka.broker();
    execute(
        &c,
        &format!(
            "CREATE SOURCE p (n int) FROM KAFKA BROKER '{b}' TOPIC 'p' FORMAT CSV \
             INCLUDE PARTITION AS part, OFFSET"
        ),
    )
    .await;
    wait_for(&c, "SELECT count(*) FROM p", "8").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while progress(&c).await != rows(&[&["0", "5"], &["1", "3"], &["2", "0"]]) {
        assert!(Instant::now() < deadline, "{:?}", progress(&c).await);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // While records keep arriving, every read sees progress and rows of the same batches.
    let mut reads = 0;
    for round in 0..20 {
        let from = 8 + round * 30;
        produce(values(from, from + 30), (round % 3) as i32);
        for _ in 0..3 {
            assert_eq!(
                query(&c, MISMATCHES).await,
                rows(&[&["0"]]),
                "round {round}"
            );
            reads += 1;
        }
    }
    assert_eq!(reads, 60);
    wait_for(&c, "SELECT sum(\"offset\") FROM p_progress", "608").await;
    // A view over it is maintained like any other.
    execute(
        &c,
        "CREATE MATERIALIZED VIEW read_up_to AS SELECT sum(\"offset\") AS total FROM p_progress",
    )
    .await;
    wait_for(&c, "SELECT total FROM read_up_to", "608").await;
    // Kept across a restart, and still in step with the rows.
    drop(c);
    kpg.kill();
    produce(values(1000, 1010), 2);
    kpg.restart().await;
    let c = kpg.connect().await;
    wait_for(&c, "SELECT sum(\"offset\") FROM p_progress", "618").await;
    wait_for(&c, "SELECT total FROM read_up_to", "618").await;
    assert_eq!(query(&c, MISMATCHES).await, rows(&[&["0"]]));
    assert_eq!(
        query(&c, "SELECT count(*) FROM p_progress").await,
        rows(&[&["3"]])
    );
    // Read-only, not dropped on its own, and its name is taken before the source is made.
    let (code, _) = expect_error(&c, "INSERT INTO p_progress VALUES (9, 9)").await;
    assert_eq!(code, "42809");
    let (code, _) = expect_error(&c, "DROP SOURCE p_progress").await;
    assert_eq!(code, "0A000");
    execute(&c, "CREATE TABLE q_progress (a int)").await;
    let (code, msg) = expect_error(
        &c,
        &format!("CREATE SOURCE q FROM KAFKA BROKER '{b}' TOPIC 'p' FORMAT TEXT"),
    )
    .await;
    assert_eq!(code, "42P07", "{msg}");
    assert!(msg.contains("q_progress"), "{msg}");
    // Dropped with its source.
    execute(&c, "DROP SOURCE p CASCADE").await;
    let (code, _) = expect_error(&c, "SELECT * FROM p_progress").await;
    assert_eq!(code, "42P01");
    assert_eq!(query(&c, "SHOW SOURCES").await, rows(&[]));
}
