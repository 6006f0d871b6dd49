//! One configuration (shared or not shared) of the streaming experiments on a fresh kpg:
//! load, start the event stream, install each query once (Figure 1a), let queries arrive and
//! retire ten at a time while sampling RSS (Figure 1c), then time rounds of input through the
//! ten views still installed (Figure 1b).

use std::time::{Duration, Instant};

use super::install::{self, Install};
use super::memory::{self, Samples};
use super::setup::{self, Data, Streamer};
use super::{rss, Config, Sharing};
use crate::KpgServer;

/// The figures of one configuration.
pub struct StreamingRun {
    pub sharing: Sharing,
    /// Time to create and load the relations (and build the indexes, when shared).
    pub load: Duration,
    /// RSS once loaded, with the stream running.
    pub loaded_rss: u64,
    pub installs: Vec<Install>,
    pub rss: Samples,
    pub update: Vec<Duration>,
    /// Rounds the streamer inserted while queries were installed.
    pub rounds: u64,
}

pub async fn streaming(config: &Config, data: &Data, sharing: Sharing) -> StreamingRun {
    let kpg = KpgServer::start_with_workers(config.workers).await;
    let client = kpg.connect().await;
    let started = Instant::now();
    setup::load(&client, data, config, sharing).await;
    let load = started.elapsed();
    println!(
        "  {}: loaded in {:.1} s, RSS {:.0} MiB",
        sharing.label(),
        load.as_secs_f64(),
        super::mib(rss(kpg.pid()))
    );
    let streamer = Streamer::start(&kpg, data, config).await;
    // Let the window fill for a moment (a second of events).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let loaded_rss = rss(kpg.pid());
    let installs = install::measure(&client, &config.queries).await;
    for i in &installs {
        println!(
            "    {} installed in {:.1} ms",
            i.name,
            i.took.as_secs_f64() * 1000.0
        );
    }
    let (samples, active) = memory::arrive_and_retire(&kpg, &client, config).await;
    let rounds = streamer.stop().await;
    let update = memory::update_latency(&kpg, data, config, &active).await;
    memory::retire(&client, &active).await;
    StreamingRun {
        sharing,
        load,
        loaded_rss,
        installs,
        rss: samples,
        update,
        rounds,
    }
}
