//! `kpg`: the server binary. Parses flags, starts the compute workers and the coordinator, and
//! serves the PostgreSQL wire protocol. In a cluster (`--processes n`), process 0 does all that
//! with its share of the workers; the other processes only run their workers.

/// jemalloc, chosen by measurement (issue 17): installing TPC-H Q1, Q3 and Q9 as views over
/// SF 0.1 took 6.6-6.9 s of CPU with it, 7.7 s with mimalloc and 10.8-11.8 s with glibc's
/// malloc, and RSS after them was 1.32 GiB against 1.35 (mimalloc) and 1.80 (glibc).
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options: a background thread returns freed pages to the system (after jemalloc's
/// default decay of 10 s), so memory goes back near the idle baseline once views, indexes and
/// tables are dropped (1M rows of a table with an index and a view: 1146 MiB, 62 MiB 25 s after
/// dropping them all, idle 17 MiB; without the thread 513 MiB stayed). `oversize_threshold:0`
/// turns off jemalloc's separate arena for allocations over 8 MiB, which returns their pages at
/// once when they are freed: the engine's sort and merge buffers of a large input are that
/// size, and each new one took fresh pages from the kernel (page faults and zeroing were 12% of
/// TPC-H Q18's install). With the 10 s decay instead, Q5, Q9, Q18 and Q21 install as views
/// 13-20% faster (SF 0.1, 1 worker); RSS 15 s after is the same.
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: &[u8] = b"background_thread:true,oversize_threshold:0\0";

mod allocator;
mod catalog;
mod cluster;
mod coord;
mod copy_in;
mod copy_out;
mod cursors;
mod demo;
mod error;
mod fatal;
mod implicit_txn;
mod pgwire_server;
mod planner_settings;
mod session;
mod session_dates;
mod session_vars;
mod statement_context;
mod storage;
mod txn;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use tokio::net::TcpListener;
use tracing_subscriber::EnvFilter;

/// kpg: a streaming SQL server. Connect with `psql -h 127.0.0.1 -p 6875 -U kpg kpg`.
#[derive(Parser, Debug)]
#[command(name = "kpg", version, about)]
struct Args {
    /// Address to accept PostgreSQL wire protocol connections on.
    #[arg(long, default_value = "127.0.0.1:6875")]
    listen: SocketAddr,
    /// Number of timely worker threads that run dataflows (in each process of a cluster).
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// This process's index in a cluster, from 0 to --processes minus 1. Process 0 serves SQL
    /// (on --listen) and runs the coordinator; the others only run workers and exit when
    /// process 0 goes away.
    #[arg(long, default_value_t = 0, value_name = "I")]
    process: usize,
    /// Number of processes forming one cluster (timely over TCP); each runs --workers threads.
    /// Start every process with the same --processes, --workers and --addresses.
    #[arg(long, default_value_t = 1, value_name = "N")]
    processes: usize,
    /// With --processes > 1: a file with one host:port per line, process 0 first, where each
    /// process listens for the others (timely's hostfile; empty and # lines are skipped).
    #[arg(long, value_name = "FILE")]
    addresses: Option<PathBuf>,
    /// Directory for kpg's data: the catalog and every table's rows (`kpg.redb`). Created if
    /// missing; a restart, also after a crash, resumes from it. One kpg at a time may use it.
    #[arg(long, default_value = "./kpg-data")]
    data_dir: PathBuf,
    /// The directory whose files `CREATE SOURCE ... FROM FILE` may read (relative paths are
    /// taken from it). Without it, file sources are refused.
    #[arg(long, value_name = "DIR")]
    file_source_dir: Option<PathBuf>,
    /// Start the streaming TPC-H demo (if it is not there yet): the built-in TPC-H load
    /// generator (source `tpch`, scale factor 0.01, a tick every 100 ms), the seven primary-key
    /// indexes and the materialized views `q01_pricing`, `q05_asia_volume`, `q06_forecast` and
    /// `revenue_by_nation`.
    #[arg(long)]
    demo: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    allocator::log_periodically();
    // Fault injection for tests: the fail points named in `FAILPOINTS` (the `fail` crate's
    // `name=action;...`), none unless it is set. Held for the life of the process.
    let _failpoints = fail::FailScenario::setup();
    if args.workers == 0 {
        anyhow::bail!("--workers must be at least 1");
    }
    let cluster = cluster::config(
        args.process,
        args.processes,
        args.addresses.as_deref(),
        args.workers,
    )?;
    fatal::exit_on_worker_panic(cluster.is_some().then_some(args.process));
    let compute = match cluster {
        None => kpg_compute::start(args.workers)
            .map_err(|e| anyhow::anyhow!("starting workers: {e}"))?,
        Some(config) => {
            tracing::info!(
                process = args.process,
                processes = args.processes,
                workers = args.workers,
                "joining the cluster; waiting for every process to connect"
            );
            match kpg_compute::start_cluster(config)
                .map_err(|e| anyhow::anyhow!("joining the cluster: {e}"))?
            {
                kpg_compute::Started::Coordinator(compute) => compute,
                kpg_compute::Started::Workers(workers) => {
                    tracing::info!(
                        process = args.process,
                        "cluster formed; running workers until process 0 stops"
                    );
                    workers
                        .join()
                        .map_err(|e| anyhow::anyhow!("a worker failed: {e}"))?;
                    tracing::info!(process = args.process, "workers stopped; exiting");
                    return Ok(());
                }
            }
        }
    };
    // The store is opened before the runtime starts: a data directory in use or damaged stops
    // kpg here, with the store's message, before anything is served.
    let store = storage::redb_store::RedbStore::open(&args.data_dir).map_err(|e| {
        anyhow::anyhow!(e.0).context(format!(
            "opening data directory {}",
            args.data_dir.display()
        ))
    })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(args, compute, Box::new(store)))?;
    // A clean stop: the committer has flushed; nothing else needs to wind down.
    std::process::exit(0)
}

