//! Issue 2: CREATE TABLE with int4/integer, int8/bigint, text, varchar(n), boolean, numeric(p,s),
//! double precision and date; every value round-trips exactly as PostgreSQL prints it (text
//! format over the simple query protocol). Everything is compared with a real PostgreSQL.

use kpg_tests::*;

const CREATE: &str =
    "CREATE TABLE all_types (i4 int4, i8 int8, t text, vc varchar(10), b boolean, \
                      n numeric(10,2), d double precision, dt date)";

const ROWS: &[&str] = &[
    "(1, 1, 'hello', 'world', true, 12.5, 1.5, '2024-01-31')",
    "(-2147483648, -9223372036854775808, '', '', false, -0.01, -0.1, '1999-12-31')",
    "(2147483647, 9223372036854775807, 'it''s', 'exactly10c', true, 99999999.99, 1e20, '2000-02-29')",
    "(0, 0, 'héllo wörld ✓', 'ünïcode', false, 0, 0, '1970-01-01')",
    "(42, 4200000000, 'back\\slash', 'a b', true, 12.345, 0.000001, '2024-12-01')",
    "(-7, -70000000000, 'with\ttab', 'x', false, -12.345, 123456789.125, '2023-06-15')",
    "(7, 70, 'multi\nline', 'y', true, 3, 3, '2024-02-29')",
    "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
];

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(CREATE).await;
    (kpg, pg, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_round_trips() {
    let (_kpg, _pg, s) = setup().await;
    // One row per INSERT first, then all together in a multi-row INSERT.
    for r in ROWS {
        s.exec(&format!("INSERT INTO all_types VALUES {r}")).await;
    }
    s.exec(&format!("INSERT INTO all_types VALUES {}", ROWS.join(", ")))
        .await;
    s.check("SELECT * FROM all_types").await;
    for col in ["i4", "i8", "t", "vc", "b", "n", "d", "dt"] {
        s.check(&format!("SELECT {col} FROM all_types")).await;
    }
    // Output formats spelled out once, independent of the oracle.
    let k = query(
        &s.kpg,
        "SELECT i4, i8, t, vc, b, n, d, dt FROM all_types WHERE i4 = 1",
    )
    .await;
    assert_eq!(
        k,
        rows(&[
            &[
                "1",
                "1",
                "hello",
                "world",
                "t",
                "12.50",
                "1.5",
                "2024-01-31"
            ],
            &[
                "1",
                "1",
                "hello",
                "world",
                "t",
                "12.50",
                "1.5",
                "2024-01-31"
            ]
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type_names_and_aliases() {
    // The spellings issue 2 names: int4/integer, int8/bigint, text, varchar(n), boolean,
    // numeric(p,s), double precision, date.
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(
        "CREATE TABLE aliases (a integer, b bigint, c int4, d int8, e varchar(3), f numeric(6,3), \
         g double precision, h boolean, i date, j text)",
    )
    .await;
    s.exec(
        "INSERT INTO aliases VALUES (1, 2, 3, 4, 'abc', 1.5, 2.25, false, '2024-01-01', 'z'), \
         (-1, -2, -3, -4, 'a', -1.0005, -2.5e-10, true, '2020-12-31', 'zz')",
    )
    .await;
    s.check("SELECT * FROM aliases").await;
    // Integer literals into numeric/double/bigint columns are assignment-cast.
    s.exec("INSERT INTO aliases (b, f, g) VALUES (5, 7, 8)")
        .await;
    s.check("SELECT * FROM aliases").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comparisons_and_ordering_per_type() {
    let (_kpg, _pg, s) = setup().await;
    s.exec(&format!("INSERT INTO all_types VALUES {}", ROWS.join(", ")))
        .await;
    for q in [
        "SELECT i4 FROM all_types WHERE i4 > 0",
        "SELECT i8 FROM all_types WHERE i8 > 1000000000",
        "SELECT t FROM all_types WHERE t = 'hello'",
        "SELECT vc FROM all_types WHERE vc <> ''",
        "SELECT i4, b FROM all_types WHERE b",
        "SELECT i4, b FROM all_types WHERE b = false",
        "SELECT n FROM all_types WHERE n >= 12.35",
        "SELECT d FROM all_types WHERE d < 2",
        "SELECT dt FROM all_types WHERE dt >= '2000-01-01'",
        "SELECT i4 FROM all_types WHERE i4 IS NULL",
        "SELECT i4 FROM all_types WHERE t IS NOT NULL",
        // ORDER BY: NULLs sort last ascending in PostgreSQL; text order is bytewise (C locale).
        "SELECT i4 FROM all_types ORDER BY i4",
        "SELECT i8 FROM all_types ORDER BY i8 DESC",
        "SELECT t FROM all_types ORDER BY t",
        "SELECT n, i4 FROM all_types ORDER BY n, i4",
        "SELECT d FROM all_types ORDER BY d",
        "SELECT dt FROM all_types ORDER BY dt DESC",
        "SELECT b, i4 FROM all_types ORDER BY b, i4",
    ] {
        s.check(q).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expressions_keep_postgres_types() {
    let (_kpg, _pg, s) = setup().await;
    s.exec(&format!("INSERT INTO all_types VALUES {}", ROWS.join(", ")))
        .await;
    for q in [
        // int4 arithmetic, integer division, int4 + int8 -> int8.
        "SELECT i4 + 1, i4 * 2, i4 - 3, i4 / 2, i4 + i8 FROM all_types WHERE i4 BETWEEN -10 AND 100",
        // numeric keeps its scale: 12.50 * 2 = 25.00, 12.50 + 1 = 13.50.
        "SELECT n * 2, n + 1, n - n, n * i4 FROM all_types WHERE i4 BETWEEN -10 AND 100",
        // double precision arithmetic.
        "SELECT d * 2, d + 1, d - 0.5 FROM all_types WHERE i4 BETWEEN -10 AND 100",
        // Comparisons yield booleans printed as t/f.
        "SELECT i4 > 5, n < 10, t = 'hello', dt < '2024-01-01' FROM all_types",
        "SELECT NOT b, b AND i4 > 5, b OR i4 > 5 FROM all_types",
    ] {
        s.check(q).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_constants() {
    // An ad hoc SELECT without FROM, as psql users type it.
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.check("SELECT 1").await;
    s.check("SELECT 1 + 2 AS three, 'abc' AS t, true AS b, 12.50 AS n, 7 / 2 AS q")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamps_and_intervals_round_trip() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE times (k int, d date, ts timestamp, iv interval)")
        .await;
    s.exec(
        "INSERT INTO times VALUES \
         (1, '2024-01-31', '2024-01-31 10:11:12', '1 year 2 mons 3 days 04:05:06'), \
         (2, '1999-12-31', '1999-12-31 23:59:59.999999', '-1 day +2 hours'), \
         (3, '2000-02-29', '2000-02-29T00:00:00.5', '90'), \
         (4, '1970-01-01', '1970-01-01', '1.5 months'), \
         (5, '2024-03-01', '2024-03-01 00:00:00+05', '@ 3 days ago'), \
         (6, '2024-03-02', '2024-03-01 12:00', '-00:00:01.25'), \
         (7, '2024-03-03', '2024-03-02', '1 mon'), \
         (8, '2024-03-04', '2024-03-03', '30 days'), \
         (9, NULL, NULL, NULL)",
    )
    .await;
    s.check("SELECT * FROM times").await;
    for q in [
        "SELECT k, ts FROM times ORDER BY ts, k",
        "SELECT k, iv FROM times ORDER BY iv, k",
        // '1 mon' and '30 days' are equal intervals (one group), as in PostgreSQL.
        "SELECT count(*) FROM times GROUP BY iv HAVING count(*) > 1",
        "SELECT k FROM times WHERE iv = interval '30 days'",
        "SELECT k FROM times WHERE d < ts",
        "SELECT k FROM times WHERE d = ts",
        "SELECT k, ts::date, d::timestamp, ts::text, iv::text FROM times",
        "SELECT k, CAST('2024-05-06 07:08:09' AS timestamp), '2 hours'::interval FROM times WHERE k = 1",
    ] {
        s.check(q).await;
    }
    s.check_error("SELECT 'abc'::interval").await;
    s.check_error("SELECT 'x'::timestamp").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn date_time_arithmetic() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE dt (d date, ts timestamp, iv interval, n int)")
        .await;
    s.exec(
        "INSERT INTO dt VALUES ('2021-01-31', '2021-03-31 10:00', '1 mon 2 days 03:00:00', 3), \
         ('2020-02-29', '2020-01-01', '-1 year', -2), ('1998-12-01', '1998-09-02 12:30', '90 days', 0), \
         (NULL, NULL, NULL, NULL)",
    )
    .await;
    for q in [
        "SELECT d + iv, d - iv, ts + iv, ts - iv, iv + ts, iv + d FROM dt",
        "SELECT d + n, d - n, d - d, ts - ts, ts - d, d - ts FROM dt",
        "SELECT iv + iv, iv - iv, iv * 2, 2 * iv, iv * 1.5, iv / 4, -iv FROM dt",
        "SELECT d + interval '1' month, ts + interval '1' year, d - interval '90' day FROM dt",
        "SELECT ts + '1 day', date '1998-12-01' - interval '90' day FROM dt",
        "SELECT d FROM dt WHERE d <= date '1998-12-01' - interval '90' day",
        "SELECT d FROM dt WHERE d < date '2020-01-01' + interval '3' month",
        "SELECT CASE WHEN n > 0 THEN d ELSE ts END FROM dt",
    ] {
        s.check(q).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn char_n_pads_and_compares_like_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE c (k int, a char(5), b char(3), v varchar(10), t text, one char)")
        .await;
    s.exec(
        "INSERT INTO c VALUES (1, 'ab', 'ab', 'ab', 'ab', 'x'), (2, 'ab  ', 'x', 'ab  ', 'ab  ', 'y'), \
         (3, 'abcde', 'abc', 'z', 'z', NULL), (4, 'abcde     ', NULL, NULL, NULL, 'q'), \
         (5, NULL, NULL, NULL, NULL, NULL)",
    )
    .await;
    s.check("SELECT * FROM c").await;
    for q in [
        "SELECT k, '|' || a || '|', length(a), upper(a), a || b, substring(a FROM 1 FOR 3) FROM c",
        "SELECT k, a = 'ab', a = b, a = v, a = t, a < 'abc', b > a FROM c",
        "SELECT k, a LIKE 'ab', a LIKE 'ab%', a LIKE 'ab___' FROM c",
        "SELECT k, a::text, a::varchar, 'abc'::char(2), 42::char(4) FROM c",
        "SELECT b, count(*) FROM c GROUP BY b",
        "SELECT k FROM c WHERE a = 'ab' ORDER BY k",
        "SELECT k, a FROM c ORDER BY a, k",
        "SELECT max(a), min(b) FROM c",
        "SELECT k, CASE WHEN k > 2 THEN a ELSE b END, coalesce(b, a), CASE WHEN k > 2 THEN a ELSE t END FROM c",
        // With an unknown literal the common type is bpchar without a length: nothing padded.
        "SELECT k, '|' || coalesce(a, 'zz') || '|', '|' || coalesce(b, 'zz'::char(3)) || '|' FROM c",
        "SELECT '|' || x || '|' FROM (SELECT a FROM c UNION SELECT 'q') s(x)",
        "SELECT '|' || x || '|' FROM (SELECT 'ab'::char(4) UNION ALL SELECT 'x') s(x)",
        "SELECT '|' || CASE WHEN k = 1 THEN b ELSE 'w' END || '|' FROM c",
    ] {
        s.check(q).await;
    }
    s.check_error("INSERT INTO c (a) VALUES ('abcdef')").await;
}

/// `real` (float4): PostgreSQL's shortest float4 text, real arithmetic between reals and
/// double precision as soon as another number takes part, float4 casts (to numeric through
/// the shortest text), aggregates (sum real, avg double) and the overflow, underflow and
/// division errors — against PostgreSQL, ad hoc and in a materialized view.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_values_arithmetic_and_errors() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE r (id int4, x real, y float4)").await;
    s.exec(
        "INSERT INTO r VALUES (1, 0.1, 2.5), (2, 1e20, -1), (3, 1234567, 0.5), (4, 123456, 3), \
         (5, -0.0, 1.5e-7), (6, 16777217, 7), (7, NULL, NULL), (8, '3.4e38', 1), (9, 'NaN', 2), \
         (10, '-Infinity', 4), (11, 1.5, 1.5)",
    )
    .await;
    s.create_view(
        "r_sums",
        "SELECT id % 2 AS k, sum(x) AS s, avg(y) AS a, min(x) AS lo, max(y) AS hi, \
         count(*) AS n FROM r WHERE id NOT IN (2, 8, 9, 10) GROUP BY id % 2",
    )
    .await;
    for q in [
        "SELECT id, x, y FROM r",
        "SELECT id, x + y, x * y, x - y, y / 3::real, -x, abs(x) FROM r WHERE id NOT IN (2, 8)",
        // A real meets an integer, numeric or double in double precision.
        "SELECT id, x + 1, x * 1.5, y / 3, x + 2.5::float8 FROM r WHERE id NOT IN (2, 8)",
        "SELECT id, x::int4, x::int8, x::numeric, x::float8, x::text, y::numeric(10,3) FROM r \
         WHERE id NOT IN (2, 8, 9, 10)",
        "SELECT '1.5'::real, 0.1::real, 1.0::real / 3::real, 16777217::real, '1e-40'::real, \
         CAST(2.5 AS float4), 7::real, 1::real = 1, 0.1::real = 0.1::float8, 0.1::real = 0.1::real",
        "SELECT id FROM r WHERE x < 100 AND y >= 0.5 ORDER BY x, id",
        "SELECT id, x FROM r ORDER BY x DESC NULLS LAST, id",
        "SELECT sum(y), avg(y), min(x), max(x), count(x) FROM r WHERE id <> 9",
        "SELECT coalesce(x, 2), CASE WHEN id > 5 THEN x ELSE 1 END FROM r WHERE id IN (1, 7)",
        "SELECT x FROM r WHERE id = 1 UNION ALL SELECT 2 UNION ALL SELECT 2.5",
        "SELECT floor(y), ceil(y), round(y) FROM r WHERE id IN (1, 3, 11)",
        "SELECT * FROM r_sums",
    ] {
        s.check(q).await;
    }
    for q in [
        "SELECT '1e39'::real",
        "SELECT '3.4e38'::real * 10::real",
        "SELECT '1e-50'::real",
        "SELECT 1::real / 0::real",
        "SELECT 'abc'::real",
        "SELECT '3e38'::float8::real * 2::real",
        "SELECT '1e300'::float8::real",
        "SELECT x % y FROM r",
        "SELECT '1e400'::float8",
        "SELECT '-1e400'::float8",
        "SELECT '1e-400'::float8",
        "SELECT sum(x::float8 * 1e300::float8) FROM r WHERE id IN (2, 8)",
    ] {
        s.check_error(q).await;
    }
    // PostgreSQL 15's texts for input out of range.
    for (q, message) in [
        (
            "SELECT '1e-50'::real",
            "\"1e-50\" is out of range for type real",
        ),
        (
            "SELECT '1e400'::float8",
            "\"1e400\" is out of range for type double precision",
        ),
    ] {
        assert_eq!(s.check_error(q).await.1, message);
    }
    s.check("SELECT '1e-320'::float8, '0e500'::float8, '-0.0e-999'::float8, 'inf'::float8")
        .await;
    s.exec("INSERT INTO r VALUES (12, 2.25, 0.25), (13, -4, 8)")
        .await;
    s.exec("DELETE FROM r WHERE id = 1").await;
    s.check("SELECT * FROM r_sums").await;
    // Binary results and a float4 parameter through the extended protocol (tokio-postgres).
    let sql = "SELECT id, x, x * $1 FROM r WHERE id IN (3, 11, 12) ORDER BY id";
    let decode = |rows: Vec<tokio_postgres::Row>| -> Vec<(i32, f32, f32)> {
        rows.iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect()
    };
    let k = s.kpg.query(sql, &[&0.5f32]).await.expect("kpg");
    let p = s.pg.query(sql, &[&0.5f32]).await.expect("PostgreSQL");
    assert_eq!(k[0].columns()[1].type_(), p[0].columns()[1].type_());
    assert_eq!(decode(k), decode(p));
}

/// `smallint` (int2): its own type, as in PostgreSQL — int2 with int2 stays int2 (and
/// overflows as smallint), with int4 it is int4; sum is bigint, avg numeric; casts narrow
/// with a range check; binary results and int2 parameters through the extended protocol.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smallint_is_its_own_type() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE sm (id int4, a smallint, b int2)")
        .await;
    s.exec(
        "INSERT INTO sm VALUES (1, 1, 2), (2, -32768, 1), (3, 32767, -1), (4, NULL, 7), \
         (5, 300, 200), (6, 12, '5')",
    )
    .await;
    s.create_view(
        "sm_sums",
        "SELECT b > 0 AS pos, sum(a) AS s, avg(a) AS av, min(b) AS lo, count(*) AS n \
         FROM sm GROUP BY b > 0",
    )
    .await;
    for q in [
        "SELECT * FROM sm",
        "SELECT id, a + b, a - b, a / b, a % b, -b, abs(b) FROM sm WHERE id IN (1, 4, 6)",
        "SELECT id, a + 1, a * 10000, b + 1.5, a::int8 * 2, a::text, a::numeric(7,1), \
         a::float8, a::real FROM sm",
        "SELECT '123'::int2, 7::smallint, CAST(2.5 AS int2), (-32768)::int2, 1::int2 = 1, \
         DATE '2024-01-31' + 2::int2",
        "SELECT id FROM sm WHERE a > b AND b < 100 ORDER BY a DESC NULLS FIRST, id",
        "SELECT sum(a), avg(a), min(a), max(b), sum(b)::text FROM sm",
        "SELECT coalesce(a, 0), CASE WHEN id > 3 THEN a ELSE 2 END FROM sm",
        "SELECT * FROM sm_sums",
    ] {
        s.check(q).await;
    }
    for q in [
        "SELECT a + a FROM sm WHERE id = 3",
        "SELECT a * b FROM sm WHERE id = 5",
        "SELECT -a FROM sm WHERE id = 2",
        "SELECT 40000::int2",
        "SELECT '40000'::smallint",
        "SELECT b / 0::int2 FROM sm",
    ] {
        s.check_error(q).await;
    }
    s.exec("INSERT INTO sm VALUES (7, 5, 5)").await;
    s.exec("DELETE FROM sm WHERE id = 1").await;
    s.check("SELECT * FROM sm_sums").await;
    let sql = "SELECT id, a, b + $1 FROM sm WHERE id IN (5, 6) ORDER BY id";
    let decode = |rows: Vec<tokio_postgres::Row>| -> Vec<(i32, i16, i16)> {
        rows.iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect()
    };
    let k = s.kpg.query(sql, &[&3i16]).await.expect("kpg");
    let p = s.pg.query(sql, &[&3i16]).await.expect("PostgreSQL");
    assert_eq!(k[0].columns()[1].type_(), p[0].columns()[1].type_());
    assert_eq!(decode(k), decode(p));
}

/// sum and avg of intervals, per group and overall, ad hoc and as a maintained view through
/// inserts and deletes; a total beyond the type's range is 22008.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interval_sums_and_averages() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE iv (g int, v interval)").await;
    s.exec(
        "INSERT INTO iv VALUES (1, '1 mon 3 days'), (1, '-7 hours 3 seconds'), (2, '1 year'), \
         (2, NULL), (3, '1 mon'), (3, '1 day'), (3, '00:00:01'), (4, NULL)",
    )
    .await;
    let queries = [
        "SELECT g, sum(v), avg(v), count(v) FROM iv GROUP BY g",
        "SELECT sum(v), avg(v), sum(DISTINCT v), avg(DISTINCT v) FROM iv",
        "SELECT sum(v), avg(v) FROM iv WHERE g > 10",
        "SELECT g, avg(v * g) FROM iv GROUP BY g HAVING sum(v) > interval '1 day'",
    ];
    for q in queries {
        s.check(q).await;
    }
    s.create_view("iv_sums", queries[0]).await;
    for w in [
        "INSERT INTO iv VALUES (1, '2 days 00:00:00.000001'), (4, '-1 mon')",
        "DELETE FROM iv WHERE v = interval '1 year'",
        "INSERT INTO iv SELECT g + 10, v * 3 FROM iv",
        "DELETE FROM iv WHERE g = 3",
    ] {
        s.exec(w).await;
        s.check_view("iv_sums").await;
    }
    s.check_error(
        "SELECT sum(v) FROM (VALUES (interval '2147483647 days'), (interval '1 day')) t(v)",
    )
    .await;
    s.check_error("SELECT interval '2147483647 months' + interval '1 month'")
        .await;
    s.check_error("SELECT timestamp '2024-01-01' + interval '1000000 years'")
        .await;
}

/// An explicit cast to varchar(n) or char(n) cuts the text to n characters (an assignment
/// would fail instead), for columns as for constants.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explicit_casts_to_bounded_text() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE bt (k int, s varchar(12), c char(6), f float8, n numeric(6,2))")
        .await;
    s.exec(
        "INSERT INTO bt VALUES (1, 'abcdef', 'ab', 1.5, 12.25), (2, 'héllo wörld', 'xyz   ', NULL, -1), \
         (3, NULL, NULL, 2.5, NULL), (4, '', '', -0.125, 0)",
    )
    .await;
    let queries = [
        "SELECT k, s::varchar(3) AS s3, CAST(s AS varchar(1)) AS s1, s::char(4) || '|' AS c4, \
         c::varchar(1) || '|' AS c1 FROM bt",
        "SELECT k, f::varchar(2), f::char(2) || '|', n::varchar(3), k::char(3) || '|' FROM bt",
        "SELECT k FROM bt WHERE s::varchar(2) = 'ab' OR c::char(1) = 'x'",
        "SELECT 'abcdef'::varchar(2), 'ab'::char(4) || '|', NULL::varchar(3), 'héllo'::varchar(2)",
    ];
    for q in queries {
        s.check(q).await;
    }
    s.create_view("bt_cut", queries[0]).await;
    s.exec("INSERT INTO bt VALUES (5, 'longer text', 'q', 0, 0)")
        .await;
    s.check_view("bt_cut").await;
    // An assignment does not cut: it fails.
    s.check_error("INSERT INTO bt (k, s) VALUES (6, 'thirteen char')")
        .await;
}

/// A literal of unknown type in a plain SELECT operand of UNION, INTERSECT or EXCEPT takes its
/// type from the other operand (`SELECT 1 UNION SELECT '2'` is integer), and fails to read
/// when it is not one (22P02), even over no rows. A derived table, DISTINCT or VALUES operand
/// has resolved its unknowns to text, so matching it with a number is 42804.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_operations_type_unknown_literals() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE u (k int, d date)").await;
    s.exec("INSERT INTO u VALUES (1, '2024-01-01'), (2, NULL)")
        .await;
    for q in [
        "SELECT 1 UNION SELECT '2'",
        "SELECT '1' UNION ALL SELECT 2",
        "SELECT 1 UNION SELECT '2' UNION SELECT 2.5",
        "SELECT NULL UNION SELECT 1",
        "(SELECT '2' LIMIT 1) UNION SELECT 1",
        "SELECT 1, NULL UNION SELECT NULL, 'x'",
        "SELECT NULL UNION SELECT NULL",
        "SELECT 'a' UNION SELECT 'b' EXCEPT SELECT NULL",
        "SELECT d FROM u UNION SELECT '2024-02-03'",
        "SELECT k FROM u INTERSECT SELECT ' 2 '",
        "SELECT k, d FROM u EXCEPT SELECT 1, '2024-01-01'",
        "SELECT 'ab'::char(4) UNION SELECT 'x'",
    ] {
        s.check(q).await;
    }
    for e in [
        "SELECT 1 UNION SELECT 'a'",
        "SELECT k FROM u UNION ALL SELECT 'a' FROM u WHERE false",
        "SELECT DISTINCT 'a' UNION SELECT 1",
        "VALUES ('2') UNION SELECT 1",
        "SELECT NULL UNION SELECT NULL UNION SELECT 1",
        "SELECT x FROM (SELECT '1' AS x) s UNION SELECT 1",
        "SELECT 'x' || 'y' UNION SELECT 1",
    ] {
        s.check_error(e).await;
    }
}
