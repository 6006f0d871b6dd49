//! Subquery shapes the random differential test does not generate, against PostgreSQL: a
//! derived table (a subquery in FROM) inside a correlated subquery that reads the enclosing
//! query's columns, ad hoc and as materialized views maintained through writes. The derived
//! table is planned per outer value and joined to the subquery's domain (`join.rs`,
//! `add_correlated_derived`), so NULL outer values and duplicates must come out as PostgreSQL's
//! per-row evaluation gives them.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (id int, x int, v numeric)").await;
    s.exec(
        "INSERT INTO t VALUES (1, 1, 1.5), (2, 1, 2), (3, 2, NULL), (4, NULL, 4), (5, NULL, 5), \
         (6, 3, 0.25), (7, 1, 1.5)",
    )
    .await;
    s.exec("CREATE TABLE u (x int, w text)").await;
    s.exec("INSERT INTO u VALUES (1, 'a'), (1, 'b'), (2, 'c'), (NULL, 'n'), (9, 'z')")
        .await;
    (kpg, pg, s)
}

const QUERIES: &[&str] = &[
    "SELECT a.id, (SELECT max(id) FROM (SELECT id FROM t b WHERE b.x = a.x) k) FROM t a",
    "SELECT a.id, (SELECT count(*) FROM (SELECT id FROM t b WHERE b.x IS NOT DISTINCT FROM a.x) k, \
     u WHERE u.x = a.x) FROM t a",
    "SELECT id FROM t a WHERE EXISTS (SELECT 1 FROM (SELECT b.id FROM t b WHERE b.id > a.id) k)",
    "SELECT a.id, (SELECT s FROM (SELECT sum(b.v) AS s FROM t b WHERE b.id < a.id) k) FROM t a",
    "SELECT a.id, (SELECT string_agg_free FROM (SELECT count(*) AS string_agg_free \
     FROM u WHERE u.x = a.x GROUP BY u.x) k) FROM t a",
    "SELECT a.id FROM t a WHERE a.v > (SELECT avg(k.v) FROM (SELECT v FROM t b WHERE b.x = a.x \
     UNION ALL SELECT 1) k)",
    "SELECT a.id, (SELECT min(k.w) FROM (SELECT w FROM u WHERE u.x = a.x ORDER BY w DESC LIMIT 1) \
     k) FROM t a",
    // Two derived tables, one correlated, joined to each other.
    "SELECT a.id, (SELECT count(*) FROM (SELECT x FROM u WHERE u.x = a.x) k \
     JOIN (SELECT x FROM t) l ON k.x = l.x) FROM t a",
    // Nested two levels: the derived table reads the outermost query.
    "SELECT a.id, (SELECT (SELECT count(*) FROM (SELECT 1 FROM u WHERE u.x = a.x) k2) \
     FROM u LIMIT 1) FROM t a",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn derived_tables_read_the_enclosing_query() {
    let (_kpg, _pg, s) = setup().await;
    for q in QUERIES {
        s.check(q).await;
    }
    for (i, q) in QUERIES.iter().enumerate() {
        s.create_view(&format!("dv{i}"), q).await;
    }
    for write in [
        "INSERT INTO t VALUES (8, 2, 8), (9, NULL, NULL)",
        "INSERT INTO u VALUES (3, 'd'), (NULL, 'm')",
        "DELETE FROM t WHERE id IN (1, 4)",
        "UPDATE u SET x = 2 WHERE w = 'a'",
    ] {
        s.exec(write).await;
        for i in 0..QUERIES.len() {
            s.check_view(&format!("dv{i}")).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn derived_tables_that_cannot_be_planned_are_refused() {
    let (_kpg, _pg, s) = setup().await;
    // Inside an outer join the derived table is not joined to the domain: refused, not wrong.
    let q = "SELECT a.id, (SELECT count(*) FROM u LEFT JOIN (SELECT x FROM t b WHERE b.x = a.x) k \
             ON u.x = k.x) FROM t a";
    let (code, message) = expect_error(&s.kpg, q).await;
    assert_eq!(code, "0A000", "{message}");
    // At the top level a derived table cannot see its FROM siblings without LATERAL.
    s.check_error("SELECT * FROM t a, (SELECT * FROM u WHERE u.x = a.x) k")
        .await;
    s.check("SELECT 1").await;
}
