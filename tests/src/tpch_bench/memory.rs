//! Memory (the paper's Figure 1c) and update latency (Figure 1b) with queries that arrive and
//! retire while the events stream.
//!
//! [`arrive_and_retire`]: queries (the configured ones, in a fixed pseudo-random order) are
//! installed one after another as materialized views, `config.active` at a time (the oldest
//! is dropped before a new one arrives), while kpg's RSS is sampled every 100 ms.
//! [`update_latency`]: then, with the streamer stopped and the last `active` views installed,
//! each round inserts one batch of events and times until every view has answered a read at
//! a timestamp after the insert (a read of a materialized view waits until the view has
//! caught up with it), so the time covers the insert and every view's update.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_postgres::Client;

use super::setup::{now_ms, round_insert, Data};
use super::{rss, run, Config};
use crate::KpgServer;

/// RSS samples: seconds since the start of the experiment, bytes.
pub type Samples = Vec<(f64, u64)>;

/// Samples the RSS of `pid` every 100 ms until stopped.
pub struct Sampler {
    stop: Arc<AtomicBool>,
    samples: Arc<Mutex<Samples>>,
    task: tokio::task::JoinHandle<()>,
}

impl Sampler {
    pub fn start(pid: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let samples = Arc::new(Mutex::new(Vec::new()));
        let (s, out) = (stop.clone(), samples.clone());
        let task = tokio::spawn(async move {
            let started = Instant::now();
            while !s.load(Ordering::Relaxed) {
                let bytes = rss(pid);
                out.lock()
                    .unwrap()
                    .push((started.elapsed().as_secs_f64(), bytes));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        Sampler {
            stop,
            samples,
            task,
        }
    }

    pub async fn stop(self) -> Samples {
        self.stop.store(true, Ordering::Relaxed);
        self.task.await.expect("the sampler panicked");
        let samples = self.samples.lock().unwrap().clone();
        samples
    }
}

/// The order in which queries arrive: indexes into `n` queries, from a fixed linear
/// congruential sequence (the same for both configurations).
pub fn arrival_order(n: usize, arrivals: usize) -> Vec<usize> {
    let mut x: u64 = 20;
    (0..arrivals)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % n as u64) as usize
        })
        .collect()
}

/// Installs `config.arrivals` queries, `config.active` at a time, sampling RSS; returns the
/// samples and the names of the views still installed.
pub async fn arrive_and_retire(
    kpg: &KpgServer,
    client: &Client,
    config: &Config,
) -> (Samples, Vec<String>) {
    let sampler = Sampler::start(kpg.pid());
    let mut active: VecDeque<String> = VecDeque::new();
    for (i, q) in arrival_order(config.queries.len(), config.arrivals)
        .into_iter()
        .enumerate()
    {
        let q = config.queries[q];
        if active.len() == config.active {
            let oldest = active.pop_front().expect("an active view");
            run(client, &format!("DROP MATERIALIZED VIEW {oldest}")).await;
        }
        let name = format!("m{i}_{}", q.name());
        run(
            client,
            &format!("CREATE MATERIALIZED VIEW {name} AS {}", q.sql()),
        )
        .await;
        run(client, &format!("SELECT count(*) FROM {name}")).await;
        active.push_back(name);
        tokio::time::sleep(config.dwell).await;
    }
    (sampler.stop().await, active.into_iter().collect())
}

/// `config.update_rounds` rounds of one batch of events each; per round, the time from the
/// insert until every view in `views` has answered a read after it.
pub async fn update_latency(
    kpg: &KpgServer,
    data: &Data,
    config: &Config,
    views: &[String],
) -> Vec<Duration> {
    let writer = kpg.connect().await;
    let mut readers = Vec::new();
    for _ in views {
        readers.push(kpg.connect().await);
    }
    let mut times = Vec::new();
    for r in 0..config.update_rounds {
        let insert = round_insert(
            &data.tuples,
            r * config.round_events,
            config.round_events,
            now_ms(),
        );
        let started = Instant::now();
        run(&writer, &insert).await;
        let reads = views.iter().zip(&readers).map(|(view, reader)| async move {
            run(reader, &format!("SELECT count(*) FROM {view}")).await;
        });
        futures::future::join_all(reads).await;
        times.push(started.elapsed());
        tokio::time::sleep(config.tick).await;
    }
    times
}

/// Drops the views.
pub async fn retire(client: &Client, views: &[String]) {
    for v in views {
        run(client, &format!("DROP MATERIALIZED VIEW {v}")).await;
    }
}
