//! Serving benchmark: the figures issue 5 asks for, measured over loopback pgwire against a
//! release `kpg` (run with `KPG_BIN=$PWD/target/release/kpg cargo bench -p kpg-tests --bench serving`).
//!
//! - peek: one key looked up in a 1M-row indexed table, one client, p50/p99 over many queries;
//! - install: a materialized view joining a 100-row table against the 1M-row table, time until
//!   its first complete result is readable, with the 1M side indexed by the join key and without;
//! - sharing: RSS of the server before and after ten views that read one index.
//!
//! It prints figures; it asserts nothing about time (machines are shared and noisy).

use std::time::{Duration, Instant};

use futures::SinkExt;
use kpg_tests::*;

const ROWS: u64 = 1_000_000;

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn load(client: &tokio_postgres::Client, table: &str, rows: impl Iterator<Item = String>) {
    let sink = client
        .copy_in(&format!("COPY {table} FROM STDIN"))
        .await
        .expect("copy");
    let mut sink = Box::pin(sink);
    let mut chunk = String::new();
    for line in rows {
        chunk.push_str(&line);
        chunk.push('\n');
        if chunk.len() > 1 << 20 {
            sink.send(bytes::Bytes::from(std::mem::take(&mut chunk)))
                .await
                .expect("send");
        }
    }
    sink.send(bytes::Bytes::from(chunk)).await.expect("send");
    sink.as_mut().finish().await.expect("finish");
}

/// Seconds until `SELECT count(*) FROM view` answers after the view is created.
async fn install(client: &tokio_postgres::Client, name: &str, query: &str) -> Duration {
    let start = Instant::now();
    execute(
        client,
        &format!("CREATE MATERIALIZED VIEW {name} AS {query}"),
    )
    .await;
    let n = query_rows(client, &format!("SELECT count(*) FROM {name}")).await;
    let elapsed = start.elapsed();
    assert_eq!(n, "100", "every small row meets one big row");
    elapsed
}

async fn query_rows(client: &tokio_postgres::Client, sql: &str) -> String {
    query(client, sql).await[0][0].clone().expect("a value")
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    let pid = kpg.pid();
    execute(&c, "CREATE TABLE big (k int8 NOT NULL, v int8 NOT NULL)").await;
    execute(&c, "CREATE TABLE small (k int8 NOT NULL, tag text)").await;
    let started = Instant::now();
    load(&c, "big", (0..ROWS).map(|k| format!("{k}\t{}", k * 7))).await;
    load(
        &c,
        "small",
        (0..100u64).map(|i| format!("{}\tt{i}", i * 9_973)),
    )
    .await;
    println!(
        "loaded {ROWS} rows in {:.1}s",
        started.elapsed().as_secs_f64()
    );

    // Install without an index on big.k.
    let join = "SELECT s.tag, b.v FROM small s JOIN big b ON s.k = b.k";
    let cold = install(&c, "joined_cold", join).await;
    execute(&c, "DROP MATERIALIZED VIEW joined_cold").await;

    let started = Instant::now();
    execute(&c, "CREATE INDEX big_k ON big (k)").await;
    query_rows(&c, "SELECT count(*) FROM big WHERE k = 0").await;
    println!(
        "index on 1M rows built and readable in {:.1}s",
        started.elapsed().as_secs_f64()
    );

    // Peeks of one key through the index, one client.
    let mut latencies = Vec::new();
    for i in 0..2_000u64 {
        let k = (i * 7_919) % ROWS;
        let start = Instant::now();
        let v = query_rows(&c, &format!("SELECT v FROM big WHERE k = {k}")).await;
        latencies.push(start.elapsed());
        assert_eq!(v, (k * 7).to_string());
    }
    latencies.sort();
    println!(
        "peek one key of a 1M-row index (simple protocol, 2000 queries): p50 {:.3} ms, p99 {:.3} ms",
        percentile(&latencies, 0.5).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3
    );

    let warm = install(&c, "joined_warm", join).await;
    println!(
        "install of a 100-row x 1M-row join view to first complete result: {:.1} ms with the index, {:.1} ms without (ratio {:.2})",
        warm.as_secs_f64() * 1e3,
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() / cold.as_secs_f64()
    );

    let before = rss_kib(pid);
    for i in 0..10 {
        install(&c, &format!("shared_{i}"), join).await;
    }
    let after = rss_kib(pid);
    println!(
        "ten views reading the index: RSS {:.1} MiB -> {:.1} MiB (+{:.1} MiB, {:.2} MiB per view)",
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        (after - before) as f64 / 1024.0,
        (after - before) as f64 / 1024.0 / 10.0
    );
}
