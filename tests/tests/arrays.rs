//! One-dimensional arrays against PostgreSQL 15 (issue 21): text input and output with
//! PostgreSQL's quoting, casts, `ARRAY[...]` and `ARRAY(subquery)`, subscripts and slices, the
//! array functions and operators, `= ANY` / `<> ALL` with SQL's NULLs, equality and order of
//! arrays, `array_agg` ad hoc and maintained in views through inserts, updates and deletes,
//! `unnest` in FROM (LATERAL, WITH ORDINALITY), the binary format that tokio-postgres reads,
//! and the errors: malformed literals (22P02) and multi-dimensional arrays (0A000).

use kpg_tests::*;

const TABLE: &str = "CREATE TABLE t (id int, a int[], tags text[], g int, v int)";
const ROWS: &str = r#"INSERT INTO t VALUES
    (1, '{1,2,3}', '{x,y}', 1, 10), (2, '{}', '{}', 1, 20),
    (3, NULL, '{"a b",NULL}', 2, 30), (4, ARRAY[4,NULL], ARRAY['y'], 2, NULL)"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn array_values_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for sql in [
        // Text input and output: quoting, escapes, NULL, empty arrays and strings.
        r#"SELECT '{ab , " x " , NULL, "NULL", \N, a\,b, \ x, nUlL}'::text[], '{}'::int[]"#,
        r#"SELECT ARRAY['a b', '', 'null', 'x"y', 'q\z', '{', E'\t', 'plain'], '{""}'::text[]"#,
        "SELECT '{t,f}'::bool[], '{1.5,NaN,-Infinity}'::float8[], '{1.5}'::real[], '{1,2}'::int2[], '{9000000000}'::int8[]",
        r#"SELECT '{2020-01-02}'::date[], '{"2020-01-02 03:04:05.5"}'::timestamp[], '{1 day, "2 hours"}'::interval[]"#,
        r#"SELECT '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'::uuid[], '{"\\x01ff"}'::bytea[], '{"{\"a\": 1}"}'::jsonb[]"#,
        "SELECT '{1.50, 2}'::numeric[], '{1.555}'::numeric(5,2)[], '{ab}'::varchar(3)[], '{x}'::char(2)[]",
        // Casts.
        "SELECT '{1,2}'::_int4, '{a}'::pg_catalog._text, CAST('{1.5}' AS _numeric), 'x'::name",
        "SELECT * FROM generate_subscripts(ARRAY[5,6,7], 1) s, generate_subscripts('{}'::int[], 1) e",
        "SELECT s FROM generate_subscripts(ARRAY[5,6,7], 1) s UNION ALL SELECT * FROM generate_subscripts(ARRAY[1], 2)",
        "SELECT CAST(ARRAY[1,2] AS text), '{1,2}'::int[]::text[], ARRAY[1.5, 2]::int[], ARRAY['1','2']::int[]",
        "SELECT CAST('{a,b}' AS varchar[]), '{1,2}'::bigint[], ARRAY[1]::numeric(5,2)[], ARRAY[]::int[]",
        // Constructor, subscripts, slices.
        "SELECT ARRAY[1,2,NULL] AS a, (ARRAY[1,2,3])[2], (ARRAY[1,2,3])[2:], (ARRAY[1,2,3])[:2]",
        "SELECT (ARRAY[1,2,3])[5], (ARRAY[1,2,3])[0], (ARRAY[1,2,3])[0:10], (ARRAY[1,2,3])[3:2], (ARRAY[1,2])[NULL::int]",
        "SELECT ARRAY[1, 2.5], ARRAY['a', 'b'], ARRAY[1::smallint, 2], ARRAY[NULL::int]",
        "SELECT ARRAY['a'::char(3)], ARRAY[1,2] IS DISTINCT FROM ARRAY[1,2], ARRAY[1,NULL] IS NOT DISTINCT FROM ARRAY[1,NULL]",
        // Functions.
        "SELECT array_length(ARRAY[1,2], 1), array_length('{}'::int[], 1), array_length(ARRAY[1], 2), cardinality(ARRAY[1,2,3]), cardinality('{}'::int[])",
        "SELECT array_lower(ARRAY[5,6], 1), array_upper(ARRAY[5,6], 1), array_upper('{}'::int[], 1), array_ndims(ARRAY[1]), array_ndims('{}'::int[])",
        "SELECT array_remove(ARRAY[1,2,1,NULL], 1), array_remove(ARRAY[1,NULL], NULL), array_remove(NULL::int[], 1), array_replace(ARRAY[1,2,1], 1, 9), array_replace(ARRAY['a',NULL], NULL, 'z')",
        "SELECT array_dims(ARRAY[5,6,7]), array_dims('{}'::int[]), array_remove(ARRAY[1.5, 2], 2)",
        "SELECT array_position(ARRAY[1,2,NULL,2], 2), array_position(ARRAY[1,NULL], NULL), array_position(ARRAY['a'], 'b')",
        "SELECT array_append(ARRAY[1,2], 3), array_prepend(0, ARRAY[1]), array_cat(ARRAY[1], ARRAY[2,3]), array_append(NULL::int[], 1), array_cat(NULL::int[], NULL::int[])",
        "SELECT ARRAY[1,2] || ARRAY[3], ARRAY[1] || 2, 0 || ARRAY[1], ARRAY['a'] || 'b'::text, ARRAY[1] || ARRAY[2::bigint], ARRAY[1] || '{2,3}'",
        "SELECT array_to_string(ARRAY[1,NULL,3], ','), array_to_string(ARRAY[1,NULL,3], ',', '*'), array_to_string(ARRAY['a','b'], NULL)",
        "SELECT string_to_array('a,b,,c', ','), string_to_array('abc', NULL), string_to_array('a,b', ''), string_to_array('', ','), string_to_array('a,x,b', ',', 'x')",
        // ANY / ALL with SQL's NULLs.
        "SELECT 1 = ANY(ARRAY[1,2]), 3 = ANY(ARRAY[1,2]), 3 = ANY(ARRAY[1,NULL]), NULL::int = ANY('{}'::int[]), NULL::int = ANY(ARRAY[1])",
        "SELECT 1 <> ALL(ARRAY[2,3]), 1 <> ALL(ARRAY[1,NULL]), 2 <> ALL(ARRAY[1,NULL]), 2 < ALL(ARRAY[3,4]), 5 > ANY(ARRAY[1,NULL]), 1 = ALL('{}'::int[])",
        "SELECT 1.5 = ANY(ARRAY[1,2]), 2 = ANY('{1,2}'), 'y' = ANY(ARRAY['x','y']), 2::bigint = SOME(ARRAY[1,2])",
        // Containment and overlap.
        "SELECT ARRAY[1,2] @> ARRAY[2], ARRAY[1,2] @> ARRAY[3], ARRAY[1] <@ ARRAY[1,2], ARRAY[1,2] && ARRAY[2,3], ARRAY[1,NULL] @> ARRAY[NULL::int], ARRAY[1,2] && ARRAY[3], '{}'::int[] <@ ARRAY[1]",
        // Equality and order: element-wise, NULL elements after values, prefixes first.
        "SELECT ARRAY[1,2] = ARRAY[1,2], ARRAY[1,2] < ARRAY[1,3], ARRAY[1] < ARRAY[1,0], ARRAY[1,NULL] = ARRAY[1,NULL], ARRAY[NULL::int] > ARRAY[5], '{}'::int[] < ARRAY[1], ARRAY[1.0] = ARRAY[1.00]",
        "SELECT current_schemas(true), current_schemas(false), (current_schemas(true))[1]",
        // jsonb paths as text arrays.
        r#"SELECT '{"a": {"b c": [5, 6]}}'::jsonb #> ARRAY['a', 'b c', '1'], '{"a": {"b": 1}}'::jsonb #>> ARRAY['a','b']::varchar[], '{"a": 1}'::jsonb #> '{}'::text[], '{"a": 1}'::jsonb #> ARRAY['a', NULL]"#,
    ] {
        s.check(sql).await;
    }
    // Floats in arrays follow extra_float_digits.
    s.exec("SET extra_float_digits = 0").await;
    s.check("SELECT ARRAY[0.1::float8 + 0.2::float8, 1.5], ARRAY[431.7726::real]")
        .await;
    s.exec("SET extra_float_digits = 1").await;
    for sql in [
        "SELECT '{1,'::int[]",
        "SELECT '{1'::int[]",
        "SELECT '1'::int[]",
        "SELECT '{1,2} x'::int[]",
        "SELECT '{{1},2}'::int[]",
        "SELECT '{a\"b\"}'::text[]",
        "SELECT '{,}'::int[]",
        "SELECT '{a}'::int[]",
        "SELECT '{99999999999}'::int[]",
        "SELECT ARRAY[1,'a']",
        "SELECT ARRAY[]",
        "SELECT 1 = ANY(1)",
        "SELECT ARRAY[1]::bigint[] = ARRAY[1]",
        "SELECT ARRAY[1::bigint] @> ARRAY[1]",
        "SELECT (1)[1]",
        "SELECT ARRAY[1] = ARRAY['a']",
        "SELECT ARRAY['a'] || 'b'",
        r#"SELECT '{"a": 1}'::jsonb #> ARRAY[1]"#,
    ] {
        s.check_error(sql).await;
    }
    s.check("SELECT 1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multidimensional_arrays_are_refused() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    for sql in [
        "SELECT '{{1,2},{3,4}}'::int[]",
        "SELECT '[0:1]={1,2}'::int[]",
        "SELECT ARRAY[ARRAY[1,2],ARRAY[3,4]]",
        "SELECT (ARRAY[1,2])[1][1]",
        "SELECT array_agg(a) FROM (VALUES (ARRAY[1])) v(a)",
        "SELECT * FROM unnest(ARRAY[1], ARRAY[2])",
    ] {
        let (code, msg) = expect_error(&c, sql).await;
        assert_eq!(code, "0A000", "{sql}: {msg}");
    }
    assert_eq!(cell(&query(&c, "SELECT 1").await[0][0]), "1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arrays_in_tables_and_views_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(TABLE).await;
    s.exec(ROWS).await;
    for sql in [
        "SELECT column_name, data_type, udt_name FROM information_schema.columns \
         WHERE table_name = 't' ORDER BY ordinal_position",
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typname, t.typcategory \
         FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
         WHERE a.attrelid = 't'::regclass AND a.attnum > 0 AND t.typcategory = 'A' ORDER BY 1",
        "SELECT * FROM t ORDER BY id",
        "SELECT id, a[1], a[2:], cardinality(a), tags[2], array_length(tags, 1) FROM t ORDER BY id",
        "SELECT id FROM t WHERE 2 = ANY(a) OR 'y' = ANY(tags) ORDER BY id",
        "SELECT id FROM t WHERE a @> ARRAY[4] OR tags && ARRAY['x'] ORDER BY id",
        "SELECT a, count(*) FROM t GROUP BY a ORDER BY a",
        "SELECT DISTINCT tags FROM t ORDER BY tags",
        "SELECT max(a), min(tags), count(DISTINCT a), max(tags) FROM t",
        "SELECT g, max(a) FROM t GROUP BY g ORDER BY g",
        "SELECT a FROM t UNION SELECT '{1,2,3}'::int[] ORDER BY 1",
        "SELECT a FROM t INTERSECT SELECT '{1,2,3}'::int[]",
        "SELECT id FROM t ORDER BY a DESC, id",
        "SELECT x.id, y.id FROM t x JOIN t y ON x.tags = y.tags AND x.id < y.id",
        "SELECT array_agg(id ORDER BY id) FILTER (WHERE v > 10), array_agg(v ORDER BY id) FROM t",
        "SELECT array_agg(id) FROM t WHERE false",
        "SELECT g, array_agg(v ORDER BY v DESC NULLS LAST), array_agg(DISTINCT id), array_agg(a[1] ORDER BY id) FROM t GROUP BY g ORDER BY g",
        "SELECT array_to_string(array_agg(id ORDER BY id), '-') FROM t",
        "SELECT id, x FROM t, unnest(a) AS x ORDER BY id, x",
        "SELECT id, s, a[s] FROM t, generate_subscripts(t.a, 1) s ORDER BY 1, 2",
        "SELECT id, x, n FROM t, unnest(tags) WITH ORDINALITY AS u(x, n) ORDER BY id, n",
        "SELECT id, u FROM t CROSS JOIN LATERAL unnest(a) u ORDER BY 1, 2",
        "SELECT * FROM unnest(ARRAY[1,2,NULL]) WITH ORDINALITY",
        "SELECT * FROM unnest('{a,b}'::text[]) x",
        "SELECT ARRAY(SELECT id FROM t ORDER BY id)",
        "SELECT ARRAY(SELECT id FROM t ORDER BY id DESC LIMIT 2)",
        "SELECT ARRAY(SELECT v AS w FROM t ORDER BY w NULLS FIRST)",
        "SELECT ARRAY(SELECT id FROM t WHERE false)",
        "SELECT id, ARRAY(SELECT x * 2 FROM unnest(a) x ORDER BY 1) FROM t ORDER BY id",
        "SELECT g, ARRAY(SELECT id FROM t t2 WHERE t2.g = t.g ORDER BY id) FROM t ORDER BY id",
    ] {
        s.check(sql).await;
    }
    // Maintained views, checked after each write.
    s.check_through_writes(
        &[
            "SELECT g, array_agg(v ORDER BY v) AS vs, array_agg(id ORDER BY id DESC) AS ids, count(*) FROM t GROUP BY g",
            "SELECT array_agg(tags[1] ORDER BY id) AS firsts, array_agg(DISTINCT g) AS gs FROM t WHERE tags <> '{}'",
            "SELECT id, x FROM t, unnest(a) x WHERE x > 1",
            "SELECT id, a || v AS av, a[1] AS first FROM t WHERE 10 <> ALL(a)",
            "SELECT x, count(*) AS n FROM t, unnest(tags) x GROUP BY x",
        ],
        "arrays_v",
        &[
            "INSERT INTO t VALUES (5, '{7,8}', '{z,x}', 1, 5), (6, NULL, NULL, 3, NULL)",
            "DELETE FROM t WHERE id = 1",
            "UPDATE t SET a = array_append(a, 9), tags = tags || 'w'::text WHERE id = 5",
            "INSERT INTO t VALUES (7, '{}', '{y}', 2, 1), (8, ARRAY[NULL::int], '{}', 1, 2)",
            "DELETE FROM t WHERE g = 2",
        ],
    )
    .await;
}

