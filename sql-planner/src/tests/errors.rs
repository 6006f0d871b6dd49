//! Error codes and messages for bad input, and odd statements that must not panic.

use super::*;

#[test]
fn name_resolution_errors() {
    assert_eq!(
        err("SELECT * FROM nope").message,
        "relation \"nope\" does not exist"
    );
    assert_eq!(code("SELECT * FROM nope"), "42P01");
    assert_eq!(
        err("SELECT zz FROM t").message,
        "column \"zz\" does not exist"
    );
    assert_eq!(code("SELECT zz FROM t"), "42703");
    assert_eq!(
        err("SELECT t.zz FROM t").message,
        "column t.zz does not exist"
    );
    assert_eq!(
        err("SELECT a FROM t, u").message,
        "column reference \"a\" is ambiguous"
    );
    assert_eq!(code("SELECT a FROM t, u"), "42702");
    assert_eq!(code("SELECT q.a FROM t"), "42P01");
    assert_eq!(code("SELECT * FROM t, t"), "42712");
    assert_eq!(code("SELECT * FROM other.t"), "3F000");
    assert_eq!(
        code("SELECT u.a FROM t JOIN t AS w ON u.a = w.a, u"),
        "42P01"
    );
}

#[test]
fn type_errors() {
    assert_eq!(
        err("SELECT a FROM t WHERE a = true").message,
        "operator does not exist: integer = boolean"
    );
    assert_eq!(code("SELECT a FROM t WHERE a = true"), "42883");
    assert_eq!(
        err("SELECT a FROM t WHERE a").message,
        "argument of WHERE must be type boolean, not type integer"
    );
    assert_eq!(code("SELECT a FROM t WHERE a"), "42804");
    assert_eq!(code("SELECT 1 FROM t JOIN u ON t.a"), "42804");
    assert_eq!(code("SELECT b + 1 FROM t"), "42883");
    assert_eq!(code("SELECT d + d FROM t"), "42883");
    assert_eq!(code("SELECT y % 2 FROM u"), "42883");
    assert_eq!(code("SELECT 1 || 2"), "42883");
    assert_eq!(code("SELECT a LIKE 'x' FROM t"), "42883");
    assert_eq!(code("SELECT 'a' + 'b'"), "42725");
    assert_eq!(code("SELECT CASE WHEN true THEN 1 ELSE true END"), "42804");
    assert_eq!(code("SELECT coalesce(1, 'x'::text)"), "42804");
    assert_eq!(code("SELECT d::int FROM t"), "42846");
    assert_eq!(code("SELECT nosuch(1)"), "42883");
    assert_eq!(
        err("SELECT nosuch(1, 'a')").message,
        "function nosuch(integer, unknown) does not exist"
    );
    assert_eq!(code("SELECT ln(2.0)"), "0A000");
    assert_eq!(code("SELECT greatest(1, true)"), "42804");
    assert_eq!(code("SELECT lpad(1, 2)"), "42883");
    assert_eq!(code("SELECT sum(b) FROM t"), "42883");
    assert_eq!(code("SELECT 1 UNION SELECT true"), "42804");
    assert_eq!(code("SELECT 1 UNION SELECT 1, 2"), "42601");
    assert_eq!(code("SELECT 1 LIMIT -1"), "2201W");
    assert_eq!(code("SELECT 1 LIMIT true"), "42804");
    assert_eq!(
        err("SELECT y % 2 FROM u").message,
        "operator does not exist: double precision % integer"
    );
    assert_eq!(
        err("SELECT b + 'x' FROM t").message,
        "operator does not exist: text + unknown"
    );
    assert_eq!(
        err("SELECT CASE WHEN true THEN 1 ELSE true END").message,
        "CASE types boolean and integer cannot be matched"
    );
    assert_eq!(
        err("SELECT 1 FROM t GROUP BY 'x'").message,
        "non-integer constant in GROUP BY"
    );
    assert_eq!(code("SELECT a FROM t ORDER BY NULL"), "42601");
}

#[test]
fn grouping_errors() {
    assert_eq!(
        err("SELECT b, count(*) FROM t GROUP BY a").message,
        "column \"t.b\" must appear in the GROUP BY clause or be used in an aggregate function"
    );
    assert_eq!(code("SELECT b, count(*) FROM t GROUP BY a"), "42803");
    assert_eq!(code("SELECT a, count(*) FROM t"), "42803");
    assert_eq!(code("SELECT a FROM t WHERE count(*) > 1"), "42803");
    assert_eq!(
        err("SELECT a FROM t WHERE count(*) > 1").message,
        "aggregate functions are not allowed in WHERE"
    );
    assert_eq!(code("SELECT sum(count(*)) FROM t"), "42803");
    assert_eq!(code("SELECT a FROM t GROUP BY 3"), "42P10");
    assert_eq!(code("SELECT a FROM t ORDER BY 2"), "42P10");
    assert_eq!(code("SELECT DISTINCT a FROM t ORDER BY b"), "42P10");
    assert_eq!(code("SELECT a FROM t GROUP BY a HAVING b = 'x'"), "42803");
}

