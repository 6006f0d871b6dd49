//! `to_char` of numbers, timestamps, dates and intervals and `to_number`, compared text for
//! text with a real PostgreSQL 15 over many pictures times many values (each pair one query, so
//! that an error of one value, compared by SQLSTATE, hides no other), picture errors, NULLs,
//! and the functions inside a materialized view kept up to date through writes.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    (kpg, pg, s)
}

fn quote(p: &str) -> String {
    format!("'{}'", p.replace('\'', "''"))
}

const NUMBER_PICTURES: &[&str] = &[
    "9",
    "99",
    "999",
    "9999",
    "0000",
    "9990",
    "0999",
    "00",
    "999.99",
    "990.99",
    "9.999",
    "000.000",
    ".99",
    "0.99",
    "FM.99",
    "FM0.99",
    "FM999.99",
    "FM990.00",
    "FM9999999.9999999",
    "99999999999999999999.99",
    "9,999.99",
    "FM9,999.99",
    "9G999D99",
    "S999",
    "999S",
    "S999.99",
    "999.99S",
    "FMS999",
    "MI999",
    "999MI",
    "999.99MI",
    "FM9.9MI",
    "PL999",
    "999PL",
    "SG999",
    "999SG",
    "SG9.99",
    "999PR",
    "999.99PR",
    "FM999PR",
    "L999",
    "9V99",
    "99V9",
    "FM9V9",
    "9.9EEEE",
    "99.999EEEE",
    "9EEEE",
    "RN",
    "rn",
    "FMRN",
    "999TH",
    "999th",
    "FM999th",
    "\"Total: \"999",
    "x9x9x",
    "9 9 9",
    "B999",
    "\\\"99",
    "S0000.00",
    "FM0000.00",
    "99D9S",
    "9D,9",
    "9,999.9,9,9",
    "0PLBSGDG",
];

