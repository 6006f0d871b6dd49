//! Session settings that change results, each against PostgreSQL: `extra_float_digits` in every
//! way a float reaches the client as text (rows in the simple protocol, COPY TO in the simple
//! protocol through psql and in the extended one, binary rows unaffected), the values of the
//! other settings kpg accepts (those that would change a result in PostgreSQL are refused with
//! 0A000 unless kpg follows them), and the result types of the aggregates.

use futures::TryStreamExt;
use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// Floats whose text depends on the setting: more digits than 15 (or 6) significant ones,
/// exponents at the edges of the fixed layout, and the special values.
const FLOATS: &[&str] = &[
    "431.7726",
    "0.1",
    "0.30000000000000004",
    "3.141592653589793",
    "1e20",
    "1e15",
    "1e14",
    "123456.7",
    "1234567.8",
    "2.5e-7",
    "0.0001234",
    "0.00001234",
    "100",
    "-2.0000001",
    "123456789012345678",
    "1.7976931348623157e308",
    "5e-324",
    "-0",
    "0",
    "Infinity",
    "-Infinity",
    "NaN",
];

async fn setup_floats(s: &Pair) {
    s.exec("CREATE TABLE f (k int4, d double precision, r real)")
        .await;
    for (k, v) in FLOATS.iter().enumerate() {
        // 5e-324 and 1.8e308 are no reals; the real column is NULL for them.
        let real = if v.contains("e308") || v.contains("e-324") {
            "NULL".to_string()
        } else {
            format!("'{v}'")
        };
        s.exec(&format!("INSERT INTO f VALUES ({k}, '{v}', {real})"))
            .await;
    }
}

async fn copy_out(c: &Client, sql: &str) -> String {
    let stream = c
        .copy_out(sql)
        .await
        .unwrap_or_else(|e| panic!("`{sql}`: {}", describe_error(&e)));
    let chunks: Vec<_> = Box::pin(stream).try_collect().await.expect("copy data");
    String::from_utf8(chunks.concat()).expect("utf-8")
}

