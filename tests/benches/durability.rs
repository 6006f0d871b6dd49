//! Durability benchmark: the figures issue 18 asks for, kpg (durable data directory, group
//! commit) side by side with PostgreSQL 15 run with `fsync`, `synchronous_commit` and
//! `full_page_writes` on, in the same run and on the same disk (run with
//! `KPG_BIN=$PWD/target/release/kpg cargo bench -p kpg-tests --bench durability`).
//!
//! - commits: single-row INSERTs (prepared, one row each, autocommit) into a table without
//!   indexes from 1, 8 and 32 clients, each on its own connection, for a fixed time each, with
//!   kpg's CPU time per commit (all its threads, from /proc: steadier than rates on a shared
//!   machine);
//! - bulk load: `COPY` of TPC-H lineitem at SF 0.1 into an empty table (two tables, one after
//!   the other), then the same rows again into the first, now full, table;
//! - restart: 1M rows and 10 materialized views over them, SIGKILL, time until every view
//!   answers again; the size of `kpg.redb` against the rows as COPY text (and PostgreSQL's
//!   size of the same table).
//!
//! `KPG_BENCH_ONLY=commits`, `copy` or `restart` (or several, comma-separated) runs only those
//! parts. `KPG_PERF_DIR=dir` also records `perf record -g` profiles of kpg over its first round
//! of each commit level and each COPY (`dir/commits-<clients>.data`, `dir/copy-<n>.data`;
//! `KPG_PERF_CALLGRAPH=dwarf` for call stacks, which release builds lack otherwise).
//!
//! It prints figures and ratios; it asserts that the rows arrived, never anything about time
//! (machines are shared and noisy).

use std::sync::Arc;
use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// How long each concurrency level of the commit benchmark runs, per server.
const COMMIT_DURATION: Duration = Duration::from_secs(5);
const CLIENTS: [usize; 3] = [1, 8, 32];
/// The levels run this many times, one after the other, and the medians are printed too (the
/// first round of PostgreSQL runs on a fresh cluster, and the machine is noisy).
const COMMIT_ROUNDS: usize = 3;
const TPCH_SF: f64 = 0.1;
const RESTART_ROWS: u64 = 1_000_000;
const RESTARTS: usize = 2;

/// PostgreSQL as a durable database: what the harness turns off for speed back on, and room
/// for 32 clients (the harness allows 30 connections).
const PG_DURABLE: [(&str, &str); 5] = [
    ("fsync", "on"),
    ("synchronous_commit", "on"),
    ("full_page_writes", "on"),
    ("max_connections", "100"),
    ("shared_buffers", "128MB"),
];

/// The 10 views of the restart measurement, over `big (k, g, v, s)`.
const VIEWS: [&str; 10] = [
    "SELECT g, count(*) AS n, sum(v) AS total FROM big GROUP BY g",
    "SELECT g % 10 AS b, min(v) AS lo, max(v) AS hi FROM big GROUP BY g % 10",
    "SELECT count(*) AS n, sum(v) AS total FROM big",
    "SELECT k, v FROM big WHERE k % 100 = 0",
    "SELECT DISTINCT g FROM big",
    "SELECT k % 7 AS b, avg(v) AS mean FROM big GROUP BY k % 7",
    "SELECT k, s FROM big WHERE v > 990",
    "SELECT g, max(k) AS top FROM big GROUP BY g",
    "SELECT k / 1000 AS b, sum(v) AS total FROM big GROUP BY k / 1000",
    "SELECT g, count(*) AS n FROM big WHERE k % 2 = 0 GROUP BY g",
];

/// The CPU time (user and system, all threads) process `pid` has used, in seconds: kpg's CPU
/// per commit is steadier than its rate on a shared machine.
fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return f64::NAN;
    };
    // After the command name (in parentheses): state is field 0, utime 11, stime 12.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) => (user + system) / per_second,
        _ => f64::NAN,
    }
}

/// Whether `KPG_BENCH_ONLY` (unset: everything) selects `part`.
fn selected(part: &str) -> bool {
    match std::env::var("KPG_BENCH_ONLY") {
        Ok(only) if !only.is_empty() => only.split(',').any(|p| p.trim() == part),
        _ => true,
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize].as_secs_f64() * 1e3
}

