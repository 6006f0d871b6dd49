//! Window functions (`row_number`, `rank`, `dense_rank`, `percent_rank`, `cume_dist`, `ntile`,
//! `lag`, `lead`, `first_value`, `last_value`, `nth_value`, and aggregates `OVER (PARTITION BY
//! ... ORDER BY ... ROWS | RANGE ...)`) against PostgreSQL, ad hoc and maintained per partition
//! in materialized views through writes. Every query ends with an ORDER BY on a unique column,
//! and every window that numbers rows orders them totally, so PostgreSQL's answer is the only
//! right one.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (id int, g int, v numeric(10,2), f double precision, w text)")
        .await;
    s.exec(
        "INSERT INTO t VALUES (1, 1, 10, 1.5, 'a'), (2, 1, 20, 2.5, 'b'), (3, 2, 5, NULL, 'c'), \
         (4, 2, NULL, 0.25, 'd'), (5, 1, 20, -1, NULL), (6, NULL, 7, 3, 'f'), (7, 3, 1.5, 2, 'g')",
    )
    .await;
    (kpg, pg, s)
}

const QUERIES: &[&str] = &[
    "SELECT id, row_number() OVER (ORDER BY id DESC) AS c1, row_number() OVER (PARTITION BY g ORDER BY v, id) AS c2 \
     FROM t ORDER BY id",
    "SELECT id, rank() OVER (PARTITION BY g ORDER BY v) AS c3, dense_rank() OVER (ORDER BY v NULLS FIRST) AS c4, \
     percent_rank() OVER (PARTITION BY g ORDER BY v) AS c5, cume_dist() OVER (ORDER BY g) AS c6 FROM t ORDER BY id",
    "SELECT id, ntile(3) OVER (ORDER BY id) AS c7, ntile(2) OVER (PARTITION BY g ORDER BY id) AS c8, \
     ntile(10) OVER (ORDER BY id DESC) AS c9 FROM t ORDER BY id",
    "SELECT id, lag(v) OVER (ORDER BY id) AS c10, lead(w, 2) OVER (ORDER BY id) AS c11, \
     lag(v, 1, 0) OVER (PARTITION BY g ORDER BY id) AS c12, lead(id, -1) OVER (ORDER BY id) AS c13, \
     lag(f, 2, -9) OVER (ORDER BY id) AS c14 FROM t ORDER BY id",
    "SELECT id, first_value(w) OVER (PARTITION BY g ORDER BY id DESC) AS c15, \
     last_value(id) OVER (PARTITION BY g ORDER BY id) AS c16, \
     last_value(id) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS c17, \
     nth_value(w, 2) OVER (ORDER BY id) AS c18 FROM t ORDER BY id",
    // Aggregates: the whole partition, the default frame (peers included), row frames.
    "SELECT id, sum(v) OVER () AS c19, count(*) OVER (PARTITION BY g) AS c20, avg(v) OVER (PARTITION BY g) AS c21, \
     max(w) OVER (PARTITION BY g) AS c22 FROM t ORDER BY id",
    "SELECT id, sum(v) OVER (ORDER BY v) AS c23, count(v) OVER (ORDER BY v NULLS FIRST) AS c24, \
     min(f) OVER (PARTITION BY g ORDER BY id) AS c25 FROM t ORDER BY id",
    "SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS c26, \
     avg(f) OVER (ORDER BY id ROWS 2 PRECEDING) AS c27, \
     count(*) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS c28, \
     sum(v) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING) AS c29, \
     max(id) OVER (ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS c30 FROM t ORDER BY id",
    "SELECT id, count(*) FILTER (WHERE v > 6) OVER (PARTITION BY g) AS c31, \
     bool_or(f > 2) OVER (ORDER BY id) AS c32 FROM t ORDER BY id",
    // Over a grouping: windows see the groups, and their ORDER BY may read aggregates.
    "SELECT g, sum(v), rank() OVER (ORDER BY sum(v) DESC NULLS LAST) AS c33, sum(sum(v)) OVER () AS c34, \
     count(*) * 2 - row_number() OVER (ORDER BY g NULLS FIRST) AS c35 FROM t GROUP BY g ORDER BY g",
    // In expressions, a derived table, and filtered after the window (the top row per group).
    "SELECT id, 100 * row_number() OVER (ORDER BY id) + rank() OVER (ORDER BY g) AS k FROM t \
     WHERE id > 1 ORDER BY id",
    "SELECT id, g FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST, id) AS rn \
     FROM t) k WHERE rn = 1 ORDER BY id",
    "SELECT DISTINCT g, count(*) OVER (PARTITION BY g) AS c36 FROM t ORDER BY g",
    // RANGE frames with offsets: by value, in either order, over numbers, floats and dates;
    // NULL values frame their peers.
    "SELECT id, sum(id) OVER (ORDER BY g RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS r1, \
     count(*) OVER (ORDER BY v DESC RANGE BETWEEN 5 PRECEDING AND 2.5 FOLLOWING) AS r2, \
     max(id) OVER (ORDER BY f NULLS FIRST RANGE BETWEEN CURRENT ROW AND 1.0 FOLLOWING) AS r3, \
     min(w) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND 3 PRECEDING) AS r4 \
     FROM t ORDER BY id",
    "SELECT id, count(*) OVER (ORDER BY d RANGE BETWEEN '2 days' PRECEDING AND '1 day' FOLLOWING) AS r5, \
     sum(id) OVER (ORDER BY d DESC RANGE BETWEEN '1 day' FOLLOWING AND '3 days' FOLLOWING) AS r6 \
     FROM (SELECT id, DATE '2024-01-01' + (id * id % 5) AS d FROM t) k ORDER BY id",
    // In a correlated subquery a window sees the rows for its outer row only.
    "SELECT a.id, (SELECT max(r) FROM (SELECT row_number() OVER (ORDER BY b.id) AS r FROM t b \
     WHERE b.g = a.g) k) AS m, (SELECT sum(v) OVER () FROM t b WHERE b.id = a.id) AS s FROM t a ORDER BY a.id",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn window_functions_ad_hoc_and_through_writes() {
    let (_kpg, _pg, s) = setup().await;
    s.check_through_writes(
        QUERIES,
        "win",
        &[
            "INSERT INTO t VALUES (8, 1, 15, 9, 'h'), (9, 3, NULL, NULL, NULL)",
            "DELETE FROM t WHERE id IN (2, 6)",
            "UPDATE t SET v = v + 100 WHERE g = 2",
            "UPDATE t SET g = 1 WHERE id = 7",
            "INSERT INTO t VALUES (10, NULL, 1, 1, 'z')",
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn window_function_errors_as_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for e in [
        "SELECT id FROM t WHERE row_number() OVER () > 1",
        "SELECT g FROM t GROUP BY g HAVING rank() OVER () > 1",
        "SELECT row_number() FROM t",
        "SELECT sum(row_number() OVER ()) FROM t",
        "SELECT row_number() OVER (ORDER BY row_number() OVER ()) FROM t",
        "SELECT ntile(0) OVER () FROM t",
        "SELECT nth_value(id, 0) OVER () FROM t",
        "SELECT lower(w) OVER () FROM t",
        "SELECT id, v OVER () FROM t",
        "SELECT sum(id) OVER (ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t",
        "SELECT sum(id) OVER (ROWS UNBOUNDED FOLLOWING) FROM t",
        "SELECT row_number(id) OVER () FROM t",
        "SELECT sum(id) OVER (ORDER BY id, g RANGE 1 PRECEDING) FROM t",
        "SELECT sum(id) OVER (ORDER BY id RANGE -1 PRECEDING) FROM t",
        "SELECT sum(id) OVER (ORDER BY w RANGE 1 PRECEDING) FROM t",
        "SELECT sum(id) OVER (ORDER BY id RANGE BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t",
        "SELECT sum(id) OVER (ORDER BY id RANGE BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM t",
        "SELECT g, v, rank() OVER (ORDER BY v) FROM t GROUP BY g",
    ] {
        s.check_error(e).await;
    }
    for refused in [
        "SELECT sum(id) OVER (ORDER BY id GROUPS 1 PRECEDING) FROM t",
        "SELECT count(DISTINCT id) OVER () FROM t",
        "SELECT sum(id) OVER w FROM t WINDOW w AS (ORDER BY id)",
    ] {
        let (code, msg) = expect_error(&s.kpg, refused).await;
        assert_eq!(code, "0A000", "{refused}: {msg}");
    }
    s.check("SELECT 1").await;
}