/// psql's output of `commands`, each sent as one simple-protocol query on one connection.
fn psql(port: u16, user: &str, db: &str, commands: &[&str]) -> String {
    let mut cmd = std::process::Command::new("psql");
    cmd.args(["-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p"])
        .arg(port.to_string())
        .args(["-U", user, db, "-v", "ON_ERROR_STOP=1"]);
    for c in commands {
        cmd.args(["-c", c]);
    }
    let out = cmd.output().expect("run psql");
    assert!(
        out.status.success(),
        "psql {commands:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extra_float_digits_as_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    setup_floats(&s).await;
    s.check("SHOW extra_float_digits").await;
    for digits in [-15, -10, -9, -5, -1, 0, 1, 2, 3] {
        s.exec(&format!("SET extra_float_digits = {digits}")).await;
        s.check("SHOW extra_float_digits").await;
        s.check("SELECT k, d, r FROM f ORDER BY k").await;
        s.check("SELECT 431.7726::real AS r, 0.1::float8 + 0.2::float8 AS d")
            .await;
        s.check("SELECT sum(d) AS d, sum(r) AS r, avg(r) AS a FROM f WHERE k < 4")
            .await;
        // COPY TO through the extended protocol (tokio_postgres' copy_out).
        for sql in [
            "COPY (SELECT k, d, r FROM f ORDER BY k) TO STDOUT",
            "COPY (SELECT k, d, r FROM f ORDER BY k) TO STDOUT WITH (FORMAT csv)",
        ] {
            assert_eq!(
                copy_out(&s.kpg, sql).await,
                copy_out(&s.pg, sql).await,
                "{sql} with extra_float_digits = {digits}"
            );
        }
    }
    // Binary results carry the value itself, whatever the setting.
    s.exec("SET extra_float_digits = -15").await;
    let k: Vec<(Option<f64>, Option<f32>)> = s
        .kpg
        .query("SELECT d, r FROM f ORDER BY k", &[])
        .await
        .expect("kpg binary rows")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let p: Vec<(Option<f64>, Option<f32>)> =
        s.pg.query("SELECT d, r FROM f ORDER BY k", &[])
            .await
            .expect("PostgreSQL binary rows")
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
    assert_eq!(format!("{k:?}"), format!("{p:?}"));

    // Out of range and malformed values are refused with PostgreSQL's message.
    for bad in [
        "SET extra_float_digits = -16",
        "SET extra_float_digits = 4",
        "SET extra_float_digits = 'many'",
    ] {
        let (kcode, kmsg) = expect_error(&s.kpg, bad).await;
        let (pcode, pmsg) = expect_error(&s.pg, bad).await;
        assert_eq!((kcode, kmsg), (pcode, pmsg), "{bad}");
    }
    s.exec("RESET extra_float_digits").await;
    s.check("SHOW extra_float_digits").await;
    s.check("SELECT k, d, r FROM f ORDER BY k").await;
    s.exec("SET extra_float_digits TO DEFAULT").await;
    s.check("SHOW extra_float_digits").await;
}

/// The parameters reported at startup (ParameterStatus) that drivers read have PostgreSQL's
/// values: DateStyle (pgjdbc and others read the date order from it), IntervalStyle,
/// TimeZone, client_encoding, standard_conforming_strings, integer_datetimes; a SET of one
/// reports its new value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reported_parameters_as_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let (kp, pp) = (kpg.port(), pg.port());
    // Then a SET of reported parameters reports their new values.
    let after_set = |mut raw: Wire| {
        raw.send(&[(
            b'Q',
            cstr("SET application_name = 'an app'; SET TIME ZONE 'GMT'"),
        )]);
        raw.read_until_ready();
        raw.reported
    };
    let k = tokio::task::spawn_blocking(move || after_set(Wire::connect(kp, "kpg")));
    let p = tokio::task::spawn_blocking(move || after_set(Wire::connect(pp, "postgres")));
    let (k, p) = (k.await.unwrap(), p.await.unwrap());
    for name in [
        "DateStyle",
        "IntervalStyle",
        "TimeZone",
        "client_encoding",
        "standard_conforming_strings",
        "integer_datetimes",
        "server_encoding",
        "application_name",
    ] {
        assert_eq!(k.get(name), p.get(name), "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extra_float_digits_in_extended_text_rows() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    setup_floats(&s).await;
    for digits in [-7, 0, 1, 3] {
        let set = format!("SET extra_float_digits = {digits}");
        let sql = "SELECT k, d, r FROM f ORDER BY k";
        let (kp, pp) = (kpg.port(), pg.port());
        let k = tokio::task::spawn_blocking(move || extended_text_rows(kp, "kpg", &set, sql));
        let set = format!("SET extra_float_digits = {digits}");
        let p = tokio::task::spawn_blocking(move || extended_text_rows(pp, "postgres", &set, sql));
        let (k, p) = (k.await.unwrap(), p.await.unwrap());
        assert_eq!(k.len(), FLOATS.len());
        assert_eq!(k, p, "extra_float_digits = {digits}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extra_float_digits_in_copy_through_psql() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    setup_floats(&s).await;
    for digits in ["-3", "0", "1"] {
        let commands = [
            &format!("SET extra_float_digits = {digits}") as &str,
            "COPY (SELECT k, d, r FROM f ORDER BY k) TO STDOUT",
            "SELECT d, r FROM f ORDER BY k",
        ];
        assert_eq!(
            psql(kpg.port(), "kpg", "kpg", &commands),
            psql(pg.port(), "postgres", "postgres", &commands),
            "extra_float_digits = {digits}"
        );
    }
}

/// Runs `set` on both; both must accept it and then show `name` alike.
async fn accepted(s: &Pair, set: &str, name: &str) {
    s.exec(set).await;
    s.check(&format!("SHOW {name}")).await;
}

/// `set` is refused by kpg with 0A000 (PostgreSQL accepts it, and it would change results
/// there); both sessions are reset afterwards.
async fn refused(s: &Pair, set: &str) {
    simple(&s.pg, set)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL refused `{set}`: {}", describe_error(&e)));
    let (code, msg) = expect_error(&s.kpg, set).await;
    assert_eq!(code, "0A000", "{set}: {msg}");
    s.exec("RESET ALL").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_kpg_accepts_take_effect_or_are_refused() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for name in [
        "DateStyle",
        "IntervalStyle",
        "TimeZone",
        "client_encoding",
        "client_min_messages",
        "extra_float_digits",
        "idle_in_transaction_session_timeout",
        "lc_messages",
        "lock_timeout",
        "search_path",
        "standard_conforming_strings",
        "statement_timeout",
        "transaction_read_only",
    ] {
        s.check(&format!("SHOW {name}")).await;
    }
    s.check(
        "SELECT name, setting FROM pg_settings WHERE name IN ('search_path', 'DateStyle', \
         'TimeZone', 'client_encoding', 'standard_conforming_strings') ORDER BY name",
    )
    .await;
    // Values that change nothing kpg does (or that kpg follows).
    for (set, name) in [
        ("SET DateStyle = ISO", "DateStyle"),
        ("SET DateStyle = 'ISO, MDY'", "DateStyle"),
        ("SET DateStyle = 'MDY'", "DateStyle"),
        ("SET DateStyle = 'ISO, US'", "DateStyle"),
        ("SET IntervalStyle = postgres", "IntervalStyle"),
        ("SET TimeZone = 'UTC'", "TimeZone"),
        ("SET TIME ZONE 'UTC'", "TimeZone"),
        ("SET TIME ZONE LOCAL", "TimeZone"),
        ("SET TIME ZONE DEFAULT", "TimeZone"),
        ("SET TimeZone = 'GMT'", "TimeZone"),
        ("SET client_encoding = 'UTF8'", "client_encoding"),
        ("SET NAMES 'UTF8'", "client_encoding"),
        ("SET client_min_messages = warning", "client_min_messages"),
        ("SET client_min_messages = 'ERROR'", "client_min_messages"),
        ("SET lc_messages = 'C'", "lc_messages"),
        ("SET search_path = public", "search_path"),
        ("SET search_path TO public, pg_catalog", "search_path"),
        (
            "SET standard_conforming_strings = on",
            "standard_conforming_strings",
        ),
        (
            "SET idle_in_transaction_session_timeout = 0",
            "idle_in_transaction_session_timeout",
        ),
        ("SET lock_timeout = '2s'", "lock_timeout"),
        ("SET statement_timeout = 1000", "statement_timeout"),
        ("SET transaction_read_only = off", "transaction_read_only"),
        ("SET application_name = 'an app'", "application_name"),
        (
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED",
            "default_transaction_isolation",
        ),
        (
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE",
            "default_transaction_isolation",
        ),
        (
            "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "extra_float_digits",
        ),
        (
            "SET default_transaction_isolation = 'read committed'",
            "default_transaction_isolation",
        ),
        // Output styles and zones kpg follows (tests/timestamptz.rs checks their effect).
        ("SET DateStyle = 'SQL, MDY'", "DateStyle"),
        ("SET DateStyle = 'Postgres'", "DateStyle"),
        // Day- and year-first input (tests/date_styles.rs checks their effect).
        ("SET DateStyle = 'ISO, DMY'", "DateStyle"),
        ("SET DateStyle = 'German'", "DateStyle"),
        ("SET DateStyle = YMD", "DateStyle"),
        ("SET IntervalStyle = iso_8601", "IntervalStyle"),
        ("SET IntervalStyle = sql_standard", "IntervalStyle"),
        ("SET IntervalStyle = postgres_verbose", "IntervalStyle"),
        ("SET TimeZone = 'Europe/Paris'", "TimeZone"),
        ("SET TIME ZONE 'America/New_York'", "TimeZone"),
    ] {
        accepted(&s, set, name).await;
    }
    s.exec("RESET ALL").await;
    s.check("SELECT '01/02/2020'::date AS d").await;
    // Values PostgreSQL follows and kpg does not.
    for set in [
        "SET TimeZone = 'XYZ5ABC'",
        "SET client_encoding = 'LATIN1'",
        "SET search_path = other",
        "SET search_path = pg_catalog",
        "SET standard_conforming_strings = off",
        "SET idle_in_transaction_session_timeout = '10s'",
        "SET transaction_read_only = on",
        "SET TRANSACTION READ ONLY",
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
    ] {
        refused(&s, set).await;
    }
    // Values PostgreSQL refuses too.
    for set in [
        "SET DateStyle = 'nonsense'",
        "SET IntervalStyle = 'nonsense'",
        "SET client_min_messages = 'loud'",
        "SET statement_timeout = 'soon'",
        "SET transaction_read_only = 'maybe'",
        "SET default_transaction_isolation = 'sometimes'",
        "SET nonsense = 1",
        "SET server_version = '1'",
    ] {
        s.check_error(set).await;
    }
    s.check("SELECT 1 AS one").await;
}

/// A transaction block's SETs are undone when it rolls back (or COMMIT ends it failed), and
/// kept when it commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_follow_transaction_blocks() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for ending in ["ROLLBACK", "COMMIT", "ABORT", "END"] {
        s.exec("BEGIN").await;
        s.exec("SET extra_float_digits = -3").await;
        s.exec("SET statement_timeout = '5s'").await;
        s.check("SHOW extra_float_digits").await;
        s.check("SELECT 0.1::float8 + 0.2::float8 AS d").await;
        s.exec(ending).await;
        s.check("SHOW extra_float_digits").await;
        s.check("SHOW statement_timeout").await;
        s.check("SELECT 0.1::float8 + 0.2::float8 AS d").await;
        s.exec("RESET ALL").await;
    }
    s.exec("BEGIN").await;
    s.exec("SET extra_float_digits = 0").await;
    s.check_error("SELECT 1 / 0").await;
    s.exec("COMMIT").await;
    s.check("SHOW extra_float_digits").await;
}

/// Each aggregate's result: the column's type OID (through the extended protocol, as a
/// driver sees it) and its text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregate_result_types_as_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(
        "CREATE TABLE a (i2 int2, i4 int4, i8 int8, n numeric, n2 numeric(10,2), r real, \
         d double precision, iv interval, b bool, t text, v varchar(5), c char(3), dt date, \
         ts timestamp)",
    )
    .await;
    s.exec(
        "INSERT INTO a VALUES (1, 2, 3, 4.5, 1.25, 1.5, 2.25, '1 day', true, 'x', 'ab', 'c', \
         '2020-01-02', '2020-01-02 03:04:05'), (3, 4, 5, 6.25, 2.50, 2.5, 3.5, '2 hours', \
         false, 'y', 'cd', 'de', '2021-01-02', '2021-01-02 03:04:05')",
    )
    .await;
    let mut calls = Vec::new();
    for col in ["i2", "i4", "i8", "n", "n2", "r", "d", "iv"] {
        for f in ["sum", "avg", "min", "max", "count"] {
            calls.push(format!("{f}({col})"));
        }
    }
    for col in ["t", "v", "c", "dt", "ts"] {
        for f in ["min", "max", "count"] {
            calls.push(format!("{f}({col})"));
        }
    }
    for f in ["bool_and", "bool_or", "every", "count"] {
        calls.push(format!("{f}(b)"));
    }
    calls.push("count(*)".into());
    calls.push("sum(DISTINCT i4)".into());
    calls.push("avg(DISTINCT i2)".into());
    for call in &calls {
        for sql in [
            format!("SELECT {call} FROM a"),
            format!("SELECT {call} FROM a WHERE false"),
        ] {
            let k = s.kpg.prepare(&sql).await.expect(&sql);
            let p = s.pg.prepare(&sql).await.expect(&sql);
            assert_eq!(
                k.columns()[0].type_(),
                p.columns()[0].type_(),
                "result type of `{sql}` (kpg left, PostgreSQL right)"
            );
            s.check(&sql).await;
        }
    }
}