async fn one_value(client: &Client, sql: &str) -> String {
    query(client, sql).await[0][0].clone().expect("a value")
}

fn big_text() -> CopyText {
    CopyText::from_lines((0..RESTART_ROWS).map(|k| {
        let cents = (k * 7_919) % 100_000;
        format!(
            "{k}\t{}\t{}.{:02}\trow-{k:07}",
            k % 1000,
            cents / 100,
            cents % 100
        )
    }))
}

/// Commits per second of single-row INSERTs from `clients` connections over
/// [`COMMIT_DURATION`], and the sorted latencies of the commits.
async fn commit_rate(
    conn_str: &str,
    setup: &Client,
    table: &str,
    clients: usize,
) -> (f64, Vec<Duration>) {
    execute(
        setup,
        &format!("CREATE TABLE {table} (id int8, client int4, payload text)"),
    )
    .await;
    let mut conns = Vec::new();
    for _ in 0..clients {
        conns.push(connect_to(conn_str).await.expect("connect a client"));
    }
    let start = Arc::new(tokio::sync::Barrier::new(clients + 1));
    let mut tasks = Vec::new();
    for (c, conn) in conns.into_iter().enumerate() {
        let start = Arc::clone(&start);
        let sql = format!("INSERT INTO {table} VALUES ($1, $2, $3)");
        tasks.push(tokio::spawn(async move {
            let stmt = conn.prepare(&sql).await.expect("prepare INSERT");
            start.wait().await;
            let deadline = Instant::now() + COMMIT_DURATION;
            let mut latencies = Vec::new();
            let mut id = (c as i64) << 32;
            while Instant::now() < deadline {
                let payload = format!("client {c} row {id}");
                let t = Instant::now();
                let n = conn
                    .execute(&stmt, &[&id, &(c as i32), &payload])
                    .await
                    .expect("INSERT");
                latencies.push(t.elapsed());
                assert_eq!(n, 1);
                id += 1;
            }
            latencies
        }));
    }
    start.wait().await;
    let started = Instant::now();
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.expect("client task"));
    }
    let elapsed = started.elapsed();
    let stored: u64 = one_value(setup, &format!("SELECT count(*) FROM {table}"))
        .await
        .parse()
        .unwrap();
    assert_eq!(
        stored,
        latencies.len() as u64,
        "every acknowledged INSERT into {table} is there"
    );
    latencies.sort();
    (latencies.len() as f64 / secs(elapsed), latencies)
}

/// Every view's rows, sorted (to compare before and after a restart).
async fn view_contents(client: &Client) -> Vec<Rows> {
    let mut all = Vec::new();
    for i in 0..VIEWS.len() {
        all.push(sorted(query(client, &format!("SELECT * FROM v{i}")).await));
    }
    all
}

/// How long a view may take to answer after a restart before the benchmark gives up.
const VIEW_TIMEOUT: Duration = Duration::from_secs(600);

/// Waits until every view answers a count (longer than the harness's per-statement timeout:
/// after a restart the views are rebuilt from the table's rows, which takes as long as
/// creating them did).
async fn views_answer(client: &Client) {
    for i in 0..VIEWS.len() {
        let sql = format!("SELECT count(*) FROM v{i}");
        tokio::time::timeout(VIEW_TIMEOUT, client.simple_query(&sql))
            .await
            .unwrap_or_else(|_| panic!("v{i} did not answer within {VIEW_TIMEOUT:?}"))
            .expect("count a view");
    }
}

/// The seconds of the last "restored the catalog and tables" line of the server's log
/// (which may be coloured with ANSI escapes).
fn logged_restore_seconds(log: &str) -> Option<f64> {
    let line = log
        .lines()
        .rev()
        .find(|l| l.contains("restored the catalog and tables"))?;
    let mut plain = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters, ended by a letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    let rest = &plain[plain.find("seconds=")? + "seconds=".len()..];
    rest.split_whitespace().next()?.parse().ok()
}

