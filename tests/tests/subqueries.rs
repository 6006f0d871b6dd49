//! Subquery shapes the random differential test does not generate, against PostgreSQL: a
//! derived table (a subquery in FROM) inside a correlated subquery that reads the enclosing
//! query's columns, outer joins there whose items or ON conditions read them, and subqueries
//! in aggregate arguments and FILTER clauses, ad hoc and as materialized views maintained
//! through writes. The derived
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
    check_ad_hoc_and_through_writes(&s, QUERIES, "dv").await;
}

/// Each query ad hoc, then as a materialized view (`{prefix}{i}`) checked after each of four
/// writes to both tables.
async fn check_ad_hoc_and_through_writes(s: &Pair, queries: &[&str], prefix: &str) {
    for q in queries {
        s.check(q).await;
    }
    for (i, q) in queries.iter().enumerate() {
        s.create_view(&format!("{prefix}{i}"), q).await;
    }
    for write in [
        "INSERT INTO t VALUES (8, 2, 8), (9, NULL, NULL)",
        "INSERT INTO u VALUES (3, 'd'), (NULL, 'm')",
        "DELETE FROM t WHERE id IN (1, 4)",
        "UPDATE u SET x = 2 WHERE w = 'a'",
    ] {
        s.exec(write).await;
        for i in 0..queries.len() {
            s.check_view(&format!("{prefix}{i}")).await;
        }
    }
}

