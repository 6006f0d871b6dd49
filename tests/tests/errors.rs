//! Issue 2: errors — syntax, unknown table/column, type mismatch — return an ErrorResponse
//! with PostgreSQL's SQLSTATE and a message naming the problem, and the session (and server)
//! go on. Every statement here is also run on PostgreSQL 15 and must fail there with the same
//! SQLSTATE. The codes PostgreSQL 15 returns (verified):
//!
//! | statement                                   | SQLSTATE |
//! |---------------------------------------------|----------|
//! | `SELEC 1`, `SELECT * FROM`, `CREATE TABLE (a int)` | 42601 syntax_error |
//! | `INSERT INTO t (a, b) VALUES (1)` (arity)   | 42601 |
//! | `SELECT * FROM nope`, `INSERT INTO nope ..`  | 42P01 undefined_table |
//! | `SELECT nope FROM t`, `UPDATE t SET nope = 1`| 42703 undefined_column |
//! | `INSERT INTO t (i) VALUES ('abc')`          | 22P02 invalid_text_representation |
//! | `INSERT INTO t (i) VALUES (true)`           | 42804 datatype_mismatch |
//! | `SELECT * FROM t WHERE i = true`            | 42883 undefined_function (operator) |
//! | `SELECT * FROM t WHERE s` (text)            | 42804 |
//! | `INSERT INTO t (d) VALUES ('notadate')`     | 22007 invalid_datetime_format |
//! | `INSERT INTO t (i) VALUES (2147483648)`     | 22003 numeric_value_out_of_range |
//! | `INSERT INTO t (v) VALUES ('too long')`     | 22001 string_data_right_truncation |
//! | `CREATE TABLE t (..)` when t exists         | 42P07 duplicate_table |
//! | `SELECT 1/0`                                | 22012 division_by_zero |

use kpg_tests::*;

const T: &str = "CREATE TABLE t (i int4, b int8, s text, v varchar(5), f boolean, n numeric(6,2), \
                 d date, x double precision)";

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(T).await;
    s.exec("INSERT INTO t VALUES (1, 10, 'one', 'uno', true, 1.10, '2024-01-01', 1.5), (2, 20, 'two', 'dos', false, 2.20, '2024-01-02', 2.5)").await;
    (kpg, pg, s)
}

/// After an error, both sessions must still work and nothing must have changed.
async fn still_works(s: &Pair) {
    s.check("SELECT * FROM t ORDER BY i").await;
}

