//! Set-returning functions in the select list, against PostgreSQL 15: one call (unnest,
//! generate_series, jsonb_array_elements) per input row, `unnest(a)` beside
//! `generate_subscripts(a, 1)` in lockstep, and unnest of several arrays in lockstep (the
//! shapes of SQLAlchemy's catalog queries, over pg_index), empty and NULL arrays, inside subqueries and materialized views; and the
//! combinations kpg refuses (0A000) rather than answer differently.

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_list_set_returning_functions_match_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (id int, tags text[], n int)").await;
    s.exec("CREATE TABLE tk (a int, b text, c int, PRIMARY KEY (c, a))")
        .await;
    s.exec(
        "INSERT INTO t VALUES (1, ARRAY['a', 'b'], 2), (2, ARRAY[]::text[], 0), \
         (3, NULL, 1), (4, ARRAY['c', NULL, 'c'], 3)",
    )
    .await;
    for sql in [
        "SELECT unnest(ARRAY[1, 2, 3])",
        "SELECT generate_series(1, 4) AS g",
        "SELECT id, unnest(tags) FROM t",
        "SELECT id, unnest(tags) AS tag FROM t WHERE id > 1",
        "SELECT id, generate_series(1, n) AS k FROM t",
        "SELECT id, unnest(tags) AS tag, generate_subscripts(tags, 1) AS i FROM t",
        "SELECT id, generate_subscripts(tags, 1) AS i FROM t",
        // Arrays have one dimension: another has no subscripts (NULL beside the elements).
        "SELECT id, unnest(tags) AS tag, generate_subscripts(tags, 2) AS i FROM t",
        "SELECT id, generate_subscripts(tags, 2) AS i FROM t",
        "SELECT unnest(ARRAY[1, 2]) AS a, unnest(tags) AS b, generate_subscripts(tags, 0) AS i \
         FROM t",
        "SELECT jsonb_array_elements('[1, \"x\", null]'::jsonb) AS e",
        // Several arrays in lockstep: as many rows as the longest, the others NULL.
        "SELECT unnest(ARRAY[1, 2]) AS a, unnest(ARRAY['x', 'y', 'z']) AS b",
        "SELECT id, unnest(tags) AS tag, unnest(ARRAY[n, n + 1]) AS m, \
         generate_subscripts(ARRAY[id], 1) AS s FROM t",
        "SELECT unnest(NULL::int[]) AS a, unnest(ARRAY[5]) AS b",
        "SELECT i.indrelid::regclass, unnest(i.indkey) AS attnum, \
         unnest(i.indoption) AS opt, generate_subscripts(i.indkey, 1) AS ord \
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'tk_pkey'",
        "SELECT tag, count(*) FROM (SELECT unnest(tags) AS tag FROM t) s GROUP BY tag",
        // `*` is the FROM items' columns, not those of the call moved into FROM.
        "SELECT unnest(tags), * FROM t",
        "SELECT jsonb_object_keys('{\"a\": 1}'), * FROM (VALUES (7)) v(x)",
        "SELECT x.id, x.tag FROM (SELECT id, unnest(tags) AS tag FROM t) x \
         JOIN t ON t.id = x.id AND t.n > 1",
    ] {
        s.check(sql).await;
    }
    s.check_through_writes(
        &[
            "SELECT id, unnest(tags) AS tag FROM t",
            "SELECT tag, count(*) AS c FROM (SELECT unnest(tags) AS tag, \
             generate_subscripts(tags, 1) AS i FROM t) s WHERE i > 1 GROUP BY tag",
        ],
        "srf",
        &[
            "INSERT INTO t VALUES (5, ARRAY['d', 'e', 'f'], 1)",
            "DELETE FROM t WHERE id = 1",
            "UPDATE t SET tags = ARRAY['z'] WHERE id = 2",
        ],
    )
    .await;
    // A dimension that is not an integer names no function (it gave no rows).
    for sql in [
        "SELECT generate_subscripts(ARRAY[1, 2], 1.5)",
        "SELECT id, generate_subscripts(tags, 1::int8) FROM t",
        "SELECT unnest(tags), generate_subscripts(tags, 1.0) FROM t",
    ] {
        let (_, message) = s.check_error(sql).await;
        assert!(message.contains("does not exist"), "{sql}: {message}");
    }
    for sql in [
        "SELECT unnest(ARRAY[1, 2]) + 1",
        "SELECT count(*), unnest(ARRAY[1])",
        "SELECT DISTINCT unnest(tags) FROM t",
        "SELECT unnest(ARRAY[1, 2]), generate_series(1, 3)",
    ] {
        let (code, message) = expect_error(&s.kpg, sql).await;
        assert_eq!(code, "0A000", "{sql}: {message}");
        assert!(simple(&s.pg, sql).await.is_ok(), "PostgreSQL answers {sql}");
    }
}
