//! Date, timestamp and interval text input, compared with a real PostgreSQL 15 (DateStyle ISO,
//! MDY): every accepted form of `'...'::date`, `::timestamp` and `::interval` must give
//! PostgreSQL's value, every refused one its SQLSTATE, and the same text must read the same
//! when it is inserted into a table and when a materialized view casts it. The forms kpg
//! refuses on purpose (`today`, `now`, `infinity`, BC years, Julian days: values it cannot
//! hold or a clock it does not read) must be 0A000.

use kpg_tests::*;

/// Dates in every form PostgreSQL reads, with edge cases of each.
const DATES: &[&str] = &[
    "2024-01-05",
    " 2024-01-05 ",
    "2024-1-5",
    "01/02/2024",
    "1/2/2024",
    "01-02-2024",
    "1.2.2024",
    "2024/01/05",
    "2024.01.05",
    "Jan 5 2024",
    "January 5, 2024",
    "5 Jan 2024",
    "2024 Jan 5",
    "Jan 2024 5",
    "Mon Jan 5 2024",
    "Monday, January 5, 2024",
    "Fri, 05 Jan 2024",
    "2024-01-05 Fri",
    "Sept 5 2024",
    "sEpTeMbEr 5 2024",
    "2024-Jan-05",
    "Jan-05-2024",
    "05-Jan-2024",
    "05-Jan-24",
    "2024 jan-05",
    "20240115",
    "240115",
    "2024-015",
    "2024.015",
    "2024 366",
    "2023 366",
    "1/2/24",
    "01/02/70",
    "01/02/69",
    "01/02/00",
    "1/2/024",
    "0024-01-02",
    "0001-01-01",
    "9999-12-31",
    "10000-01-01",
    "2024-02-29",
    "2000-02-29",
    "feb 29 24",
    "2024-01-05 AD",
    "epoch",
    "EPOCH",
    "on jan 5 2024",
    "2024-01-05 10:00",
    "2024-01-05 23:59:59.999999",
    "2024-01-05 +00",
    "2024-01-05 -08:00",
    "2024-01-05 +05:30",
    "2024-01-05 10:00 PST",
    "2024-01-05 10:00 America/New_York",
    "2024-01-05 10:00 Europe/Paris",
    "2024-01-05 10:00 Japan",
    "2024-01-05 10:00 UTC+3",
    "1999-12-31T00:59:58.250+00:00",
    "2024-01-05 allballs",
];

/// Timestamps: the dates above plus times, AM/PM, `T`, packed times and zones.
const TIMESTAMPS: &[&str] = &[
    "2024-01-05 10:00",
    "2024-01-05 10:00:00",
    "2024-01-05 10:00:00.5",
    "2024-01-05 10:00:00.1234567",
    "2024-01-05 10:00:00.9999995",
    "2024-12-31 23:59:59.9999999",
    "2024-01-05T10:00:00",
    "2024-01-05t10:00",
    "2024-01-05 T 10:00",
    "2024-01-05T100000",
    "2024-01-05T1000",
    "20240105T100000",
    "20240105 1000",
    "240105 100000",
    "2024-01-05 100000.5",
    "2024-01-05 996099",
    "Jan 5 2024 10:00",
    "Jan 5 2024 at 10:00",
    "Jan 5 2024 10:00 AM",
    "Jan 5 2024 10:00 PM",
    "12/31/1999 11:59 PM",
    "12/31/1999 12:00 am",
    "12/31/1999 12:00 pm",
    "12/31/1999 12:30 AM",
    "12/31/1999 0:30 am",
    "2024-01-05 24:00:00",
    "2024-01-05 24:00",
    "2024-01-05 23:59:60",
    "2024-01-05 10:30.5",
    "2024-01-05 1:2:3",
    "2024-01-05 10::",
    "2024-01-05 10:.5",
    "1 2 2024 1000",
    "Fri Jan 05 10:00:00 2024",
    "Fri Jan 05 10:00:00 PST 2024",
    "Fri, 05 Jan 2024 10:00:00 GMT",
    "Fri, 05 Jan 2024 10:00:00 +0000",
    "January 8 04:05:06 1999 PST",
    "1999-01-08 04:05:06.789-8",
    "08-Jan-99 04:05:06",
    "2024-01-05T10:00:00Z",
    "2024-01-05 10:00z",
    "2024-01-05T10:00:00+01:00",
    "2024-01-05 10:00:00-05:30",
    "2024-01-05 10:00 +15:59",
    "2024-01-05 10:00 -1559",
    "2024-01-05 10:00 +05:",
    "2024-01-05 10:00 pdt",
    "2024-01-05 10:00 CET",
    "2024-01-05 10:00 zulu",
    "2024-01-05 10:00 GMT+5",
    "2024-01-05 10:00 XYZ-03:30",
    "2024-01-05 10:00 EST5EDT",
    "2024-01-05 10:00 Etc/GMT+5",
    "2024-01-05 10:00 Asia/Kolkata",
    "2024-01-05 10:00 US/Pacific",
    "epoch",
    "epoch 10:00",
    "2000-02-29 12:00",
    "0001-01-01 00:00:00",
];

