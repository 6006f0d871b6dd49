//! `tpch bench` (issue 20): the shared-arrangements paper's streaming TPC-H experiments on kpg,
//! shared vs not shared — install latency (Figure 1a), memory while queries arrive and retire
//! (Figure 1c), update latency (Figure 1b) — and the update throughput of each query (Figure
//! 12, 1 and 2 workers, beside PostgreSQL's REFRESH per batch), at scale factor 0.1
//! (`KPG_TPCH_SF=1` for SF 1; `KPG_BENCH_PARTS=streaming` or `throughput` for one part).
//! Writes `tests/results/tpch-streaming.md`, `tests/results/tpch-throughput.md` and PNG plots
//! beside them (`KPG_BENCH_OUT` for another directory) and prints the markdown. Run with
//! `KPG_BIN=$PWD/target/release/kpg cargo bench -p kpg-tests --bench tpch_streaming`.
//!
//! The experiments live in the test library (`tests/src/tpch_bench/`), so that
//! `tests/tests/tpch_bench_smoke.rs` runs them small. The figures are printed with the targets
//! as met or not met; nothing about time is asserted (the machine is shared and noisy).

use kpg_tests::tpch_bench::{suite, Config};

#[tokio::main]
async fn main() {
    let config = Config::from_env();
    let outcome = suite::run_suite(&config).await;
    println!("\n{}", outcome.markdown);
    for plot in &outcome.plots {
        println!("plot: {}", plot.display());
    }
    for e in &outcome.plot_errors {
        println!("plot not drawn: {e}");
    }
    for file in &outcome.results_files {
        println!("results: {}", file.display());
    }
}
