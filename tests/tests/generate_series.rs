//! Set-returning functions in FROM: `generate_series` over integers, bigints, numerics and
//! timestamps with an interval step, `WITH ORDINALITY`, aliases, and applied to the rows of
//! earlier FROM items (implicitly or with `LATERAL`), against PostgreSQL, ad hoc and in
//! materialized views maintained through writes; its errors by SQLSTATE. Also `LATERAL`
//! subqueries, which read earlier FROM items the same way.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE spans (id int, lo int, hi int, step int, since timestamp)")
        .await;
    s.exec(
        "INSERT INTO spans VALUES (1, 1, 3, 1, '2024-01-31 10:00'), (2, 5, 0, -2, '2024-02-29'), \
         (3, 2, 2, 5, NULL), (4, NULL, 3, 1, '2023-12-31'), (5, 0, -1, 1, '2024-03-01')",
    )
    .await;
    (kpg, pg, s)
}

const QUERIES: &[&str] = &[
    "SELECT * FROM generate_series(1, 5)",
    "SELECT * FROM generate_series(10, 1, -3) AS g",
    "SELECT g.x, g.o FROM generate_series(5, 1, -2) WITH ORDINALITY AS g(x, o)",
    "SELECT * FROM generate_series(1, 2, 0.5)",
    "SELECT * FROM generate_series(1.25, 0, -0.5)",
    "SELECT * FROM generate_series(9223372036854775805, 9223372036854775807)",
    "SELECT * FROM generate_series(2147483646, 2147483647, 2)",
    "SELECT * FROM generate_series('2024-01-31'::timestamp, '2024-06-01', '1 month')",
    "SELECT * FROM generate_series('2024-03-01 00:00'::timestamp, '2024-02-29', '-6 hours 30 minutes')",
    "SELECT * FROM generate_series(1, NULL)",
    "SELECT count(*), sum(g) FROM generate_series(1, 100000) g",
    // Applied to each row of earlier items, implicitly lateral or with LATERAL.
    "SELECT id, g FROM spans, generate_series(lo, hi, step) g",
    "SELECT s.id, g.v, g.n FROM spans s CROSS JOIN LATERAL generate_series(s.lo, s.hi) \
     WITH ORDINALITY AS g(v, n) WHERE g.v <> 2",
    "SELECT id, t FROM spans, generate_series(since, since + interval '2 days', '1 day') t",
    "SELECT s.id, count(*) FROM spans s JOIN generate_series(1, 4) g ON g <= s.hi GROUP BY s.id",
    "SELECT id, (SELECT sum(g) FROM generate_series(s.lo, s.hi) g) FROM spans s",
    // LATERAL subqueries: per row of the items before, decorrelated.
    "SELECT s.id, k.id AS kid FROM spans s, LATERAL (SELECT t.id FROM spans t WHERE t.lo < s.hi \
     ORDER BY t.id DESC LIMIT 2) k ORDER BY 1, 2",
    "SELECT s.id, k.n, k.m FROM spans s CROSS JOIN LATERAL (SELECT count(*) AS n, max(t.hi) AS m \
     FROM spans t WHERE t.step IS NOT DISTINCT FROM s.step) k",
    "SELECT s.id, k.g FROM spans s, LATERAL (SELECT g FROM generate_series(1, 3) g WHERE g > s.lo) k \
     WHERE s.id < 5",
    "SELECT a.id, b.id AS bid, k.x FROM spans a JOIN spans b ON b.id = a.id + 1, \
     LATERAL (SELECT a.lo + b.hi AS x) k",
    "SELECT s.id, k.c FROM spans s, LATERAL (SELECT count(*) AS c FROM spans) k",
    // LEFT JOIN LATERAL: the left rows without a match padded with NULLs.
    "SELECT s.id, k.id AS kid, k.hi FROM spans s LEFT JOIN LATERAL (SELECT t.id, t.hi FROM spans t \
     WHERE t.lo = s.hi ORDER BY t.hi DESC NULLS LAST, t.id LIMIT 1) k ON true",
    "SELECT s.id, k.n FROM spans s LEFT JOIN LATERAL (SELECT count(*) AS n FROM spans t \
     WHERE t.step IS NOT DISTINCT FROM s.step) k ON k.n > 1",
    "SELECT s.id, k.g FROM spans s LEFT JOIN LATERAL generate_series(1, 2) k(g) ON k.g < s.lo",
    "SELECT s.id, k.one FROM spans s LEFT JOIN LATERAL (SELECT 1 AS one) k ON s.id > 2",
    "SELECT s.id, k.x FROM spans s JOIN LATERAL (SELECT s.lo * 2 AS x) k ON k.x > 2",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_series_ad_hoc_and_through_writes() {
    let (_kpg, _pg, s) = setup().await;
    s.check_through_writes(
        QUERIES,
        "gen",
        &[
            "INSERT INTO spans VALUES (6, -2, 2, 2, '2024-12-31 23:00')",
            "UPDATE spans SET hi = hi + 2 WHERE id IN (1, 3)",
            "DELETE FROM spans WHERE id = 2",
            "UPDATE spans SET lo = 1 WHERE lo IS NULL",
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_series_errors_as_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for e in [
        "SELECT * FROM generate_series(1, 3, 0)",
        "SELECT * FROM generate_series(1.0, 3, 0)",
        "SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-02', '0 days')",
        "SELECT * FROM generate_series('a', 'b')",
        "SELECT * FROM generate_series(1, 'x')",
        "SELECT * FROM generate_series(1.5::float8, 3)",
        "SELECT * FROM generate_series(1)",
        "SELECT * FROM generate_series(1, 3) AS g(a, b)",
        "SELECT * FROM no_such_function(1)",
        "SELECT id, g FROM spans, generate_series(lo, hi, 0) g",
        "SELECT * FROM spans s RIGHT JOIN LATERAL (SELECT t.id FROM spans t WHERE t.lo = s.hi) k ON true",
        "SELECT * FROM spans s FULL JOIN LATERAL (SELECT s.id AS x) k ON true",
    ] {
        s.check_error(e).await;
    }
    s.check("SELECT 1").await;
}