/// Intervals in PostgreSQL's format and ISO 8601's.
const INTERVALS: &[&str] = &[
    "1 year 2 mons 3 days 04:05:06",
    "1 year 2 months 3 days 4 hours 5 minutes 6 seconds",
    "1 yr 1 mon",
    "3 weeks",
    "1.5 weeks",
    "2 decades 3 centuries 1 millennium",
    "1.5 centuries",
    "0.5 decade",
    "1 hr 2 mins 3 secs",
    "1 h 2 m 3 s",
    "1 ms 1 us",
    "1 millisecond 1 microsecond",
    "1.5 us",
    "0.5 ms",
    "1.123456789 seconds",
    "1.1234565 seconds",
    "1.0000005 s",
    "0.0000015",
    "1 DAY",
    "1day",
    "@ 1 day",
    "@ 1 day ago",
    "1 day ago",
    "ago 1 day",
    "1 day 2 hours ago 3",
    "1 year 2 mons 3 days 04:05:06 ago",
    "-1 day +2 hours",
    "-1 day -2 hours",
    "+1 day",
    "- 1 day",
    "1 day, 2 hours",
    "-3 days +04:05:06.5",
    "04:05:06",
    "-04:05:06",
    "+04:05:06",
    "04:05",
    "10:30.5",
    "-00:00:01.5",
    "00:00:60.5",
    "1::2",
    "1:",
    "3 4:05:06",
    "3 4:05",
    "3 -4:05",
    "1.5 2:00",
    "1-2",
    "-1-2",
    "200-10",
    "1-2 3",
    "1-2 3 4:05:06",
    "1-2 3 4:05:06 ago",
    "1-2 -3",
    "1-2/3",
    "1 year 1-2",
    "0",
    "90",
    "-90",
    "1.5",
    ".5 day",
    "5. days",
    "1.5 months",
    "1.01 months",
    "1.5 years",
    "0.1 years",
    "0.042 years",
    "1.5 days",
    "-1.5 days",
    "1.5 days 10:00",
    "10:00 1.5 days",
    "1 day 25:00:00",
    "1 mon 30 days",
    "2147483647 days",
    "-2147483648 days",
    "2147483647 months",
    "178956970 years",
    "2562047788 hours",
    "9223372036854775807 microseconds",
    "-9223372036854775808 microseconds",
    "days 100",
    "P1Y2M3DT4H5M6S",
    "P1Y2M",
    "P1Y2M3W4D",
    "PT36H",
    "P0.5D",
    "P1.5Y",
    "P1.5M",
    "P1.5W",
    "PT1.5M",
    "P-1Y-2M",
    "P1Y-2M",
    "P-1.5D",
    "P1Y1Y",
    "PTT1H",
    "P1e2D",
    "PT0.0000005S",
    "P0001-02-03T04:05:06",
    "P00010203T040506",
    "P0001-02-03",
    "P00010203",
    "P0001-02",
    "P1-2-3T4:5:6.5",
    "P1.5-2-3",
    "PT04:05:06",
    "PT040506",
    "PT010203.5",
    "PT0405",
    "PT",
    "P1DT",
];

