//! TPC-H benchmark of issue 17 (compact rows): the 22 queries installed as materialized views
//! over loaded tables, the same queries ad hoc beside PostgreSQL 15, and the memory the loaded
//! tables take, in one run on one machine (run with
//! `KPG_BIN=$PWD/target/release/kpg cargo bench -p kpg-tests --bench tpch_views`).
//!
//! - load: the 8 tables at scale factor 0.1 (`KPG_TPCH_SF`) by `COPY` into kpg and into
//!   PostgreSQL; kpg's arrangement bytes (`kpg_arrangements`) and RSS after the load beside
//!   PostgreSQL's `pg_total_relation_size`; what `CREATE INDEX ON lineitem (l_orderkey)` adds;
//!   kpg's RSS before the load and 25 s after every table is dropped at the end;
//! - install: each query as `CREATE MATERIALIZED VIEW` over the loaded tables (no indexes), timed
//!   until its first complete result (a `SELECT count(*)` of the view, which waits for it), then
//!   dropped; the rate is the input tuples (the rows of the distinct tables it reads) per second,
//!   printed beside the paper's differential dataflow rate with one worker (Figure 12: SF 10,
//!   batches of 100,000, their hardware — a reference, not a like-for-like peer), for 1 and 2
//!   workers (`KPG_BENCH_WORKERS=1,2`), each on a fresh kpg;
//! - ad hoc: each query as a SELECT on kpg (the last worker count) and on PostgreSQL (no
//!   indexes, after `ANALYZE`), the second of two runs each, and the ratio; PostgreSQL gets
//!   60 s a query (it runs Q20's correlated subquery per outer row), a query it does not
//!   finish counts as 60 s in the median, so the median ratio is an upper bound.
//!
//! `KPG_BENCH_PARTS=adhoc` runs only the ad hoc part: PostgreSQL's runs, then the load and the
//! 22 SELECTs on one kpg (the last of `KPG_BENCH_WORKERS`), no views and no index.
//!
//! `KPG_BENCH_PARTS=memory` runs only the memory part on one kpg (the first of
//! `KPG_BENCH_WORKERS`): the load, each table's arrangement bytes and bytes a row, RSS and kpg's
//! CPU time of the load, then `CREATE INDEX ON lineitem (l_orderkey)`, each figure read at once
//! and again 15 s later (after jemalloc's decay has returned freed pages), beside PostgreSQL's
//! `pg_total_relation_size`.
//!
//! `KPG_BENCH_PARTS=views` runs only the install part, without PostgreSQL: for each binary of
//! `KPG_BENCH_BINS` (a comma-separated list of kpg binaries, default `KPG_BIN`) in turn, a fresh
//! kpg with the first of `KPG_BENCH_WORKERS`, the load and the 22 views; the binaries alternate
//! for `KPG_BENCH_ROUNDS` rounds (default 1) and each query's best install time per binary is
//! printed, so that a before and an after binary are compared in the same sitting.
//!
//! It prints figures and ratios; it asserts only that every row arrived and every query
//! answered, never anything about time (machines are shared and noisy).

use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::tpch_bench::install::install_view;
use kpg_tests::tpch_bench::setup::tables_read;
use kpg_tests::tpch_bench::{cpu_seconds, mib, rss, run, PAPER_DD_W1};
use kpg_tests::*;
use kpg_tpch::{CharColumns, TABLES};

/// Time PostgreSQL gets for one ad hoc query.
const PG_LIMIT: Duration = Duration::from_secs(60);

fn scale_factor() -> f64 {
    std::env::var("KPG_TPCH_SF")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.1)
}

fn worker_counts() -> Vec<usize> {
    std::env::var("KPG_BENCH_WORKERS")
        .ok()
        .map(|s| s.split(',').filter_map(|w| w.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 2])
}

async fn number(client: &Client, sql: &str) -> u64 {
    run(client, sql).await[0]
        .as_deref()
        .unwrap_or("0")
        .parse()
        .expect("a number")
}

async fn timed(client: &Client, sql: &str) -> Duration {
    let started = Instant::now();
    run(client, sql).await;
    started.elapsed()
}