/// tokio-postgres asks for binary results and checks the type OIDs (`_int4` is 1007, `_text`
/// 1009, ...): the same values must decode from kpg as from PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_arrays_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let (k, p) = (kpg.connect().await, pg.connect().await);
    let sql = "SELECT ARRAY[1,NULL,3]::int[], '{}'::int[], ARRAY['a b','',NULL]::text[], \
               ARRAY[1,2]::int8[], ARRAY[1]::int2[], ARRAY[true,false], ARRAY[1.5]::float8[], \
               ARRAY[0.25]::real[], ARRAY['x']::varchar[]";
    let (kr, pr) = (
        k.query_one(sql, &[]).await.unwrap(),
        p.query_one(sql, &[]).await.unwrap(),
    );
    for (i, (kc, pc)) in kr.columns().iter().zip(pr.columns()).enumerate() {
        assert_eq!(kc.type_(), pc.type_(), "column {i}");
    }
    assert_eq!(
        kr.get::<_, Vec<Option<i32>>>(0),
        pr.get::<_, Vec<Option<i32>>>(0)
    );
    assert_eq!(
        kr.get::<_, Vec<Option<i32>>>(1),
        pr.get::<_, Vec<Option<i32>>>(1)
    );
    assert_eq!(
        kr.get::<_, Vec<Option<String>>>(2),
        pr.get::<_, Vec<Option<String>>>(2)
    );
    assert_eq!(kr.get::<_, Vec<i64>>(3), pr.get::<_, Vec<i64>>(3));
    assert_eq!(kr.get::<_, Vec<i16>>(4), pr.get::<_, Vec<i16>>(4));
    assert_eq!(kr.get::<_, Vec<bool>>(5), pr.get::<_, Vec<bool>>(5));
    assert_eq!(kr.get::<_, Vec<f64>>(6), pr.get::<_, Vec<f64>>(6));
    assert_eq!(kr.get::<_, Vec<f32>>(7), pr.get::<_, Vec<f32>>(7));
    assert_eq!(kr.get::<_, Vec<String>>(8), pr.get::<_, Vec<String>>(8));
    // Array parameters, bound by tokio-postgres in binary (NULL elements and quoting too).
    let ints: Vec<Option<i32>> = vec![Some(1), None, Some(2)];
    let texts: Vec<Option<String>> = vec![Some("a b".into()), Some("{".into()), None];
    let longs: Vec<i64> = vec![5, 7];
    let sql = "SELECT $1::int[] || 4, $2::text[], 7 = ANY($3::int8[]), cardinality($2::text[])";
    let (kr, pr) = (
        k.query_one(sql, &[&ints, &texts, &longs]).await.unwrap(),
        p.query_one(sql, &[&ints, &texts, &longs]).await.unwrap(),
    );
    assert_eq!(
        kr.get::<_, Vec<Option<i32>>>(0),
        pr.get::<_, Vec<Option<i32>>>(0)
    );
    assert_eq!(
        kr.get::<_, Vec<Option<String>>>(1),
        pr.get::<_, Vec<Option<String>>>(1)
    );
    assert_eq!(kr.get::<_, bool>(2), pr.get::<_, bool>(2));
    assert_eq!(kr.get::<_, i32>(3), pr.get::<_, i32>(3));
}