/// Text each type refuses, with PostgreSQL's SQLSTATE: 22007 (not a date/time), 22008 (a
/// field or value out of range), 22009 (zone offset), 22015 (interval field), 22023 (zone).
const BAD: &[(&str, &str)] = &[
    // A date is not a year-month (kpg read '2024-01-01' as 2024 years 1 mon -1 second).
    ("interval", "2024-01-01"),
    ("interval", "1-2-3"),
    ("interval", "1-2-"),
    ("date", ""),
    ("date", "hello"),
    ("date", "Jan 5"),
    ("date", "2024-01-05 junk"),
    ("date", "Mon 2024-01-05"),
    ("date", "10:00 2024-01-05"),
    ("date", "epoch 2024-01-01"),
    ("date", "2024-01-05 2024-01-06"),
    ("date", "2024-01-05."),
    ("date", "2024-01-05 é"),
    ("date", "jan jan 5 2024"),
    ("date", "2024-02-30"),
    ("date", "2023-02-29"),
    ("date", "1900-02-29"),
    ("date", "2024-13-01"),
    ("date", "2024-00-10"),
    ("date", "2024-01-32"),
    ("date", "13/01/2024"),
    ("date", "31-12-1999"),
    ("date", "0000-01-01"),
    ("date", "24 001"),
    ("date", "99999999"),
    ("date", "1/1/99999999999999999999"),
    ("date", "5874898-01-01"),
    ("date", "2024-01-05 25:00"),
    ("date", "2024-01-05 10:00 +16"),
    ("date", "2024-01-05 10:00 Foo/Bar"),
    ("date", "2024-01-05 10:00 Europe/Nowhere"),
    ("timestamp", "10:00"),
    ("timestamp", "2024-01-05 10:00 junk"),
    ("timestamp", "2024-01-05 10:00 XYZ"),
    ("timestamp", "2024-01-05T10"),
    ("timestamp", "2024-01-05 t"),
    ("timestamp", "12/31/1999 10 pm"),
    ("timestamp", "2024-01-05 10:00 allballs"),
    ("timestamp", "2024-01-05 10:00 11:00"),
    ("timestamp", "2024-01-05 10:00:00:00"),
    ("timestamp", "2024-01-05 100.5"),
    ("timestamp", "2024-01-05 10:00 +05.5"),
    ("timestamp", "2024-01-05 24:00:01"),
    ("timestamp", "2024-01-05 23:60"),
    ("timestamp", "2024-01-05 23:59:61"),
    ("timestamp", "2024-01-05 13:00 pm"),
    ("timestamp", "2024-01-05 99999999999:00"),
    ("timestamp", "294277-01-01"),
    ("timestamp", "2024-01-05 10:00 +155959"),
    ("timestamp", "2024-01-05 10:00 +0530.5"),
    ("timestamp", "2024-01-05 10:00 -99999999999"),
    ("timestamp", "2024-01-05 10:00 XYZ+168"),
    ("timestamp", "2024-01-05 10:00 america/nowhere"),
    ("interval", ""),
    ("interval", "abc"),
    ("interval", "@"),
    ("interval", "ago"),
    ("interval", "1 ago"),
    ("interval", "day"),
    ("interval", "1 fortnight"),
    ("interval", "1 day 1 day"),
    ("interval", "1 yr 1 y"),
    ("interval", "1 2"),
    ("interval", "1 2 days"),
    ("interval", "1 hour 02:03"),
    ("interval", "02:03 1 ms"),
    ("interval", "1 mon 1-2"),
    ("interval", "1day2hours"),
    ("interval", "--1 day"),
    ("interval", "-.5"),
    ("interval", "1.5.5 day"),
    ("interval", "1.5-2"),
    ("interval", "1e3"),
    ("interval", "1:2:3:4"),
    ("interval", "-25:61:61"),
    ("interval", "-1:60"),
    ("interval", "1 dayé"),
    ("interval", "p1d"),
    ("interval", " P1D"),
    ("interval", "P"),
    ("interval", "P1H"),
    ("interval", "PT1D"),
    ("interval", "P+1D"),
    ("interval", "P1D2"),
    ("interval", "P1e400D"),
    ("interval", "25:61:61"),
    ("interval", "00:00:61"),
    ("interval", "1 day 10:60:00"),
    ("interval", "1-13"),
    ("interval", "2147483648 days"),
    ("interval", "2147483647 days 1 day"),
    ("interval", "306783379 weeks"),
    ("interval", "2147483648 months"),
    ("interval", "999999999 decades"),
    ("interval", "2562047789 hours"),
    ("interval", "9223372036854775808 microseconds"),
    ("interval", "99999999999999999999:00"),
    ("interval", "P2147483648D"),
    ("interval", "PT10000000000H"),
    ("interval", "178956971 years"),
    ("interval", "2147483647 months 1 year"),
    ("interval", "2147483 millennium"),
    ("interval", "P178956971Y"),
];

