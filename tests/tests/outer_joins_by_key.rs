//! Outer joins whose unmatched rows are found by key (`keyed_unmatched` in the planner's
//! `join/outer.rs`: ON is key equalities on plain columns plus conjuncts that read one side
//! only), against PostgreSQL, ad hoc and as materialized views maintained through writes:
//! duplicate rows on the preserved side, NULL keys on both sides, one-sided conditions on
//! either side (TPC-H Q13's `o_comment NOT LIKE ...` is one), constant conditions, keys an
//! earlier outer join padded with NULLs, one column in two keys, multi-column keys, LEFT, RIGHT
//! and FULL joins, and the forms that keep the general plan (float and unscaled numeric keys,
//! whose equal values differ in text; a condition reading both sides) beside them.

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outer_joins_by_key_match_postgres_through_writes() {
    let (_kpg, _pg, s) = Pair::start(&[
        "CREATE TABLE cust (ck int4, region text, flag bool)",
        "CREATE TABLE ord (ok int4, ck int4, note text, amount numeric(8,2))",
        "CREATE TABLE m (f float8, n numeric, v int4)",
        "INSERT INTO m VALUES (0, 1.0, 1), ('-0', 1.00, 2), (2.5, 2, 3), (NULL, NULL, 4), (7, 7, 5)",
        "INSERT INTO cust VALUES (1, 'n', true), (2, 's', false), (3, 'n', true), (3, 'n', true), \
         (4, NULL, NULL), (NULL, 'e', true), (NULL, 'e', true), (5, 'w', true)",
        "INSERT INTO ord VALUES (10, 1, 'plain', 1.50), (11, 1, 'special requests', 2.00), \
         (12, 2, 'plain', 3.00), (13, 3, 'special requests', 4.25), (14, NULL, 'plain', 5.00), \
         (15, 9, 'plain', 6.00), (16, 9, NULL, 6.50)",
    ])
    .await;
    let queries = [
        // Q13's shape: the condition on the joined side only, counted per preserved row.
        "SELECT c.ck, count(o.ok) FROM cust c LEFT JOIN ord o \
         ON c.ck = o.ck AND o.note NOT LIKE '%special%' GROUP BY c.ck",
        "SELECT c.ck, c.region, o.ok FROM cust c LEFT JOIN ord o ON c.ck = o.ck",
        // A condition on the preserved side: its rows failing it are unmatched.
        "SELECT c.ck, c.flag, o.ok FROM cust c LEFT JOIN ord o ON c.ck = o.ck AND c.flag",
        "SELECT c.ck, o.ok, o.note FROM cust c RIGHT JOIN ord o \
         ON c.ck = o.ck AND o.note IS NOT NULL AND c.region = 'n'",
        "SELECT c.ck, c.region, o.ok, o.ck AS o_ck FROM cust c FULL JOIN ord o \
         ON c.ck = o.ck AND c.flag AND o.note <> 'special requests'",
        // Two key columns.
        "SELECT a.ck, a.region, b.ck AS b_ck FROM cust a LEFT JOIN cust b \
         ON a.ck = b.ck AND a.region = b.region",
        // Constant conditions: nothing matches, every preserved row is unmatched.
        "SELECT c.ck, o.ok FROM cust c LEFT JOIN ord o ON c.ck = o.ck AND false",
        "SELECT c.ck, o.ok FROM cust c RIGHT JOIN ord o ON c.ck = o.ck AND NULL",
        "SELECT c.ck, o.ok FROM cust c FULL JOIN ord o ON c.ck = o.ck AND false",
        // Keys NULL because an earlier outer join padded them; one column in two keys.
        "SELECT c.ck, o.ok, d.region FROM (cust c LEFT JOIN ord o ON c.ck = o.ck) \
         LEFT JOIN cust d ON o.ck = d.ck",
        "SELECT a.ck, b.ok FROM cust a LEFT JOIN ord b ON a.ck = b.ck AND a.ck = b.ok",
        // General plan: float and unscaled numeric keys, a condition reading both sides.
        "SELECT a.f, a.v, b.v AS b_v FROM m a LEFT JOIN m b ON a.f = b.f",
        "SELECT a.n, a.v, b.v AS b_v FROM m a FULL JOIN m b ON a.n = b.n",
        "SELECT o.ok, p.ok AS p_ok FROM ord o LEFT JOIN ord p ON o.amount = p.amount AND o.ok < p.ok",
        "SELECT c.ck, o.ok FROM cust c LEFT JOIN ord o ON c.ck = o.ck AND o.ok > c.ck * 4",
    ];
    let writes = [
        "INSERT INTO ord VALUES (17, 5, 'plain', 7.00), (18, 4, 'special requests', 8.00)",
        "UPDATE ord SET note = 'plain' WHERE ok = 13",
        "DELETE FROM ord WHERE ck = 1",
        "INSERT INTO cust VALUES (9, 'n', false), (1, 'n', true)",
        "UPDATE cust SET flag = NOT flag WHERE ck IN (1, 3)",
        "INSERT INTO ord VALUES (19, NULL, 'special requests', 1.50), (20, 3, NULL, 4.25)",
        "DELETE FROM cust WHERE ck = 3",
        // Duplicate rows on the preserved side of the RIGHT and FULL joins.
        "INSERT INTO ord VALUES (21, 2, 'plain', 3.00), (21, 2, 'plain', 3.00), (22, 8, 'x', 1.00), \
         (22, 8, 'x', 1.00)",
        "INSERT INTO m VALUES (2.50, 2.000, 6), (0, 1, 7)",
        "DELETE FROM ord WHERE ok IN (12, 15, 16)",
    ];
    s.check_through_writes(&queries, "oj", &writes).await;
}
