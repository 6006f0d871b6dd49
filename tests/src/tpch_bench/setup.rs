//! The streaming TPC-H scenario of the shared-arrangements paper (§6.1.1) on one kpg: the
//! seven keyed relations loaded whole, lineitem as a stream of fulfillment events
//! (`lineitem_events`, the TPC-H columns plus `l_arrival`, the event's arrival in ms since the
//! Unix epoch, the unit of `mz_now()`), and `lineitem` a view of the events that arrived in the
//! last `window_ms` (a temporal filter), so a query over `lineitem` sees only recent events.
//!
//! Shared: the seven primary-key indexes and an index of the windowed `lineitem` by
//! `l_orderkey` are created once, and the queries import them. Not shared: no index, so each
//! query arranges its own inputs (and applies the window itself to every event).
//!
//! The events already loaded arrive at time 0 (outside every window); [`Streamer`] inserts
//! new events (line items of the generated data, again and again) in rounds while the
//! experiments run.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use kpg_tpch::{CharColumns, TABLES};
use tokio_postgres::Client;

use super::{run, Config, Sharing};
use crate::{CopyText, KpgServer};

/// The seven keyed relations and their primary keys (the demo's indexes, `kpg_tpch::demo`).
fn keyed() -> impl Iterator<Item = (&'static str, &'static str)> {
    kpg_tpch::demo::INDEXES
        .iter()
        .map(|(_, table, key)| (*table, *key))
}

/// The generated data, as COPY text (made before any clock starts) and event tuples.
pub struct Data {
    /// The seven keyed relations.
    pub keyed: Vec<(&'static str, CopyText)>,
    /// Every line item as an event of time 0.
    pub events: CopyText,
    /// Line items as SQL tuples without their closing `, l_arrival)`, for the streamer.
    pub tuples: Arc<Vec<String>>,
}

impl Data {
    pub fn generate(sf: f64) -> Data {
        let keyed = keyed().map(|(t, _)| (t, CopyText::tpch(t, sf))).collect();
        let lineitem = CopyText::tpch("lineitem", sf);
        let text: String = lineitem
            .chunks
            .iter()
            .map(|c| std::str::from_utf8(c).expect("COPY text is UTF-8"))
            .collect();
        let events = CopyText::from_lines(text.lines().map(|l| format!("{l}\t0")));
        // The streamer cycles through (at most) the first 200,000 line items.
        let tuples = kpg_tpch::rows("lineitem", sf, 1, 1)
            .take(200_000)
            .map(|row| {
                let mut sql = String::from("(");
                for (i, v) in row.iter().enumerate() {
                    if i > 0 {
                        sql.push_str(", ");
                    }
                    v.write_sql(&mut sql);
                }
                sql
            })
            .collect();
        Data {
            keyed,
            events,
            tuples: Arc::new(tuples),
        }
    }

    /// Rows of the 8 relations (the keyed ones and the events).
    pub fn rows(&self) -> u64 {
        self.keyed.iter().map(|(_, c)| c.rows).sum::<u64>() + self.events.rows
    }
}

/// The columns of lineitem, comma-separated.
fn lineitem_columns() -> String {
    kpg_tpch::columns("lineitem")
        .iter()
        .map(|(c, _)| *c)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Creates and loads the relations on a fresh kpg, and the indexes when `sharing` is shared.
pub async fn load(client: &Client, data: &Data, config: &Config, sharing: Sharing) {
    for (table, text) in &data.keyed {
        run(client, &kpg_tpch::create_table(table, CharColumns::Char)).await;
        text.copy_into(client, table).await;
    }
    let ddl = kpg_tpch::create_table("lineitem", CharColumns::Char);
    let ddl = ddl
        .replacen(
            "CREATE TABLE lineitem (",
            "CREATE TABLE lineitem_events (",
            1,
        )
        .strip_suffix(')')
        .expect("CREATE TABLE ends with its column list")
        .to_string()
        + ", l_arrival bigint)";
    run(client, &ddl).await;
    data.events.copy_into(client, "lineitem_events").await;
    run(
        client,
        &format!(
            "CREATE VIEW lineitem AS SELECT {} FROM lineitem_events \
             WHERE mz_now() < l_arrival + {}",
            lineitem_columns(),
            config.window_ms
        ),
    )
    .await;
    if sharing == Sharing::Shared {
        for (table, key) in keyed() {
            run(
                client,
                &format!("CREATE INDEX {table}_pk ON {table} ({key})"),
            )
            .await;
        }
        run(
            client,
            "CREATE INDEX lineitem_window ON lineitem (l_orderkey)",
        )
        .await;
        // Wait until every index is built.
        for (table, _) in keyed() {
            run(client, &format!("SELECT count(*) FROM {table}")).await;
        }
        run(client, "SELECT count(*) FROM lineitem").await;
    }
}

/// Milliseconds since the Unix epoch (the unit of `mz_now()`).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_millis() as u64
}

/// `INSERT INTO lineitem_events` of `count` tuples from `next` on (cycling), arriving at `at`.
pub fn round_insert(tuples: &[String], next: usize, count: usize, at: u64) -> String {
    let mut sql = String::from("INSERT INTO lineitem_events VALUES ");
    for i in 0..count {
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&tuples[(next + i) % tuples.len()]);
        sql.push_str(&format!(", {at})"));
    }
    sql
}

/// Inserts a round of `config.round_events` events every `config.tick` on its own connection
/// until stopped.
pub struct Streamer {
    stop: Arc<AtomicBool>,
    rounds: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Streamer {
    pub async fn start(kpg: &KpgServer, data: &Data, config: &Config) -> Streamer {
        let client = kpg.connect().await;
        let stop = Arc::new(AtomicBool::new(false));
        let rounds = Arc::new(AtomicU64::new(0));
        let (tuples, per_round, tick) = (data.tuples.clone(), config.round_events, config.tick);
        let (s, r) = (stop.clone(), rounds.clone());
        let task = tokio::spawn(async move {
            let mut next = 0;
            let mut at = Instant::now();
            while !s.load(Ordering::Relaxed) {
                run(&client, &round_insert(&tuples, next, per_round, now_ms())).await;
                next = (next + per_round) % tuples.len();
                r.fetch_add(1, Ordering::Relaxed);
                at += tick;
                tokio::time::sleep_until(at.into()).await;
            }
        });
        Streamer { stop, rounds, task }
    }

    /// Stops the streamer; returns the rounds it inserted.
    pub async fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.task.await.expect("the streamer panicked");
        self.rounds.load(Ordering::Relaxed)
    }
}

/// The relations a query reads (each counted once, however often it is named).
pub fn tables_read(sql: &str) -> Vec<&'static str> {
    let words: Vec<&str> = sql
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    TABLES
        .iter()
        .copied()
        .filter(|t| words.iter().any(|w| w.eq_ignore_ascii_case(t)))
        .collect()
}
