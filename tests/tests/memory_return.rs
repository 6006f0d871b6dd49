//! Memory goes back to the system once what held it is dropped (issue 17): a table of 400k
//! rows, an index and a view over it raise kpg's resident set by hundreds of MiB; after they are
//! dropped and kpg is left alone, the resident set falls back near where it started (jemalloc's
//! background thread returns freed pages after its decay time; `server/src/main.rs`). Read
//! from `/proc/<pid>/status` of the server process.

use std::time::{Duration, Instant};

use kpg_tests::*;

fn rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/<pid>/status");
    kib / 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_tables_indexes_and_views_give_their_memory_back() {
    let kpg = KpgServer::start_with_workers(1).await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE t (a int, b text)").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let base = rss_mib(kpg.pid());
    execute(
        &c,
        "INSERT INTO t SELECT g, repeat('x', 100 + g % 50) || g FROM generate_series(1, 400000) g",
    )
    .await;
    execute(&c, "CREATE INDEX t_b ON t (b)").await;
    execute(
        &c,
        "CREATE MATERIALIZED VIEW v AS SELECT a % 1000 AS k, count(*) AS n, max(b) AS m FROM t \
         GROUP BY a % 1000",
    )
    .await;
    assert_eq!(
        query(&c, "SELECT sum(n) FROM v").await,
        rows(&[&["400000"]])
    );
    let peak = rss_mib(kpg.pid());
    assert!(
        peak >= base + 150,
        "the rows should take memory: {base} MiB before, {peak} MiB after"
    );
    execute(&c, "DROP MATERIALIZED VIEW v").await;
    execute(&c, "DROP INDEX t_b").await;
    execute(&c, "DROP TABLE t").await;
    // Back within a quarter of what the rows took, a few seconds after kpg goes quiet.
    let limit = base + (peak - base) / 4;
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut now = rss_mib(kpg.pid());
    while now > limit && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(250)).await;
        now = rss_mib(kpg.pid());
    }
    eprintln!("RSS: {base} MiB before the rows, {peak} MiB with them, {now} MiB after the drops");
    assert!(
        now <= limit,
        "RSS {now} MiB 30 s after the drops: {base} MiB before the rows, {peak} MiB with them"
    );
}
