//! `DateStyle` field orders (DMY, YMD, MDY) in date/time input and output, against
//! PostgreSQL 15: literals, casts of stored text (ad hoc and in a materialized view through
//! writes), parameters, COPY FROM, and a seeded property test where PostgreSQL writes random
//! timestamps in every style and both servers read the text back in every order. Also the
//! special input words that read the statement's time (`today`, `now`, ...), compared through
//! what they equal (`current_date`, `now()`), and refused in stored definitions.

use futures::SinkExt;
use kpg_tests::*;

const STYLES: &[&str] = &[
    "ISO, DMY",
    "SQL, DMY",
    "German",
    "Postgres, DMY",
    "YMD",
    "SQL, YMD",
    "Postgres, MDY",
    "ISO, MDY",
];

/// Input texts whose reading depends on the order (or that some order refuses).
const INPUTS: &[&str] = &[
    "1/5/2024",
    "05.01.2024",
    "13/1/2024",
    "1/13/2024",
    "1/5/24",
    "24/1/5",
    "24-01-05",
    "2024-01-05",
    "2024 5 1",
    "5 1 2024",
    "5 jan 2024",
    "jan 5 24",
    "05-jan-2024",
    "24-jan-05",
    "05-jan-24",
    "2024-jan-05",
    "jan-05-2024",
    "20240105",
    "240105",
    "2024.015",
    "1.5.2024",
    "31/12/99",
    "12/31/99",
    "99/12/31",
    "1/5/2024 10:30",
    "5/1/2024 10:30:15.5 pm",
    "10/11/12",
    "0/5/2024",
    "1/5/",
];

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    (kpg, pg, s)
}

/// Every input as a literal of each type and as stored text cast to it, in every style.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn literals_and_casts_in_every_order() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE texts (k int, t text)").await;
    for (k, t) in INPUTS.iter().enumerate() {
        s.exec(&format!("INSERT INTO texts VALUES ({k}, '{t}')"))
            .await;
    }
    for style in STYLES {
        s.exec(&format!("SET DateStyle = '{style}'")).await;
        s.check("SHOW DateStyle").await;
        for (k, t) in INPUTS.iter().enumerate() {
            for ty in ["date", "timestamp", "timestamptz", "timestamp(0)"] {
                s.check_or_error(&format!("SELECT '{t}'::{ty}")).await;
                s.check_or_error(&format!("SELECT {ty} '{t}'")).await;
                s.check_or_error(&format!("SELECT t::{ty} FROM texts WHERE k = {k}"))
                    .await;
            }
            s.check_or_error(&format!("SELECT date '{t}' = '2024-01-05'"))
                .await;
        }
    }
    s.exec("SET DateStyle = 'ISO, DMY'").await;
    s.check_or_error("SELECT t::varchar(40)::date FROM texts WHERE k = 0")
        .await;
    // The setting follows transactions: a rolled back SET is undone.
    s.exec("SET DateStyle = 'ISO, MDY'").await;
    s.exec("BEGIN").await;
    s.exec("SET DateStyle = 'German'").await;
    s.exec("ROLLBACK").await;
    s.check("SHOW DateStyle").await;
    s.check("SELECT '1/5/2024'::date").await;
}

/// A materialized view that casts stored text keeps the order it was created with (here the
/// one PostgreSQL's plain view reads in the same session), through inserts and deletes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_through_writes() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("SET DateStyle = 'SQL, DMY'").await;
    s.exec("CREATE TABLE texts (k int, t text, d date)").await;
    s.exec("INSERT INTO texts VALUES (1, '1/5/2024', '2/3/2024'), (2, '31/12/2023 10:00', '31.12.2023')")
        .await;
    s.check_through_writes(
        &[
            "SELECT k, t::date AS d, t::timestamp AS ts, d AS stored FROM texts",
            "SELECT count(*) AS n, max(t::timestamp) AS latest FROM texts WHERE d > '1/1/2024'",
            "SELECT k FROM texts WHERE t::date = date '1/5/2024'",
        ],
        "v",
        &[
            "INSERT INTO texts VALUES (3, '13/01/2024', '13/1/2024')",
            "INSERT INTO texts VALUES (4, '1/5/2024 23:59', '01-02-24')",
            "DELETE FROM texts WHERE k = 1",
            "UPDATE texts SET d = '29/2/2024' WHERE k = 2",
        ],
    )
    .await;
    // Output of the view's dates in other styles.
    // (PostgreSQL's plain view reads the text again in the reading session's order; kpg's
    // materialized view keeps the order it was created with, so only DMY sessions are
    // compared.)
    for style in ["German", "Postgres, DMY", "ISO, DMY"] {
        s.exec(&format!("SET DateStyle = '{style}'")).await;
        s.check_view("v0").await;
    }
    // Arrays of dates from non-constant text would be read month first: refused.
    s.exec("SET DateStyle = 'DMY'").await;
    let (code, msg) = expect_error(&s.kpg, "SELECT ('{' || t || '}')::date[] FROM texts").await;
    assert_eq!(code, "0A000", "{msg}");
    s.check("SELECT '{1/5/2024,13/1/2024}'::date[]").await;
}