async fn expect_class(s: &Pair, cases: &[&str], code: &str, must_mention: Option<&str>) {
    for sql in cases {
        let (got, msg) = s.check_error(sql).await;
        assert_eq!(got, code, "{sql}: {msg}");
        assert!(!msg.trim().is_empty(), "{sql}: empty error message");
        if let Some(word) = must_mention {
            assert!(
                msg.contains(word),
                "{sql}: message should name `{word}`: {msg}"
            );
        }
        still_works(s).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn syntax_errors() {
    let (_kpg, _pg, s) = setup().await;
    expect_class(
        &s,
        &[
            "SELEC 1",
            "SELECT * FROM",
            "CREATE TABLE (a int4)",
            "INSERT INTO t VALUES (1,",
            "SELECT i FROM t WHERE",
            "CREATE MATERIALIZED VIEW AS SELECT 1",
            "INSERT INTO t (i, b) VALUES (1)",
            "INSERT INTO t (i) VALUES (1, 2)",
        ],
        "42601",
        None,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_table() {
    let (_kpg, _pg, s) = setup().await;
    expect_class(
        &s,
        &[
            "SELECT * FROM nope",
            "INSERT INTO nope VALUES (1)",
            "UPDATE nope SET a = 1",
            "DELETE FROM nope",
            "SELECT t.i FROM t JOIN nope ON t.i = nope.i",
            "INSERT INTO t (i) SELECT a FROM nope",
        ],
        "42P01",
        Some("nope"),
    )
    .await;
    // In a view definition: on PostgreSQL a plain view stands in for the materialized view.
    let k = expect_error(&s.kpg, "CREATE MATERIALIZED VIEW bad AS SELECT * FROM nope").await;
    let p = expect_error(&s.pg, "CREATE VIEW bad AS SELECT * FROM nope").await;
    assert_eq!(k.0, p.0, "kpg: {k:?}, PostgreSQL: {p:?}");
    // The failed CREATE left nothing behind: the name is free.
    s.create_view("bad", "SELECT i FROM t").await;
    s.check_view("bad").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_column() {
    let (_kpg, _pg, s) = setup().await;
    expect_class(
        &s,
        &[
            "SELECT nope FROM t",
            "SELECT i FROM t WHERE nope = 1",
            "SELECT i FROM t ORDER BY nope",
            "INSERT INTO t (nope) VALUES (1)",
            "UPDATE t SET nope = 1",
            "UPDATE t SET i = 1 WHERE nope = 2",
            "DELETE FROM t WHERE nope = 1",
            "SELECT t.nope FROM t",
            "SELECT count(*) FROM t GROUP BY nope",
        ],
        "42703",
        Some("nope"),
    )
    .await;
    let k = expect_error(&s.kpg, "CREATE MATERIALIZED VIEW bad AS SELECT nope FROM t").await;
    let p = expect_error(&s.pg, "CREATE VIEW bad AS SELECT nope FROM t").await;
    assert_eq!(k.0, p.0, "kpg: {k:?}, PostgreSQL: {p:?}");
    s.create_view("bad", "SELECT s FROM t").await;
    s.check_view("bad").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type_mismatch() {
    let (_kpg, _pg, s) = setup().await;
    // An expression of the wrong type for a column: 42804.
    expect_class(
        &s,
        &[
            "INSERT INTO t (i) VALUES (true)",
            "INSERT INTO t (f) VALUES (1)",
            "INSERT INTO t (d) VALUES (5)",
            "UPDATE t SET i = true",
            "INSERT INTO t (i) SELECT s FROM t",
            "SELECT * FROM t WHERE s",
        ],
        "42804",
        None,
    )
    .await;
    // No operator for these operand types: 42883.
    expect_class(
        &s,
        &["SELECT * FROM t WHERE i = true", "SELECT i + s FROM t"],
        "42883",
        None,
    )
    .await;
    // A string literal that is not a valid value of the column's type.
    expect_class(
        &s,
        &[
            "INSERT INTO t (i) VALUES ('abc')",
            "UPDATE t SET i = 'x'",
            "SELECT i FROM t WHERE i = 'x'",
        ],
        "22P02",
        None,
    )
    .await;
    expect_class(
        &s,
        &["INSERT INTO t (d) VALUES ('notadate')"],
        "22007",
        None,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_and_other_data_errors() {
    let (_kpg, _pg, s) = setup().await;
    expect_class(
        &s,
        &[
            "INSERT INTO t (i) VALUES (2147483648)",
            "INSERT INTO t (n) VALUES (123456.78)",
        ],
        "22003",
        None,
    )
    .await;
    expect_class(
        &s,
        &["INSERT INTO t (v) VALUES ('too long')"],
        "22001",
        None,
    )
    .await;
    expect_class(&s, &["SELECT i / 0 FROM t"], "22012", None).await;
    expect_class(&s, &[T], "42P07", None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_statement_changes_nothing() {
    let (_kpg, _pg, s) = setup().await;
    s.create_view(
        "sums",
        "SELECT f, count(*) AS c, sum(b) AS total FROM t GROUP BY f",
    )
    .await;
    // A multi-row INSERT with one bad row inserts nothing.
    let (code, _) = s
        .check_error("INSERT INTO t (i, s) VALUES (3, 'three'), ('four', 'four')")
        .await;
    assert_eq!(code, "22P02");
    let (code, _) = s
        .check_error("INSERT INTO t (i, v) VALUES (3, 'ok'), (4, 'much too long')")
        .await;
    assert_eq!(code, "22001");
    still_works(&s).await;
    s.check_view("sums").await;
    // An UPDATE that fails on one row updates none.
    let (code, _) = s.check_error("UPDATE t SET i = i * 2000000000").await;
    assert_eq!(code, "22003");
    still_works(&s).await;
    s.check_view("sums").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_do_not_disturb_other_sessions() {
    let kpg = KpgServer::start().await;
    let a = kpg.connect().await;
    let b = kpg.connect().await;
    execute(&a, "CREATE TABLE t (i int4)").await;
    execute(&a, "INSERT INTO t VALUES (1)").await;
    for _ in 0..5 {
        expect_error(&a, "SELEC 1").await;
        expect_error(&a, "SELECT * FROM nope").await;
        assert_eq!(query(&b, "SELECT i FROM t").await, rows(&[&["1"]]));
    }
    assert_eq!(query(&a, "SELECT i FROM t").await, rows(&[&["1"]]));
    // Errors reported by the extended protocol leave the session usable too.
    let e = a
        .query("SELECT nope FROM t", &[])
        .await
        .expect_err("unknown column");
    assert_eq!(
        sqlstate(&e).as_deref(),
        Some("42703"),
        "{}",
        describe_error(&e)
    );
    assert_eq!(query(&a, "SELECT i FROM t").await, rows(&[&["1"]]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_is_0a000() {
    // What kpg does not build yet is refused with feature_not_supported, not faked.
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE t (i int4)").await;
    for sql in ["CREATE SEQUENCE s"] {
        let (code, msg) = expect_error(&c, sql).await;
        assert_eq!(code, "0A000", "{sql}: {msg}");
        assert_eq!(query(&c, "SELECT i FROM t").await, rows(&[]));
    }
}

/// Constants that fail are raised while planning, as PostgreSQL's planner folds them (even when
/// no row would reach them), except where a constant makes them unreachable: after the
/// non-NULL constant of a COALESCE, in a CASE branch a constant condition rules out, after
/// FALSE AND or TRUE OR.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_constants_where_postgres_folds_them() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        "SELECT coalesce(1, 1/0)",
        "SELECT coalesce(NULL, 2, 1/0)",
        "SELECT CASE WHEN true THEN 1 ELSE 1/0 END",
        "SELECT CASE WHEN false THEN 1/0 ELSE 2 END",
        "SELECT true OR 1/0 = 1, false AND 1/0 = 1",
        "SELECT i, coalesce(2, i / 0) FROM t",
        "SELECT i FROM t WHERE false AND 1/0 = 1",
        "SELECT i, CASE WHEN 1 > 2 THEN 1/0 ELSE i END FROM t",
        "SELECT -(-2147483648), - -2147483648, -(-9223372036854775808)",
    ] {
        s.check(q).await;
    }
    for e in [
        "SELECT coalesce(i, 1/0) FROM t",
        "SELECT CASE WHEN i > 5 THEN 1/0 END FROM t",
        "SELECT i FROM t WHERE i > 5 AND 1/0 = 1",
        "SELECT 1/0 = 1 AND false",
        "SELECT i FROM t WHERE i IN (SELECT 1/0)",
    ] {
        s.check_error(e).await;
    }
}
