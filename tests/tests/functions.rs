//! The built-in string, rounding and date/time functions (substring, position/strpos,
//! trim/btrim/ltrim/rtrim, round/floor/ceil, EXTRACT, date_part, date_trunc), compared with a
//! real PostgreSQL on table data (so that they are evaluated by dataflows, not folded) and on
//! constants, including their errors.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(
        "CREATE TABLE f (k int, s text, v varchar(20), n numeric(10,3), x double precision, \
         i int, d date, ts timestamp, iv interval)",
    )
    .await;
    s.exec(
        "INSERT INTO f VALUES \
         (1, '  hello  ', 'xxabcxx', 2.5, 2.5, 7, '2021-01-01', '2020-01-01 01:02:03.5', '1 year 2 mons 3 days 04:05:06.7'), \
         (2, 'héllo wörld', '13-555-1234', -2.5, -0.5, -3, '1995-03-15', '1999-12-31 23:59:59', '-14 mons -25 hours'), \
         (3, '', 'a', 1234.567, 3.5, 0, '2000-02-29', '2001-05-01 12:00', '90 days'), \
         (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    )
    .await;
    (kpg, pg, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn string_functions_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        "SELECT k, substring(s FROM 2 FOR 3), substring(v FROM 1 FOR 2), substring(s, 0, 3), substring(s FROM i) FROM f",
        "SELECT k, substr(s, 2), substr(v, i, 2), substring(v for 3) FROM f",
        "SELECT k, position('l' IN s), strpos(v, 'x'), position('' IN v) FROM f",
        "SELECT k, trim(s), trim(both 'x' FROM v), trim(leading 'x' FROM v), trim(trailing 'x' FROM v) FROM f",
        "SELECT k, btrim(v, 'x'), ltrim(s), rtrim(s), ltrim(v, 'xa') FROM f",
        "SELECT k FROM f WHERE substring(v FROM 1 FOR 2) IN ('13', '31', 'xx')",
    ] {
        s.check(q).await;
    }
    s.check_error("SELECT substring(s FROM 1 FOR -1) FROM f")
        .await;
    s.check_error("SELECT substring(k FROM 1 FOR 2) FROM f")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rounding_functions_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        "SELECT k, round(n), round(x), round(i), round(n, 1), round(n, -2), round(i, 2) FROM f",
        "SELECT k, floor(n), floor(x), ceil(n), ceil(x), ceiling(i) FROM f",
        "SELECT round(2.5), round(-2.5), round(2.5::float8), round(3.5::float8), round(2.567, 2)",
        "SELECT floor(-2.5), ceil(-2.5), mod(7, 3), mod(-7.5, 2)",
    ] {
        s.check(q).await;
    }
    s.check_error("SELECT round(x, 1) FROM f").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extract_date_part_date_trunc_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for unit in [
        "year",
        "month",
        "day",
        "quarter",
        "week",
        "dow",
        "isodow",
        "doy",
        "isoyear",
        "decade",
        "century",
        "millennium",
        "epoch",
        "julian",
    ] {
        s.check(&format!(
            "SELECT k, extract({unit} FROM d), date_part('{unit}', d) FROM f"
        ))
        .await;
    }
    for unit in [
        "microseconds",
        "milliseconds",
        "second",
        "minute",
        "hour",
        "day",
        "month",
        "quarter",
        "week",
        "year",
        "decade",
        "century",
        "millennium",
        "epoch",
        "dow",
        "doy",
        "isoyear",
    ] {
        s.check(&format!(
            "SELECT k, extract({unit} FROM ts), date_part('{unit}', ts) FROM f"
        ))
        .await;
    }
    for unit in [
        "microseconds",
        "milliseconds",
        "second",
        "minute",
        "hour",
        "day",
        "month",
        "quarter",
        "year",
        "decade",
        "century",
        "millennium",
        "epoch",
    ] {
        s.check(&format!(
            "SELECT k, extract({unit} FROM iv), date_part('{unit}', iv) FROM f"
        ))
        .await;
    }
    for unit in [
        "microseconds",
        "milliseconds",
        "second",
        "minute",
        "hour",
        "day",
        "week",
        "month",
        "quarter",
        "year",
        "decade",
        "century",
        "millennium",
    ] {
        s.check(&format!("SELECT k, date_trunc('{unit}', ts) FROM f"))
            .await;
        if unit != "week" {
            s.check(&format!("SELECT k, date_trunc('{unit}', iv) FROM f"))
                .await;
        }
    }
    s.check("SELECT extract(year FROM d) AS y, count(*) FROM f GROUP BY extract(year FROM d)")
        .await;
    s.check_error("SELECT extract(hour FROM d) FROM f").await;
    s.check_error("SELECT extract(foo FROM d) FROM f").await;
    s.check_error("SELECT extract(week FROM iv) FROM f").await;
    s.check_error("SELECT date_trunc('week', iv) FROM f").await;
}