/// The catalog arrays drivers read: pg_index's `indkey` and `indoption` as `int2vector` (text
/// `3 1`, subscripts from 0, expanded with unnest / generate_subscripts in lockstep as
/// SQLAlchemy does), and `current_schemas` as pgjdbc's getSchemas uses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catalog_arrays_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE pk (a int, b text, c int, PRIMARY KEY (c, a))")
        .await;
    s.exec("CREATE INDEX pk_b ON pk (b)").await;
    let of_pk = "FROM pg_index WHERE indrelid = 'pk'::regclass";
    for sql in [
        format!("SELECT indkey, indoption, indkey[0], indkey[1], indkey[5] {of_pk} ORDER BY 1"),
        format!(
            "SELECT array_lower(indkey, 1), array_upper(indkey, 1), cardinality(indkey), \
             array_length(indkey, 1), 3 = ANY(indkey), indkey::text {of_pk} ORDER BY 1, 2, 3"
        ),
        format!(
            "SELECT generate_subscripts(indkey, 1) AS s, unnest(indkey) AS k {of_pk} ORDER BY 2"
        ),
        "SELECT x, n FROM pg_index, unnest(indkey) WITH ORDINALITY u(x, n) \
         WHERE indrelid = 'pk'::regclass ORDER BY 1"
            .to_string(),
        "SELECT generate_subscripts(ARRAY[5,6], 1) AS g, unnest(ARRAY[5,6]) AS u".to_string(),
        "SELECT nspname AS TABLE_SCHEM, NULL AS TABLE_CATALOG FROM pg_catalog.pg_namespace \
         WHERE nspname <> 'pg_toast' AND (nspname !~ '^pg_temp_' OR nspname = \
         (pg_catalog.current_schemas(true))[1]) AND (nspname !~ '^pg_toast_temp_' OR nspname = \
         replace((pg_catalog.current_schemas(true))[1], 'pg_temp_', 'pg_toast_temp_')) \
         ORDER BY TABLE_SCHEM"
            .to_string(),
    ] {
        s.check(&sql).await;
    }
    // pgjdbc's getPrimaryKeys and getIndexInfo: _pg_expandarray's records and their fields,
    // an int2vector subscripted by an expression, `&` of smallints.
    let expand = "information_schema._pg_expandarray";
    for sql in [
        format!(
            "SELECT indexrelid::regclass::text AS ix, ({expand}(indkey)).n, {expand}(indkey) AS keys, \
             ({expand}(indkey)).x {of_pk} ORDER BY 1, 2"
        ),
        format!("SELECT {expand}(ARRAY['a', NULL, 'c d']) AS r ORDER BY r"),
        format!(
            "SELECT r.ix, r.n FROM (SELECT indexrelid::regclass::text AS ix, ({expand}(indkey)).n AS n, \
             {expand}(indkey) AS keys FROM pg_index WHERE indrelid = 'pk'::regclass) r \
             WHERE (r.keys).x = 1 ORDER BY 1"
        ),
        format!(
            "SELECT t.o[t.n - 1] & 1::smallint, 5 & 3, 5 | 3, 12::bigint | 1 FROM \
             (SELECT indoption AS o, ({expand}(indkey)).n AS n {of_pk}) t"
        ),
        "SELECT result.TABLE_CAT, result.TABLE_SCHEM, result.TABLE_NAME, result.COLUMN_NAME, \
         result.KEY_SEQ, result.PK_NAME FROM (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, \
         ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME, \
         (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ, ci.relname AS PK_NAME, \
         information_schema._pg_expandarray(i.indkey) AS KEYS, a.attnum AS A_ATTNUM \
         FROM pg_catalog.pg_class ct JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid) \
         JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid) \
         JOIN pg_catalog.pg_index i ON (a.attrelid = i.indrelid) \
         JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid) \
         WHERE true AND ct.relname = E'pk' AND i.indisprimary) result \
         WHERE result.A_ATTNUM = (result.KEYS).x \
         ORDER BY result.table_name, result.pk_name, result.key_seq"
            .to_string(),
    ] {
        s.check(&sql).await;
    }
    s.check_error("SELECT _pg_expandarray(ARRAY[1])").await;
    s.check_error("SELECT (x).y FROM (SELECT information_schema._pg_expandarray(ARRAY[1]) AS x) s")
        .await;
    let c = kpg.connect().await;
    let (code, msg) = expect_error(&c, &format!("SELECT indkey::int2[] {of_pk}")).await;
    assert_eq!(code, "0A000", "{msg}");
}
