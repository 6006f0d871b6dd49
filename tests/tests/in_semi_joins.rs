//! `x IN (subquery)` conjuncts of WHERE planned as semi-joins (`join/semi.rs` in the planner)
//! against PostgreSQL, ad hoc and as materialized views maintained through writes to both the
//! filtered relation and the subquery's: duplicate and NULL values in the subquery, NULL `x`,
//! several IN conjuncts, parenthesized ANDs, LIMIT in the subquery, IN beside outer joins and
//! aggregates; and beside them the forms that keep the general plan (NOT IN, IN under OR, a
//! correlated subquery, differing types, a numeric key, a single table read in written order).

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_subqueries_as_semi_joins_match_postgres_through_writes() {
    let (_kpg, _pg, s) = Pair::start(&[
        "CREATE TABLE c (ck int4, name text)",
        "CREATE TABLE o (ok int4, ck int4, total numeric, big int8)",
        "CREATE TABLE l (ok int4, qty int4)",
        "INSERT INTO c VALUES (1, 'a'), (2, 'b'), (3, 'c'), (NULL, 'n'), (3, 'c')",
        "INSERT INTO o VALUES (10, 1, 5.0, 10), (11, 1, 6.00, 11), (12, 2, 7, 12), \
         (13, 3, 8, 13), (14, NULL, 9, 14), (15, 9, 10, 15)",
        "INSERT INTO l VALUES (10, 100), (10, 250), (11, 20), (12, 400), (13, 1), (NULL, 500), \
         (12, 5)",
    ])
    .await;
    let queries = [
        // TPC-H Q18's shape: IN over a grouped subquery with HAVING, then the joins.
        "SELECT c.name, o.ok, sum(l.qty) FROM c, o, l WHERE c.ck = o.ck AND o.ok = l.ok \
         AND o.ok IN (SELECT ok FROM l GROUP BY ok HAVING sum(qty) > 300) GROUP BY c.name, o.ok",
        // Duplicates and NULLs in the subquery, NULL x.
        "SELECT o.ok, c.name FROM o, c WHERE o.ck = c.ck AND o.ok IN (SELECT ok FROM l)",
        "SELECT o.ok, l.qty FROM o, l WHERE o.ck IN (SELECT ck FROM c) AND l.ok = o.ok",
        // Two IN conjuncts, parenthesized, beside other conditions.
        "SELECT o.ok, c.name FROM o, c WHERE (o.ck = c.ck AND o.ok IN (SELECT ok FROM l)) \
         AND c.ck IN (SELECT ck FROM o WHERE ok > 10) AND c.name <> 'z'",
        "SELECT o.ok, c.name FROM o JOIN c ON o.ck = c.ck WHERE o.ok IN \
         (SELECT ok FROM l ORDER BY qty DESC LIMIT 2)",
        "SELECT c.name, count(o.ok) FROM c LEFT JOIN o ON c.ck = o.ck, l \
         WHERE l.ok = o.ok AND c.ck IN (SELECT ck FROM o) GROUP BY c.name",
        // The general plan: NOT IN, under OR, correlated, int4 against int8, numeric.
        "SELECT o.ok, c.name FROM o, c WHERE o.ck = c.ck AND o.ok NOT IN (SELECT ok FROM l WHERE ok IS NOT NULL)",
        "SELECT o.ok, c.name FROM o, c WHERE o.ck = c.ck AND (o.ok IN (SELECT ok FROM l) OR c.ck = 2)",
        "SELECT o.ok, c.name FROM o, c WHERE o.ck = c.ck AND o.ok IN (SELECT ok FROM l WHERE l.qty > o.ck * 10)",
        "SELECT o.ok, c.name FROM o, c WHERE o.ck = c.ck AND o.ok IN (SELECT big FROM o)",
        "SELECT o.ok, c.name FROM o, c WHERE o.ck = c.ck AND o.total IN (SELECT qty FROM l)",
    ];
    let writes = [
        "INSERT INTO l VALUES (13, 350), (15, 1)",
        "DELETE FROM l WHERE ok = 10",
        "INSERT INTO o VALUES (16, 2, 1, 16), (16, 2, 1, 16)",
        "UPDATE c SET ck = 9 WHERE name = 'n'",
        "INSERT INTO l VALUES (16, 301)",
        "DELETE FROM c WHERE ck = 3",
        "UPDATE o SET ck = NULL WHERE ok = 12",
    ];
    s.check_through_writes(&queries, "sj", &writes).await;
    // One table read whole keeps the order its rows were written in (the general plan).
    s.check_in_order("SELECT * FROM l WHERE ok IN (SELECT ok FROM o)")
        .await;
}
