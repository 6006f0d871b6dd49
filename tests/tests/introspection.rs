//! Introspection over the wire (issue 5): `kpg_arrangements` and `kpg_dataflows` as relations
//! SQL can filter, aggregate and join. Ten views reading one index show as one arrangement with
//! ten readers; records follow the data; dataflows report what they import and export and how
//! long they took to hydrate; the relations cannot be written, dropped or frozen into views.

use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// Polls `sql` until its single value equals `want` (figures follow dataflows asynchronously).
async fn eventually(c: &Client, sql: &str, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = query(c, sql).await;
        if got == rows(&[&[want]]) {
            return;
        }
        if Instant::now() > deadline {
            panic!("`{sql}`: wanted {want}, still {got:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arrangements_and_dataflows_are_queryable() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE dims (k int4, name text)").await;
    execute(&c, "CREATE TABLE facts (id int4, k int4)").await;
    let dims: Vec<String> = (0..100).map(|i| format!("({i}, 'd{i}')")).collect();
    execute(&c, &format!("INSERT INTO dims VALUES {}", dims.join(", "))).await;
    execute(&c, "INSERT INTO facts VALUES (1, 1), (2, 2), (3, 2)").await;
    execute(&c, "CREATE INDEX dims_k ON dims (k)").await;

    // The index's arrangement holds every row, summed over the workers' shards.
    eventually(
        &c,
        "SELECT sum(records) FROM kpg_arrangements WHERE owner = 'dims_k' AND arrangement = 'index'",
        "100",
    )
    .await;
    assert_eq!(
        query(&c, "SELECT owner_kind, key FROM kpg_arrangements WHERE owner = 'dims_k' AND arrangement = 'index'").await,
        rows(&[&["index", "(#0)"]])
    );

    // Ten views join against the index: one arrangement, ten readers.
    for i in 0..10 {
        execute(
            &c,
            &format!(
                "CREATE MATERIALIZED VIEW v{i} AS SELECT f.id, d.name FROM facts f JOIN dims d ON f.k = d.k WHERE f.id > {i}"
            ),
        )
        .await;
    }
    eventually(
        &c,
        "SELECT readers FROM kpg_arrangements WHERE owner = 'dims_k' AND arrangement = 'index'",
        "10",
    )
    .await;
    assert_eq!(
        query(
            &c,
            "SELECT count(*) FROM kpg_arrangements WHERE arrangement = 'index'"
        )
        .await,
        rows(&[&["1"]]),
        "the views share the index rather than arranging dims again"
    );
    // Each view arranged only its facts side (the index serves the dims side).
    assert_eq!(
        query(&c, "SELECT count(*) FROM kpg_arrangements WHERE owner = 'v3' AND arrangement LIKE '%join input'").await,
        rows(&[&["1"]])
    );

    // Dropping views releases their reads.
    for i in 0..5 {
        execute(&c, &format!("DROP MATERIALIZED VIEW v{i}")).await;
    }
    eventually(
        &c,
        "SELECT readers FROM kpg_arrangements WHERE owner = 'dims_k' AND arrangement = 'index'",
        "5",
    )
    .await;

    // Dataflows: what they import and export, and their hydration time; joinable.
    assert_eq!(
        query(
            &c,
            "SELECT name, imports, exports FROM kpg_dataflows WHERE exports = 'v7'"
        )
        .await,
        rows(&[&["materialized-view-v7", "dims_k, facts", "v7"]])
    );
    eventually(
        &c,
        "SELECT count(*) FROM kpg_dataflows WHERE name LIKE 'materialized-view-%' AND hydration_ms >= 0",
        "5",
    )
    .await;
    assert_eq!(
        query(
            &c,
            "SELECT d.exports, sum(a.records) FROM kpg_dataflows d \
             JOIN kpg_arrangements a ON a.owner = d.exports \
             WHERE d.exports IN ('dims', 'facts') GROUP BY d.exports ORDER BY 1"
        )
        .await,
        rows(&[&["dims", "100"], &["facts", "3"]])
    );

    // The relations are read-only and cannot be frozen into views.
    let (code, _) = expect_error(&c, "CREATE VIEW snap AS SELECT * FROM kpg_arrangements").await;
    assert_eq!(code, "0A000");
    let (code, _) = expect_error(
        &c,
        "CREATE MATERIALIZED VIEW snap AS SELECT * FROM kpg_dataflows",
    )
    .await;
    assert_eq!(code, "0A000");
    let (code, _) = expect_error(&c, "DROP VIEW kpg_dataflows").await;
    assert_eq!(code, "0A000");
    let (code, _) = expect_error(&c, "INSERT INTO kpg_dataflows VALUES ('x')").await;
    assert_eq!(code, "42809");
    // Through the extended protocol too (described before it runs).
    let rows = c
        .query("SELECT owner, readers FROM kpg_arrangements WHERE owner = $1 AND arrangement = 'index'", &[&"dims_k"])
        .await
        .expect("extended-protocol introspection");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].get::<_, i64>(1), 5);
}
