//! EXPLAIN over the wire (issues 4 and 5): one text row per statement, through the simple and
//! the extended protocol; RAW plans keep subqueries nested; the physical plan names the
//! indexes a query imports and counts the arrangements it would build, and changes when an
//! index appears or goes.

use kpg_tests::*;

async fn explain(c: &kpg_tests::tokio_postgres::Client, sql: &str) -> String {
    // tokio-postgres' `query` uses the extended protocol (Parse/Describe/Bind/Execute).
    let rows = c
        .query(sql, &[])
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(rows.len(), 1, "{sql}: one row");
    let text: String = rows[0].get(0);
    // The simple protocol gives the same text.
    let simple = query(c, sql).await;
    assert_eq!(simple, rows_of(&text), "{sql}: simple vs extended");
    text
}

fn rows_of(text: &str) -> Rows {
    rows(&[&[text]])
}

fn new_arrangements(text: &str) -> usize {
    text.lines()
        .find_map(|l| l.strip_prefix("New arrangements: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no arrangement count in:\n{text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn physical_plans_show_index_reuse() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    for stmt in [
        "CREATE TABLE orders (o_id int4, o_cust int4, o_total numeric(10,2))",
        "CREATE TABLE customers (c_id int4, c_name text)",
        "INSERT INTO customers VALUES (1, 'Ada'), (2, 'Grace')",
        "INSERT INTO orders VALUES (10, 1, 5.00), (11, 2, 7.50), (12, 1, 1.25)",
    ] {
        execute(&c, stmt).await;
    }
    let q =
        "SELECT c_name, sum(o_total) FROM orders JOIN customers ON o_cust = c_id GROUP BY c_name";
    let before = explain(&c, &format!("EXPLAIN PHYSICAL PLAN FOR {q}")).await;
    assert!(before.contains("Used indexes: none"), "{before}");
    execute(&c, "CREATE INDEX customers_by_id ON customers (c_id)").await;
    let after = explain(&c, &format!("EXPLAIN PHYSICAL PLAN FOR {q}")).await;
    assert!(
        after.contains("Get customers through index customers_by_id (#0)"),
        "{after}"
    );
    assert!(
        after.contains("customers_by_id on customers (#0)"),
        "{after}"
    );
    assert_eq!(
        new_arrangements(&after) + 1,
        new_arrangements(&before),
        "the index replaces one arrangement:\n{before}\n{after}"
    );
    // The optimized plan is the same with or without the index: index selection is physical.
    let optimized = explain(&c, &format!("EXPLAIN {q}")).await;
    assert!(!optimized.contains("index"), "{optimized}");
    // Views, materialized views and indexes are explained from their definitions.
    execute(&c, &format!("CREATE MATERIALIZED VIEW spend AS {q}")).await;
    let mv = explain(&c, "EXPLAIN PHYSICAL PLAN FOR MATERIALIZED VIEW spend").await;
    assert_eq!(mv, after, "a materialized view's plan is its query's");
    let idx = explain(&c, "EXPLAIN PHYSICAL PLAN FOR INDEX customers_by_id").await;
    assert!(
        idx.starts_with("ArrangeBy (#0) [new, exported as the index]\n  Get customers"),
        "{idx}"
    );
    // The query still answers the same as before (EXPLAIN changed nothing).
    assert_eq!(
        query(&c, &format!("{q} ORDER BY c_name")).await,
        rows(&[&["Ada", "6.25"], &["Grace", "7.50"]])
    );
    // RAW binds the stored SQL again, subqueries left in their expressions.
    execute(
        &c,
        "CREATE VIEW big_spenders AS SELECT c_name FROM customers \
         WHERE EXISTS (SELECT 1 FROM orders WHERE o_cust = c_id AND o_total > 2)",
    )
    .await;
    let raw = explain(&c, "EXPLAIN RAW PLAN FOR VIEW big_spenders").await;
    assert!(
        raw.contains("Filter exists(outer: #0)\n    Subquery exists(outer: #0)"),
        "{raw}"
    );
    assert!(
        raw.contains("Get outer row") && raw.contains("Get orders"),
        "{raw}"
    );
    let decorrelated = explain(&c, "EXPLAIN DECORRELATED PLAN FOR VIEW big_spenders").await;
    assert!(!decorrelated.contains("exists("), "{decorrelated}");
    let raw_mv = explain(&c, "EXPLAIN RAW PLAN FOR MATERIALIZED VIEW spend").await;
    assert!(raw_mv.contains("Get customers"), "{raw_mv}");
    let (code, _) = expect_error(&c, "EXPLAIN PLAN FOR VIEW spend").await;
    assert_eq!(code, "42809");
}

/// The count EXPLAIN PHYSICAL prints is what the dataflow builds: a materialized view of each
/// query lists exactly that many arrangements of its own in `kpg_arrangements` (besides its
/// output's rows and errors). DISTINCT, set operations and reductions whose aggregates
/// accumulate keep only their input arranged; min/max, windows and top-k keep their output too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn physical_arrangement_counts_match_the_dataflow() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    for stmt in [
        "CREATE TABLE t (a int4, b int4, c text)",
        "CREATE TABLE u (a int4, d int4)",
        "INSERT INTO t VALUES (1, 2, 'x'), (1, 3, 'y'), (2, 2, 'x')",
        "INSERT INTO u VALUES (1, 5), (3, 6)",
    ] {
        execute(&c, stmt).await;
    }
    for (i, q) in [
        "SELECT DISTINCT a FROM t",
        "SELECT a, sum(b), count(*) FROM t GROUP BY a",
        "SELECT c, max(b) FROM t GROUP BY c",
        "SELECT a, count(DISTINCT b) FROM t GROUP BY a",
        "SELECT * FROM (SELECT * FROM t ORDER BY b LIMIT 2) s",
        "SELECT a, b, rank() OVER (PARTITION BY a ORDER BY b) FROM t",
        "SELECT a FROM t EXCEPT SELECT a FROM u",
        "SELECT a FROM t INTERSECT ALL SELECT a FROM u",
        "SELECT t.a, d FROM t, u WHERE t.a = u.a AND t.b IN (SELECT d - 3 FROM u)",
        "SELECT DISTINCT t.a FROM t JOIN u ON t.a = u.a",
    ]
    .into_iter()
    .enumerate()
    {
        let planned =
            new_arrangements(&explain(&c, &format!("EXPLAIN PHYSICAL PLAN FOR {q}")).await);
        execute(&c, &format!("CREATE MATERIALIZED VIEW m{i} AS {q}")).await;
        // The workers report what they built as they build it: wait for it to settle.
        let sql = format!(
            "SELECT count(*) FROM kpg_arrangements \
             WHERE owner = 'm{i}' AND arrangement NOT IN ('rows', 'errors')"
        );
        wait_for(&c, &sql, &planned.to_string()).await;
    }
}