fn file_size(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

fn dir_size(path: &std::path::Path) -> u64 {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        dir_size(&p)
                    } else {
                        file_size(&p)
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let (kpg, pg) = tokio::join!(
        KpgServer::start(),
        Postgres::start_with_settings(&PG_DURABLE)
    );
    let k = kpg.connect().await;
    let p = pg.connect().await;
    let version = one_value(&p, "SHOW server_version").await;
    let mut settings = Vec::new();
    for name in [
        "fsync",
        "synchronous_commit",
        "full_page_writes",
        "wal_level",
    ] {
        settings.push(format!(
            "{name}={}",
            one_value(&p, &format!("SHOW {name}")).await
        ));
    }
    println!("kpg: {} (2 workers)", kpg_bin().display());
    println!("PostgreSQL {version}: {}", settings.join(", "));
    println!(
        "both data directories under {}",
        std::env::temp_dir().display()
    );

    if selected("commits") {
        // 1. Single-row commits.
        println!(
            "\n1. single-row INSERT commits (prepared, autocommit, {} s per level)",
            COMMIT_DURATION.as_secs()
        );
        println!(
            "{:>5} | {:>7} | {:>13} | {:>12} | {:>6} | {:>18} | {:>18} | {:>14}",
            "round",
            "clients",
            "kpg commits/s",
            "PG commits/s",
            "kpg/PG",
            "kpg p50 / p99 ms",
            "PG p50 / p99 ms",
            "kpg CPU us/commit"
        );
        let mut rates: Vec<(usize, f64, f64, f64)> = Vec::new();
        for (round, clients) in (1..=COMMIT_ROUNDS).flat_map(|r| CLIENTS.map(|c| (r, c))) {
            let table = format!("ins_{round}_{clients}");
            let profile = if round == 1 {
                Perf::start(kpg.pid(), &format!("commits-{clients}"))
            } else {
                Perf::none()
            };
            let cpu_before = cpu_seconds(kpg.pid());
            let (kr, kl) = commit_rate(&kpg.conn_str_as("kpg"), &k, &table, clients).await;
            // Includes the table's CREATE and the count(*) check: small beside 5 s of commits.
            let cpu = (cpu_seconds(kpg.pid()) - cpu_before) * 1e6 / kl.len() as f64;
            profile.stop();
            let (pr, pl) = commit_rate(&pg.conn_str(), &p, &table, clients).await;
            rates.push((clients, kr, pr, cpu));
            println!(
                "{round:>5} | {clients:>7} | {kr:>13.0} | {pr:>12.0} | {:>6.2} | {:>8.2} / {:>7.2} | {:>8.2} / {:>7.2} | {cpu:>14.1}",
                kr / pr,
                percentile_ms(&kl, 0.5),
                percentile_ms(&kl, 0.99),
                percentile_ms(&pl, 0.5),
                percentile_ms(&pl, 0.99),
            );
        }
        for clients in CLIENTS {
            let median = |pick: fn(&(usize, f64, f64, f64)) -> f64| {
                let mut v: Vec<f64> = rates.iter().filter(|r| r.0 == clients).map(pick).collect();
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let (kr, pr, cpu) = (median(|r| r.1), median(|r| r.2), median(|r| r.3));
            println!(
                "{:>5} | {clients:>7} | {kr:>13.0} | {pr:>12.0} | {:>6.2} | {:>18} | {:>18} | {cpu:>14.1}",
                "med",
                kr / pr,
                "",
                ""
            );
        }
    }

    let mut kpg_lineitem = None;
    if selected("copy") {
        // 2. Bulk load.
        let started = Instant::now();
        let lineitem = CopyText::tpch("lineitem", TPCH_SF);
        println!(
            "\n2. COPY of TPC-H lineitem SF {TPCH_SF}: {} rows, {:.1} MiB of COPY text (generated in {:.1} s)",
            lineitem.rows,
            mib(lineitem.bytes),
            secs(started.elapsed())
        );
        let ddl = kpg_tpch::create_table("lineitem", kpg_tpch::CharColumns::Char);
        execute(&k, &ddl).await;
        execute(&p, &ddl).await;
        println!(
            "{:<44} | {:>6} | {:>6} | {:>6}",
            "", "kpg s", "PG s", "kpg/PG"
        );
        execute(&k, &ddl.replace("lineitem", "lineitem_b")).await;
        execute(&p, &ddl.replace("lineitem", "lineitem_b")).await;
        for (n, (what, table)) in [
            ("into the empty table", "lineitem"),
            ("into another empty table", "lineitem_b"),
            ("the same rows again (table then 2x as big)", "lineitem"),
        ]
        .into_iter()
        .enumerate()
        {
            let profile = Perf::start(kpg.pid(), &format!("copy-{}", n + 1));
            let kt = lineitem.copy_into(&k, table).await;
            profile.stop();
            let pt = lineitem.copy_into(&p, table).await;
            println!(
                "{what:<44} | {:>6.2} | {:>6.2} | {:>6.2}",
                secs(kt),
                secs(pt),
                secs(kt) / secs(pt)
            );
        }
        kpg_lineitem = Some((
            3 * lineitem.rows,
            file_size(&kpg.data_dir().join("kpg.redb")),
        ));
    }
    drop(k);
    drop(kpg);
    if !selected("restart") {
        return;
    }

    // 3. Restart.
    println!(
        "\n3. restart with {RESTART_ROWS} rows and {} materialized views (SIGKILL, then until every view answers)",
        VIEWS.len()
    );
    let big = big_text();
    let mut kpg = KpgServer::start().await;
    let k = kpg.connect().await;
    let ddl = "CREATE TABLE big (k int8 NOT NULL, g int4 NOT NULL, v numeric(12,2) NOT NULL, s text NOT NULL)";
    execute(&k, ddl).await;
    execute(&p, ddl).await;
    let kt = big.copy_into(&k, "big").await;
    let pt = big.copy_into(&p, "big").await;
    println!(
        "load with COPY ({:.1} MiB of text): kpg {:.2} s, PG {:.2} s (kpg/PG {:.2})",
        mib(big.bytes),
        secs(kt),
        secs(pt),
        secs(kt) / secs(pt)
    );
    let started = Instant::now();
    for (i, view) in VIEWS.iter().enumerate() {
        execute(&k, &format!("CREATE MATERIALIZED VIEW v{i} AS {view}")).await;
    }
    views_answer(&k).await;
    println!(
        "create the {} views until all answer: {:.2} s",
        VIEWS.len(),
        secs(started.elapsed())
    );
    let before = view_contents(&k).await;
    let redb = kpg.data_dir().join("kpg.redb");
    let size_loaded = file_size(&redb);
    drop(k);
    for attempt in 1..=RESTARTS {
        let started = Instant::now();
        kpg.kill();
        kpg.restart().await;
        let accepting = started.elapsed();
        let k = kpg.connect().await;
        views_answer(&k).await;
        let answered = started.elapsed();
        let logged = logged_restore_seconds(&kpg.stderr())
            .map(|s| format!("{:.1} ms", s * 1e3))
            .unwrap_or_else(|| "not logged".into());
        println!(
            "restart {attempt}: accepting connections after {:.2} s, every view answering after {:.2} s (the server's own restore log: {logged})",
            secs(accepting),
            secs(answered)
        );
        assert!(
            view_contents(&k).await == before,
            "the views answer as before the crash"
        );
    }
    let size_restarted = file_size(&redb);
    let pg_size: u64 = one_value(&p, "SELECT pg_total_relation_size('big')")
        .await
        .parse()
        .unwrap();
    println!("{:<46} | {:>9} | {:>12}", "size", "MiB", "vs COPY text");
    for (what, bytes) in [
        ("rows as COPY text", big.bytes),
        ("kpg.redb after load and views", size_loaded),
        ("kpg.redb after the restarts", size_restarted),
        (
            "kpg data directory after the restarts",
            dir_size(kpg.data_dir()),
        ),
        ("PostgreSQL table (pg_total_relation_size)", pg_size),
    ] {
        println!(
            "{what:<46} | {:>9.1} | {:>12.2}",
            mib(bytes),
            bytes as f64 / big.bytes as f64
        );
    }
    if let Some((rows, bytes)) = kpg_lineitem {
        println!(
            "(for reference: kpg.redb after the three lineitem COPYs, {rows} rows, and the INSERTs of part 1: {:.1} MiB)",
            mib(bytes)
        );
    }
}
