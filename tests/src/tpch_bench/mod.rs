//! `tpch bench` (issue 20): the shared-arrangements paper's streaming TPC-H experiments
//! (§6.1.1, Figure 1; Appendix B, Figure 12) on kpg, shared vs not shared, as a library so
//! that the bench (`tests/benches/tpch_streaming.rs`) runs it at scale factor 0.1 or 1 and a
//! smoke test (`tests/tests/tpch_bench_smoke.rs`) at a tiny one with a couple of queries.
//!
//! - [`setup`]: the scenario (keyed relations, lineitem as windowed events, the streamer);
//! - [`install`]: install latency of each query (Figure 1a);
//! - [`memory`]: RSS while queries arrive and retire, ten active (Figure 1c), then the update
//!   latency of the ten active views per round of input (Figure 1b);
//! - [`throughput`], [`throughput_report`]: tuples per second each query sustains over
//!   batches (Figure 12);
//! - [`experiment`], [`suite`]: one configuration on a fresh kpg, and the whole run;
//! - [`stats`], [`plot`], [`report`]: figures, PNG plots and the markdown results file.

pub mod experiment;
pub mod install;
pub mod memory;
pub mod plot;
pub mod report;
pub mod setup;
pub mod stats;
pub mod suite;
pub mod throughput;
pub mod throughput_report;

use std::path::PathBuf;
use std::time::Duration;

use tokio_postgres::{Client, SimpleQueryMessage};

use crate::describe_error;

/// The shared-arrangements paper, Figure 12: differential dataflow with one worker, tuples per
/// second, TPC-H SF 10 in logical batches of 100,000.
pub const PAPER_DD_W1: [f64; 22] = [
    9_341_713.0,
    4_388_761.0,
    11_049_606.0,
    9_046_854.0,
    5_802_513.0,
    33_090_863.0,
    7_551_628.0,
    4_949_412.0,
    2_932_421.0,
    9_708_371.0,
    1_720_655.0,
    11_258_702.0,
    1_446_223.0,
    21_908_762.0,
    5_057_397.0,
    4_435_818.0,
    5_218_907.0,
    5_854_293.0,
    22_696_357.0,
    16_089_949.0,
    1_968_771.0,
    1_843_397.0,
];

/// Time one statement may take before the benchmark gives up on it.
pub const LIMIT: Duration = Duration::from_secs(900);

/// Whether the queries share the indexes of the relations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// The seven primary-key indexes and the windowed lineitem's index, created once.
    Shared,
    /// No index: each query arranges its own inputs.
    NotShared,
}

impl Sharing {
    pub fn label(self) -> &'static str {
        match self {
            Sharing::Shared => "shared",
            Sharing::NotShared => "not shared",
        }
    }
}

/// What to run and how big.
#[derive(Debug, Clone)]
pub struct Config {
    /// TPC-H scale factor (`KPG_TPCH_SF`, default 0.1).
    pub scale_factor: f64,
    /// kpg's worker threads for the streaming experiments (`KPG_BENCH_WORKERS`' first value).
    pub workers: usize,
    /// Worker counts of the throughput experiment (`KPG_BENCH_WORKERS`, default `1,2`).
    pub throughput_workers: Vec<usize>,
    /// The queries (`KPG_BENCH_QUERIES`, e.g. `1,3,13`; default all 22).
    pub queries: Vec<kpg_tpch::Query>,
    /// Width of lineitem's window, ms (`KPG_BENCH_WINDOW_MS`, default 1000: with 1000 events
    /// a second, a query starts from about a thousand recent events, as the paper's queries
    /// start from the events since their deployment).
    pub window_ms: u64,
    /// Time between rounds of streamed events, and events per round.
    pub tick: Duration,
    pub round_events: usize,
    /// Query arrivals in the memory experiment, active at a time, and time between arrivals.
    pub arrivals: usize,
    pub active: usize,
    pub dwell: Duration,
    /// Rounds of the update latency experiment.
    pub update_rounds: usize,
    /// Which parts run (`KPG_BENCH_PARTS`: `streaming`, `throughput` or both, the default).
    pub streaming: bool,
    pub throughput: bool,
    /// Rows per logical batch of the throughput experiment.
    pub batch_rows: usize,
    /// Whether PostgreSQL's `REFRESH MATERIALIZED VIEW` per batch is measured too.
    pub postgres: bool,
    /// Where the markdown results file and the PNG plots go.
    pub out_dir: PathBuf,
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|s| s.trim().parse().ok())
}

