//! TPC-H at scale factor 1, everything at once (issue 17's memory target): the load generator's
//! snapshot (`CREATE SOURCE ... FROM LOAD GENERATOR TPCH (SCALE FACTOR 1)`, ticking while the
//! rest runs), the seven primary-key indexes, then all 22 queries as materialized views, each
//! kept while the next is installed. Prints the load time, each index's and each view's install
//! time (until its first complete result: a `SELECT count(*)` waits for it), kpg's RSS and
//! arrangement bytes after each step, and the peak RSS, against the target (RSS <= 12 GB).
//!
//! `KPG_BIN=$PWD/target/release/kpg cargo bench -p kpg-tests --bench tpch_sf1`;
//! `KPG_TPCH_SF` for another scale factor, `KPG_BENCH_WORKERS` (default 2),
//! `KPG_BENCH_RSS_LIMIT_GIB` (default 18): the run stops there rather than take the machine's
//! memory (it then prints how far it got). Nothing about time or memory is asserted; it asserts
//! only that every statement answered.

use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::tpch_bench::install::install_view;
use kpg_tests::tpch_bench::memory::Sampler;
use kpg_tests::tpch_bench::{cpu_seconds, load_average, mib, rss, run};
use kpg_tests::*;
use kpg_tpch::demo::INDEXES;
use kpg_tpch::TABLES;

/// The target of issue 17: RSS with everything installed.
const TARGET_BYTES: u64 = 12 * 1000 * 1000 * 1000;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

async fn arranged(client: &Client) -> u64 {
    run(
        client,
        "SELECT coalesce(sum(bytes), 0) FROM kpg_arrangements",
    )
    .await[0]
        .as_deref()
        .unwrap_or("0")
        .parse()
        .expect("a number")
}

/// One step of the run, as printed.
struct Step {
    what: String,
    took: Duration,
    cpu: f64,
    rss: u64,
    arranged: u64,
}

#[tokio::main]
async fn main() {
    let sf: f64 = env_or("KPG_TPCH_SF", 1.0);
    let workers: usize = env_or("KPG_BENCH_WORKERS", 2);
    let limit = (env_or("KPG_BENCH_RSS_LIMIT_GIB", 18.0) * (1u64 << 30) as f64) as u64;
    println!(
        "TPC-H SF {sf}, {workers} worker(s), load average {} at the start",
        load_average()
    );
    let kpg = KpgServer::start_with_workers(workers).await;
    let client = kpg.connect().await;
    let pid = kpg.pid();
    let idle = rss(pid);
    let sampler = Sampler::start(pid);
    let mut steps: Vec<Step> = Vec::new();
    let mut stopped = None;

    // Each step: its statements, then a read that waits for the result; figures after it.
    let mut step = |what: String, took: Duration, cpu: f64, arranged: u64| {
        let now = rss(pid);
        println!(
            "  {what}: {:.2} s, CPU {cpu:.1} s, RSS {:.0} MiB, arranged {:.0} MiB",
            took.as_secs_f64(),
            mib(now),
            mib(arranged)
        );
        steps.push(Step {
            what,
            took,
            cpu,
            rss: now,
            arranged,
        });
        now
    };

    // The load: the generator's snapshot, read until every table has all its rows.
    let (started, cpu0) = (Instant::now(), cpu_seconds(pid));
    run(
        &client,
        &format!("CREATE SOURCE tpch FROM LOAD GENERATOR TPCH (SCALE FACTOR {sf}) FOR ALL TABLES"),
    )
    .await;
    let mut rows = 0u64;
    for table in TABLES {
        let n: u64 = run(&client, &format!("SELECT count(*) FROM {table}")).await[0]
            .as_deref()
            .unwrap_or("0")
            .parse()
            .expect("a count");
        assert!(n > 0, "{table} is empty");
        rows += n;
    }
    let bytes = arranged(&client).await;
    step(
        format!("load ({rows} rows)"),
        started.elapsed(),
        cpu_seconds(pid) - cpu0,
        bytes,
    );

    for (index, table, key) in INDEXES {
        let (started, cpu0) = (Instant::now(), cpu_seconds(pid));
        run(&client, &format!("CREATE INDEX {index} ON {table} ({key})")).await;
        run(&client, &format!("SELECT count(*) FROM {table}")).await;
        let took = started.elapsed();
        let bytes = arranged(&client).await;
        step(
            format!("index {index}"),
            took,
            cpu_seconds(pid) - cpu0,
            bytes,
        );
    }

    for q in kpg_tpch::queries() {
        let name = format!("v_{}", q.name());
        let cpu0 = cpu_seconds(pid);
        let took = install_view(&client, &name, &q.sql()).await;
        let bytes = arranged(&client).await;
        let now = step(
            format!("view {}", q.name()),
            took,
            cpu_seconds(pid) - cpu0,
            bytes,
        );
        if now > limit {
            stopped = Some(format!(
                "stopped after {}: RSS {:.0} MiB is over the run's limit",
                q.name(),
                mib(now)
            ));
            break;
        }
    }
    // Everything installed: the views go on with the generator's ticks.
    tokio::time::sleep(Duration::from_secs(15)).await;
    let settled = rss(pid);
    let settled_arranged = arranged(&client).await;
    let samples = sampler.stop().await;
    let peak = samples.iter().map(|(_, b)| *b).max().unwrap_or(0);

    println!("\n## TPC-H SF {sf}: load, 7 indexes, 22 views at once ({workers} workers)\n");
    println!("| step | time s | kpg CPU s | RSS after MiB | arranged MiB |");
    println!("|---|---|---|---|---|");
    for s in &steps {
        println!(
            "| {} | {:.2} | {:.1} | {:.0} | {:.0} |",
            s.what,
            s.took.as_secs_f64(),
            s.cpu,
            mib(s.rss),
            mib(s.arranged)
        );
    }
    let views: Vec<&Step> = steps
        .iter()
        .filter(|s| s.what.starts_with("view"))
        .collect();
    println!(
        "\nRSS idle {:.0} MiB; 15 s after the last view {:.0} MiB (arranged {:.0} MiB); peak {:.0} MiB",
        mib(idle),
        mib(settled),
        mib(settled_arranged),
        mib(peak)
    );
    println!(
        "views installed: {} of 22, {:.1} s in all; load average {} at the end",
        views.len(),
        views.iter().map(|s| s.took.as_secs_f64()).sum::<f64>(),
        load_average()
    );
    if let Some(why) = &stopped {
        println!("{why}");
    }
    println!(
        "target RSS <= 12 GB with everything installed: {} (peak {:.2} GB, settled {:.2} GB)",
        if stopped.is_none() && peak <= TARGET_BYTES {
            "met"
        } else {
            "not met"
        },
        peak as f64 / 1e9,
        settled as f64 / 1e9
    );
}