/// Floats converted to text inside a query: as PostgreSQL at the default digits and above; at
/// 0 or below, where kpg would still write the default digits, such a query is refused; a
/// materialized view keeps the text it computed at the default.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn float_to_text_inside_queries() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    setup_floats(&s).await;
    let conversions = [
        "SELECT k, d::text AS d, CAST(r AS varchar) AS r FROM f ORDER BY k",
        "SELECT k, d || '' AS d, concat(r, '!') AS r FROM f ORDER BY k",
        "SELECT (0.1::float8 + 0.2::float8)::text AS t",
        "SELECT k, t FROM tv ORDER BY k",
        "COPY (SELECT d::text FROM f) TO STDOUT",
    ];
    s.exec("CREATE VIEW tv AS SELECT k, d::text AS t FROM f")
        .await;
    s.create_view("mv", "SELECT k, d::text AS t FROM f").await;
    for digits in [1, 3] {
        s.exec(&format!("SET extra_float_digits = {digits}")).await;
        for sql in &conversions[..4] {
            s.check(sql).await;
        }
        s.check("SELECT k, t FROM mv ORDER BY k").await;
    }
    let at_default = query(&s.kpg, "SELECT k, t FROM mv ORDER BY k").await;
    for digits in [0, -4] {
        s.exec(&format!("SET extra_float_digits = {digits}")).await;
        for sql in &conversions[..4] {
            simple(&s.pg, sql).await.expect("PostgreSQL runs it");
            let (code, msg) = expect_error(&s.kpg, sql).await;
            assert_eq!(code, "0A000", "{sql}: {msg}");
        }
        let copy = conversions[4];
        copy_out(&s.pg, copy).await;
        let refused = s.kpg.copy_out(copy).await.err().expect("COPY refused");
        assert_eq!(sqlstate(&refused).as_deref(), Some("0A000"), "{copy}");
        // Refused without knowing types: text to text as well.
        let (code, _) = expect_error(&s.kpg, "SELECT 'a' || 'b'").await;
        assert_eq!(code, "0A000");
        // Results without conversions follow the setting; the materialized view's text is
        // the one it computed at the default.
        s.check("SELECT k, d, r FROM f ORDER BY k").await;
        assert_eq!(
            query(&s.kpg, "SELECT k, t FROM mv ORDER BY k").await,
            at_default
        );
    }
}