/// What PostgreSQL accepts and kpg refuses on purpose, with 0A000.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("date", "infinity"),
    ("date", "-infinity"),
    ("date", "2024-01-05 BC"),
    ("date", "Jan 5 2024 bc"),
    ("date", "J2451545"),
    ("date", "julian 2451545"),
    ("date", "262144-01-01"),
    ("timestamp", "infinity"),
    ("timestamp", "-infinity"),
    ("timestamp", "2024-01-05 10:00 BC"),
    ("timestamp", "J2451545 10:00"),
    ("timestamp", "294276-12-31 23:59:59"),
];

async fn pair() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    (kpg, pg, s)
}

/// `'text'`, quoted for SQL.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn literals_read_as_postgres_reads_them() {
    let (_kpg, _pg, s) = pair().await;
    for (ty, texts) in [
        ("date", DATES),
        ("timestamp", DATES),
        ("timestamp", TIMESTAMPS),
        ("interval", INTERVALS),
    ] {
        for text in texts {
            s.check(&format!("SELECT {}::{ty}", literal(text))).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_literals_fail_as_in_postgres() {
    let (_kpg, _pg, s) = pair().await;
    for (ty, text) in BAD {
        s.check_error(&format!("SELECT {}::{ty}", literal(text)))
            .await;
    }
    // Messages name the text as PostgreSQL's do.
    for (sql, message) in [
        (
            "SELECT '2024-02-30'::date",
            r#"date/time field value out of range: "2024-02-30""#,
        ),
        (
            "SELECT '2024-01-05 10:00 +16'::timestamp",
            r#"time zone displacement out of range: "2024-01-05 10:00 +16""#,
        ),
        (
            "SELECT '2024-01-05 10:00 Foo/Bar'::date",
            r#"time zone "foo/bar" not recognized"#,
        ),
        (
            "SELECT '25:61:61'::interval",
            r#"interval field value out of range: "25:61:61""#,
        ),
        (
            "SELECT '178956971 years'::interval",
            "interval out of range",
        ),
        (
            "SELECT 'hello'::timestamp",
            r#"invalid input syntax for type timestamp: "hello""#,
        ),
    ] {
        assert_eq!(s.check_error(sql).await.1, message, "{sql}");
    }
    s.check("SELECT 1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_forms_are_0a000() {
    let kpg = KpgServer::start().await;
    let client = kpg.connect().await;
    for (ty, text) in UNSUPPORTED {
        let sql = format!("SELECT {}::{ty}", literal(text));
        let (code, message) = expect_error(&client, &sql).await;
        assert_eq!(code, "0A000", "{sql}: {message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_and_cast_in_a_view() {
    let (_kpg, _pg, s) = pair().await;
    s.exec("CREATE TABLE typed (k int, d date, ts timestamp, iv interval)")
        .await;
    s.exec("CREATE TABLE texts (k int, d text, ts text, iv text)")
        .await;
    s.create_view("typed_v", "SELECT k, d, ts, iv FROM typed")
        .await;
    s.create_view(
        "cast_v",
        "SELECT k, d::date AS d, ts::timestamp AS ts, iv::interval AS iv FROM texts",
    )
    .await;
    s.create_view(
        "by_day",
        "SELECT d::date AS d, count(*) AS n, max(ts::timestamp) AS latest, \
         max(iv::interval) AS longest FROM texts GROUP BY d::date",
    )
    .await;
    // Intervals small enough to be summed without overflow.
    let small = |text: &&&str| {
        text.split(|c: char| !c.is_ascii_digit())
            .all(|run| run.len() < 9)
    };
    let rows: Vec<String> = DATES
        .iter()
        .zip(TIMESTAMPS.iter().cycle())
        .zip(INTERVALS.iter().filter(small).cycle())
        .enumerate()
        .map(|(k, ((d, ts), iv))| {
            format!("({k}, {}, {}, {})", literal(d), literal(ts), literal(iv))
        })
        .collect();
    for chunk in rows.chunks(12) {
        for table in ["typed", "texts"] {
            s.exec(&format!("INSERT INTO {table} VALUES {}", chunk.join(", ")))
                .await;
        }
        for view in ["typed_v", "cast_v", "by_day"] {
            s.check_view(view).await;
        }
    }
    s.exec("DELETE FROM texts WHERE k % 3 = 0").await;
    s.exec("UPDATE typed SET iv = '1-2 3 4:05:06 ago' WHERE k % 2 = 0")
        .await;
    for view in ["typed_v", "cast_v", "by_day"] {
        s.check_view(view).await;
    }
    s.check("SELECT k, d, ts::text, iv::text FROM typed ORDER BY k")
        .await;
}