/// Outer and parenthesized joins inside a correlated subquery whose FROM items or ON
/// conditions read the enclosing query's columns: planned per outer value (`join.rs`,
/// `joined` with `per_domain`), so each outer row sees the preserved side's rows, padded or
/// not, as PostgreSQL's per-row evaluation gives them.
const OUTER_JOIN_QUERIES: &[&str] = &[
    "SELECT a.id, (SELECT count(*) FROM u LEFT JOIN (SELECT x FROM t b WHERE b.x = a.x) k \
     ON u.x = k.x) FROM t a",
    "SELECT a.id, (SELECT count(k.x) FROM u LEFT JOIN (SELECT x FROM t b WHERE b.x = a.x) k \
     ON u.x = k.x) FROM t a",
    "SELECT a.id, (SELECT count(*) FROM u LEFT JOIN t b ON b.x = u.x AND b.id = a.id) FROM t a",
    "SELECT a.id, (SELECT count(b.id) FROM u LEFT JOIN t b ON b.x = u.x AND b.id > a.id) FROM t a",
    "SELECT a.id, (SELECT count(u.w) FROM u RIGHT JOIN t b ON b.x = u.x AND u.x = a.x) FROM t a",
    "SELECT a.id, (SELECT count(*) || '/' || count(u.w) || '/' || count(b.id) \
     FROM u FULL JOIN t b ON b.x = u.x AND b.x IS NOT DISTINCT FROM a.x) FROM t a",
    "SELECT a.id FROM t a WHERE EXISTS (SELECT 1 FROM u LEFT JOIN t b ON b.id = a.id \
     WHERE b.id IS NULL AND u.x = 1)",
    "SELECT a.id, (SELECT min(k.w) FROM (u JOIN (SELECT w FROM u v WHERE v.x = a.x) k USING (w)) \
     LEFT JOIN t b ON b.x = u.x) FROM t a",
    "SELECT a.id, (SELECT count(*) FROM u NATURAL LEFT JOIN (SELECT x, w FROM u v \
     WHERE v.x <> a.x) k) FROM t a",
    "SELECT a.id, (SELECT string_agg_free FROM (SELECT count(*) AS string_agg_free \
     FROM u LEFT JOIN t b ON b.x = u.x AND a.v IS NULL) z) FROM t a",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outer_joins_read_the_enclosing_query() {
    let (_kpg, _pg, s) = setup().await;
    check_ad_hoc_and_through_writes(&s, OUTER_JOIN_QUERIES, "oj").await;
    // At the top level a derived table cannot see its FROM siblings without LATERAL.
    s.check_error("SELECT * FROM t a, (SELECT * FROM u WHERE u.x = a.x) k")
        .await;
    s.check_error("SELECT * FROM t a LEFT JOIN (SELECT * FROM u WHERE u.x = a.x) k ON true")
        .await;
}

/// Subqueries inside aggregate arguments and FILTER clauses, correlated or not: their values
/// are joined to the grouped query's input before the reduction.
const AGGREGATE_ARGUMENT_QUERIES: &[&str] = &[
    "SELECT sum((SELECT count(*) FROM u WHERE u.x = t.x)) FROM t",
    "SELECT x, max((SELECT min(w) FROM u WHERE u.x = t.x)), \
     count(DISTINCT (SELECT 1 FROM u WHERE u.x > t.x LIMIT 1)) FROM t GROUP BY x",
    "SELECT x, sum(v) FILTER (WHERE EXISTS (SELECT 1 FROM u WHERE u.x = t.x)), \
     count(*) FILTER (WHERE id > 2) FROM t GROUP BY x",
    "SELECT count(*) FROM t HAVING sum((SELECT count(*) FROM u)) > 3",
    "SELECT sum(CASE WHEN id > 1 THEN (SELECT max(x) FROM u) END), \
     avg(v) FILTER (WHERE x IN (SELECT x FROM u WHERE w < 'c')) FROM t",
    "SELECT id, (SELECT sum((SELECT count(*) FROM u WHERE u.x = b.x)) FROM t b WHERE b.id <= a.id) \
     FROM t a",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subqueries_in_aggregate_arguments() {
    let (_kpg, _pg, s) = setup().await;
    check_ad_hoc_and_through_writes(&s, AGGREGATE_ARGUMENT_QUERIES, "agg").await;
    for e in [
        "SELECT count(*) FILTER (WHERE count(*) > 1) FROM t",
        "SELECT count(*) FILTER (WHERE 1) FROM t",
        "SELECT abs(x) FILTER (WHERE x > 1) FROM t",
        "SELECT sum((SELECT x FROM u)) FROM t",
    ] {
        s.check_error(e).await;
    }
    s.check("SELECT (SELECT sum(t.x + u.x) FROM u) FROM t")
        .await;
}

/// An aggregate inside a subquery whose arguments read only the enclosing query's columns
/// belongs to the enclosing query (computed per group there, which makes a query without
/// aggregates of its own a grouped one), as in PostgreSQL.
const OUTER_AGGREGATE_QUERIES: &[&str] = &[
    "SELECT (SELECT sum(t.x)) FROM t",
    "SELECT (SELECT max(w) FROM u WHERE u.x = max(t.x)) FROM t",
    "SELECT x, (SELECT count(*) FROM u WHERE u.x < max(t.id)) FROM t GROUP BY x",
    "SELECT x FROM t GROUP BY x HAVING EXISTS (SELECT 1 FROM u WHERE u.x = count(t.id) - 1)",
    "SELECT count(*), (SELECT min(t.id) + max(u.x) FROM u) FROM t",
    "SELECT (SELECT sum(t.v) + count(*) FROM u) FROM t",
    "SELECT (SELECT sum(t.x) FROM u LIMIT 1), (SELECT avg(t.v) FILTER (WHERE t.id > 2)) FROM t",
    // Issue 21: the columns an aggregate reads through a nested subquery or its FILTER count
    // too (these gave one row per row of t: the aggregate was the subquery's).
    "SELECT (SELECT max((SELECT min(u.w) FROM u WHERE u.x = t.x))) FROM t",
    "SELECT (SELECT max((SELECT min(u.w) FROM u WHERE u.x = t.x)) FILTER (WHERE t.id < 5)) FROM t",
    "SELECT (SELECT count(*) FILTER (WHERE t.x > 1) FROM u LIMIT 1) FROM t",
    "SELECT x, (SELECT max((SELECT count(*) FROM u WHERE u.x = t.id))) FROM t GROUP BY x",
    "SELECT (SELECT count(*) FILTER (WHERE outer_c <> 0) FROM (VALUES (1)) t0(inner_c)) \
     FROM (VALUES (2), (3)) t1(outer_c)",
    // An argument reading no column at all, or the subquery's own columns too, makes the
    // aggregate the subquery's: one row per row of t.
    "SELECT id, (SELECT max((SELECT count(*) FROM u))) FROM t",
    "SELECT id, (SELECT max(u.x + t.x) FILTER (WHERE t.id > 2) FROM u) FROM t",
    "SELECT id, (SELECT count(*) FILTER (WHERE u.x > t.x) FROM u) FROM t",
    // Two levels out: the outermost query computes it.
    "SELECT (SELECT (SELECT sum(t.x))) FROM t",
    "SELECT x, (SELECT (SELECT max(t.id) + count(*) FROM u WHERE u.x = t.x)) FROM t GROUP BY x",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregates_of_the_enclosing_query() {
    let (_kpg, _pg, s) = setup().await;
    check_ad_hoc_and_through_writes(&s, OUTER_AGGREGATE_QUERIES, "outer_agg").await;
    for e in [
        // Not an aggregate query itself: one row per row of u.
        "SELECT (SELECT sum(t.x) FROM u) FROM t",
        "SELECT id, (SELECT sum(t.x)) FROM t",
        "SELECT x, (SELECT t.id) FROM t GROUP BY x",
    ] {
        s.check_error(e).await;
    }
}

/// A qualified column resolves in the nearest query that has a FROM item of that name, even
/// when that item lacks the column (42703), never through a same-named item further out
/// (issue 21: the typo `q.j` became a reference to the outer `q`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qualified_names_resolve_in_the_nearest_query() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE fa (i int, j int)").await;
    s.exec("CREATE TABLE fb (i int)").await;
    s.exec("INSERT INTO fa VALUES (1, 2), (3, 4)").await;
    s.exec("INSERT INTO fb VALUES (1), (5)").await;
    for e in [
        "SELECT (SELECT max(q.i) FROM fa q WHERE EXISTS (SELECT 1 FROM fb q WHERE q.j > q.j)) \
         FROM fa x",
        "SELECT (SELECT q.j FROM fb q LIMIT 1) FROM fa q",
        "SELECT q.j FROM fa q JOIN fb r USING (i) WHERE EXISTS (SELECT r.j FROM fb r)",
    ] {
        let (code, _) = s.check_error(e).await;
        assert_eq!(code, "42703", "{e}");
    }
    for q in [
        "SELECT (SELECT max(p.i) FROM fb p WHERE EXISTS (SELECT 1 FROM fb r WHERE q.j > r.i)) \
         FROM fa q",
        "SELECT (SELECT q.j FROM fb r WHERE r.i = q.i) FROM fa q",
        "SELECT q.i, (SELECT count(*) FROM fb q WHERE q.i < 3) FROM fa q",
        // Schema-qualified column references, as SQLAlchemy's reflection writes them.
        "SELECT public.fa.i, fa.j FROM public.fa WHERE public.fa.j > 2",
        "SELECT pg_catalog.pg_namespace.nspname FROM pg_catalog.pg_namespace \
         WHERE pg_catalog.pg_namespace.nspname = 'public'",
    ] {
        s.check(q).await;
    }
    for e in [
        "SELECT public.fa.i FROM fa x",
        "SELECT nosuch.fa.i FROM fa",
        "SELECT public.fa.nope FROM fa",
    ] {
        s.check_error(e).await;
    }
}

/// An aggregate or window function kpg does not compute is refused by name (0A000), not with a
/// grouping error about its argument; an unknown function over an ungrouped column is 42883,
/// as in PostgreSQL, which resolves functions before it checks grouping.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_aggregates_are_named() {
    let (_kpg, _pg, s) = setup().await;
    for (sql, name) in [
        ("SELECT covar_pop(x, id) FROM t", "covar_pop"),
        ("SELECT covar_samp(x, id), count(*) FROM t", "covar_samp"),
        ("SELECT x, regr_r2(id, x) FROM t GROUP BY x", "regr_r2"),
        ("SELECT bit_or(id), count(*) FROM t", "bit_or"),
        ("SELECT corr(id, x) FROM t GROUP BY v", "corr"),
        (
            "SELECT v, regr_slope(id, x) FROM t GROUP BY v",
            "regr_slope",
        ),
    ] {
        let (code, msg) = expect_error(&s.kpg, sql).await;
        assert_eq!(code, "0A000", "{sql}: {msg}");
        assert!(msg.contains(name), "{sql}: {msg}");
    }
    for e in [
        "SELECT no_such_function(x), count(*) FROM t",
        "SELECT x, no_such_function(id) FROM t GROUP BY x",
        "SELECT x, abs(id) FROM t GROUP BY x",
        "SELECT x, first_value(id) OVER () FROM t GROUP BY x",
    ] {
        s.check_error(e).await;
    }
    // A grouping key that folds to a constant is matched by the same expression.
    for q in [
        "SELECT coalesce(DATE '2024-01-18', NULL::date + x) FROM t GROUP BY coalesce(DATE '2024-01-18', NULL::date + x)",
        "SELECT nullif(coalesce(5, x), 3), count(*) FROM t GROUP BY coalesce(5, x)",
    ] {
        s.check(q).await;
    }
    for e in ["SELECT coalesce(5, x) FROM t GROUP BY id"] {
        s.check_error(e).await;
    }
}

/// Row constructors compared with rows: `=`/`<>` field by field, orderings by the first pair
/// not equal, IN lists of rows, and a row IN / NOT IN / `= ANY` / `<> ALL` a subquery, with
/// PostgreSQL's NULL results.
const ROW_QUERIES: &[&str] = &[
    "SELECT id, (x, w) IN (SELECT x, w FROM u) FROM t, (SELECT 'a' AS w UNION ALL SELECT NULL) k",
    "SELECT id, (x, 'b') NOT IN (SELECT x, w FROM u) FROM t",
    "SELECT id FROM t WHERE (x, id) IN (SELECT x, count(*) FROM u GROUP BY x)",
    "SELECT id, (x, 'a') = ANY (SELECT u.x, u.w FROM u WHERE u.x <= t.id) AS a, \
     (x, 'c') <> ALL (SELECT u.x, u.w FROM u WHERE u.w > 'a') AS b FROM t",
    "SELECT id, (x, v) < (1, 2) AS a, (x, v) >= (1, 1.5) AS b, ROW(id, x) = ROW(x, id) AS c, \
     (id, x) <> (x, 1) AS d FROM t",
    "SELECT id FROM t WHERE (x, id) IN ((1, 1), (2, 3), (NULL, 4)) OR (id, v) > (6, 0)",
    "SELECT x FROM t GROUP BY x HAVING (count(*), max(id)) > (1, 2) OR (min(id), 1) = (3, 1)",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_constructors_compare_as_postgres() {
    let (_kpg, _pg, s) = setup().await;
    check_ad_hoc_and_through_writes(&s, ROW_QUERIES, "row").await;
    for q in [
        "SELECT (1, 2) < (1, 3), (1, NULL) < (2, 0), (1, NULL) < (1, 3), (1, 2) <= (1, 2), \
         (2, 1) > (1, 5), (1, 2) >= (1, 3), (1, 2) <> (1, NULL), (1, 2) <> (2, NULL)",
        "SELECT (3, 4) IN ((1, 2), (3, NULL)), (3, 4) NOT IN ((1, 2), (3, NULL)), \
         (1, 2) IN ((1, 2), (3, NULL))",
    ] {
        s.check(q).await;
    }
    for e in [
        "SELECT (1, 2) = (1, 2, 3)",
        "SELECT (1, 2) IN (SELECT 1)",
        "SELECT (1, 2) IN (SELECT 1, 2, 3)",
        "SELECT (1, 2) = 1",
    ] {
        s.check_error(e).await;
    }
    let (code, msg) = expect_error(&s.kpg, "SELECT ROW(1, 2)").await;
    assert_eq!(code, "0A000", "{msg}");
}

/// Subqueries inside JOIN ... ON conditions (common in generated SQL): an inner join's ON is a
/// filter on the joined rows, as WHERE is; an outer join's ON decides which pairs match, the
/// subquery values joined to the candidate pairs before the unmatched rows are padded.
const JOIN_ON_QUERIES: &[&str] = &[
    "SELECT a.id, b.id AS bid FROM t a JOIN t b ON a.x = b.x AND a.id IN (SELECT x FROM u WHERE w < 'c')",
    "SELECT a.id, u.w FROM t a JOIN u ON u.x = a.x AND EXISTS (SELECT 1 FROM t c WHERE c.id = a.id + 1)",
    "SELECT a.id, u.w FROM t a JOIN u ON a.v > (SELECT avg(v) FROM t c WHERE c.x = u.x)",
    "SELECT a.id, u.w FROM t a LEFT JOIN u ON u.x = a.x AND u.w IN (SELECT w FROM u WHERE x IS NOT NULL AND w > 'a')",
    "SELECT a.id, u.w FROM t a RIGHT JOIN u ON u.x = a.x AND NOT EXISTS (SELECT 1 FROM t c WHERE c.v = a.v AND c.id < a.id)",
    "SELECT a.id, u.w FROM t a FULL JOIN u ON u.x = a.x AND a.id > (SELECT count(*) FROM u u2 WHERE u2.x = u.x)",
    "SELECT a.id, b.id AS bid, u.w FROM t a JOIN t b ON b.id = a.id + 1 LEFT JOIN u ON u.x = b.x \
     AND u.x IN (SELECT x FROM t WHERE v > 1)",
    // A subquery as the left operand of IN (subquery).
    "SELECT id FROM t a WHERE (SELECT max(u.x) FROM u WHERE u.w > 'a') IN (SELECT x FROM t b WHERE b.id >= a.id)",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subqueries_in_join_conditions() {
    let (_kpg, _pg, s) = setup().await;
    check_ad_hoc_and_through_writes(&s, JOIN_ON_QUERIES, "on_sub").await;
}

/// A LATERAL item inside a join list that reads FROM items before the list (a comma before
/// it), as PostgreSQL lets it: the list is planned per value of what it reads
/// (`join/lateral.rs`, `add_join_list_per_value`), whatever its join kinds, so each earlier
/// row meets the list's rows — padded or not — as PostgreSQL's per-row evaluation gives them.
const LATERAL_IN_JOIN_LIST_QUERIES: &[&str] = &[
    "SELECT a.id, b.w, k.s FROM t a, u b LEFT JOIN LATERAL (SELECT a.v + b.x AS s) k ON true",
    "SELECT a.id, b.w, c.id AS cid, k.s FROM t a, u b RIGHT JOIN t c ON c.x = b.x \
     LEFT JOIN LATERAL (SELECT a.id * 100 + c.id AS s WHERE a.x IS NOT NULL) k ON true",
    "SELECT a.id, b.x, b.w, c.id AS cid, k.n FROM t a, u b JOIN t c USING (x) LEFT JOIN LATERAL \
     (SELECT count(*) AS n FROM u d WHERE d.x = a.x AND d.w <= b.w) k ON true",
    // It reads only the earlier item: any join kind.
    "SELECT a.id, b.w, k.q FROM t a, u b FULL JOIN LATERAL (SELECT a.x AS q) k ON k.q = b.x",
    "SELECT a.id, k.q, b.w FROM t a, LATERAL (SELECT a.x AS q) k LEFT JOIN u b ON b.x = k.q",
    "SELECT a.id, b.w, k.s, l.z FROM t a, u b LEFT JOIN LATERAL (SELECT a.v + b.x AS s) k \
     ON true LEFT JOIN LATERAL (SELECT k.s * a.id AS z) l ON l.z > 2",
    // A side's copy of a USING column (hidden from unqualified names) read by a LATERAL
    // item and by a scalar subquery: its own columns were lost, and no rows came out.
    "SELECT x, a.id, b.id AS bid, k.n FROM t a JOIN t b USING (x) CROSS JOIN LATERAL \
     (SELECT count(*) AS n FROM u WHERE u.x = b.x) k",
    "SELECT a.id, (SELECT count(*) FROM u WHERE u.x = b.x) AS n FROM t a JOIN t b USING (x)",
    "SELECT a.id, k.w FROM t a JOIN u b USING (x) LEFT JOIN LATERAL (SELECT c.w FROM u c \
     WHERE c.x = a.x AND c.w > b.w) k ON true",
    // A function call in an outer join list reading the items before it (implicitly lateral).
    "SELECT a.id, g FROM t a LEFT JOIN generate_series(1, a.x) g ON g > 1",
    "SELECT a.id, b.w, g FROM t a, u b LEFT JOIN generate_series(b.x, a.x) g ON true",
    "SELECT a.id, e FROM t a JOIN t b ON b.id = a.id LEFT JOIN unnest(ARRAY[a.x, b.x, 7]) \
     WITH ORDINALITY AS z(e, n) ON z.e <> 7",
    // A function call reading only an item before the comma, or only the enclosing query.
    "SELECT a.id, b.w, g FROM t a, u b LEFT JOIN generate_series(1, a.x) g ON g = b.x",
    "SELECT a.id, (SELECT count(g) FROM u b LEFT JOIN generate_series(1, a.x) g ON g = b.x) \
     AS n FROM t a",
    // VALUES reading the enclosing query's columns (was 42P01).
    "SELECT a.id, l.v FROM t a JOIN LATERAL (VALUES (a.x), (a.x + 1), (NULL)) l(v) ON true",
    "SELECT a.id, l.v, l.w FROM t a LEFT JOIN LATERAL (VALUES (a.x, a.v * 2)) l(v, w) ON l.v > 1",
    "SELECT a.id, EXISTS (VALUES (a.x)) AS e, (SELECT max(k.v) FROM (VALUES (a.x), (5)) k(v)) \
     AS m FROM t a",
    // Inside a correlated subquery: it also reads the enclosing query.
    "SELECT a.id, (SELECT count(*) FROM u b, t c LEFT JOIN LATERAL \
     (SELECT a.id + b.x + c.id AS s) k ON true WHERE k.s > 5) FROM t a",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lateral_items_in_join_lists_read_earlier_from_items() {
    let (_kpg, _pg, s) = setup().await;
    check_ad_hoc_and_through_writes(&s, LATERAL_IN_JOIN_LIST_QUERIES, "lat").await;
    for e in [
        // Only a LATERAL item may read them; an ON condition may not.
        "SELECT * FROM t a, u b LEFT JOIN t c ON c.x = a.x",
        // Reading the left side of a RIGHT or FULL join.
        "SELECT * FROM t a, u b RIGHT JOIN LATERAL (SELECT b.x AS q) k ON true",
        "SELECT * FROM t a FULL JOIN generate_series(1, a.x) g ON true",
    ] {
        s.check_error(e).await;
    }
}
