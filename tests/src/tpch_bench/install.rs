//! Install latency (the paper's Figure 1a): for each query, the time from `CREATE MATERIALIZED
//! VIEW` to its first complete result while the events stream. A `SELECT count(*)` of the new
//! view waits until the view has caught up with the read's timestamp, so the time of both
//! statements is the time until the view answers. The view is dropped right after.

use std::time::{Duration, Instant};

use tokio_postgres::Client;

use super::run;

/// One query's install.
#[derive(Debug, Clone)]
pub struct Install {
    pub name: String,
    /// Whether the query reads lineitem (the windowed events).
    pub lineitem: bool,
    pub took: Duration,
}

/// Creates the materialized view `name` of `sql` and waits for its first complete result;
/// the time both took.
pub async fn install_view(client: &Client, name: &str, sql: &str) -> Duration {
    let started = Instant::now();
    run(client, &format!("CREATE MATERIALIZED VIEW {name} AS {sql}")).await;
    run(client, &format!("SELECT count(*) FROM {name}")).await;
    started.elapsed()
}

/// Installs each query once, in order, and drops it again.
pub async fn measure(client: &Client, queries: &[kpg_tpch::Query]) -> Vec<Install> {
    let mut installs = Vec::new();
    for q in queries {
        let name = format!("install_{}", q.name());
        let sql = q.sql();
        let took = install_view(client, &name, &sql).await;
        run(client, &format!("DROP MATERIALIZED VIEW {name}")).await;
        installs.push(Install {
            name: q.name(),
            lineitem: super::setup::tables_read(&sql).contains(&"lineitem"),
            took,
        });
    }
    installs
}
