//! Prepared-statement benchmark: the figures issue 16 asks for, kpg beside PostgreSQL 15 in the
//! same run, over loopback with tokio-postgres through the extended protocol (run with
//! `KPG_BIN=$PWD/target/release/kpg cargo bench -p kpg-tests --bench prepared`).
//!
//! - point lookup: `SELECT v FROM big WHERE k = $1` prepared once and executed with a new key
//!   each time, one client, on a 1M-row table indexed on `k` (kpg: `CREATE INDEX`, an
//!   arrangement; PostgreSQL: a btree); p50 and p99 over many lookups after a warm-up;
//! - inserts: `INSERT INTO log VALUES ($1, $2)` prepared once per client and executed (one row,
//!   autocommit) for a fixed time from 1 and 8 clients; PostgreSQL with `fsync` and
//!   `synchronous_commit` on, as kpg's data directory is durable.
//!
//! It prints figures and ratios; it checks the answers, never anything about time.
//! `KPG_PERF_DIR=dir` records a `perf` profile of kpg over its lookups and
//! its INSERTs (`dir/lookups.data`, `dir/inserts-<clients>.data`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::SinkExt;
use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

const ROWS: i64 = 1_000_000;
const LOOKUPS: usize = 5_000;
const WARM_UP: usize = 500;
const INSERT_DURATION: Duration = Duration::from_secs(4);
const CLIENTS: [usize; 2] = [1, 8];

fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize].as_secs_f64() * 1e3
}

async fn load(client: &Client) {
    execute(
        client,
        "CREATE TABLE big (k int8 NOT NULL, v int8 NOT NULL)",
    )
    .await;
    let sink = client.copy_in("COPY big FROM STDIN").await.expect("copy");
    let mut sink = Box::pin(sink);
    let mut chunk = String::new();
    for k in 0..ROWS {
        chunk.push_str(&format!("{k}\t{}\n", k * 7));
        if chunk.len() >= 1 << 20 {
            sink.send(bytes::Bytes::from(std::mem::take(&mut chunk)))
                .await
                .expect("send");
        }
    }
    sink.send(bytes::Bytes::from(chunk)).await.expect("send");
    sink.as_mut().finish().await.expect("finish");
}

/// p50 and p99 (ms) of prepared lookups of one key each.
async fn lookups(client: &Client) -> (f64, f64) {
    let stmt = client
        .prepare("SELECT v FROM big WHERE k = $1")
        .await
        .expect("prepare");
    let mut latencies = Vec::with_capacity(LOOKUPS);
    for i in 0..WARM_UP + LOOKUPS {
        let k = (i as i64 * 7_919) % ROWS;
        let started = Instant::now();
        let row = client.query_one(&stmt, &[&k]).await.expect("lookup");
        let elapsed = started.elapsed();
        assert_eq!(row.get::<_, i64>(0), k * 7, "the value of key {k}");
        if i >= WARM_UP {
            latencies.push(elapsed);
        }
    }
    latencies.sort();
    (
        percentile_ms(&latencies, 0.5),
        percentile_ms(&latencies, 0.99),
    )
}

/// Prepared single-row INSERTs per second from `clients` connections.
async fn inserts(clients: &[Arc<Client>], round: i64) -> f64 {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (n, client) in clients.iter().enumerate() {
        let client = Arc::clone(client);
        tasks.push(tokio::spawn(async move {
            let stmt = client
                .prepare("INSERT INTO log VALUES ($1, $2)")
                .await
                .expect("prepare");
            let mut done = 0u64;
            while started.elapsed() < INSERT_DURATION {
                let id = round * 1_000_000_000 + n as i64 * 10_000_000 + done as i64;
                client
                    .execute(&stmt, &[&id, &"payload"])
                    .await
                    .expect("insert");
                done += 1;
            }
            done
        }));
    }
    let mut total = 0;
    for t in tasks {
        total += t.await.expect("insert task");
    }
    total as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start_with_settings(&[
        ("fsync", "on"),
        ("synchronous_commit", "on"),
        ("full_page_writes", "on"),
        ("shared_buffers", "128MB"),
    ])
    .await;
    let (k, p) = (kpg.connect().await, pg.connect().await);
    let started = Instant::now();
    tokio::join!(load(&k), load(&p));
    execute(&k, "CREATE INDEX big_k ON big (k)").await;
    execute(&p, "CREATE INDEX big_k ON big (k)").await;
    execute(&p, "VACUUM ANALYZE big").await;
    println!(
        "loaded and indexed {ROWS} rows on both in {:.1}s",
        started.elapsed().as_secs_f64()
    );

    let perf = Perf::start(kpg.pid(), "lookups");
    let (k50, k99) = lookups(&k).await;
    perf.stop();
    let (p50, p99) = lookups(&p).await;
    println!(
        "prepared point lookup ({LOOKUPS} keys): kpg p50 {k50:.3} ms p99 {k99:.3} ms; \
         PostgreSQL p50 {p50:.3} ms p99 {p99:.3} ms; kpg/PG p50 {:.2}x p99 {:.2}x",
        k50 / p50,
        k99 / p99
    );

    for c in [&k, &p] {
        execute(c, "CREATE TABLE log (id int8, note text)").await;
    }
    for (round, n) in CLIENTS.into_iter().enumerate() {
        let mut kc = Vec::new();
        let mut pc = Vec::new();
        for _ in 0..n {
            kc.push(Arc::new(kpg.connect().await));
            pc.push(Arc::new(pg.connect().await));
        }
        let perf = Perf::start(kpg.pid(), &format!("inserts-{n}"));
        let kr = inserts(&kc, round as i64 * 2).await;
        perf.stop();
        let pr = inserts(&pc, round as i64 * 2 + 1).await;
        println!(
            "prepared single-row INSERT, {n} client(s), {:.0} s each: kpg {kr:.0}/s, \
             PostgreSQL {pr:.0}/s; kpg/PG {:.2}",
            INSERT_DURATION.as_secs_f64(),
            kr / pr
        );
    }
    let kn = query(&k, "SELECT count(*) FROM log").await;
    let pn = query(&p, "SELECT count(*) FROM log").await;
    println!(
        "rows inserted: kpg {}, PostgreSQL {}",
        cell(&kn[0][0]),
        cell(&pn[0][0])
    );
}