struct Loaded {
    copy: Duration,
    rows: Vec<(&'static str, u64)>,
}

async fn load(client: &Client, data: &[(&'static str, CopyText)]) -> Loaded {
    for ddl in kpg_tpch::create_tables(CharColumns::Char) {
        run(client, &ddl).await;
    }
    let mut copy = Duration::ZERO;
    for (table, text) in data {
        copy += text.copy_into(client, table).await;
    }
    Loaded {
        copy,
        rows: data.iter().map(|(t, text)| (*t, text.rows)).collect(),
    }
}

/// One worker count's figures.
struct KpgRun {
    workers: usize,
    /// RSS before the load, and 25 s after every table was dropped.
    idle: u64,
    dropped: u64,
    copy: Duration,
    arranged: u64,
    rss: u64,
    index: Option<(u64, u64)>,
    installs: Vec<Duration>,
    /// kpg's CPU seconds (all threads) during each install.
    installs_cpu: Vec<f64>,
    ad_hoc: Vec<Duration>,
}

async fn kpg_run(
    workers: usize,
    data: &[(&'static str, CopyText)],
    index: bool,
    install: bool,
    ad_hoc: bool,
) -> (KpgRun, Vec<(&'static str, u64)>) {
    let kpg = KpgServer::start_with_workers(workers).await;
    let client = kpg.connect().await;
    let idle = rss(kpg.pid());
    let loaded = load(&client, data).await;
    // A read of each table waits until its rows are arranged (COPY returns once they are
    // durable, before the workers have arranged them).
    for (table, rows) in &loaded.rows {
        let counted = number(&client, &format!("SELECT count(*) FROM {table}")).await;
        assert_eq!(counted, *rows, "{table}");
    }
    let arranged_sql = "SELECT coalesce(sum(bytes), 0) FROM kpg_arrangements";
    let arranged = number(&client, arranged_sql).await;
    let rss_loaded = rss(kpg.pid());
    println!(
        "  kpg, {workers} worker(s): COPY {:.2} s, arrangements {:.0} MiB, RSS {:.0} MiB",
        loaded.copy.as_secs_f64(),
        mib(arranged),
        mib(rss_loaded)
    );
    let index = if index {
        run(
            &client,
            "CREATE INDEX lineitem_orderkey ON lineitem (l_orderkey)",
        )
        .await;
        number(
            &client,
            "SELECT count(*) FROM lineitem WHERE l_orderkey = 1",
        )
        .await;
        let added = number(&client, arranged_sql).await.saturating_sub(arranged);
        let rss_added = rss(kpg.pid()).saturating_sub(rss_loaded);
        run(&client, "DROP INDEX lineitem_orderkey").await;
        Some((added, rss_added))
    } else {
        None
    };
    let mut installs = Vec::new();
    let mut installs_cpu = Vec::new();
    for q in kpg_tpch::queries().into_iter().filter(|_| install) {
        let name = q.name();
        let cpu_before = cpu_seconds(kpg.pid());
        let took = install_view(&client, &name, &q.sql()).await;
        let cpu = cpu_seconds(kpg.pid()) - cpu_before;
        run(&client, &format!("DROP MATERIALIZED VIEW {name}")).await;
        println!(
            "    {name} installed in {:.3} s ({cpu:.2} s of kpg CPU)",
            took.as_secs_f64()
        );
        installs.push(took);
        installs_cpu.push(cpu);
    }
    let mut times = Vec::new();
    if ad_hoc {
        for q in kpg_tpch::queries() {
            timed(&client, &q.sql()).await;
            times.push(timed(&client, &q.sql()).await);
        }
    }
    // Memory goes back once everything is dropped (jemalloc's background thread returns freed
    // pages after its 10 s decay).
    for table in TABLES {
        run(&client, &format!("DROP TABLE {table}")).await;
    }
    tokio::time::sleep(Duration::from_secs(25)).await;
    let dropped = rss(kpg.pid());
    let run = KpgRun {
        workers,
        idle,
        dropped,
        copy: loaded.copy,
        arranged,
        rss: rss_loaded,
        index,
        installs,
        installs_cpu,
        ad_hoc: times,
    };
    (run, loaded.rows)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The arrangement bytes, records and batches of each owner, and their sum.
async fn arrangements(client: &Client) -> (Vec<(String, u64, u64, u64)>, u64) {
    let sql = "SELECT owner, sum(bytes), sum(records), sum(batches) FROM kpg_arrangements \
               GROUP BY owner ORDER BY owner";
    let messages = client.simple_query(sql).await.expect("kpg_arrangements");
    let number = |row: &kpg_tests::tokio_postgres::SimpleQueryRow, i: usize| -> u64 {
        row.get(i).unwrap_or("0").parse().expect("a number")
    };
    let owners: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            kpg_tests::tokio_postgres::SimpleQueryMessage::Row(row) => Some((
                row.get(0).unwrap_or_default().to_string(),
                number(row, 1),
                number(row, 2),
                number(row, 3),
            )),
            _ => None,
        })
        .collect();
    let total = owners.iter().map(|o| o.1).sum();
    (owners, total)
}

/// jemalloc's figures kpg logged last (it logs them every second in the memory part).
fn allocator_figures(kpg: &KpgServer) -> String {
    let tail = kpg.log_tail(40);
    let line = tail.lines().rev().find(|l| l.contains(" allocator"));
    let plain = |s: &str| {
        // Without the log's colour escapes (ESC [ ... m).
        let mut out = String::new();
        let mut escape = false;
        for c in s.chars() {
            match (escape, c) {
                (false, '\u{1b}') => escape = true,
                (true, 'm') => escape = false,
                (false, c) => out.push(c),
                _ => {}
            }
        }
        out
    };
    line.map(plain)
        .and_then(|l| l.split(" allocator").nth(1).map(|s| s.trim().to_string()))
        .unwrap_or_else(|| "(no allocator figures logged)".into())
}

/// `KPG_BENCH_PARTS=memory`: the load and the lineitem index on one kpg, memory and CPU figures.
async fn memory_part(workers: usize, data: &[(&'static str, CopyText)], pg: (u64, u64)) {
    // kpg logs jemalloc's figures (server/src/allocator.rs) every second.
    std::env::set_var("KPG_LOG_ALLOCATOR_SECS", "1");
    let kpg = KpgServer::start_with_workers(workers).await;
    let client = kpg.connect().await;
    let pid = kpg.pid();
    let (idle, cpu_idle) = (rss(pid), cpu_seconds(pid));
    let loaded = load(&client, data).await;
    let count = number(&client, "SELECT count(*) FROM lineitem").await;
    let cpu_load = cpu_seconds(pid) - cpu_idle;
    let rss_loaded = rss(pid);
    let (owners, arranged) = arrangements(&client).await;
    println!(
        "kpg, {workers} worker(s): RSS idle {:.0} MiB; COPY {:.2} s wall, {cpu_load:.2} s CPU",
        mib(idle),
        loaded.copy.as_secs_f64()
    );
    println!("| table | rows | arrangement bytes MiB | bytes a row | batches |");
    println!("|---|---|---|---|---|");
    for (owner, bytes, records, batches) in &owners {
        let rows = loaded
            .rows
            .iter()
            .find(|(t, _)| t == owner)
            .map_or(*records, |(_, r)| *r);
        println!(
            "| {owner} | {rows} | {:.1} | {:.0} | {batches} |",
            mib(*bytes),
            *bytes as f64 / rows.max(1) as f64
        );
    }
    assert_eq!(
        count,
        loaded
            .rows
            .iter()
            .find(|(t, _)| *t == "lineitem")
            .unwrap()
            .1
    );
    println!("  jemalloc after the load: {}", allocator_figures(&kpg));
    tokio::time::sleep(Duration::from_secs(15)).await;
    let rss_settled = rss(pid);
    let (_, arranged_settled) = arrangements(&client).await;
    println!("  jemalloc 15 s later: {}", allocator_figures(&kpg));
    println!(
        "after the load: arrangements {:.1} MiB ({:.2}x PostgreSQL's {:.1} MiB), RSS {:.0} MiB \
         ({:.2}x arranged); 15 s later: arrangements {:.1} MiB, RSS {:.0} MiB ({:.2}x)",
        mib(arranged),
        arranged as f64 / pg.0 as f64,
        mib(pg.0),
        mib(rss_loaded),
        rss_loaded as f64 / arranged.max(1) as f64,
        mib(arranged_settled),
        mib(rss_settled),
        rss_settled as f64 / arranged_settled.max(1) as f64,
    );
    let cpu_before = cpu_seconds(pid);
    let started = Instant::now();
    run(
        &client,
        "CREATE INDEX lineitem_orderkey ON lineitem (l_orderkey)",
    )
    .await;
    number(
        &client,
        "SELECT count(*) FROM lineitem WHERE l_orderkey = 1",
    )
    .await;
    let took = started.elapsed();
    let cpu_index = cpu_seconds(pid) - cpu_before;
    let rss_index = rss(pid);
    let (_, with_index) = arrangements(&client).await;
    println!("  jemalloc after the index: {}", allocator_figures(&kpg));
    tokio::time::sleep(Duration::from_secs(15)).await;
    let rss_index_settled = rss(pid);
    let (_, with_index_settled) = arrangements(&client).await;
    println!("  jemalloc 15 s later: {}", allocator_figures(&kpg));
    println!(
        "CREATE INDEX ON lineitem (l_orderkey): {:.2} s wall, {cpu_index:.2} s CPU; arrangements \
         +{:.1} MiB, RSS +{:.0} MiB; 15 s later: arrangements +{:.1} MiB, RSS +{:.0} MiB \
         (PostgreSQL's btree {:.1} MiB)",
        took.as_secs_f64(),
        mib(with_index.saturating_sub(arranged_settled)),
        mib(rss_index.saturating_sub(rss_settled)),
        mib(with_index_settled.saturating_sub(arranged_settled)),
        mib(rss_index_settled.saturating_sub(rss_settled)),
        mib(pg.1),
    );
}

/// The install part's table: each query's install time and input tuples per second.
fn print_installs(runs: &[KpgRun], rows_of: &dyn Fn(&str) -> u64) {
    println!("\n## Install as materialized views (input tuples per second, M/s)\n");
    let mut header = String::from("| query | input tuples |");
    let mut rule = String::from("|---|---|");
    for r in runs {
        header += &format!(" kpg {}w s | kpg {}w M/s |", r.workers, r.workers);
        rule += "---|---|";
    }
    header += " paper DD w=1 M/s | kpg 1st / paper |";
    rule += "---|---|";
    if runs.len() > 1 {
        header += " last / first |";
        rule += "---|";
    }
    println!("{header}\n{rule}");
    let mut ratios = vec![Vec::new(); runs.len()];
    for (i, q) in kpg_tpch::queries().iter().enumerate() {
        let tuples: u64 = tables_read(&q.sql()).iter().map(|t| rows_of(t)).sum();
        let mut line = format!("| {} | {tuples} |", q.name());
        let mut rates = Vec::new();
        for r in runs {
            let rate = tuples as f64 / r.installs[i].as_secs_f64();
            rates.push(rate);
            line += &format!(" {:.3} | {:.2} |", r.installs[i].as_secs_f64(), rate / 1e6);
        }
        line += &format!(
            " {:.2} | {:.2} |",
            PAPER_DD_W1[i] / 1e6,
            rates[0] / PAPER_DD_W1[i]
        );
        if runs.len() > 1 {
            line += &format!(" {:.2} |", rates[rates.len() - 1] / rates[0]);
        }
        for (j, rate) in rates.iter().enumerate() {
            ratios[j].push(*rate);
        }
        println!("{line}");
    }
    for (r, rates) in runs.iter().zip(&ratios) {
        println!(
            "\nkpg {} worker(s): median {:.2} M/s; queries at or above the paper's DD w=1 rate: {} of 22",
            r.workers,
            median(rates.clone()) / 1e6,
            rates
                .iter()
                .zip(PAPER_DD_W1)
                .filter(|(k, p)| **k >= *p)
                .count()
        );
    }
}

/// `KPG_BENCH_PARTS=views`: the install part alone, binaries alternating (module docs).
async fn views_part(data: &[(&'static str, CopyText)]) {
    let bins: Vec<String> = std::env::var("KPG_BENCH_BINS")
        .ok()
        .map(|s| s.split(',').map(|b| b.trim().to_string()).collect())
        .unwrap_or_else(|| vec![kpg_bin().display().to_string()]);
    let rounds: usize = std::env::var("KPG_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let workers = worker_counts()[0];
    let mut best: Vec<Option<KpgRun>> = bins.iter().map(|_| None).collect();
    let mut rows = Vec::new();
    for round in 0..rounds {
        for (i, bin) in bins.iter().enumerate() {
            println!("round {}, {bin}:", round + 1);
            // The test library starts the binary `KPG_BIN` names.
            std::env::set_var("KPG_BIN", bin);
            let (r, loaded_rows) = kpg_run(workers, data, false, true, false).await;
            rows = loaded_rows;
            best[i] = Some(match best[i].take() {
                None => r,
                Some(mut b) => {
                    for (kept, new) in b.installs.iter_mut().zip(&r.installs) {
                        *kept = (*kept).min(*new);
                    }
                    for (kept, new) in b.installs_cpu.iter_mut().zip(&r.installs_cpu) {
                        *kept = kept.min(*new);
                    }
                    b
                }
            });
        }
    }
    let runs: Vec<KpgRun> = best.into_iter().flatten().collect();
    println!("\nColumns in order (best of {rounds} round(s) each):");
    for (i, bin) in bins.iter().enumerate() {
        println!("  {}: {bin}", i + 1);
    }
    let rows_of = |t: &str| rows.iter().find(|(n, _)| *n == t).map_or(0, |(_, r)| *r);
    print_installs(&runs, &rows_of);
    // CPU time is what a loaded machine distorts least.
    println!("\n## kpg CPU seconds per install (best of {rounds})\n");
    let mut header = String::from("| query |");
    let mut rule = String::from("|---|");
    for i in 0..runs.len() {
        header += &format!(" binary {} CPU s |", i + 1);
        rule += "---|";
    }
    header += " last / first |";
    rule += "---|";
    println!("{header}\n{rule}");
    let mut ratios = Vec::new();
    for (i, q) in kpg_tpch::queries().iter().enumerate() {
        let mut line = format!("| {} |", q.name());
        for r in &runs {
            line += &format!(" {:.2} |", r.installs_cpu[i]);
        }
        let ratio = runs[runs.len() - 1].installs_cpu[i] / runs[0].installs_cpu[i].max(0.01);
        ratios.push(ratio);
        println!("{line} {ratio:.2} |");
    }
    let totals: Vec<String> = runs
        .iter()
        .map(|r| format!("{:.1}", r.installs_cpu.iter().sum::<f64>()))
        .collect();
    println!(
        "\ntotal CPU s: {}; median last / first: {:.2}",
        totals.join(" / "),
        median(ratios)
    );
}

#[tokio::main]
async fn main() {
    let sf = scale_factor();
    let started = Instant::now();
    let data: Vec<(&'static str, CopyText)> =
        TABLES.iter().map(|t| (*t, CopyText::tpch(t, sf))).collect();
    let total_rows: u64 = data.iter().map(|(_, d)| d.rows).sum();
    println!(
        "TPC-H SF {sf}: {total_rows} rows, {:.0} MiB of COPY text, generated in {:.1} s",
        mib(data.iter().map(|(_, d)| d.bytes).sum()),
        started.elapsed().as_secs_f64()
    );

    if std::env::var("KPG_BENCH_PARTS").as_deref() == Ok("views") {
        views_part(&data).await;
        return;
    }

    let pg = Postgres::start().await;
    let pc = pg.connect().await;
    let pg_loaded = load(&pc, &data).await;
    run(&pc, "ANALYZE").await;
    let sizes = TABLES
        .iter()
        .map(|t| format!("pg_total_relation_size('{t}')"))
        .collect::<Vec<_>>()
        .join(" + ");
    let pg_bytes = number(&pc, &format!("SELECT {sizes}")).await;
    run(
        &pc,
        "CREATE INDEX lineitem_orderkey ON lineitem (l_orderkey)",
    )
    .await;
    let pg_index = number(&pc, "SELECT pg_total_relation_size('lineitem_orderkey')").await;
    run(&pc, "DROP INDEX lineitem_orderkey").await;
    if std::env::var("KPG_BENCH_PARTS").as_deref() == Ok("memory") {
        println!(
            "PostgreSQL 15: COPY {:.2} s, tables {:.1} MiB, lineitem (l_orderkey) btree {:.1} MiB",
            pg_loaded.copy.as_secs_f64(),
            mib(pg_bytes),
            mib(pg_index)
        );
        drop(pc);
        drop(pg);
        memory_part(worker_counts()[0], &data, (pg_bytes, pg_index)).await;
        return;
    }
    // PostgreSQL runs some correlated subqueries (Q20 without an index on partsupp) as a
    // subplan per outer row, for many minutes; those are cut off and printed as a lower bound.
    run(
        &pc,
        &format!("SET statement_timeout = '{}s'", PG_LIMIT.as_secs()),
    )
    .await;
    let mut pg_times = Vec::new();
    for q in kpg_tpch::queries() {
        let mut time = None;
        for _ in 0..2 {
            let started = Instant::now();
            time = match pc.simple_query(&q.sql()).await {
                Ok(_) => Some(started.elapsed()),
                Err(e) if sqlstate(&e).as_deref() == Some("57014") => break,
                Err(e) => panic!("{}: {}", q.name(), describe_error(&e)),
            };
        }
        pg_times.push(time);
    }
    println!(
        "  PostgreSQL: COPY {:.2} s, tables {:.0} MiB, lineitem (l_orderkey) btree {:.1} MiB",
        pg_loaded.copy.as_secs_f64(),
        mib(pg_bytes),
        mib(pg_index)
    );
    drop(pc);
    drop(pg);

    let ad_hoc_only = std::env::var("KPG_BENCH_PARTS").as_deref() == Ok("adhoc");
    let mut counts = worker_counts();
    if ad_hoc_only {
        counts.drain(..counts.len() - 1);
    }
    let mut runs = Vec::new();
    let mut rows = Vec::new();
    for (i, &w) in counts.iter().enumerate() {
        let first = i == 0 && !ad_hoc_only;
        let (r, loaded_rows) = kpg_run(w, &data, first, !ad_hoc_only, i + 1 == counts.len()).await;
        runs.push(r);
        rows = loaded_rows;
    }
    let rows_of = |t: &str| rows.iter().find(|(n, _)| *n == t).map_or(0, |(_, r)| *r);

    println!("\n## Load (SF {sf})\n");
    println!(
        "| | COPY s | bytes MiB | RSS MiB | lineitem (l_orderkey) index MiB (RSS MiB) | RSS idle / after DROP MiB |"
    );
    println!("|---|---|---|---|---|---|");
    println!(
        "| PostgreSQL 15 | {:.2} | {:.0} (pg_total_relation_size) | – | {:.1} | – |",
        pg_loaded.copy.as_secs_f64(),
        mib(pg_bytes),
        mib(pg_index)
    );
    for r in &runs {
        let index = match r.index {
            Some((bytes, rss)) => format!("+{:.0} (+{:.0})", mib(bytes), mib(rss)),
            None => "–".into(),
        };
        println!(
            "| kpg, {} worker(s) | {:.2} ({:.2}x PG) | {:.0} arranged ({:.2}x PG) | {:.0} ({:.2}x arranged) | {index} | {:.0} / {:.0} |",
            r.workers,
            r.copy.as_secs_f64(),
            r.copy.as_secs_f64() / pg_loaded.copy.as_secs_f64(),
            mib(r.arranged),
            r.arranged as f64 / pg_bytes as f64,
            mib(r.rss),
            r.rss as f64 / r.arranged.max(1) as f64,
            mib(r.idle),
            mib(r.dropped),
        );
    }

    if !ad_hoc_only {
        print_installs(&runs, &rows_of);
    }
    let last = runs.last().expect("a kpg run");
    println!(
        "\n## Ad hoc (kpg {} worker(s) vs PostgreSQL 15, no indexes, second of two runs)\n",
        last.workers
    );
    println!("| query | kpg s | PostgreSQL s | kpg / PostgreSQL |");
    println!("|---|---|---|---|");
    let mut ratio = Vec::new();
    for (i, q) in kpg_tpch::queries().iter().enumerate() {
        let k = last.ad_hoc[i].as_secs_f64();
        match pg_times[i] {
            Some(p) => {
                let p = p.as_secs_f64();
                ratio.push(k / p);
                println!("| {} | {k:.3} | {p:.3} | {:.2} |", q.name(), k / p);
            }
            None => {
                let p = PG_LIMIT.as_secs_f64();
                ratio.push(k / p);
                println!(
                    "| {} | {k:.3} | > {p:.0} (cut off) | < {:.2} |",
                    q.name(),
                    k / p
                );
            }
        }
    }
    println!("\nmedian kpg / PostgreSQL: {:.2}", median(ratio));
}
