//! `jsonb` against PostgreSQL (issue 19): text input and the normalized output, the operators
//! `->`, `->>`, `#>`, `#>>`, `@>`, `<@`, `?`, `||`, `-` (a key or an index), `jsonb_typeof`,
//! casts to scalar types and their errors, `jsonb_array_elements`, `jsonb_each`,
//! `jsonb_each_text` and `jsonb_object_keys` in FROM (and the last in a select list),
//! ordering, grouping and equality of jsonb values, and materialized views over a jsonb column
//! kept up to date through writes. Also a Kafka source `FORMAT JSON` without a column list:
//! one `data jsonb` column per record.

use std::time::{Duration, Instant};

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonb_matches_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for sql in [
        r#"SELECT '{"b": [1, 2.50, {"x": null}], "a": "s", "b": 1e2, "aa": "\u00e9\n"}'::jsonb"#,
        r#"SELECT '[]'::jsonb, '{}'::jsonb, 'null'::jsonb, '"x"'::jsonb, '-0.0'::jsonb, '12345678901234567890.123'::jsonb"#,
        r#"SELECT '{"a": {"b": [5, 6, {"c": "d"}]}}'::jsonb -> 'a' -> 'b' -> -1 ->> 'c'"#,
        r#"SELECT '[1, "a", null]'::jsonb -> 1, '[1, "a", null]'::jsonb ->> 2, '[1]'::jsonb -> 5, '{"a": 1}'::jsonb -> 'z'"#,
        r#"SELECT '{"a": {"b": [5, 6]}}'::jsonb #> '{a,b}', '{"a": {"b": [5, 6]}}'::jsonb #>> '{a,b,0}', '{"a": 1}'::jsonb #> '{x,y}'"#,
        r#"SELECT '{"a": 1, "b": [1, 2]}'::jsonb @> '{"b": [2]}', '{"a": 1}'::jsonb @> '{"a": 2}', '[1, [2, 3]]'::jsonb @> '[[3]]', '[1, 2]'::jsonb @> '1', '{"a": 1}'::jsonb <@ '{"a": 1, "b": 2}'"#,
        r#"SELECT '{"a": 1}'::jsonb ? 'a', '["a", "b"]'::jsonb ? 'b', '[1]'::jsonb ? '1', '"a"'::jsonb ? 'a'"#,
        r#"SELECT jsonb_typeof('1'), jsonb_typeof('"s"'), jsonb_typeof('true'), jsonb_typeof('null'), jsonb_typeof('[]'), jsonb_typeof('{}')"#,
        r#"SELECT ('3.7'::jsonb)::int, ('3.7'::jsonb)::numeric, ('true'::jsonb)::boolean, ('1e3'::jsonb)::float8, ('"x"'::jsonb)::text"#,
        r#"SELECT value FROM jsonb_array_elements('[1, "two", {"three": 3}, null]')"#,
        r#"SELECT value FROM jsonb_array_elements_text('[1, "two", {"three": 3}, null]')"#,
        r#"SELECT * FROM jsonb_each('{"bb": 1, "a": [1], "c": null, "d": {"e": "f"}}')"#,
        r#"SELECT * FROM jsonb_each_text('{"bb": 1, "a": [1], "c": null, "d": "s"}') AS t"#,
        r#"SELECT * FROM jsonb_each('{"a": 1}') AS t(k), jsonb_each('{"b": 2}') AS u(x, y)"#,
        r#"SELECT * FROM jsonb_each('{"a": 1, "b": 2}') WITH ORDINALITY"#,
        r#"SELECT * FROM jsonb_object_keys('{"a": 1, "bb": 2, "c": 3}') AS t"#,
        r#"SELECT jsonb_object_keys(x) AS k, x FROM (VALUES ('{"p": 1, "q": 2}'::jsonb)) v(x)"#,
        "SELECT * FROM jsonb_each(NULL), jsonb_object_keys(NULL)",
        r#"SELECT '{"a": 1, "b": 2}'::jsonb || '{"b": 3, "c": 4}'::jsonb, '[1, 2]'::jsonb || '[3]',
           '[1]'::jsonb || '2'::jsonb, '1'::jsonb || '[2]'::jsonb, '{"a": 1}'::jsonb || '[2]'::jsonb,
           '1'::jsonb || '2'::jsonb, '{}'::jsonb || 'x'::text, '{"a": 1}'::jsonb || NULL"#,
        r#"SELECT '{"a": 1, "b": 2}'::jsonb - 'a', '["a", "b", "a", 1]'::jsonb - 'a',
           '[1, 2, 3]'::jsonb - 1, '[1, 2, 3]'::jsonb - -1, '[1, 2, 3]'::jsonb - 5,
           '{"a": 1}'::jsonb - 'z', NULL::jsonb - 'a'"#,
    ] {
        s.check(sql).await;
    }
    for sql in [
        "SELECT '{'::jsonb",
        "SELECT '{\"a\" 1}'::jsonb",
        r#"SELECT ('"x"'::jsonb)::int"#,
        r#"SELECT ('[1]'::jsonb)::numeric"#,
        r#"SELECT ('1'::jsonb)::boolean"#,
        r#"SELECT * FROM jsonb_array_elements('{"a": 1}')"#,
        r#"SELECT * FROM jsonb_array_elements('3')"#,
        "SELECT 1 -> 'a'",
        "SELECT * FROM jsonb_each('[1]')",
        "SELECT * FROM jsonb_each_text('1')",
        "SELECT * FROM jsonb_object_keys('[1]')",
        "SELECT * FROM jsonb_object_keys('1')",
        "SELECT * FROM jsonb_each(1)",
        "SELECT '1'::jsonb - 'a'",
        r#"SELECT '{"a": 1}'::jsonb - 1"#,
        r#"SELECT '"x"'::jsonb - 0"#,
        r#"SELECT '{"a": 1}'::jsonb - 1::int8"#,
        r#"SELECT '{"a": 1}'::jsonb - 1.5"#,
    ] {
        s.check_error(sql).await;
    }
    // In a select list jsonb_each returns records, which kpg does not build there.
    let (code, message) = expect_error(&s.kpg, r#"SELECT jsonb_each('{"a": 1}')"#).await;
    assert_eq!(code, "0A000", "{message}");
    // Tables, grouping, ordering, equality of normalized values, lateral elements, and a view.
    s.exec("CREATE TABLE docs (id int, doc jsonb)").await;
    s.exec(
        r#"INSERT INTO docs VALUES
            (1, '{"kind": "a", "n": 1, "tags": ["x", "y"]}'),
            (2, '{"n": 2, "kind": "b", "tags": []}'),
            (3, '{"kind": "a", "n": 3.0, "tags": ["y"]}'),
            (4, '[1, 2]'), (5, '"str"'), (6, 'null'), (7, NULL),
            (8, '{"n": 1, "tags": ["x", "y"], "kind": "a"}')"#,
    )
    .await;
    s.check_in_order("SELECT id, doc FROM docs ORDER BY doc, id")
        .await;
    s.check("SELECT doc, count(*) FROM docs GROUP BY doc").await;
    s.check("SELECT DISTINCT doc FROM docs").await;
    s.check("SELECT a.id, b.id FROM docs a JOIN docs b ON a.doc = b.doc AND a.id < b.id")
        .await;
    s.check(
        "SELECT id, t FROM docs, jsonb_array_elements_text(doc -> 'tags') t \
         WHERE jsonb_typeof(doc) = 'object'",
    )
    .await;
    let view = "SELECT doc ->> 'kind' AS kind, count(*) AS n, sum((doc -> 'n')::numeric) AS total \
                FROM docs WHERE doc ? 'kind' GROUP BY doc ->> 'kind'";
    s.create_view("by_kind", view).await;
    s.check("SELECT * FROM by_kind").await;
    s.exec(r#"UPDATE docs SET doc = '{"kind": "c", "n": 10}' WHERE id = 2"#)
        .await;
    s.exec("DELETE FROM docs WHERE id = 1").await;
    s.exec(r#"INSERT INTO docs VALUES (9, '{"kind": "a", "n": 0.5}')"#)
        .await;
    s.check("SELECT * FROM by_kind").await;
    s.check(r#"SELECT id FROM docs WHERE doc @> '{"kind": "a"}'"#)
        .await;
    // Each key of the objects, maintained through writes.
    s.check_through_writes(
        &[
            "SELECT id, e.key, e.value FROM docs, jsonb_each(doc) e \
             WHERE jsonb_typeof(doc) = 'object'",
            r#"SELECT id, (doc - 'n') || '{"seen": true}' AS d FROM docs
               WHERE jsonb_typeof(doc) = 'object'"#,
        ],
        "pairs",
        &[
            r#"INSERT INTO docs VALUES (10, '{"z": [1], "kind": "q"}')"#,
            r#"UPDATE docs SET doc = '{"n": 7}' WHERE id = 3"#,
            "DELETE FROM docs WHERE id = 8",
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_json_without_columns_is_one_jsonb_column() {
    let (kafka, kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("docs", 1).await;
    kafka.produce_values(
        "docs",
        &[
            r#"{"id": 1, "b": [1, 2]}"#,
            r#"{"id": 2}"#,
            "not json",
            "[1]",
        ],
        None,
    );
    let c = kpg.connect().await;
    execute(
        &c,
        &format!(
            "CREATE SOURCE docs FROM KAFKA BROKER '{}' TOPIC 'docs' FORMAT JSON",
            kafka.broker()
        ),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while query(&c, "SELECT count(*) FROM docs").await != rows(&[&["3"]]) {
        assert!(
            Instant::now() < deadline,
            "the source never got its 3 records"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        query(&c, "SELECT data, data -> 'id' FROM docs ORDER BY data").await,
        rows(&[
            &["[1]", "NULL"],
            &[r#"{"id": 2}"#, "2"],
            &[r#"{"b": [1, 2], "id": 1}"#, "1"],
        ])
    );
    assert_eq!(
        query(&c, "SELECT reason LIKE '%json%' FROM kpg_source_errors").await,
        rows(&[&["t"]])
    );
}