async fn serve(
    args: Args,
    compute: kpg_compute::ComputeHandle,
    store: Box<dyn storage::Store>,
) -> anyhow::Result<()> {
    let (coord, snapshot) = coord::Coordinator::start(compute, store).map_err(|e| {
        anyhow::anyhow!(e.0).context(format!(
            "reading data directory {}",
            args.data_dir.display()
        ))
    })?;
    if let Some(dir) = &args.file_source_dir {
        let _ = coord.file_source_dir.set(dir.clone());
    }
    coord
        .restore(snapshot)
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
    if args.demo && coord.resolve(demo::DEMO_SOURCE).is_none() {
        demo::install(&coord)
            .await
            .context("installing the demo schema")?;
    }
    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    tracing::info!(listen = %args.listen, workers = args.workers, processes = args.processes, data_dir = %args.data_dir.display(), "kpg is ready");
    let handlers = pgwire_server::Handlers::new(Arc::clone(&coord));
    let mut stop = std::pin::pin!(shutdown_signal());
    loop {
        let (socket, peer) = tokio::select! {
            accepted = listener.accept() => accepted?,
            signal = &mut stop => {
                // Stop accepting; statements acknowledged so far are durable already, and
                // the committer finishes those in flight before the store is closed.
                tracing::info!(signal, "shutting down");
                drop(listener);
                coord.shutdown();
                return Ok(());
            }
        };
        let handlers = Arc::clone(&handlers);
        let coord = Arc::clone(&coord);
        tokio::spawn(async move {
            // Each connection is a session, which its temporary tables do not outlive.
            let (session, result) =
                catalog::temp::in_session(pgwire::tokio::process_socket(socket, None, handlers))
                    .await;
            coord.drop_temporary(session);
            if let Err(e) = result {
                tracing::debug!(%peer, "connection ended: {e}");
            }
        });
    }
}

/// Resolves with the signal's name on SIGTERM or SIGINT.
async fn shutdown_signal() -> &'static str {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    }
}
