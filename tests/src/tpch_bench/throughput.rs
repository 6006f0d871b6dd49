//! Update throughput (the paper's Appendix B, Figure 12): the tuples per second each query
//! sustains while the 8 relations stream through it. The rows of the 8 relations are dealt
//! round-robin (one row of each relation that still has rows, in turn) into logical batches
//! of `config.batch_rows`; each batch is one `COPY` per relation it holds rows of. For each
//! query, on empty tables of a fresh kpg: `CREATE MATERIALIZED VIEW`, then per batch its
//! COPYs and a read of the view (which waits until the view reflects the batch); the rate is
//! all rows over the time from the first COPY to the last read. The same batches with no view
//! give the rate of the load alone. PostgreSQL does what its users do without kpg: per batch
//! the COPYs and `REFRESH MATERIALIZED VIEW` (a query whose refresh takes over 60 s is cut off
//! there and its rate is an upper bound of what it sustains).

use std::time::{Duration, Instant};

use futures::SinkExt;
use kpg_tpch::{CharColumns, TABLES};
use tokio_postgres::Client;

use super::{run, Config};
use crate::{describe_error, sqlstate, KpgServer, Postgres};

/// PostgreSQL's time for one refresh before the query is cut off.
const PG_REFRESH_LIMIT: Duration = Duration::from_secs(60);