impl Config {
    /// The benchmark's settings: SF 0.1 and all 22 queries unless the environment says
    /// otherwise (`KPG_TPCH_SF`, `KPG_BENCH_WORKERS`, `KPG_BENCH_QUERIES`, `KPG_BENCH_OUT`,
    /// `KPG_BENCH_PARTS`, `KPG_BENCH_ARRIVALS`, `KPG_BENCH_ROUNDS`, `KPG_BENCH_BATCH`,
    /// `KPG_BENCH_POSTGRES=0`).
    pub fn from_env() -> Config {
        let throughput_workers: Vec<usize> = std::env::var("KPG_BENCH_WORKERS")
            .ok()
            .map(|s| s.split(',').filter_map(|w| w.trim().parse().ok()).collect())
            .filter(|v: &Vec<usize>| !v.is_empty())
            .unwrap_or_else(|| vec![1, 2]);
        let queries = std::env::var("KPG_BENCH_QUERIES")
            .ok()
            .map(|s| {
                s.split(',')
                    .filter_map(|q| q.trim().parse().ok())
                    .map(kpg_tpch::query)
                    .collect()
            })
            .unwrap_or_else(kpg_tpch::queries);
        let parts =
            std::env::var("KPG_BENCH_PARTS").unwrap_or_else(|_| "streaming,throughput".into());
        Config {
            scale_factor: env("KPG_TPCH_SF").unwrap_or(0.1),
            workers: env("KPG_BENCH_STREAM_WORKERS").unwrap_or(2),
            throughput_workers,
            queries,
            window_ms: env("KPG_BENCH_WINDOW_MS").unwrap_or(1_000),
            tick: Duration::from_millis(100),
            round_events: 100,
            arrivals: env("KPG_BENCH_ARRIVALS").unwrap_or(40),
            active: 10,
            dwell: Duration::from_millis(500),
            update_rounds: env("KPG_BENCH_ROUNDS").unwrap_or(100),
            streaming: parts.contains("streaming"),
            throughput: parts.contains("throughput"),
            batch_rows: env("KPG_BENCH_BATCH").unwrap_or(100_000),
            postgres: env::<u8>("KPG_BENCH_POSTGRES").unwrap_or(1) == 1,
            out_dir: std::env::var("KPG_BENCH_OUT")
                .map(PathBuf::from)
                .unwrap_or_else(|_| crate::workspace_root().join("tests/results")),
        }
    }
}

/// Runs `sql` (simple protocol) and returns its rows' first cells; panics on an error or
/// after [`LIMIT`].
pub async fn run(client: &Client, sql: &str) -> Vec<Option<String>> {
    let messages = tokio::time::timeout(LIMIT, client.simple_query(sql))
        .await
        .unwrap_or_else(|_| panic!("no answer within {LIMIT:?}: {}", short(sql)))
        .unwrap_or_else(|e| panic!("{}\n  error: {}", short(sql), describe_error(&e)));
    messages
        .into_iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(row) => Some(row.get(0).map(str::to_string)),
            _ => None,
        })
        .collect()
}

/// The first 300 characters of a statement, for messages.
fn short(sql: &str) -> &str {
    match sql.char_indices().nth(300) {
        Some((i, _)) => &sql[..i],
        None => sql,
    }
}

/// Resident set size of process `pid`, in bytes (0 if it is gone).
pub fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// CPU seconds (user + system, all threads) process `pid` has used so far (0 if it is gone).
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some(close) = stat.rfind(')') else {
        return 0.0;
    };
    // After the command name: the state is field 3, utime and stime fields 14 and 15.
    let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|i| fields.get(*i).and_then(|f| f.parse::<f64>().ok()))
        .sum();
    // The kernel's USER_HZ: 100 on every Linux kpg runs on.
    ticks / 100.0
}

/// Bytes in MiB.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The load average (1, 5 and 15 minutes), as `/proc/loadavg` has it.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
