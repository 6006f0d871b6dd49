//! `kpg`: the server binary. Parses flags, starts the compute workers and the coordinator, and
//! serves the PostgreSQL wire protocol.

mod catalog;
mod coord;
mod copy_in;
mod copy_out;
mod cursors;
mod demo;
mod error;
mod pgwire_server;
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
    /// Number of timely worker threads that run dataflows.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Directory for kpg's data. It is created if missing; kpg does not yet persist the catalog
    /// or table contents there, so a restart starts empty.
    #[arg(long, default_value = "./kpg-data")]
    data_dir: PathBuf,
    /// Create a small demo schema (tables `demo_customers`, `demo_orders` and the materialized
    /// view `demo_revenue`) at start.
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
    std::fs::create_dir_all(&args.data_dir)
        .with_context(|| format!("creating data directory {}", args.data_dir.display()))?;
    if args.workers == 0 {
        anyhow::bail!("--workers must be at least 1");
    }
    let compute =
        kpg_compute::start(args.workers).map_err(|e| anyhow::anyhow!("starting workers: {e}"))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(args, compute))
}

async fn serve(args: Args, compute: kpg_compute::ComputeHandle) -> anyhow::Result<()> {
    let coord = coord::Coordinator::start(compute);
    if args.demo {
        demo::install(&coord)
            .await
            .context("installing the demo schema")?;
    }
    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    tracing::info!(listen = %args.listen, workers = args.workers, data_dir = %args.data_dir.display(), "kpg is ready");
    let handlers = pgwire_server::Handlers::new(Arc::clone(&coord));
    loop {
        let (socket, peer) = listener.accept().await?;
        let handlers = Arc::clone(&handlers);
        tokio::spawn(async move {
            if let Err(e) = pgwire::tokio::process_socket(socket, None, handlers).await {
                tracing::debug!(%peer, "connection ended: {e}");
            }
        });
    }
}