/// Float sums add their terms one at a time in their own type, as PostgreSQL's float4pl and
/// float8pl: ten 0.1s make 1.0000001 as reals and 0.9999999999999999 as doubles, ad hoc and in
/// a view maintained through writes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn float_sums_as_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE g (k int4, r real, d double precision)")
        .await;
    let sums = "SELECT k, sum(r) AS r, sum(d) AS d, avg(r) AS ar, avg(d) AS ad FROM g GROUP BY k";
    s.create_view("sums", sums).await;
    for step in 1..=10 {
        s.exec(&format!(
            "INSERT INTO g VALUES (1, 0.1, 0.1), (2, {step}.37, {step}.37)"
        ))
        .await;
        s.check(sums).await;
        s.check_view("sums").await;
    }
    s.exec("INSERT INTO g SELECT 3, 1e38, 1e308 FROM g").await;
    s.check_error("SELECT sum(r) FROM g WHERE k = 3").await;
    s.check_error("SELECT sum(d) FROM g WHERE k = 3").await;
}

/// Settings in the startup packet's `options` (libpq's PGOPTIONS) take effect; a bad one
/// refuses the connection with PostgreSQL's SQLSTATE.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_options_as_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let with = |options: &str| {
        (
            format!("{} options='{options}'", kpg.conn_str_as("kpg")),
            format!("{} options='{options}'", pg.conn_str()),
        )
    };
    let (k, p) = with("-c extra_float_digits=0 --statement-timeout=2s");
    let s = Pair {
        kpg: connect_to(&k).await.expect("kpg connects"),
        pg: connect_to(&p).await.expect("PostgreSQL connects"),
    };
    s.check("SHOW extra_float_digits").await;
    s.check("SHOW statement_timeout").await;
    s.check("SELECT 0.1::float8 + 0.2::float8 AS d, 431.7726::real AS r")
        .await;
    // RESET and DEFAULT go back to the startup values.
    s.exec("SET extra_float_digits = 2").await;
    s.exec("RESET extra_float_digits").await;
    s.check("SHOW extra_float_digits").await;
    s.exec("SET extra_float_digits = 2").await;
    s.exec("SET extra_float_digits TO DEFAULT").await;
    s.check("SHOW extra_float_digits").await;
    s.exec("SET statement_timeout = 0").await;
    s.exec("RESET ALL").await;
    s.check("SHOW statement_timeout").await;
    for options in [
        "-c extra_float_digits=9",
        "-c nonsense=1",
        "-x",
        "-c DateStyle=German",
    ] {
        let (k, p) = with(options);
        let code = |r: Result<Client, _>| match r {
            Ok(_) => "connected".to_string(),
            Err(e) => sqlstate(&e).unwrap_or_else(|| format!("{e}")),
        };
        let (kcode, pcode) = (code(connect_to(&k).await), code(connect_to(&p).await));
        assert_eq!(kcode, pcode, "{options}");
    }
}

/// A subscription's rows follow the session's `extra_float_digits` like a SELECT's (compared
/// with PostgreSQL's SELECT at the same setting); a subscription converting floats to text is
/// refused at 0 or below.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extra_float_digits_in_subscriptions() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    setup_floats(&s).await;
    s.exec("SET extra_float_digits = -2").await;
    let mut sub = Subscription::start(&s.kpg, "COPY (SUBSCRIBE (SELECT k, d, r FROM f)) TO STDOUT")
        .await
        .expect("subscribe");
    let mut got = Vec::new();
    for _ in FLOATS {
        got.push(sub.next_row().await.cols);
    }
    got.sort_by_key(|cols| cols[0].as_deref().map(|k| k.parse::<i32>().unwrap()));
    assert_eq!(got, query(&s.pg, "SELECT k, d, r FROM f ORDER BY k").await);
    // On another connection: this one streams until it is dropped.
    let other = kpg.connect().await;
    execute(&other, "SET extra_float_digits = 0").await;
    let refused = Subscription::start(&other, "COPY (SUBSCRIBE (SELECT d::text FROM f)) TO STDOUT")
        .await
        .err()
        .expect("refused");
    assert_eq!(sqlstate(&refused).as_deref(), Some("0A000"));
}