async fn copy_in(client: &tokio_postgres::Client, sql: &str, data: &str) -> u64 {
    let sink = client.copy_in(sql).await.expect("copy in");
    let mut sink = Box::pin(sink);
    sink.send(bytes::Bytes::copy_from_slice(data.as_bytes()))
        .await
        .expect("copy data");
    sink.as_mut().finish().await.expect("copy done")
}

/// COPY FROM and parameters read dates in the session's order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_and_parameters() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE c (k int, d date, ts timestamp, tz timestamptz)")
        .await;
    for (style, rows) in [
        (
            "German",
            "1\t05.01.2024\t13.1.2024 10:00\t1.2.2024 10:00+02\n",
        ),
        ("SQL, DMY", "2\t13/1/2024\t1/5/24 10:00\t31/12/2024 23:00\n"),
        ("YMD", "3\t24/1/5\t2024 5 1\t99-12-31 01:00\n"),
    ] {
        s.exec(&format!("SET DateStyle = '{style}'")).await;
        for client in [&s.kpg, &s.pg] {
            assert_eq!(copy_in(client, "COPY c FROM STDIN", rows).await, 1);
        }
        let csv = rows.replace('\t', ",");
        for client in [&s.kpg, &s.pg] {
            assert_eq!(
                copy_in(client, "COPY c FROM STDIN WITH (FORMAT csv)", &csv).await,
                1
            );
        }
    }
    s.exec("SET DateStyle = ISO").await;
    s.check("SELECT * FROM c").await;
    s.exec("SET DateStyle = 'SQL, DMY'").await;
    s.check("SELECT * FROM c").await;
    s.exec("SET DateStyle = 'ISO, DMY'").await;
    let sql = "SELECT ($1::text::date - date '2000-01-01')::int4";
    for t in ["13/1/2024", "1/5/2024", "5 jan 24"] {
        let k = s.kpg.query_one(sql, &[&t]).await.expect("kpg");
        let p = s.pg.query_one(sql, &[&t]).await.expect("pg");
        assert_eq!(k.get::<_, i32>(0), p.get::<_, i32>(0), "{t}");
    }
}

/// Seeded random timestamps written by PostgreSQL in every style and order, read back by both
/// servers in every order (as date, timestamp and timestamptz): the same values or the same
/// errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_dates_written_and_read_in_every_style() {
    let (_kpg, _pg, s) = setup().await;
    let mut seed: u64 = 0x2126_0521;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let writers = [
        "ISO, MDY",
        "SQL, MDY",
        "SQL, DMY",
        "Postgres, MDY",
        "Postgres, DMY",
        "German, DMY",
    ];
    let readers = ["MDY", "DMY", "YMD"];
    let mut texts = Vec::new();
    for i in 0..40 {
        let year = 1901 + next() % 200;
        let month = 1 + next() % 12;
        let day = 1 + next() % 28;
        let secs = next() % 86_400;
        let ts = format!(
            "{year}-{month:02}-{day:02} {:02}:{:02}:{:02}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        );
        let writer = writers[i % writers.len()];
        simple(&s.pg, &format!("SET DateStyle = '{writer}'"))
            .await
            .expect("pg");
        let r = query(
            &s.pg,
            &format!("SELECT '{ts}'::timestamp::text, '{ts}'::date::text"),
        )
        .await;
        for v in &r[0] {
            texts.push(v.clone().expect("not null"));
        }
    }
    // Two-digit years in SQL style.
    texts.push("03/04/05".into());
    texts.push("12/11/70".into());
    for reader in readers {
        s.exec(&format!("SET DateStyle = 'ISO, {reader}'")).await;
        for t in &texts {
            for ty in ["date", "timestamp", "timestamptz"] {
                s.check_or_error(&format!("SELECT '{t}'::{ty}")).await;
            }
        }
    }
}

