//! `to_jsonb`, `jsonb_build_array`, `jsonb_build_object` and the aggregates `jsonb_agg` and
//! `jsonb_object_agg` against PostgreSQL: every kind of value kpg converts (numbers keeping
//! their scale, NaN and infinities as strings, text, char padding, dates, times, timestamps in
//! ISO form, uuids, arrays, nested jsonb, NULL), object keys (numbers, booleans, dates; a later
//! equal key wins), PostgreSQL's errors (odd argument count, NULL key, array key, an
//! unknown-typed argument), and materialized views that build objects and aggregate them, kept
//! up to date through writes (the aggregates with ORDER BY: without one their order is
//! unspecified). Types whose JSON form depends on the session (interval, timestamptz), the
//! aggregates as window functions and with DISTINCT are refused with 0A000.

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonb_builders_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for sql in [
        r#"SELECT jsonb_build_object(1.50, 2.50::numeric, true, 1e20::float8, 'k', 'NaN'::float8,
           'd', DATE '2024-01-02', 't', TIMESTAMP '2024-01-02 03:04:05.5', 'a', ARRAY[1, 2],
           'n', NULL, 'j', '{"x": 1}'::jsonb, 'c', 'ab'::char(4))"#,
        "SELECT jsonb_build_array(), jsonb_build_object(), to_jsonb(NULL::int), \
         to_jsonb('x'::text), to_jsonb(ARRAY['a', NULL]), jsonb_build_array('x', 1, NULL)",
        r#"SELECT to_jsonb('NaN'::numeric), to_jsonb('-Infinity'::numeric), to_jsonb(1.5::float4),
           to_jsonb(TIMESTAMP '2024-01-02 03:04:05'), to_jsonb(DATE '0001-01-01'),
           to_jsonb(2::int2), to_jsonb('a"b'::varchar), to_jsonb(TIME '10:00:00.25'),
           to_jsonb('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)"#,
        "SELECT jsonb_build_object(DATE '2024-01-02', 1, 'x', 2, 'x', 3, false, 4)",
        "SELECT jsonb_build_array(1.0::float8, -0.0::float8, 1e-5::float8, 123456789012::int8, \
         'é\"\\'::text, '{1,2}'::int[])",
        "SELECT jsonb_build_object('a', jsonb_build_array(1, jsonb_build_object('b', NULL))) \
         -> 'a' -> 1",
        "SELECT to_jsonb(x), jsonb_build_object('v', x, 'sq', x * x) \
         FROM generate_series(1, 3) x",
        "SELECT jsonb_agg(x ORDER BY x DESC), jsonb_agg(x ORDER BY x) FILTER (WHERE x > 1) \
         FROM generate_series(1, 3) x",
        "SELECT jsonb_agg(x) FROM generate_series(1, 0) x",
        "SELECT jsonb_agg(v ORDER BY v NULLS FIRST) FROM (VALUES (1), (NULL), (3)) t(v)",
        "SELECT k, jsonb_agg(v ORDER BY v) FROM (VALUES (1, 'a'), (1, 'b'), (2, NULL)) t(k, v) \
         GROUP BY k",
        "SELECT jsonb_agg(ARRAY[x, x] ORDER BY x) FROM generate_series(1, 3) x",
        // Float keys by their own text.
        "SELECT jsonb_build_object('-0'::float8, 1, 1e20::float8, 2, 1.5e-10::float4, 3, \
         'NaN'::float8, 4)",
        "SELECT jsonb_object_agg(x, 1) FROM (VALUES ('-0'::float8), (1e-5), (1e20)) t(x)",
        "SELECT jsonb_agg(jsonb_build_object('x', x) ORDER BY x) FROM generate_series(1, 3) x",
        "SELECT jsonb_object_agg(k, v ORDER BY v) FROM (VALUES ('a', 1), ('b', NULL), ('a', 3)) \
         t(k, v)",
        "SELECT jsonb_object_agg(k, v) FROM (VALUES (1.5, true), (2, false)) t(k, v)",
        "SELECT jsonb_object_agg(k, v) FROM (VALUES (1, 2)) t(k, v) WHERE false",
        "SELECT g, jsonb_object_agg(x, x * x) FILTER (WHERE x > 1) FROM generate_series(1, 6) x, \
         (VALUES (1), (2)) v(g) WHERE x % 2 = g - 1 GROUP BY g",
    ] {
        s.check(sql).await;
    }
    for sql in [
        "SELECT jsonb_build_object(ARRAY[1], 2)",
        "SELECT jsonb_build_object('{}'::jsonb, 2)",
        "SELECT jsonb_build_object(1)",
        "SELECT jsonb_build_object(NULL::text, 1)",
        "SELECT to_jsonb('x')",
        "SELECT jsonb_agg('x')",
        "SELECT jsonb_agg(*) FROM generate_series(1, 2) x",
        "SELECT jsonb_object_agg(k, v) FROM (VALUES (NULL::text, 1)) t(k, v)",
        "SELECT jsonb_object_agg(k, v) FROM (VALUES (ARRAY[1], true)) t(k, v)",
        "SELECT jsonb_object_agg(x) FROM generate_series(1, 3) x",
    ] {
        s.check_error(sql).await;
    }
    for sql in [
        "SELECT to_jsonb(INTERVAL '1 day')",
        "SELECT jsonb_build_array(now())",
        "SELECT jsonb_agg(x) OVER () FROM generate_series(1, 2) x",
        // Aggregated as jsonb, whose order and equality are not the values' own.
        "SELECT jsonb_agg(DISTINCT x) FROM generate_series(1, 2) x",
        "SELECT jsonb_agg(DISTINCT x ORDER BY x) FROM generate_series(1, 2) x",
        "SELECT jsonb_object_agg(DISTINCT x, 1) FROM generate_series(1, 2) x",
    ] {
        let (code, message) = expect_error(&s.kpg, sql).await;
        assert_eq!(code, "0A000", "{sql}: {message}");
    }
    s.exec("CREATE TABLE items (id int, name text, price numeric(10, 2), tags text[])")
        .await;
    s.exec(
        "INSERT INTO items VALUES (1, 'a', 1.50, ARRAY['x']), (2, 'b', NULL, '{}'), \
         (3, NULL, 3.00, NULL)",
    )
    .await;
    s.check_through_writes(
        &[
            "SELECT id, jsonb_build_object('name', name, 'price', price, 'tags', tags) AS doc \
             FROM items",
            "SELECT to_jsonb(price) AS p, count(*) AS n FROM items GROUP BY to_jsonb(price)",
            "SELECT name IS NULL AS unnamed, jsonb_agg(jsonb_build_object('id', id, 'price', \
             price) ORDER BY id) AS docs FROM items GROUP BY name IS NULL",
            "SELECT jsonb_object_agg(id, tags) AS by_id FROM items",
        ],
        "built",
        &[
            "INSERT INTO items VALUES (4, 'd', 4.25, ARRAY['y', 'z'])",
            "UPDATE items SET price = 2.00 WHERE id = 1",
            "DELETE FROM items WHERE id = 2",
        ],
    )
    .await;
}