/// One batch: per relation, COPY text of its rows in the batch (relations without rows in
/// the batch left out).
pub type Batch = Vec<(&'static str, String, u64)>;

/// The rows of the 8 relations dealt round-robin into batches of `batch_rows`.
pub fn batches(sf: f64, batch_rows: usize) -> (Vec<Batch>, u64) {
    let lines: Vec<Vec<String>> = TABLES
        .iter()
        .map(|t| {
            let text = crate::CopyText::tpch(t, sf);
            text.chunks
                .iter()
                .flat_map(|c| {
                    std::str::from_utf8(c)
                        .expect("COPY text is UTF-8")
                        .lines()
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                })
                .collect()
        })
        .collect();
    let total: usize = lines.iter().map(Vec::len).sum();
    let mut next = vec![0usize; TABLES.len()];
    let mut out = Vec::new();
    let mut dealt = 0;
    while dealt < total {
        // How many rows of each relation this batch takes, dealt one at a time in turn.
        let mut take = vec![0usize; TABLES.len()];
        let mut in_batch = 0;
        while in_batch < batch_rows && dealt + in_batch < total {
            for (i, rows) in lines.iter().enumerate() {
                if in_batch < batch_rows && next[i] + take[i] < rows.len() {
                    take[i] += 1;
                    in_batch += 1;
                }
            }
        }
        let mut batch = Batch::new();
        for (i, t) in TABLES.iter().enumerate() {
            if take[i] > 0 {
                let mut text = lines[i][next[i]..next[i] + take[i]].join("\n");
                text.push('\n');
                batch.push((*t, text, take[i] as u64));
                next[i] += take[i];
            }
        }
        dealt += in_batch;
        out.push(batch);
    }
    (out, total as u64)
}

async fn copy(client: &Client, table: &str, text: &str, rows: u64) -> Result<(), String> {
    let sink = client
        .copy_in(&format!("COPY {table} FROM STDIN"))
        .await
        .map_err(|e| describe_error(&e))?;
    let mut sink = Box::pin(sink);
    sink.send(bytes::Bytes::copy_from_slice(text.as_bytes()))
        .await
        .map_err(|e| describe_error(&e))?;
    let n = sink
        .as_mut()
        .finish()
        .await
        .map_err(|e| describe_error(&e))?;
    assert_eq!(n, rows, "COPY into {table} reports every row");
    Ok(())
}

async fn create_tables(client: &Client) {
    for t in TABLES {
        run(client, &format!("DROP TABLE IF EXISTS {t}")).await;
        run(client, &kpg_tpch::create_table(t, CharColumns::Char)).await;
    }
}

/// Streams the batches through `query` on kpg (or only loads them when `query` is `None`);
/// the time from the first COPY to the last read.
async fn kpg_query(
    client: &Client,
    batches: &[Batch],
    query: Option<&kpg_tpch::Query>,
) -> Duration {
    create_tables(client).await;
    if let Some(q) = query {
        run(
            client,
            &format!("CREATE MATERIALIZED VIEW tput AS {}", q.sql()),
        )
        .await;
    }
    let started = Instant::now();
    for batch in batches {
        for (table, text, rows) in batch {
            copy(client, table, text, *rows)
                .await
                .expect("COPY into kpg");
        }
        if query.is_some() {
            run(client, "SELECT count(*) FROM tput").await;
        }
    }
    let took = started.elapsed();
    if query.is_some() {
        run(client, "DROP MATERIALIZED VIEW tput").await;
    }
    took
}

/// kpg's rates with `workers` workers: the load alone, then each query (tuples/s).
pub async fn kpg_rates(
    config: &Config,
    batches: &[Batch],
    rows: u64,
    workers: usize,
) -> (f64, Vec<f64>) {
    let kpg = KpgServer::start_with_workers(workers).await;
    let client = kpg.connect().await;
    let load = rows as f64 / kpg_query(&client, batches, None).await.as_secs_f64();
    let mut rates = Vec::new();
    for q in &config.queries {
        let took = kpg_query(&client, batches, Some(q)).await;
        println!(
            "    kpg {workers}w {}: {:.2} s",
            q.name(),
            took.as_secs_f64()
        );
        rates.push(rows as f64 / took.as_secs_f64());
    }
    (load, rates)
}

/// PostgreSQL's rate per query with a `REFRESH MATERIALIZED VIEW` per batch, and whether the
/// query was cut off (the rate then counts the batches done).
pub async fn postgres_rates(config: &Config, batches: &[Batch]) -> Vec<(f64, bool)> {
    let pg = Postgres::start().await;
    let client = pg.connect().await;
    run(
        &client,
        &format!("SET statement_timeout = '{}s'", PG_REFRESH_LIMIT.as_secs()),
    )
    .await;
    let mut rates = Vec::new();
    for q in &config.queries {
        create_tables(&client).await;
        run(
            &client,
            &format!("CREATE MATERIALIZED VIEW tput AS {}", q.sql()),
        )
        .await;
        let (started, mut done, mut cut) = (Instant::now(), 0u64, false);
        for batch in batches {
            for (table, text, rows) in batch {
                copy(&client, table, text, *rows)
                    .await
                    .expect("COPY into PostgreSQL");
                done += rows;
            }
            match client.simple_query("REFRESH MATERIALIZED VIEW tput").await {
                Ok(_) => {}
                Err(e) if sqlstate(&e).as_deref() == Some("57014") => {
                    cut = true;
                    break;
                }
                Err(e) => panic!("{}: {}", q.name(), describe_error(&e)),
            }
        }
        let took = started.elapsed();
        println!(
            "    PostgreSQL {}: {:.2} s{}",
            q.name(),
            took.as_secs_f64(),
            if cut { " (cut off)" } else { "" }
        );
        run(&client, "DROP MATERIALIZED VIEW tput").await;
        rates.push((done as f64 / took.as_secs_f64(), cut));
    }
    rates
}

/// The figures of the throughput experiment.
pub struct Throughput {
    pub rows: u64,
    pub batches: usize,
    /// Per worker count: the load alone and each query's rate.
    pub kpg: Vec<(usize, f64, Vec<f64>)>,
    pub postgres: Option<Vec<(f64, bool)>>,
}

pub async fn measure(config: &Config) -> Throughput {
    let (batches, rows) = batches(config.scale_factor, config.batch_rows);
    let mut kpg = Vec::new();
    for &w in &config.throughput_workers {
        let (load, rates) = kpg_rates(config, &batches, rows, w).await;
        kpg.push((w, load, rates));
    }
    let postgres = if config.postgres {
        Some(postgres_rates(config, &batches).await)
    } else {
        None
    };
    Throughput {
        rows,
        batches: batches.len(),
        kpg,
        postgres,
    }
}
