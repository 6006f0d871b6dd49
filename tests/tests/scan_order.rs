//! The order of a plain scan: an ad hoc SELECT without ORDER BY that reads one table row by row
//! returns the rows in the order they were written, as PostgreSQL's heap scan does on a small
//! table: inserts append, an UPDATE moves the new version of a row to the end, a DELETE leaves
//! the others in place. Each query runs on kpg and on PostgreSQL and the rows must come in the
//! same order, ORDER BY or not (`Pair::check_in_order`). The tables stay far below one page,
//! so PostgreSQL neither prunes nor reuses space in them.
//!
//! Results whose order SQL leaves open and PostgreSQL does not fix either (aggregates, DISTINCT,
//! joins, index lookups) are compared as sets.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (a int, b text, c numeric)").await;
    s.exec("INSERT INTO t VALUES (5, 'e', 1.5), (2, 'b', NULL), (9, 'i', 0.25)")
        .await;
    s.exec("INSERT INTO t VALUES (1, 'a', 3)").await;
    s.exec("INSERT INTO t VALUES (7, NULL, 2), (2, 'b', NULL), (4, 'd', -1)")
        .await;
    (kpg, pg, s)
}

const READS: &[&str] = &[
    "SELECT * FROM t",
    "SELECT b, a FROM t",
    "SELECT t.* FROM t",
    "SELECT x.a, x.c FROM t AS x",
    "SELECT a * 2, b || '!', c + 1 FROM t WHERE a > 1",
    "SELECT a FROM t WHERE b IS NOT NULL AND c IS NOT NULL",
    "SELECT CASE WHEN c > (SELECT avg(c) FROM t) THEN a * 2 ELSE a * 10 END FROM t",
    "SELECT a, (SELECT count(*) FROM t AS x WHERE x.a < t.a) FROM t",
    "SELECT a, b FROM t WHERE EXISTS (SELECT 1 FROM t AS x WHERE x.a = t.a + 3)",
    "SELECT a FROM t WHERE a IN (SELECT a + 1 FROM t) OR b IS NULL",
    "SELECT * FROM t LIMIT 3",
    "SELECT a FROM t LIMIT 2 OFFSET 3",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_scans_return_rows_in_the_order_they_were_written() {
    let (_kpg, _pg, s) = setup().await;
    for q in READS {
        s.check_in_order(q).await;
    }
    // Later writes: an UPDATE moves the rows it changes to the end, a DELETE takes rows out,
    // and new rows follow everything.
    s.exec("UPDATE t SET c = 10 WHERE a = 2").await;
    s.exec("DELETE FROM t WHERE a = 9").await;
    s.exec("INSERT INTO t VALUES (3, 'c', 0), (8, 'h', 8)")
        .await;
    s.exec("UPDATE t SET b = 'E' WHERE a = 5").await;
    for q in READS {
        s.check_in_order(q).await;
    }
    // ORDER BY decides where it is given; ties in it are not compared in order.
    s.check_in_order("SELECT a, b FROM t ORDER BY b NULLS FIRST, a")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_that_are_not_plain_scans_keep_their_meaning() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE u (a int PRIMARY KEY, n int)").await;
    s.exec("INSERT INTO u VALUES (9, 90), (1, 10), (5, 50), (2, 20)")
        .await;
    // A table with a primary key is scanned in written order too.
    s.check_in_order("SELECT * FROM u").await;
    // No position leaks into `*`, a view, a copy of the table, or an aggregate.
    s.exec("CREATE TABLE w (a int, b text, c numeric)").await;
    s.exec("INSERT INTO w SELECT * FROM t").await;
    s.create_view("tv", "SELECT * FROM t WHERE a > 1").await;
    for q in [
        "SELECT * FROM w",
        "SELECT * FROM tv",
        "SELECT count(*), sum(a), max(b) FROM t",
        "SELECT DISTINCT b FROM t",
        "SELECT a, count(*) FROM t GROUP BY a",
        "SELECT * FROM t JOIN u USING (a)",
        "SELECT * FROM t NATURAL JOIN w",
        "SELECT a FROM t UNION ALL SELECT a FROM u",
    ] {
        s.check(q).await;
    }
    // A lookup through an index reads the index; the rows are the same, in the index's order.
    s.exec("CREATE INDEX t_a ON t (a)").await;
    s.check("SELECT * FROM t WHERE a = 2").await;
    s.check("SELECT b, c FROM t WHERE a = 2 AND b = 'b'").await;
    s.check("SELECT * FROM u WHERE a = 5").await;
    // A table without columns has nothing to order.
    s.exec("CREATE TABLE e ()").await;
    s.exec("INSERT INTO e DEFAULT VALUES").await;
    s.check("SELECT count(*) FROM e").await;
    // UPDATE and DELETE retract exactly the rows stored, duplicates included.
    s.exec("UPDATE t SET a = 20 WHERE a = 2").await;
    s.check_in_order("SELECT * FROM t").await;
    s.exec("DELETE FROM t WHERE a = 20").await;
    s.check_in_order("SELECT * FROM t").await;
    s.check("SELECT count(*) FROM t").await;
    // The same through a primary key's index.
    s.exec("UPDATE u SET n = n + 1 WHERE a = 1").await;
    s.exec("DELETE FROM u WHERE a = 5").await;
    s.check_in_order("SELECT * FROM u").await;
}