/// `today`, `tomorrow`, `yesterday`, `now`, `epoch`, `allballs` as PostgreSQL reads them at the
/// statement's time, in several zones; refused (0A000) where now() is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn special_words() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE t (k int, d date, ts timestamp, tz timestamptz)")
        .await;
    for zone in ["UTC", "Pacific/Kiritimati", "America/Anchorage"] {
        s.exec(&format!("SET TimeZone = '{zone}'")).await;
        for q in [
            "SELECT 'today'::date = current_date, date 'TODAY' = current_date",
            "SELECT 'tomorrow'::date - 'yesterday'::date, 'tomorrow'::date - current_date",
            "SELECT 'today'::timestamp = localtimestamp::date, 'today'::timestamptz = current_date::timestamptz",
            "SELECT 'tomorrow 10:30'::timestamp = current_date + 1 + time '10:30'",
            "SELECT 'now'::timestamptz = now(), timestamptz 'now' = transaction_timestamp()",
            "SELECT 'now'::timestamp = localtimestamp, 'now'::date = current_date",
            "SELECT 'now'::time = localtime, 'allballs'::time, 'epoch'::timestamp, 'epoch'::date",
            "SELECT 'epoch'::timestamptz",
            "SELECT '{today,tomorrow}'::date[] = ARRAY[current_date, current_date + 1]",
            "SELECT count(*) FROM t WHERE d < 'today'",
        ] {
            s.check(q).await;
        }
        for e in [
            "SELECT 'now 10:00'::timestamp",
            "SELECT 'today 2024-01-05'::date",
            "SELECT 'today'::time",
            "SELECT 'yesterday tomorrow'::date",
        ] {
            s.check_error(e).await;
        }
    }
    s.exec("SET TimeZone = 'Asia/Tokyo'").await;
    s.exec(
        "INSERT INTO t VALUES (1, 'today', 'now', 'now'), (2, 'tomorrow', 'yesterday', 'today')",
    )
    .await;
    s.check("SELECT k, d = current_date + k - 1, ts <= localtimestamp, tz <= now() FROM t")
        .await;
    s.exec("UPDATE t SET d = 'yesterday' WHERE k = 2").await;
    s.check("SELECT k, d - current_date FROM t").await;
    // In a transaction block the words read the block's start, as now() does.
    s.exec("BEGIN").await;
    s.check("SELECT 'now'::timestamptz = now()").await;
    s.check("SELECT 'now'::timestamptz = now()").await;
    s.exec("COMMIT").await;
    // Refused where now() is (PostgreSQL freezes the value at CREATE instead).
    s.exec("SET TimeZone = UTC").await;
    for q in [
        "CREATE MATERIALIZED VIEW mv AS SELECT k FROM t WHERE d > 'today'",
        "CREATE VIEW pv AS SELECT 'now'::timestamptz AS n",
        "CREATE INDEX ON t (k) WHERE d > 'yesterday'",
    ] {
        let (code, msg) = expect_error(&s.kpg, q).await;
        assert_eq!(code, "0A000", "{q}: {msg}");
    }
    // Stored text that says `today` is read in a dataflow, which has no clock: refused.
    s.exec("CREATE TABLE texts (t text)").await;
    s.exec("INSERT INTO texts VALUES ('today')").await;
    let (code, msg) = expect_error(&s.kpg, "SELECT t::date FROM texts").await;
    assert_eq!(code, "0A000", "{msg}");
    s.check("SELECT 1").await;
}

/// Intervals whose reading or text depends on `IntervalStyle`.
const INTERVALS: &[&str] = &[
    "-1 2:03:04",
    "-1-2 3 4:05:06",
    "-1-2",
    "1-2",
    "-1 year 2 mons 3 days",
    "-1 day +2:03:04",
    "1 day -2:03:04",
    "-1 day 2 hours ago",
    "- 1 2:03",
    "-2:03:04.5",
    "-1.5 years 3 months",
    "-1 2",
    "+1 -2",
    "3 4:05:06",
    "-0 1:00",
    "@ -1 day 2 hours",
    "-P1Y2M",
    "P-1Y2M",
    "-1 week 2 days",
    "-1 day 2 hours 3 minutes 4.5 seconds",
    "0",
];

