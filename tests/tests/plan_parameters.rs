//! Parameters of prepared statements typed and bound as PostgreSQL 15 does, compared with it:
//! the same statements prepared on both servers must describe the same parameter types
//! (ParameterDescription OIDs) and result columns, give the same rows for the same values (sent
//! in text format, so one value list serves whatever type each server chose), and fail with the
//! same SQLSTATE where PostgreSQL refuses (a parameter used where its type conflicts with the
//! type an earlier use fixed). Each statement runs several times with different values, as a
//! statement planned once at Parse is (`pgwire_server/prepared.rs`), and again after the
//! catalog changed (an index created on the table it reads).

use bytes::BytesMut;
use kpg_tests::tokio_postgres::types::{Format, IsNull, ToSql, Type};
use kpg_tests::*;

/// A parameter value in text format (PostgreSQL reads it with the parameter type's input
/// function), or NULL.
#[derive(Debug)]
struct Text(Option<&'static str>);

impl ToSql for Text {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self.0 {
            Some(s) => {
                out.extend_from_slice(s.as_bytes());
                Ok(IsNull::No)
            }
            None => Ok(IsNull::Yes),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    fn encode_format(&self, _: &Type) -> Format {
        Format::Text
    }

    tokio_postgres::types::to_sql_checked!();
}

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(
        "CREATE TABLE t (id int4, big int8, name text, code varchar(8), price numeric(10,2), \
         score double precision, day date, at timestamp)",
    )
    .await;
    s.exec(
        "INSERT INTO t VALUES (1, 10, 'one', 'A1', 12.50, 0.5, '2024-01-31', '2024-01-31 10:00'), \
         (2, -2, 'two', 'B2', 0.01, -1e10, '2023-12-31', '2023-12-31 23:59:59'), \
         (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL), \
         (4, 40, 'four', 'D4', 4.00, 4.5, '2024-02-29', '2024-02-29 12:00')",
    )
    .await;
    (kpg, pg, s)
}

/// A prepared statement's result columns: names and types.
fn columns(st: &tokio_postgres::Statement) -> Vec<(String, Type)> {
    st.columns()
        .iter()
        .map(|c| (c.name().to_string(), c.type_().clone()))
        .collect()
}

/// Prepares `sql` on both servers, compares what they describe, and runs it with each list of
/// values, comparing the rows (sorted: `sql` need not order them) or the error.
async fn check(s: &Pair, sql: &str, runs: &[&[Option<&'static str>]]) {
    check_typed(s, sql, &[], runs).await
}

/// `check`, with parameter types declared at Parse (`types`, the first parameters').
async fn check_typed(s: &Pair, sql: &str, types: &[Type], runs: &[&[Option<&'static str>]]) {
    let k = s
        .kpg
        .prepare_typed(sql, types)
        .await
        .unwrap_or_else(|e| panic!("kpg prepare `{sql}`: {}", describe_error(&e)));
    let p =
        s.pg.prepare_typed(sql, types)
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL prepare `{sql}`: {e} — fix the test"));
    assert_eq!(k.params(), p.params(), "parameter types of `{sql}`");
    assert_eq!(columns(&k), columns(&p), "result columns of `{sql}`");
    for values in runs {
        let params: Vec<Text> = values.iter().map(|v| Text(*v)).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        let kr = s.kpg.query(&k, &refs).await;
        let pr = s.pg.query(&p, &refs).await;
        match (kr, pr) {
            (Ok(kr), Ok(pr)) => {
                let mut kr = raw_rows(&kr);
                let mut pr = raw_rows(&pr);
                let key = |r: &Vec<Raw>| format!("{r:?}");
                kr.sort_by_key(key);
                pr.sort_by_key(key);
                assert_eq!(kr, pr, "rows of `{sql}` with {values:?}");
            }
            (Err(ke), Err(pe)) => assert_eq!(
                sqlstate(&ke),
                sqlstate(&pe),
                "error of `{sql}` with {values:?}: kpg {}, PostgreSQL {pe}",
                describe_error(&ke)
            ),
            (Ok(_), Err(pe)) => panic!("`{sql}` with {values:?}: kpg ran it, PostgreSQL: {pe}"),
            (Err(ke), Ok(_)) => panic!(
                "`{sql}` with {values:?}: kpg failed: {}",
                describe_error(&ke)
            ),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_with_parameters_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    let cases: &[(&str, &[&[Option<&'static str>]])] = &[
        (
            "SELECT id FROM t WHERE id = $1",
            &[&[Some("1")], &[Some("4")], &[None], &[Some("99")]],
        ),
        (
            "SELECT id FROM t WHERE $1 < score AND big >= $2",
            &[&[Some("0"), Some("-5")], &[Some("-1e11"), Some("10")]],
        ),
        (
            "SELECT id * $1, price + $2, $3 || name FROM t",
            &[
                &[Some("2"), Some("0.5"), Some("x")],
                &[None, Some("1"), None],
            ],
        ),
        (
            "SELECT array_to_string(current_schemas($1), ',')",
            &[&[Some("true")], &[Some("false")], &[None]],
        ),
        // An interval times an unknown: the unknown is double precision.
        (
            "SELECT id, $1 * interval '1 day', interval '1 hour' / $2 FROM t \
             WHERE at > '2024-01-31'::timestamp - $1 * interval '1 day'",
            &[&[Some("2"), Some("4")], &[Some("0.5"), Some("3")], &[None, Some("0")]],
        ),
        // A parameter in ORDER BY is a constant sort key, not a position.
        ("SELECT id FROM t ORDER BY $1, id DESC", &[&[Some("x")], &[None]]),
        // Window frames whose offsets are parameters (or expressions), checked as they run.
        (
            "SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN $1 PRECEDING AND $2 FOLLOWING) FROM t",
            &[
                &[Some("1"), Some("0")],
                &[Some("0"), Some("2")],
                &[Some("-1"), Some("0")],
                &[Some("1"), None],
            ],
        ),
        (
            "SELECT id, count(*) OVER (ORDER BY id ROWS 1 + 1 PRECEDING) FROM t",
            &[&[]],
        ),
        // Over an integer column the offset parameter is of the column's type.
        (
            "SELECT id, sum(id) OVER (ORDER BY id RANGE BETWEEN $1 PRECEDING AND CURRENT ROW) FROM t",
            &[&[Some("1")], &[Some("-1")], &[None]],
        ),
        (
            "SELECT id, sum(id) OVER (ORDER BY price RANGE BETWEEN $1 PRECEDING AND CURRENT ROW) \
             FROM t",
            &[&[Some("1")], &[Some("12.5")], &[Some("-1")], &[None]],
        ),
        (
            "SELECT id, count(*) OVER (ORDER BY day RANGE BETWEEN $1 PRECEDING AND $1 FOLLOWING) \
             FROM t",
            &[&[Some("1 month")], &[Some("1 year")], &[Some("-1 day")]],
        ),
        // A unit read from a parameter (or a column) as the function runs.
        (
            "SELECT id, date_trunc($1, at), date_part($1, day), date_part($1, at - day) FROM t",
            &[
                &[Some("month")],
                &[Some("HOUR")],
                &[Some("epoch")],
                &[None],
                &[Some("fortnight")],
            ],
        ),
        (
            "SELECT id, date_trunc($1, day), date_trunc($1, at::timestamptz, 'Asia/Tokyo'), \
             date_part($1, at::timestamptz) FROM t",
            &[&[Some("week")], &[Some("day")], &[Some("timezone")]],
        ),
        (
            "SELECT date_part(u, day), date_trunc(u, at) FROM t, (VALUES ('year'), ('mon')) v(u)",
            &[&[]],
        ),
        (
            "SELECT id FROM t WHERE big IN ($1, $2, 40)",
            &[&[Some("10"), Some("-2")], &[None, Some("10")]],
        ),
        (
            "SELECT id FROM t WHERE price BETWEEN $1 AND $2",
            &[&[Some("0"), Some("5")], &[Some("1"), Some("100")]],
        ),
        (
            "SELECT id FROM t WHERE name LIKE $1",
            &[&[Some("t%")], &[Some("%o%")], &[Some("_ne")]],
        ),
        (
            "SELECT CASE WHEN id = $1 THEN $2 ELSE name END FROM t",
            &[&[Some("1"), Some("first")], &[Some("3"), None]],
        ),
        (
            "SELECT coalesce(name, $1), coalesce(big, $2) FROM t",
            &[&[Some("none"), Some("0")], &[None, None]],
        ),
        (
            "SELECT upper($1), length($2), abs($3::int4), round(score::numeric, $4) FROM t \
             WHERE id = 1",
            &[&[Some("ab"), Some("xyz"), Some("-3"), Some("1")]],
        ),
        (
            "SELECT id FROM t WHERE id = $1 OR big = $1",
            &[&[Some("1")], &[Some("10")], &[Some("-2")]],
        ),
        (
            "SELECT id, $1 FROM t WHERE day > $2 AND at < $3",
            &[
                &[Some("label"), Some("2024-01-01"), Some("2025-01-01")],
                &[None, Some("2000-01-01"), Some("2024-02-01 00:00")],
            ],
        ),
        (
            "SELECT $1, $2::int8 + 1, $3 = 'a'",
            &[&[Some("x"), Some("41"), Some("a")], &[None, None, None]],
        ),
        (
            "SELECT x.n FROM (SELECT name AS n, id FROM t) x WHERE x.id > $1 ORDER BY x.n",
            &[&[Some("1")], &[Some("3")]],
        ),
        (
            "SELECT count(*), sum(price) FROM t WHERE code <> $1",
            &[&[Some("A1")], &[Some("zz")]],
        ),
        (
            "SELECT id FROM t ORDER BY id LIMIT $1",
            &[&[Some("2")], &[Some("0")], &[None]],
        ),
        // Bad values: errors of the parameter's type input, at Bind.
        (
            "SELECT id FROM t WHERE id = $1",
            &[&[Some("abc")], &[Some("1.5")]],
        ),
        ("SELECT id FROM t WHERE day = $1", &[&[Some("2024-02-30")]]),
    ];
    for (sql, runs) in cases {
        check(&s, sql, runs).await;
    }
    // Frame offsets that read the row: refused at Parse, as PostgreSQL refuses them.
    for sql in [
        "SELECT sum(id) OVER (ORDER BY id ROWS $1 + id PRECEDING) FROM t",
        "SELECT sum(id) OVER (ORDER BY id RANGE BETWEEN id PRECEDING AND CURRENT ROW) FROM t",
    ] {
        let k = s.kpg.prepare(sql).await.expect_err("kpg");
        let p = s.pg.prepare(sql).await.expect_err("PostgreSQL");
        assert_eq!(
            sqlstate(&k),
            sqlstate(&p),
            "{sql}: kpg {}",
            describe_error(&k)
        );
    }
    // A name read as an OID type from a parameter (or a column) as it runs. PostgreSQL gives
    // such a parameter the OID type, which kpg has not (it says text): declared text here.
    let names: &[(&str, &[&[Option<&'static str>]])] = &[
        (
            "SELECT $1::regclass = 't'::regclass, (SELECT count(*) FROM pg_class WHERE oid = $1::regclass)",
            &[
                &[Some("t")],
                &[Some("public.T")],
                &[Some("\"t\"")],
                &[Some("nosuch")],
                &[None],
            ],
        ),
        (
            "SELECT to_regclass($1) IS NULL, to_regclass($1) = 't'::regclass, $2::regtype = 'int4'::regtype",
            &[
                &[Some("t"), Some("integer")],
                &[Some("nosuch"), Some("text")],
                &[None, Some("nosuchtype")],
            ],
        ),
        ("SELECT id, to_regclass(name) IS NULL FROM t", &[&[]]),
    ];
    for (sql, runs) in names {
        check_typed(&s, sql, &[Type::TEXT, Type::TEXT], runs).await;
    }
    // The catalog changes between executions of a statement planned once: it plans again.
    let sql = "SELECT id, name FROM t WHERE id = $1";
    let k = s.kpg.prepare(sql).await.expect("kpg prepare");
    let first = s.kpg.query(&k, &[&Text(Some("2"))]).await.expect("kpg");
    execute(&s.kpg, "CREATE INDEX t_id ON t (id)").await;
    execute(&s.kpg, "INSERT INTO t (id, name) VALUES (2, 'again')").await;
    let second = s.kpg.query(&k, &[&Text(Some("2"))]).await.expect("kpg");
    assert_eq!((first.len(), second.len()), (1, 2));
}

/// Statements whose plan holds a value of theirs in the dataflow (a subquery's LIMIT) or reads
/// introspection relations, planned once, and those planned as they run with their values
/// (a constant argument): typed, described and answered as in PostgreSQL, with the columns a
/// parameter gives (not those of a rewritten text); the introspection relations' rows as
/// they are when the statement runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_planned_with_their_values_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    let cases: &[(&str, &[&[Option<&'static str>]])] = &[
        (
            "SELECT id FROM t ORDER BY id LIMIT $1 OFFSET $2",
            &[
                &[Some("2"), Some("1")],
                &[None, Some("3")],
                &[Some("-1"), Some("0")],
                &[Some("1"), Some("-1")],
            ],
        ),
        (
            "SELECT s.id, $3 FROM (SELECT id FROM t ORDER BY id DESC LIMIT $1) s WHERE s.id > $2",
            &[
                &[Some("3"), Some("1"), Some("x")],
                &[Some("1"), Some("0"), None],
            ],
        ),
        (
            "SELECT id FROM t WHERE id IN (SELECT id FROM t ORDER BY id LIMIT $1 OFFSET $2)",
            &[
                &[Some("2"), Some("1")],
                &[None, Some("2")],
                &[Some("-1"), Some("0")],
                &[Some("1"), Some("-3")],
            ],
        ),
        // A dimension from a parameter: arrays have one, so another has no subscripts.
        (
            "SELECT unnest(a), generate_subscripts(a, $1) FROM (SELECT ARRAY[10, 20, 30] AS a) x",
            &[&[Some("1")], &[Some("2")], &[None]],
        ),
        (
            "SELECT x.k, generate_subscripts(a, $1) FROM (VALUES (1, ARRAY[10, 20]), (2, ARRAY[5])) x(k, a)",
            &[&[Some("1")], &[Some("2")], &[None]],
        ),
        (
            "SELECT unnest(a), unnest(b), generate_subscripts(b, $1) \
             FROM (SELECT ARRAY[1, 2] AS a, ARRAY[5, 6, 7] AS b) x",
            &[&[Some("1")], &[Some("0")]],
        ),
    ];
    for (sql, runs) in cases {
        check(&s, sql, runs).await;
    }
    // Declared types: the value is read as that type, and the column is named as PostgreSQL
    // names a parameter's.
    let sql = "SELECT $1, s.id FROM (SELECT id FROM t ORDER BY id LIMIT $2) s";
    let types = [Type::INT8, Type::INT8];
    let k = s.kpg.prepare_typed(sql, &types).await.expect("kpg prepare");
    let p =
        s.pg.prepare_typed(sql, &types)
            .await
            .expect("PostgreSQL prepare");
    assert_eq!(columns(&k), columns(&p), "result columns of `{sql}`");
    let (kr, pr) = (
        s.kpg.query(&k, &[&7i64, &2i64]).await.expect("kpg"),
        s.pg.query(&p, &[&7i64, &2i64]).await.expect("PostgreSQL"),
    );
    assert_eq!(raw_rows(&kr), raw_rows(&pr), "rows of `{sql}`");
    // An introspection relation, read with a parameter, twice: its rows as they are now.
    let sql = "SELECT count(*) FROM kpg_arrangements WHERE arrangement = $1";
    let st = s.kpg.prepare(sql).await.expect("kpg prepare");
    let count = |rows: Vec<tokio_postgres::Row>| rows[0].get::<_, i64>(0);
    let before = count(
        s.kpg
            .query(&st, &[&Text(Some("index"))])
            .await
            .expect("kpg"),
    );
    execute(&s.kpg, "CREATE INDEX t_name ON t (name)").await;
    let after = count(
        s.kpg
            .query(&st, &[&Text(Some("index"))])
            .await
            .expect("kpg"),
    );
    assert!(
        after > before,
        "an index created between executions: {before} -> {after}"
    );
    // Planned once, it reads the rows as they are when it runs, also when they changed
    // without the catalog changing.
    let sql = "SELECT sum(records)::int8 FROM kpg_arrangements WHERE owner = $1";
    let st = s.kpg.prepare(sql).await.expect("kpg prepare");
    let records = || async {
        count(
            s.kpg
                .query(&st, &[&Text(Some("t_name"))])
                .await
                .expect("kpg"),
        )
    };
    let before = records().await;
    execute(
        &s.kpg,
        "INSERT INTO t (id, name) SELECT 10 + i, 'n' || i FROM generate_series(1, 50) i",
    )
    .await;
    // The workers' figures follow the write shortly after it is visible.
    let mut after = records().await;
    for _ in 0..100 {
        if after == before + 50 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        after = records().await;
    }
    assert_eq!(after, before + 50, "rows inserted between executions");
    // DDL that changes such a statement's result: PostgreSQL's error, not rows of a shape
    // the client was not told.
    s.exec("CREATE TABLE u (a int4)").await;
    let sql = "SELECT * FROM (SELECT * FROM u LIMIT $1) s";
    let k = s.kpg.prepare(sql).await.expect("kpg prepare");
    let p = s.pg.prepare(sql).await.expect("PostgreSQL prepare");
    s.exec("DROP TABLE u").await;
    s.exec("CREATE TABLE u (a int4, b text)").await;
    let ke = s.kpg.query(&k, &[&Text(Some("1"))]).await.expect_err("kpg");
    let pe =
        s.pg.query(&p, &[&Text(Some("1"))])
            .await
            .expect_err("PostgreSQL");
    assert_eq!(sqlstate(&ke), sqlstate(&pe), "kpg: {}", describe_error(&ke));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_with_parameters_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    let cases: &[(&str, &[&[Option<&'static str>]])] = &[
        (
            "INSERT INTO t (id, big, name, code, price) VALUES ($1, $2, $3, $4, $5)",
            &[
                &[
                    Some("10"),
                    Some("100"),
                    Some("ten"),
                    Some("T10"),
                    Some("1.255"),
                ],
                &[Some("11"), None, Some("it's"), None, Some("99999999.99")],
            ],
        ),
        (
            "INSERT INTO t (id, name) VALUES ($1, $2), (20, 'fixed'), ($3, $2)",
            &[&[Some("21"), Some("pair"), Some("22")]],
        ),
        (
            "UPDATE t SET name = $1, big = big + $2 WHERE id = $3",
            &[
                &[Some("renamed"), Some("5"), Some("1")],
                &[None, None, Some("2")],
            ],
        ),
        (
            "DELETE FROM t WHERE id = $1 OR name = $2",
            &[&[Some("21"), Some("nobody")], &[Some("0"), Some("pair")]],
        ),
        // Values that do not fit the column: the errors PostgreSQL gives.
        (
            "INSERT INTO t (id, code) VALUES ($1, $2)",
            &[
                &[Some("30"), Some("much too long")],
                &[Some("x"), Some("ok")],
            ],
        ),
    ];
    for (sql, runs) in cases {
        check(&s, sql, runs).await;
    }
    s.check("SELECT * FROM t ORDER BY id, name").await;
    // Tables created from a query with parameters (CREATE TABLE AS, SELECT INTO): created
    // and filled once; a second run finds the table there, as in PostgreSQL.
    for (sql, table) in [
        (
            "CREATE TABLE ct AS SELECT id, $1::int8 * 2 AS k FROM t WHERE id > $2",
            "ct",
        ),
        (
            "SELECT id, $1::int8 AS k INTO si FROM t WHERE id > $2",
            "si",
        ),
    ] {
        check(
            &s,
            sql,
            &[&[Some("21"), Some("1")], &[Some("1"), Some("0")]],
        )
        .await;
        s.check(&format!("SELECT * FROM {table} ORDER BY id")).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conflicting_parameter_uses_fail_as_in_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for sql in [
        // $1 is int4 from its first use; int4 = text has no operator.
        "SELECT id FROM t WHERE $1 = id AND $1 = name",
        // $1 is text; text + int4 has no operator.
        "SELECT $1 || name, $1 + 1 FROM t",
    ] {
        let pe =
            s.pg.prepare(sql)
                .await
                .expect_err("PostgreSQL prepared it — fix the test");
        match s.kpg.prepare(sql).await {
            Err(ke) => assert_eq!(
                sqlstate(&ke),
                sqlstate(&pe),
                "`{sql}`: kpg {}, PostgreSQL {pe}",
                describe_error(&ke)
            ),
            Ok(k) => {
                // kpg may find the error only when the statement runs.
                let ke = s
                    .kpg
                    .query(&k, &[&Text(Some("1"))])
                    .await
                    .expect_err("kpg ran a statement PostgreSQL refuses");
                assert_eq!(
                    sqlstate(&ke),
                    sqlstate(&pe),
                    "`{sql}`: kpg {}, PostgreSQL {pe}",
                    describe_error(&ke)
                );
            }
        }
    }
}

/// One server's transcript of statements planned once at Parse and then made again at Bind
/// after DDL (of this session or another): each execution's rows (binary, as `Raw`) or
/// SQLSTATE.
async fn replans(c: &tokio_postgres::Client, other: &tokio_postgres::Client) -> Vec<String> {
    let mut out = Vec::new();
    async fn run(
        c: &tokio_postgres::Client,
        st: &tokio_postgres::Statement,
        values: &[Option<&'static str>],
    ) -> String {
        let params: Vec<Text> = values.iter().map(|v| Text(*v)).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        match c.query(st, &refs).await {
            Ok(rows) => format!("{:?}", raw_rows(&rows)),
            Err(e) => format!("error {:?}", sqlstate(&e)),
        }
    }
    let exec = |sql: &'static str| async move { c.batch_execute(sql).await.unwrap() };
    // A literal read in the session's zone, then planned again after another session's DDL:
    // still in the session's zone.
    exec("CREATE TABLE tzq (id int, ts timestamptz)").await;
    exec("INSERT INTO tzq VALUES (1, '2024-01-01 03:00+00')").await;
    exec("SET TimeZone = 'Asia/Tokyo'").await;
    let q = c
        .prepare("SELECT count(*) FROM tzq WHERE ts < '2024-01-01 10:00' AND id = $1")
        .await
        .unwrap();
    out.push(run(c, &q, &[Some("1")]).await);
    other
        .batch_execute("CREATE TABLE scratch (x int)")
        .await
        .unwrap();
    out.push(run(c, &q, &[Some("1")]).await);
    // Prepared in Tokyo, run in UTC: the literal keeps the reading of Parse.
    exec("SET TimeZone = 'UTC'").await;
    out.push(run(c, &q, &[Some("1")]).await);
    // The result columns change under a prepared statement: 0A000, as PostgreSQL.
    exec("CREATE TABLE rt (a int)").await;
    exec("INSERT INTO rt VALUES (1)").await;
    let r = c.prepare("SELECT * FROM rt WHERE a = $1").await.unwrap();
    out.push(run(c, &r, &[Some("1")]).await);
    exec("DROP TABLE rt").await;
    exec("CREATE TABLE rt (b text, a int)").await;
    out.push(run(c, &r, &[Some("1")]).await);
    // The table made again with a default that reads the clock: the INSERT still runs.
    exec("CREATE TABLE t3 (a int)").await;
    let i = c.prepare("INSERT INTO t3 (a) VALUES ($1)").await.unwrap();
    out.push(run(c, &i, &[Some("1")]).await);
    exec("DROP TABLE t3").await;
    exec("CREATE TABLE t3 (a int, b timestamptz DEFAULT now())").await;
    out.push(run(c, &i, &[Some("2")]).await);
    let rows = c
        .query("SELECT a, b IS NOT NULL FROM t3", &[])
        .await
        .unwrap();
    out.push(format!("{:?}", raw_rows(&rows)));
    // A parameter beside a volatile function in VALUES, inside a transaction block.
    exec("CREATE TABLE tn (a int, t timestamptz)").await;
    let v = c
        .prepare("INSERT INTO tn VALUES ($1, now() + $2::interval)")
        .await
        .unwrap();
    exec("BEGIN").await;
    out.push(run(c, &v, &[Some("1"), Some("1 day")]).await);
    exec("COMMIT").await;
    let rows = c.query("SELECT a, t > now() FROM tn", &[]).await.unwrap();
    out.push(format!("{:?}", raw_rows(&rows)));
    // A default that reads the clock is read at each execution: two transactions, two
    // times; two executions in one block, its one start.
    exec("CREATE TABLE ev (id int, at timestamptz DEFAULT now(), d date DEFAULT current_date)")
        .await;
    let e = c.prepare("INSERT INTO ev (id) VALUES ($1)").await.unwrap();
    let pause = || tokio::time::sleep(std::time::Duration::from_millis(5));
    out.push(run(c, &e, &[Some("1")]).await);
    pause().await;
    out.push(run(c, &e, &[Some("2")]).await);
    exec("BEGIN").await;
    out.push(run(c, &e, &[Some("3")]).await);
    pause().await;
    out.push(run(c, &e, &[Some("4")]).await);
    exec("COMMIT").await;
    // A literal that reads the clock keeps the time of Parse, as in PostgreSQL (its docs warn
    // of it): later than it, now() of each execution.
    let n = c
        .prepare("SELECT 'now'::timestamptz < now(), 'today'::date <= current_date, $1::int")
        .await
        .unwrap();
    pause().await;
    out.push(run(c, &n, &[Some("1")]).await);
    pause().await;
    out.push(run(c, &n, &[Some("2")]).await);
    // A write's expressions read the statement's time and the zone of the session that runs
    // it (prepared in UTC, run in Tokyo): RETURNING's now() is the row's, in a block too.
    exec("CREATE TABLE z (ts timestamptz, d timestamptz)").await;
    exec("INSERT INTO z VALUES ('2024-01-01 20:00+00', NULL)").await;
    exec("SET TimeZone = 'UTC'").await;
    let u = c
        .prepare("UPDATE z SET d = date_trunc($1, ts) RETURNING d::text, date_part('hour', ts)")
        .await
        .unwrap();
    exec("SET TimeZone = 'Asia/Tokyo'").await;
    out.push(run(c, &u, &[Some("day")]).await);
    exec("SET TimeZone = 'UTC'").await;
    exec("BEGIN").await;
    let r = c
        .prepare("INSERT INTO ev (id) VALUES ($1) RETURNING at = now(), d = current_date")
        .await
        .unwrap();
    pause().await;
    out.push(run(c, &r, &[Some("5")]).await);
    exec("COMMIT").await;
    exec("CREATE TABLE oc (k int PRIMARY KEY, t timestamptz)").await;
    exec("INSERT INTO oc VALUES (1, NULL)").await;
    let o = c
        .prepare(
            "INSERT INTO oc VALUES ($1, NULL) ON CONFLICT (k) DO UPDATE SET t = now() \
             RETURNING t = now()",
        )
        .await
        .unwrap();
    out.push(run(c, &o, &[Some("1")]).await);
    let rows = c
        .query(
            "SELECT count(DISTINCT at), count(*), count(DISTINCT d) FROM ev",
            &[],
        )
        .await
        .unwrap();
    out.push(format!("{:?}", raw_rows(&rows)));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_made_again_after_ddl_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let (k, k2, p, p2) = (
        kpg.connect().await,
        kpg.connect().await,
        pg.connect().await,
        pg.connect().await,
    );
    let (kt, pt) = (replans(&k, &k2).await, replans(&p, &p2).await);
    assert_eq!(kt, pt, "kpg (left) and PostgreSQL (right)");
}

/// DDL between a portal's Bind and its Execute (in PostgreSQL the Bind's locks hold it off;
/// kpg does not block DDL): the portal is planned again with its values, against the catalog
/// as it is when it runs, rather than running a plan of objects that are gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ddl_between_bind_and_execute_plans_the_portal_again() {
    let kpg = KpgServer::start().await;
    let (mut c, other) = (kpg.connect().await, kpg.connect().await);
    execute(&c, "CREATE TABLE p (a int4, b text)").await;
    execute(&c, "INSERT INTO p VALUES (1, 'old'), (2, 'old')").await;
    let st = c
        .prepare("SELECT b FROM p WHERE a >= $1 ORDER BY b")
        .await
        .unwrap();
    let w = c
        .prepare("INSERT INTO p (a, b) VALUES ($1, 'w')")
        .await
        .unwrap();
    let tx = c.transaction().await.unwrap();
    let read = tx.bind(&st, &[&1i32]).await.expect("bind");
    let write = tx.bind(&w, &[&7i32]).await.expect("bind");
    other
        .batch_execute(
            "DROP TABLE p; CREATE TABLE p (a int4, b text); INSERT INTO p VALUES (3, 'new')",
        )
        .await
        .unwrap();
    let rows = tx.query_portal(&read, 0).await.expect("execute after DDL");
    let b: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(b, ["new"], "the table as it is when the portal runs");
    tx.query_portal(&write, 0).await.expect("write after DDL");
    tx.commit().await.unwrap();
    let rows = c.query("SELECT a, b FROM p ORDER BY a", &[]).await.unwrap();
    let got: Vec<(i32, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(got, [(3, "new".to_string()), (7, "w".to_string())]);
    // One whose result changed: PostgreSQL's error, not rows the client was not told of.
    let tx = c.transaction().await.unwrap();
    let changed = tx.bind(&st, &[&1i32]).await.expect("bind");
    other
        .batch_execute("DROP TABLE p; CREATE TABLE p (a int4, b int8); INSERT INTO p VALUES (1, 5)")
        .await
        .unwrap();
    let e = tx
        .query_portal(&changed, 0)
        .await
        .expect_err("result changed");
    assert_eq!(sqlstate(&e), Some("0A000".into()), "{}", describe_error(&e));
}
