//! `kpg-tpch`: the streaming TPC-H demo's command line. `load` streams the 8 relations into
//! one Kafka topic each (CSV) at a rate; `setup` creates the demo's sources, primary-key
//! indexes and views in a running kpg; `watch` prints a live line per view until Ctrl-C. The
//! SQL itself is `kpg_tpch::demo`'s, so `kpg --demo`, `scripts/demo-tpch.sh` and docker
//! compose show the same scenario.

mod load;
mod watch;

use clap::{Args, Parser, Subcommand};
use kpg_tpch::demo::DemoSource;

#[derive(Parser)]
#[command(
    name = "kpg-tpch",
    about = "The streaming TPC-H demo: loader, setup and watcher"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Stream the 8 TPC-H relations into Kafka, one topic per relation, CSV.
    Load(load::LoadArgs),
    /// Create the demo's sources, the seven primary-key indexes and the views in kpg.
    Setup(SetupArgs),
    /// Print a line per demo view (updates per second, current top rows) every second.
    Watch(watch::WatchArgs),
}

/// How to reach kpg.
#[derive(Args, Clone)]
pub struct KpgArgs {
    /// kpg's host.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// kpg's port.
    #[arg(long, default_value_t = 6875)]
    pub port: u16,
}

impl KpgArgs {
    /// Connects, retrying for up to `wait_secs` while kpg is not accepting connections yet.
    pub async fn connect(&self, wait_secs: u64) -> anyhow::Result<tokio_postgres::Client> {
        let conn = format!(
            "host={} port={} user=kpg dbname=kpg connect_timeout=5",
            self.host, self.port
        );
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(wait_secs);
        loop {
            match tokio_postgres::connect(&conn, tokio_postgres::NoTls).await {
                Ok((client, connection)) => {
                    tokio::spawn(async move {
                        if let Err(e) = connection.await {
                            eprintln!("kpg-tpch: connection to kpg: {e}");
                        }
                    });
                    return Ok(client);
                }
                Err(e) if std::time::Instant::now() < deadline => {
                    let _ = e;
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                }
                Err(e) => {
                    anyhow::bail!("cannot connect to kpg at {}:{}: {e}", self.host, self.port)
                }
            }
        }
    }
}

#[derive(Args)]
struct SetupArgs {
    #[command(flatten)]
    kpg: KpgArgs,
    /// Read the relations from the built-in TPC-H load generator instead of Kafka.
    #[arg(long)]
    generator: bool,
    /// The Kafka broker (as kpg reaches it; setup creates missing topics through it too).
    #[arg(long, default_value = "127.0.0.1:9092")]
    broker: String,
    /// Topic names are this prefix and the relation's name.
    #[arg(long, default_value = "tpch-")]
    topic_prefix: String,
    /// Partitions of each topic, if setup creates them (Kafka).
    #[arg(long, default_value_t = 1)]
    partitions: i32,
    /// The load generator's scale factor (with --generator).
    #[arg(long, default_value_t = 0.01)]
    scale_factor: f64,
    /// The load generator's tick interval (with --generator).
    #[arg(long, default_value = "100ms")]
    tick: String,
    /// Seconds to wait for kpg to accept connections.
    #[arg(long, default_value_t = 120)]
    wait: u64,
}

async fn setup(args: SetupArgs) -> anyhow::Result<()> {
    let source = if args.generator {
        DemoSource::Generator {
            scale_factor: args.scale_factor,
            tick: args.tick.clone(),
        }
    } else {
        DemoSource::Kafka {
            broker: args.broker.clone(),
            topic_prefix: args.topic_prefix.clone(),
        }
    };
    if let DemoSource::Kafka {
        broker,
        topic_prefix,
    } = &source
    {
        // A source needs its topic: create the ones the loader has not created yet.
        let topics: Vec<String> = kpg_tpch::TABLES
            .iter()
            .map(|t| format!("{topic_prefix}{t}"))
            .collect();
        load::create_topics(broker, &topics, args.partitions).await?;
    }
    let client = args.kpg.connect(args.wait).await?;
    for sql in kpg_tpch::demo::setup_statements(&source) {
        let shown: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
        let shown = if shown.chars().count() > 100 {
            format!("{}...", shown.chars().take(100).collect::<String>())
        } else {
            shown
        };
        match client.batch_execute(&sql).await {
            Ok(()) => println!("ok: {shown}"),
            // Already there (a setup run again on the same data directory): keep it.
            Err(e)
                if e.code().is_some_and(|c| {
                    c.code() == "42P07" || c.code() == "42710" || c.code() == "42P06"
                }) =>
            {
                println!("exists: {shown}")
            }
            Err(e) => {
                let msg = e.as_db_error().map(|d| d.message().to_string());
                anyhow::bail!("{shown}: {}", msg.unwrap_or_else(|| e.to_string()))
            }
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Load(args) => load::load(args).await,
        Command::Setup(args) => setup(args).await,
        Command::Watch(args) => watch::watch(args).await,
    };
    if let Err(e) = result {
        eprintln!("kpg-tpch: {e:#}");
        std::process::exit(1);
    }
}
