//! Engine benchmark: kpg's engine and differential-dataflow on the same generated input, in the
//! same run, one line per case (throughput, p50/p99 latency per round, peak memory, kpg/DD).
//!
//! Run with `cargo bench -p kpg-engine` (release). `BENCH_SCALE` (default 1.0) multiplies every
//! size; `BENCH_CASES` (comma-separated prefixes) selects cases; `BENCH_REPEAT` (default 3) runs
//! each system that many times, alternating, and reports each one's best (highest throughput) run. Peak memory is the peak of live
//! heap bytes during a run, from a counting global allocator (reset before each run), so each
//! line measures its own system and case. Inputs are generated from a seeded hash, identical for
//! both systems; each worker feeds its share.

mod dd;
mod kpg;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        if new > layout.size() {
            let now =
                CURRENT.fetch_add(new - layout.size(), Ordering::Relaxed) + new - layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            CURRENT.fetch_sub(layout.size() - new, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Sizes of every case.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Distinct keys loaded before the measured rounds.
    pub keys: u64,
    /// Measured rounds.
    pub rounds: u64,
    /// Inserted records per round (as many are retracted once the window is full).
    pub batch: u64,
    /// Offered load for the open-loop case, in updates per second.
    pub offered: f64,
    /// Graph size for reachability, and the single-edge changes after it.
    pub nodes: u64,
    pub edges: u64,
    pub changes: u64,
}

/// What one system reported for one case.
pub struct Run {
    /// Updates (or records) processed in the measured part.
    pub updates: u64,
    /// Wall time of the measured part.
    pub elapsed: Duration,
    /// Latency of each measured round (empty for single-shot cases).
    pub rounds: Vec<Duration>,
}

/// A seeded 64-bit hash (splitmix64) for generating identical inputs.
pub fn hash(a: u64, b: u64) -> u64 {
    let mut z = a
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(b)
        .wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The updates of round `round` (>= 1) that worker `index` of `workers` feeds: `batch` new
/// `(key, round)` records, and the retraction of those inserted `WINDOW` rounds earlier.
pub fn round_updates(
    p: &Params,
    round: u64,
    index: usize,
    workers: usize,
) -> Vec<((u64, u64), i64)> {
    const WINDOW: u64 = 10;
    let mut result = Vec::new();
    for j in (index as u64..p.batch).step_by(workers) {
        result.push(((hash(round, j) % p.keys, round), 1));
        if round > WINDOW {
            let old = round - WINDOW;
            result.push(((hash(old, j) % p.keys, old), -1));
        }
    }
    result
}

/// Blocks until wall time `at` (used by the open-loop case).
pub fn until(at: Instant) {
    let now = Instant::now();
    if at > now {
        std::thread::sleep(at - now);
    }
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

struct Line {
    throughput: f64,
    p50: Duration,
    p99: Duration,
    peak: usize,
}

fn measure(run: impl FnOnce() -> Run) -> Line {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut run = run();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    run.rounds.sort();
    Line {
        throughput: run.updates as f64 / run.elapsed.as_secs_f64(),
        p50: percentile(&run.rounds, 0.5),
        p99: percentile(&run.rounds, 0.99),
        peak,
    }
}

fn fmt(line: &Line) -> String {
    format!(
        "{:>10.0}/s p50 {:>8.2?} p99 {:>8.2?} peak {:>7.1} MiB",
        line.throughput,
        line.p50,
        line.p99,
        line.peak as f64 / (1 << 20) as f64
    )
}

type CaseFn = fn(usize, &Params) -> Run;

fn main() {
    let scale: f64 = std::env::var("BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let selected: Vec<String> = std::env::var("BENCH_CASES")
        .map(|s| s.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let repeats: usize = std::env::var("BENCH_REPEAT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    // For profiling one system: BENCH_ONLY=kpg|dd, BENCH_WORKERS=1|2, BENCH_ROUNDS=n.
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let worker_counts: Vec<usize> = match std::env::var("BENCH_WORKERS") {
        Ok(w) => w.split(',').filter_map(|w| w.parse().ok()).collect(),
        Err(_) => vec![1, 2],
    };
    let rounds_override: Option<u64> = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok());
    let sized = |x: f64| ((x * scale) as u64).max(1);
    let p = Params {
        keys: sized(1_000_000.0),
        rounds: rounds_override.unwrap_or(sized(50.0).max(20)),
        batch: sized(10_000.0),
        offered: 200_000.0 * scale,
        nodes: sized(100_000.0),
        edges: sized(1_000_000.0),
        changes: sized(1_000.0),
    };
    println!(
        "# kpg engine vs differential-dataflow 0.26, best of {repeats} alternating runs; {p:?}"
    );
    let cases: Vec<(&str, CaseFn, CaseFn)> = vec![
        ("arrange", kpg::arrange, dd::arrange),
        ("count-closed", kpg::count_closed, dd::count_closed),
        ("count-open", kpg::count_open, dd::count_open),
        ("count-total", kpg::count_total, dd::count_total),
        ("reduce-sum", kpg::reduce_sum, dd::reduce_sum),
        ("join-100", kpg::join_100, dd::join_100),
        ("join-10000", kpg::join_10000, dd::join_10000),
        ("join-asof-100", kpg::join_asof_100, dd::join_asof_100),
        ("join-asof-10000", kpg::join_asof_10000, dd::join_asof_10000),
        ("reach-changes", kpg::reach, dd::reach),
    ];
    for (name, ours, theirs) in cases {
        if !selected.is_empty() && !selected.iter().any(|s| name.starts_with(s.as_str())) {
            continue;
        }
        for &workers in worker_counts.iter() {
            if only == "kpg" || only == "dd" {
                let run = if only == "kpg" { ours } else { theirs };
                println!(
                    "{name:<15} w={workers} | {only} {}",
                    fmt(&measure(|| run(workers, &p)))
                );
                continue;
            }
            // Alternate the systems and keep each one's best run: the machine is shared, and
            // interference only ever makes a run slower.
            let (mut a, mut b) = (
                measure(|| ours(workers, &p)),
                measure(|| theirs(workers, &p)),
            );
            for _ in 1..repeats {
                let again = measure(|| ours(workers, &p));
                if again.throughput > a.throughput {
                    a = again;
                }
                let again = measure(|| theirs(workers, &p));
                if again.throughput > b.throughput {
                    b = again;
                }
            }
            println!(
                "{name:<15} w={workers} | kpg {} | dd {} | kpg/dd throughput {:.2} memory {:.2}",
                fmt(&a),
                fmt(&b),
                a.throughput / b.throughput,
                a.peak as f64 / b.peak.max(1) as f64,
            );
        }
    }
}
