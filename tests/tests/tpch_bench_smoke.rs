//! Smoke test of `tpch bench` (tests/src/tpch_bench/): the streaming experiments at a tiny
//! scale factor with a few queries, shared and not shared, and the throughput experiment on
//! kpg (1 worker) and PostgreSQL. It checks that every figure is there and consistent (a time
//! per query and round, RSS samples above zero, rates above zero, the results files and the
//! PNG plots written), and that sharing does what it is for: a query that reads lineitem and
//! joins keyed relations installs faster with the shared indexes than when it arranges its own
//! inputs (summed over the queries, so one slow moment does not decide).

use std::time::Duration;

use kpg_tests::tpch_bench::report::install_ms;
use kpg_tests::tpch_bench::{suite, Config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_bench_runs_small_and_its_figures_are_consistent() {
    let out = tempfile::tempdir().expect("temp dir");
    let mut config = Config::from_env();
    config.scale_factor = 0.01;
    config.workers = 2;
    // Q3 (customer, orders, lineitem), Q13 (no lineitem), Q5 (six relations).
    config.queries = [3, 13, 5].into_iter().map(kpg_tpch::query).collect();
    config.arrivals = 6;
    config.active = 2;
    config.dwell = Duration::from_millis(200);
    config.update_rounds = 5;
    config.out_dir = out.path().to_path_buf();
    config.streaming = true;
    config.throughput = true;
    config.throughput_workers = vec![1];
    config.batch_rows = 25_000;
    config.postgres = true;
    let outcome = suite::run_suite(&config).await;

    let (shared_run, not_shared_run) = outcome.streaming.as_ref().expect("streaming figures");
    for run in [shared_run, not_shared_run] {
        assert_eq!(run.installs.len(), 3);
        assert!(run.installs.iter().all(|i| !i.took.is_zero()));
        assert_eq!(
            run.installs.iter().map(|i| i.lineitem).collect::<Vec<_>>(),
            [true, false, true]
        );
        assert!(!run.rss.is_empty() && run.rss.iter().all(|(_, b)| *b > 0));
        assert_eq!(run.update.len(), 5);
        assert!(run.update.iter().all(|d| !d.is_zero()));
        assert!(run.rounds > 0, "the stream inserted events");
    }
    let shared: f64 = install_ms(shared_run, true).iter().sum();
    let not: f64 = install_ms(not_shared_run, true).iter().sum();
    assert!(
        shared <= not,
        "lineitem-derived installs: shared {shared:.1} ms > not shared {not:.1} ms"
    );

    let t = outcome.throughput.as_ref().expect("throughput figures");
    // SF 0.01 has 86,805 rows: four batches of 25,000 rows.
    assert_eq!((t.rows, t.batches), (86_805, 4));
    assert_eq!(t.kpg.len(), 1);
    let (workers, load, rates) = &t.kpg[0];
    assert_eq!(*workers, 1);
    assert!(*load > 0.0 && rates.len() == 3 && rates.iter().all(|r| *r > 0.0));
    let pg = t.postgres.as_ref().expect("PostgreSQL's rates");
    assert!(pg.len() == 3 && pg.iter().all(|(r, _)| *r > 0.0));

    let md: String = outcome
        .results_files
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("results file"))
        .collect();
    assert_eq!(md, outcome.markdown);
    for section in [
        "Install latency",
        "Memory",
        "Update latency",
        "| q03 | yes |",
        "Update throughput",
        "| q13 |",
    ] {
        assert!(md.contains(section), "results lack {section}:\n{md}");
    }
    assert!(outcome.plot_errors.is_empty(), "{:?}", outcome.plot_errors);
    assert_eq!(outcome.plots.len(), 4);
    for plot in &outcome.plots {
        let bytes = std::fs::read(plot).expect("plot written");
        assert!(bytes.starts_with(b"\x89PNG"), "{} is a PNG", plot.display());
    }
}