const NUMBER_VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "5",
    "12",
    "-123",
    "1234",
    "12345",
    "999999",
    "2147483647",
    "-2147483648",
    "123456789012::int8",
    "-9223372036854775808::int8",
    "0::int8",
    "0.5",
    "-0.5",
    "1.5",
    "12.345",
    "-12.345",
    "123.45",
    "0.001",
    "9.99",
    "99.95",
    "1234567.891",
    "-0.0001",
    "1e10",
    "'NaN'::numeric",
    "'Infinity'::numeric",
    "'-Infinity'::numeric",
    "0::float8",
    "0.5::float8",
    "-2.5::float8",
    "3.14159::float8",
    "1e10::float8",
    "1234.5678::float8",
    "-0.001::float8",
    "'NaN'::float8",
    "'Infinity'::float8",
    "12.5::float4",
    "-0.25::float4",
    "123456.7::float4",
    "3::int2",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_through_pictures() {
    let (_kpg, _pg, s) = setup().await;
    for p in NUMBER_PICTURES {
        for v in NUMBER_VALUES {
            s.check_or_error(&format!("SELECT to_char({v}, {})", quote(p)))
                .await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn picture_errors_and_nulls() {
    let (_kpg, _pg, s) = setup().await;
    for p in [
        "9.9.9",
        "S9S",
        "PR9",
        "9PR9",
        "9V9.9",
        "9.9V9",
        "FM9EEEE",
        "9EEEE9",
        "S9MI",
        "MI9S",
        "9PRS",
        "SG9PR",
        "EEEE9EEEE",
        "RN9EEEE",
    ] {
        s.check_error(&format!("SELECT to_char(1, {})", quote(p)))
            .await;
    }
    for q in [
        "SELECT to_char(1, '')",
        "SELECT to_char(1.5, NULL)",
        "SELECT to_char(NULL::int, '999')",
        "SELECT to_char(timestamp '2024-01-01', '') IS NULL",
        "SELECT to_char(interval '1 day', '') IS NULL",
        "SELECT to_number('12', '') IS NULL",
        "SELECT to_char(4000, 'RN'), to_char(0, 'RN'), to_char(3999::int8, 'RN')",
        // A significand of 20,000 digits (it used to overflow numeric's scale and panic).
        "SELECT to_char(('1' || repeat('0', 20000))::numeric, '9.99EEEE'), \
         to_char(-('9' || repeat('9', 20000))::numeric, '9.9EEEE')",
    ] {
        s.check(q).await;
    }
    for q in [
        "SELECT to_char('NaN'::numeric, 'RN')",
        "SELECT to_char(1e20, 'RN')",
        "SELECT to_char(1e12::int8, 'RN')",
        "SELECT to_char(interval '1 day', 'Month')",
        "SELECT to_char(interval '1 day', 'Dy')",
        "SELECT to_char(interval '1 day', 'AD')",
        "SELECT to_char('2024-01-01', 'YYYY')",
        "SELECT to_char(true, '9')",
        "SELECT to_number(5, '9')",
        "SELECT to_number('1e5', '9EEEE')",
        "SELECT to_number('XIV', 'RN')",
        "SELECT to_number('123456', '99V9')",
    ] {
        s.check_or_error(q).await;
    }
}

const DATETIME_PICTURES: &[&str] = &[
    "YYYY-MM-DD HH24:MI:SS",
    "YYYY YYY YY Y IYYY IYY IY I",
    "Y,YYY FMY,YYY",
    "MM MON Mon mon MONTH Month month",
    "FMMONTH FMMonth FMmonth|",
    "DD DDD D ID IDDD",
    "DAY Day day DY Dy dy FMDay|",
    "HH HH12 HH24 MI SS MS US",
    "FF1 FF2 FF3 FF4 FF5 FF6",
    "SSSS SSSSS",
    "AM PM am pm A.M. P.M. a.m. p.m.",
    "AD BC ad bc A.D. B.C. a.d. b.c.",
    "Q WW IW W J CC",
    "RM rm FMRM|",
    "DDTH DDth FMDDth MMth HH24TH YYYYth Qth Wth Jth CCth SSSSth DDDth",
    "FMHH FMMI FMSS FMMM FMDD FMDDD FMIW FMWW FMCC FMYYYY",
    "\"quoted YYYY\" YYYY \\\" \\\\ \"a\\\"b\"",
    "FXYYYY-MM-DD",
    "TMMonth TMDay",
    "DDSP Mmm yyyy-mm-dd hh:mi:ss",
    "HH24MISS",
    "YYYYMMDD",
    "Dy, DD Mon YYYY HH24:MI:SS",
    "FMDD \"de\" FMMonth \"de\" YYYY",
    "mon-yy Y I",
];

const TIMESTAMPS: &[&str] = &[
    "timestamp '2024-03-05 14:07:09.123456'",
    "timestamp '2000-01-01 00:00:00'",
    "timestamp '1999-12-31 23:59:59.999999'",
    "timestamp '2021-01-01 12:00:00'",
    "timestamp '2021-01-03 00:00:01'",
    "timestamp '2024-12-30 00:30:00'",
    "timestamp '2024-02-29 11:11:11.5'",
    "timestamp '0001-01-01 00:00:00'",
    "timestamp '1582-10-04 01:02:03'",
    "timestamp '12345-06-07 08:09:10'",
    "date '2024-03-05'",
    "date '2021-01-03'",
];

const INTERVALS: &[&str] = &[
    "interval '1 year 2 months 3 days 04:05:06.7'",
    "interval '-1 year -2 months 3 days -04:05:06.7'",
    "interval '0'",
    "interval '25:00:00'",
    "interval '100 years'",
    "interval '13 months'",
    "interval '-13 months'",
    "interval '1 day -1 second'",
    "interval '3 mons 12:00'",
    "interval '-12:34:56.789'",
];

const INTERVAL_PICTURES: &[&str] = &[
    "YYYY YYY YY Y Y,YYY",
    "MM DD DDD",
    "HH HH12 HH24 MI SS MS US FF3",
    "SSSS AM pm",
    "CC RM rm W WW IW J Q",
    "IYYY IYY IY I IDDD",
    "FMHH24:MI:SS FMMM FMDD",
    "DDth HH24TH",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn datetimes_through_pictures() {
    let (_kpg, _pg, s) = setup().await;
    for p in DATETIME_PICTURES {
        for v in TIMESTAMPS {
            s.check_or_error(&format!("SELECT to_char({v}, {})", quote(p)))
                .await;
        }
    }
    for p in INTERVAL_PICTURES {
        for v in INTERVALS {
            s.check_or_error(&format!("SELECT to_char({v}, {})", quote(p)))
                .await;
        }
    }
    for p in ["TZ tz", "OF TZH:TZM"] {
        s.check_or_error(&format!(
            "SELECT to_char(timestamp '2024-01-01', {})",
            quote(p)
        ))
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_numbers() {
    let (_kpg, _pg, s) = setup().await;
    for (t, p) in [
        ("12,454.8-", "99G999D9S"),
        ("-12.5", "9999"),
        ("<123>", "999PR"),
        ("1 234", "9 999"),
        ("5.01-", "FM9.999999MI"),
        ("abc", "999"),
        ("123456", "999"),
        ("1,234", "FM9,999"),
        ("1,234", "9G999"),
        ("1,234", "9,999"),
        ("12.345", "99.9"),
        ("12.345", "99.999"),
        ("-0.5", "9.9"),
        ("+7", "S9"),
        ("7-", "9S"),
        ("7+", "9PL"),
        ("  42", "9999"),
        ("42", "9999"),
        ("$1,000.50", "L9,999.99"),
        ("1.5", "9V9"),
        ("15", "99V9"),
        ("", "999"),
        ("1x2", "9x9"),
        ("12th", "99th"),
        ("99999", "9"),
        ("0012", "0000"),
        ("-", "S9"),
        ("1.", "9.9"),
        ("1", "9.99"),
        ("12,3", ",99x"),
        ("1,234.56", ",,G0D "),
        ("7-", ",9GLTH "),
        ("$5.00", "9LV,09PL"),
    ] {
        s.check_or_error(&format!("SELECT to_number({}, {})", quote(t), quote(p)))
            .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintained_in_a_view_through_writes() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE f (id int, x numeric, r float8, ts timestamp, iv interval, t text)")
        .await;
    s.exec(
        "INSERT INTO f VALUES (1, 12.5, 1.25, '2024-03-05 14:07:09', '1 day 02:00', '1,234.5'), \
         (2, -0.5, -3, '1999-12-31 23:59:59', '-1 year', '-7')",
    )
    .await;
    let queries = [
        "SELECT id, to_char(x, 'FM999.00') a, to_char(r, '99.9EEEE') b, to_char(id, 'RN') c FROM f",
        "SELECT id, to_char(ts, 'Day DD Month YYYY HH12:MI AM') a, to_char(iv, 'HH24:MI') b FROM f",
        "SELECT to_char(x, 'S999.9') AS k, count(*) FROM f GROUP BY 1",
        "SELECT id, to_number(t, '9G999D9') a, to_number(t, 'S9999') b FROM f",
    ];
    let writes = [
        "INSERT INTO f VALUES (3, 'NaN', 'Infinity', '2000-02-29 00:00:00', '25:00', '12')",
        "INSERT INTO f VALUES (4, 12.5, 0, '0001-01-01', '0', '0.1')",
        "DELETE FROM f WHERE id = 1",
        "UPDATE f SET x = 999.95, t = '5-' WHERE id = 2",
    ];
    s.check_through_writes(&queries, "tcv", &writes).await;
}

/// to_char of a timestamp with time zone (and of a date, which PostgreSQL formats as one) in
/// the session's `TimeZone`: local fields, `TZ`/`tz` abbreviations, `OF`, `TZH`, `TZM`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamptz_in_the_session_zone() {
    let (_kpg, _pg, s) = setup().await;
    let values = [
        "timestamptz '2024-03-05 14:07:09.5+00'",
        "timestamptz '2024-07-05 04:07:09+00'",
        "timestamptz '2024-03-31 01:30:00+00'",
        "date '2024-07-05'",
    ];
    let pictures = [
        "YYYY-MM-DD HH24:MI:SS.MS TZ tz OF TZH:TZM",
        "FMOF Day HH12 AM J IW",
        "",
    ];
    for zone in [
        "UTC",
        "America/New_York",
        "Asia/Kolkata",
        "Asia/Kathmandu",
        "America/Sao_Paulo",
        "Europe/Paris",
    ] {
        s.exec(&format!("SET TimeZone = '{zone}'")).await;
        for v in values {
            for p in pictures {
                s.check(&format!("SELECT to_char({v}, {}) AS c", quote(p)))
                    .await;
            }
        }
    }
}