#[test]
fn refused_features() {
    for sql in [
        "SELECT sum(a) OVER w FROM t WINDOW w AS ()",
        "SELECT a FROM t GROUP BY ALL",
        "CREATE UNIQUE INDEX i ON t (a)",
        "ALTER TABLE t ADD COLUMN z int",
        "SELECT ARRAY[ARRAY[1]]",
        "SELECT '{{1}}'::int[]",
        "SELECT 'infinity'::timestamptz",
        "SELECT 'a'::timetz",
        "CREATE SOURCE s FROM LOAD GENERATOR AUCTION FOR ALL TABLES",
        "create source s from kafka connection k (topic 't') format avro",
        "CREATE SOURCE s FROM KAFKA BROKER 'b' TOPIC 't' FORMAT TEXT ENVELOPE DEBEZIUM",
        "CREATE SOURCE s FROM POSTGRES CONNECTION p (PUBLICATION 'x') FOR ALL TABLES",
        "CREATE SINK k FROM v INTO KAFKA CONNECTION c (TOPIC 't') FORMAT AVRO",
        "CREATE SINK k FROM v INTO S3 CONNECTION c (PATH 'p') FORMAT JSON",
        "SELECT 1; CREATE CONNECTION c TO POSTGRES (HOST 'h')",
    ] {
        assert_eq!(code(sql), "0A000", "{sql}");
    }
}

#[test]
fn syntax_errors_have_positions() {
    let e = parse("SELECT 1;\nSELEC 2").unwrap_err();
    assert_eq!(e.code, "42601");
    assert_eq!(e.position, Some(11));
    assert!(e.message.contains("SELEC"), "{}", e.message);
    assert_eq!(parse("SELECT * FROM").unwrap_err().code, "42601");
    assert_eq!(parse("SELECT 'unterminated").unwrap_err().code, "42601");
    assert_eq!(parse("SELECT 1 SELECT 2").unwrap_err().code, "42601");
    assert_eq!(parse("").unwrap().len(), 0);
    assert_eq!(parse(";;").unwrap().len(), 0);
}

#[test]
fn odd_statements_do_not_panic() {
    let cat = catalog();
    for sql in [
        "SELECT",
        "SELECT * FROM (VALUES (1)) AS x",
        "SELECT * FROM (SELECT 1) AS x(a, b)",
        "SELECT -(-2147483648)",
        "SELECT 9223372036854775807 + 1",
        "SELECT ''::int",
        "SELECT 1e400",
        "SELECT 1 FROM t GROUP BY 'x'",
        "SELECT count(*) FROM t GROUP BY ()",
        "SELECT a FROM t ORDER BY 0",
        "SELECT a FROM t ORDER BY 99999999999999999999",
        "VALUES (1), ('x')",
        "VALUES (1), (1, 2)",
        "SELECT * FROM t JOIN u",
        "INSERT INTO t DEFAULT VALUES",
        "INSERT INTO t SELECT * FROM t",
        "INSERT INTO t (a) SELECT NULL",
        "UPDATE t SET b = b || b WHERE NOT (a IS NULL)",
        "SELECT NULL::int + NULL",
        "SELECT nullif(NULL, NULL)",
        "SELECT CASE NULL WHEN NULL THEN 1 END",
        "SELECT coalesce(NULL, NULL)",
        "SELECT DATE 'garbage'",
        "SELECT 1 FROM t WHERE d > '2024-13-45'",
        "SELECT 10 % 0",
        "SELECT sum(1) FROM t HAVING sum(1) > 0",
        "SELECT x FROM (SELECT a AS x FROM t) s GROUP BY x HAVING count(*) > 0 ORDER BY x LIMIT 1",
        "SELECT * FROM t ORDER BY d DESC NULLS LAST",
        "SELECT *, a FROM t",
        "SELECT t.*, u.* FROM t, u WHERE t.a = u.a AND t.b = u.s",
        "SELECT 1 WHERE NULL",
        "SUBSCRIBE (SELECT 1); SUBSCRIBE TO (VALUES (1))",
        "COPY t TO STDOUT",
        "DROP TABLE IF EXISTS nope",
        "SELECT 'a' LIKE NULL",
        "SELECT abs(NULL)",
        "SELECT upper(NULL)",
        "SELECT -'1'",
        "SELECT a FROM t INTERSECT SELECT 1 ORDER BY 1 + 1",
    ] {
        if let Ok(stmts) = parse(sql) {
            for s in &stmts {
                let _ = plan(s, &cat);
            }
        }
    }
}