/// `IntervalStyle = sql_standard`: the output (`1-2 3 4:05:06`, signs as PostgreSQL) and the
/// reading of a leading minus in input, in literals, qualified literals, casts of stored
/// text, a materialized view through writes, COPY FROM and parameters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interval_style_sql_standard() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE texts (k int, t text)").await;
    for (k, t) in INTERVALS.iter().enumerate() {
        s.exec(&format!("INSERT INTO texts VALUES ({k}, '{t}')"))
            .await;
    }
    s.exec("CREATE TABLE ivs (k int, iv interval)").await;
    s.exec("SET IntervalStyle = sql_standard").await;
    s.check("SHOW IntervalStyle").await;
    for (k, t) in INTERVALS.iter().enumerate() {
        for q in [
            format!("SELECT '{t}'::interval"),
            format!("SELECT interval '{t}'"),
            format!("SELECT interval '{t}' day to second"),
            format!("SELECT interval(0) '{t}'"),
            format!("SELECT t::interval FROM texts WHERE k = {k}"),
            format!("SELECT t::interval(1) FROM texts WHERE k = {k}"),
            format!("SELECT -'{t}'::interval, '{t}'::interval * 2"),
        ] {
            s.check_or_error(&q).await;
        }
    }
    // Values that read in every style, stored under sql_standard, then shown in every style.
    s.exec(
        "INSERT INTO ivs SELECT k, t::interval FROM texts \
         WHERE k IN (0, 1, 2, 3, 4, 5, 6, 9, 10, 13, 18, 19, 20)",
    )
    .await;
    s.check_through_writes(
        &[
            "SELECT k, t::interval AS iv FROM texts WHERE k IN (0, 1, 5, 10, 100)",
            "SELECT k, iv, iv + interval '-1 2:00' AS shifted FROM ivs",
            "SELECT sum(iv) AS total, max(iv) AS longest, count(*) AS n FROM ivs",
        ],
        "v",
        &[
            "INSERT INTO texts VALUES (100, '-3 4:05')",
            "INSERT INTO ivs VALUES (100, '-3 4:05'), (101, '-1-1')",
            "DELETE FROM ivs WHERE k = 0",
            "UPDATE ivs SET iv = '-7 1:00' WHERE k = 1",
        ],
    )
    .await;
    // (v0 reads text: PostgreSQL's view reads it again in the reading session's style, kpg's
    // keeps the style it was created with, so it is compared under sql_standard only.)
    for style in ["postgres", "postgres_verbose", "iso_8601", "sql_standard"] {
        s.exec(&format!("SET IntervalStyle = {style}")).await;
        s.check("SELECT k, iv FROM ivs").await;
        s.check_view("v1").await;
        s.check_view("v2").await;
    }
    s.check_view("v0").await;
    // COPY FROM and parameters read under the session's style.
    s.exec("SET IntervalStyle = sql_standard").await;
    for client in [&s.kpg, &s.pg] {
        assert_eq!(
            copy_in(
                client,
                "COPY ivs FROM STDIN",
                "200\t-1 2:03:04\n201\t-1-2 3 4:00\n"
            )
            .await,
            2
        );
    }
    s.check("SELECT k, iv FROM ivs WHERE k >= 200").await;
    let sql = "SELECT extract(epoch FROM $1::interval)::float8";
    let text = [tokio_postgres::types::Type::TEXT];
    let (ks, ps) = (
        s.kpg.prepare_typed(sql, &text).await.expect("kpg"),
        s.pg.prepare_typed(sql, &text).await.expect("pg"),
    );
    for t in ["-1 2:03:04", "-1 day +2:00"] {
        let k = s.kpg.query_one(&ks, &[&t]).await.expect("kpg");
        let p = s.pg.query_one(&ps, &[&t]).await.expect("pg");
        assert_eq!(k.get::<_, f64>(0), p.get::<_, f64>(0), "{t}");
    }
    // Back in the default style, the same text reads with only its first field negative.
    s.exec("SET IntervalStyle = postgres").await;
    s.check("SELECT '-1 2:03:04'::interval, t::interval FROM texts WHERE k = 0")
        .await;
}

/// A plain view's casts of stored text read in the order and interval style of the session
/// reading it, as PostgreSQL's do (kpg's kept its creator's), also through a plain view over
/// it and after writes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_views_read_text_in_the_readers_style() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE texts (k int, t text, i text)").await;
    s.exec("INSERT INTO texts VALUES (1, '1/5/2024', '1 2:03:04'), (2, '3/4/2023 10:00', '-1 2:03:04')")
        .await;
    s.exec("CREATE VIEW pv AS SELECT k, t::date AS d, t::timestamp AS ts, t::timestamptz AS tz, i::interval AS iv FROM texts")
        .await;
    // An array of dates read from stored text would keep its creator's order: refused.
    let (code, msg) = expect_error(
        &s.kpg,
        "CREATE VIEW av AS SELECT ('{' || t || '}')::date[] AS a FROM texts",
    )
    .await;
    assert_eq!(code, "0A000", "{msg}");
    s.exec("SET DateStyle = 'ISO, DMY'").await;
    s.exec("CREATE VIEW pv2 AS SELECT k, d, iv FROM pv WHERE d > '1/1/2023'")
        .await;
    for (date_style, interval_style) in [
        ("ISO, MDY", "postgres"),
        ("ISO, DMY", "postgres"),
        ("SQL, YMD", "sql_standard"),
        ("German", "sql_standard"),
    ] {
        s.exec(&format!("SET DateStyle = '{date_style}'")).await;
        s.exec(&format!("SET IntervalStyle = '{interval_style}'"))
            .await;
        s.check_or_error("SELECT * FROM pv").await;
        s.check_or_error("SELECT * FROM pv2").await;
        s.exec("INSERT INTO texts VALUES (3, '11/12/2024', '-2 1:00')")
            .await;
        s.check_or_error("SELECT k, d FROM pv WHERE iv < '0'").await;
        s.exec("DELETE FROM texts WHERE k = 3").await;
    }
}
