//! `timestamp with time zone`, the session's `TimeZone`, `now()` and its friends, and the
//! `DateStyle` and `IntervalStyle` output styles (issue 21), compared text for text with a
//! real PostgreSQL: constants and table data (evaluated by dataflows) under several zones and
//! styles, the DST changes of America/New_York (2024-03-10) and Europe/Paris (2024-10-27), a
//! materialized view over a timestamptz column kept through writes, parameters of the
//! extended protocol in text and binary, COPY TO, and what kpg refuses (0A000) or PostgreSQL
//! rejects (its SQLSTATE).

use kpg_tests::*;

/// `COPY ... FROM STDIN` of `data` on a client.
async fn copy_in(c: &tokio_postgres::Client, sql: &str, data: &str) {
    use futures::SinkExt;
    let sink = c.copy_in(sql).await.expect("COPY FROM starts");
    let mut sink = Box::pin(sink);
    sink.send(bytes::Bytes::copy_from_slice(data.as_bytes()))
        .await
        .expect("COPY data");
    sink.as_mut().finish().await.expect("COPY FROM ends");
}

/// The COPY TO STDOUT output of `sql` on a client, as lines.
async fn copy_out_lines(c: &tokio_postgres::Client, sql: &str) -> Vec<String> {
    use futures::StreamExt;
    let stream = c
        .copy_out(sql)
        .await
        .unwrap_or_else(|e| panic!("`{sql}`: {}", describe_error(&e)));
    let mut stream = Box::pin(stream);
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        bytes.extend_from_slice(&chunk.expect("copy data"));
    }
    String::from_utf8(bytes)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE e (k int, t timestamptz, l timestamp, d date, iv interval)")
        .await;
    s.exec(
        "INSERT INTO e VALUES \
         (1, '2024-03-10 06:59:59+00', '2024-03-10 01:30', '2024-03-10', '1 day'), \
         (2, '2024-03-10 07:00:00+00', '2024-03-10 02:30', '2024-03-09', '24 hours'), \
         (3, '2024-10-27 00:30:00+00', '2024-10-27 02:30', '2024-10-27', '1 mon -1 day'), \
         (4, '2024-10-27 01:30:00.25+00', '2024-11-03 01:30', '2024-11-03', '-1 day 03:00'), \
         (5, '1999-12-31 23:59:59.999999+00', '2000-01-01 00:00', '2000-01-01', '1 year 2 mons'), \
         (6, NULL, NULL, NULL, NULL), \
         (7, '2024-02-29 12:00:00-05', '2024-02-29 12:00', '2024-02-29', '-3 days -04:05:06.5')",
    )
    .await;
    (kpg, pg, s)
}

const ZONES: &[&str] = &[
    "'UTC'",
    "'America/New_York'",
    "'Europe/Paris'",
    "'+02'",
    "'UTC+3'",
    "'Asia/Kolkata'",
    "-7",
    "INTERVAL '+05:30' HOUR TO MINUTE",
];

/// Queries whose results depend on the session's zone (and style): over constants and over
/// the table.
const ZONED_QUERIES: &[&str] = &[
    "SELECT timestamptz '2024-03-10 12:00:00+02', timestamptz '2024-03-10 12:00 Europe/Paris', \
     timestamptz '2024-03-10 12:00 UTC', timestamptz '2024-03-10 12:00', \
     timestamptz '2024-03-10 02:30', timestamptz '2024-11-03 01:30', \
     timestamptz '2024-10-27 02:30', timestamptz '2024-01-01 00:00 EST', \
     timestamptz '2024-07-01 00:00 CEST', timestamptz '2024-01-01 00:00 UTC+3'",
    "SELECT k, t, l, d, t::timestamp, t::date, l::timestamptz, d::timestamptz, t::text FROM e",
    "SELECT k, t + iv, t - iv, t + interval '1 day', t - interval '1 mon', \
     t + interval '24 hours' FROM e",
    "SELECT k, date_trunc('day', t), date_trunc('hour', t), date_trunc('month', t), \
     date_trunc('week', t), date_trunc('day', t, 'Europe/Paris') FROM e",
    "SELECT k, extract(hour FROM t), extract(day FROM t), extract(epoch FROM t), \
     date_part('dow', t), date_part('doy', t), extract(microseconds FROM t) FROM e",
    "SELECT k, extract(timezone FROM t), extract(timezone_hour FROM t), \
     extract(timezone_minute FROM t), date_part('timezone_m', t) FROM e",
    "SELECT k, t AT TIME ZONE 'America/New_York', l AT TIME ZONE 'Europe/Paris', \
     timezone('UTC', t), timezone('Asia/Tokyo', l), t AT TIME ZONE 'EST', \
     l AT TIME ZONE '+02', t AT TIME ZONE 'UTC+3' FROM e",
    "SELECT k, t - timestamptz '2024-01-01 00:00+00', t > l, t = d, l < t FROM e",
    "SELECT min(t), max(t), count(DISTINCT t) FROM e",
    "SELECT date_trunc('day', t) AS day, count(*) FROM e GROUP BY 1",
    "SELECT k, t FROM e ORDER BY t DESC NULLS LAST, k",
    "SELECT * FROM generate_series(timestamptz '2024-03-09 00:00', \
     timestamptz '2024-03-12 00:00', interval '1 day')",
    "SELECT * FROM generate_series(timestamptz '2024-10-26 00:00+02', \
     timestamptz '2024-10-28 12:00+01', interval '12 hours')",
    "SELECT to_timestamp(1700000000.5), to_timestamp(0), to_timestamp(-1.25)",
    "SELECT '2024-03-10'::date + interval '1 day' AS a, timestamptz '2024-03-10 12:00' - \
     timestamptz '2024-03-09 12:00' AS b",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zones_and_dst_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for zone in ZONES {
        s.exec(&format!("SET TIME ZONE {zone}")).await;
        s.check("SHOW TimeZone").await;
        s.check("SHOW TIME ZONE").await;
        for q in ZONED_QUERIES {
            s.check(q).await;
        }
    }
    for zone in [
        "'America/New_York'",
        "'europe/paris'",
        "'<+0330>-03:30'",
        "'EST5EDT'",
        "'+05:30'",
        "'-5:30'",
        "'3'",
    ] {
        s.exec(&format!("SET TimeZone = {zone}")).await;
        s.check("SHOW TimeZone").await;
        s.check(ZONED_QUERIES[1]).await;
    }
    s.exec("RESET TimeZone").await;
    s.check("SHOW TimeZone").await;
    // The catalog describes timestamptz columns as PostgreSQL does.
    s.exec("CREATE TABLE tz3 (a timestamptz, b timestamptz(3), c timestamp with time zone)")
        .await;
    s.check(
        "SELECT column_name, data_type, datetime_precision FROM information_schema.columns \
         WHERE table_name = 'tz3' ORDER BY ordinal_position",
    )
    .await;
    s.check(
        "SELECT attname, format_type(atttypid, atttypmod), attlen FROM pg_attribute a \
         JOIN pg_class c ON a.attrelid = c.oid WHERE c.relname = 'tz3' AND attnum > 0 \
         ORDER BY attnum",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn datestyles_and_interval_styles_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    let shown = "SELECT k, t, l, d, iv FROM e";
    for style in [
        "ISO",
        "SQL",
        "Postgres",
        "German, MDY",
        "SQL, MDY",
        "ISO, US",
    ] {
        s.exec(&format!("SET DateStyle = '{style}'")).await;
        s.check("SHOW DateStyle").await;
        for zone in ["UTC", "'America/New_York'", "'+02'", "'Asia/Kolkata'"] {
            s.exec(&format!("SET TIME ZONE {zone}")).await;
            s.check(shown).await;
            s.check(ZONED_QUERIES[0]).await;
            s.check("SELECT date '0044-03-15', timestamp '2024-01-02 03:04:05.06'")
                .await;
        }
    }
    s.exec("SET DateStyle = ISO").await;
    for style in ["postgres", "postgres_verbose", "iso_8601", "Postgres"] {
        s.exec(&format!("SET IntervalStyle = {style}")).await;
        s.check("SHOW IntervalStyle").await;
        s.check("SELECT k, iv, -iv, justify_hours(iv) FROM e").await;
        s.check(
            "SELECT interval '0', interval '1 sec', interval '-1 sec', interval '-0.5 sec', \
             interval '1 year -1 mon', interval '-1 day +02:00', interval 'P1Y2M3DT4H5M6.7S', \
             interval '@ 1 day ago', interval '1-2', interval '3 4:05:06'",
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn materialized_view_over_timestamptz_follows_writes() {
    let (_kpg, _pg, s) = setup().await;
    let queries = [
        "SELECT k, t, t + interval '1 day' AS next, date_trunc('day', t) AS day, \
         extract(hour FROM t) AS h, t::date AS td FROM e",
        "SELECT date_trunc('month', t) AS m, count(*), min(t), max(t) FROM e GROUP BY 1",
        "SELECT k FROM e WHERE t > timestamptz '2024-03-10 00:00+00'",
    ];
    s.check_through_writes(
        &queries,
        "tzv",
        &[
            "INSERT INTO e VALUES (8, '2024-03-31 01:30+00', '2024-03-31 02:30', '2024-03-31', '1 day')",
            "DELETE FROM e WHERE k = 1",
            "INSERT INTO e VALUES (9, '2024-12-31 23:00-02', NULL, NULL, NULL), \
             (10, '2024-03-10 12:00', NULL, NULL, NULL)",
            "UPDATE e SET t = t + interval '1 mon' WHERE k < 5",
            "DELETE FROM e WHERE t < timestamptz '2024-03-11'",
        ],
    )
    .await;
    // A session elsewhere reads the view's instants in its own zone (what the view computed
    // from local times stays UTC's, as a PostgreSQL view refreshed in UTC would).
    s.exec("SET TimeZone = 'America/New_York'").await;
    s.check("SELECT k, t FROM tzv0").await;
    // The view is maintained in UTC, so a session in another zone may not create one.
    let (code, msg) = expect_error(
        &s.kpg,
        "CREATE MATERIALIZED VIEW ny AS SELECT date_trunc('day', t) FROM e",
    )
    .await;
    assert_eq!(code, "0A000", "{msg}");
    s.check_error("CREATE INDEX ON e ((t::date))").await;
    // Zone-free expressions of timestamptz may be maintained in any zone.
    s.create_view(
        "plain_tz",
        "SELECT k, t, t - timestamptz '2024-01-01 00:00+00' AS since FROM e",
    )
    .await;
    s.check_view("plain_tz").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn current_time_functions() {
    let (kpg, _pg, s) = setup().await;
    let c = &s.kpg;
    for q in [
        "SELECT now() = current_timestamp, now() = transaction_timestamp(), \
         now() <= statement_timestamp(), statement_timestamp() <= clock_timestamp()",
        "SELECT now() > timestamptz '2024-01-01', current_date = now()::date, \
         localtimestamp = now()::timestamp, current_timestamp(0) <= now() + interval '1 sec'",
        "SELECT abs(extract(epoch FROM now() - clock_timestamp())) < 60",
    ] {
        let rows = query(c, q).await;
        assert!(
            rows.iter().flatten().all(|v| v.as_deref() == Some("t")),
            "{q}: {rows:?}"
        );
    }
    // now() is the transaction's start: equal across a block's statements.
    execute(c, "BEGIN").await;
    let first = query(c, "SELECT now()::text").await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let second = query(c, "SELECT now()::text, statement_timestamp() > now()").await;
    execute(c, "COMMIT").await;
    assert_eq!(first[0][0], second[0][0]);
    assert_eq!(second[0][1].as_deref(), Some("t"));
    // In a view maintained by a dataflow, they are refused as random() is.
    for q in [
        "CREATE MATERIALIZED VIEW nv AS SELECT k, now() FROM e",
        "CREATE MATERIALIZED VIEW nv AS SELECT k FROM e WHERE t > now() - interval '1 day'",
        "CREATE MATERIALIZED VIEW nv AS SELECT clock_timestamp()",
        "SELECT current_time",
    ] {
        let (code, msg) = expect_error(c, q).await;
        assert_eq!(code, "0A000", "{q}: {msg}");
    }
    drop(kpg);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_and_refusals() {
    let (_kpg, _pg, s) = setup().await;
    for e in [
        "SET TimeZone = 'Foo/Bar'",
        "SET TimeZone = 'PST'",
        "SET TIME ZONE INTERVAL '1 day'",
        "SET DateStyle = 'ISO, SQL'",
        "SET DateStyle = 'nonsense'",
        "SET IntervalStyle = 'nonsense'",
        "SELECT timestamptz '2024-01-01 00:00' AT TIME ZONE 'Foo/Bar'",
        "SELECT timestamptz 'not a time'",
        "SELECT timestamptz '2024-02-30 00:00'",
        "SELECT timestamptz '2024-01-01 00:00+16'",
        "SELECT date_trunc('bogus', t) FROM e",
        "SELECT to_timestamp('NaN'::float8)",
        "SELECT date_trunc('dow', t) FROM e",
        "SELECT date_trunc('timezone', t) FROM e",
        "SELECT date_trunc('epoch', l) FROM e",
        "SELECT date_trunc('timezone', l) FROM e",
        "SELECT date_trunc('week', iv) FROM e",
        "SELECT date_trunc('dow', iv) FROM e",
        "SELECT extract(timezone FROM l) FROM e",
        "SELECT interval '1 timezone'",
    ] {
        s.check_error(e).await;
    }
    // Text made inside a query keeps the default styles, so it is refused in the others.
    s.exec("SET DateStyle = SQL").await;
    let (code, msg) = expect_error(&s.kpg, "SELECT d::text FROM e").await;
    assert_eq!(code, "0A000", "{msg}");
    s.exec("SET DateStyle = ISO").await;
    s.check("SELECT 1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameters_and_copy() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("SET TimeZone = 'Europe/Paris'").await;
    let mut texts = Vec::new();
    for c in [&s.kpg, &s.pg] {
        let stmt = c
            .prepare_typed(
                "SELECT $1::timestamptz + interval '1 day', $2::timestamptz",
                &[
                    tokio_postgres::types::Type::TEXT,
                    tokio_postgres::types::Type::TEXT,
                ],
            )
            .await
            .expect("prepare");
        let rows = c
            .query(&stmt, &[&"2024-10-26 12:00", &"2024-10-27 02:30+00"])
            .await
            .expect("text parameters");
        let got: Vec<std::time::SystemTime> = (0..2).map(|i| rows[0].get(i)).collect();
        texts.push(got);
    }
    assert_eq!(texts[0], texts[1]);
    // The same values through both servers, binary in and out.
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_micros(1_729_990_800_250_000);
    let mut seen = Vec::new();
    for c in [&s.kpg, &s.pg] {
        let rows = c
            .query(
                "SELECT $1::timestamptz + interval '1 day', $1::timestamptz::text",
                &[&t],
            )
            .await
            .expect("binary parameter");
        let plus: std::time::SystemTime = rows[0].get(0);
        let text: String = rows[0].get(1);
        seen.push((plus, text));
    }
    assert_eq!(seen[0], seen[1]);
    // COPY FROM reads text without a zone in the session's zone.
    s.exec("SET TimeZone = 'America/New_York'").await;
    let data = "20\t2024-03-10 02:30\n21\t2024-11-03 01:30-04\n22\t2024-11-03 01:30\n";
    for c in [&s.kpg, &s.pg] {
        copy_in(c, "COPY e (k, t) FROM STDIN", data).await;
    }
    s.check("SELECT k, t FROM e WHERE k >= 20").await;
    // COPY TO writes values in the session's zone and style.
    s.exec("SET DateStyle = 'SQL'").await;
    s.exec("SET IntervalStyle = iso_8601").await;
    for sql in [
        "COPY (SELECT k, t, l, d, iv FROM e ORDER BY k) TO STDOUT",
        "COPY (SELECT k, t, iv FROM e ORDER BY k) TO STDOUT WITH (FORMAT csv)",
    ] {
        let (k, p) = tokio::join!(copy_out_lines(&s.kpg, sql), copy_out_lines(&s.pg, sql));
        assert_eq!(k, p, "{sql}");
    }
    s.check("SELECT k, t FROM e WHERE t IS NOT NULL").await;
}

/// timestamptz values and a view over them survive a restart (rebuilt without a session, in
/// UTC, as they were created).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_keeps_values_and_views() {
    let (mut kpg, pg, s) = setup().await;
    s.create_view(
        "rv",
        "SELECT k, t, date_trunc('day', t) AS day, t + interval '1 mon' AS later FROM e",
    )
    .await;
    drop(s);
    kpg.restart().await;
    let s = Pair::new(&kpg, &pg).await;
    s.check("SELECT * FROM e").await;
    s.check_view("rv").await;
    s.exec("INSERT INTO e VALUES (30, '2024-10-27 02:30+02', NULL, NULL, NULL)")
        .await;
    s.check_view("rv").await;
}

/// A subscription and a cursor's FETCH write timestamptz values in the session's zone and
/// style, as results do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_and_cursors_follow_the_session() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("SET TimeZone = 'Asia/Tokyo'").await;
    s.exec("SET DateStyle = 'SQL'").await;
    s.exec("BEGIN").await;
    s.exec("DECLARE c CURSOR FOR SELECT k, t FROM e ORDER BY k")
        .await;
    s.check("FETCH ALL c").await;
    s.exec("COMMIT").await;
    let mut sub = Subscription::start(
        &s.kpg,
        "COPY (SUBSCRIBE (SELECT k, t FROM e WHERE k = 2)) TO STDOUT",
    )
    .await
    .expect("subscribe");
    sub.read_until(&[(srow(&["2", "03/10/2024 16:00:00 JST"]), 1)])
        .await;
}

/// The startup packet's `options` set the session's zone and styles, as libpq's `PGOPTIONS`
/// sends them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_options_set_the_zone() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let options = " options='-c TimeZone=America/New_York -c DateStyle=SQL,MDY'";
    let k = connect_to(&format!("{}{options}", kpg.conn_str_as("kpg")))
        .await
        .expect("kpg connects");
    let p = connect_to(&format!("{}{options}", pg.conn_str()))
        .await
        .expect("PostgreSQL connects");
    let sql = "SELECT timestamptz '2024-03-10 12:00+00' AS t";
    let (kr, pr) = tokio::join!(query(&k, sql), query(&p, sql));
    assert_eq!(kr, pr);
    let (kr, pr) = tokio::join!(query(&k, "SHOW TimeZone"), query(&p, "SHOW TimeZone"));
    assert_eq!(kr, pr);
}

/// concat() writes a timestamptz in the session's zone; the text of arrays of them (casts,
/// array_to_string(), concat()) is refused, as kpg would write the elements in UTC.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concat_and_array_text_follow_the_zone() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("SET TimeZone = 'Asia/Tokyo'").await;
    s.check("SELECT concat(timestamptz '2024-01-01 00:00+00', '|', k, t) FROM e")
        .await;
    for q in [
        "SELECT ARRAY[timestamptz '2024-01-01 00:00+00']::text",
        "SELECT array_to_string(ARRAY[timestamptz '2024-01-01 00:00+00'], ',')",
        "SELECT concat(ARRAY[t]) FROM e",
    ] {
        let (code, msg) = expect_error(&s.kpg, q).await;
        assert_eq!(code, "0A000", "{q}: {msg}");
    }
}

/// Plain views created in UTC and read in Tokyo: PostgreSQL evaluates them in the reader's
/// zone, constants included (a typed literal is read when the view is created, a text value
/// cast to timestamptz when it is read).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_views_of_zoned_constants_follow_the_reader() {
    let (_kpg, _pg, s) = setup().await;
    s.exec(
        "CREATE VIEW zc AS SELECT (timestamptz '2024-01-01 00:00+00')::text AS s, \
         extract(hour FROM timestamptz '2024-01-01 00:00+00') AS h, \
         date_trunc('day', timestamptz '2024-01-01 00:00+00') AS d, \
         (timestamptz '2024-01-01 00:00+00')::date AS dt, \
         timestamptz '2024-01-01 00:00' + interval '1 mon' AS lit, \
         '2024-01-01 00:00'::text::timestamptz AS from_text, \
         CAST(CAST('2024-06-01 12:00' AS varchar) AS timestamptz) AS from_varchar",
    )
    .await;
    s.exec("SET TimeZone = 'Asia/Tokyo'").await;
    s.check("SELECT * FROM zc").await;
    s.check("SELECT '2024-01-01 00:00'::text::timestamptz, timestamptz '2024-01-01 00:00'")
        .await;
}

/// Zone-dependent index expressions are not IMMUTABLE (42P17, as PostgreSQL); an index on a
/// plain view that reads the zone would serve every reader one zone's rows (0A000).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zoned_indexes_are_refused() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        "CREATE INDEX ON e ((t::date))",
        "CREATE INDEX ON e ((date_trunc('day', t)))",
        "CREATE INDEX ON e ((extract(hour FROM t)))",
        "CREATE INDEX ON e ((t + interval '1 day'))",
    ] {
        s.check_error(q).await;
    }
    s.exec("CREATE VIEW zt AS SELECT k, t::text AS s FROM e")
        .await;
    let (code, msg) = expect_error(&s.kpg, "CREATE INDEX ON zt (k)").await;
    assert_eq!(code, "0A000", "{msg}");
    s.exec("SET TimeZone = 'Asia/Tokyo'").await;
    s.check("SELECT * FROM zt").await;
}

/// The text of a timestamptz made in a view is written in ISO: refused in other DateStyles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamptz_text_in_other_datestyles_is_refused() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE VIEW zt AS SELECT k, t::text AS s FROM e")
        .await;
    s.exec("SET DateStyle = 'SQL, MDY'").await;
    let (code, msg) = expect_error(&s.kpg, "SELECT * FROM zt").await;
    assert_eq!(code, "0A000", "{msg}");
}

/// A zone's last rule goes on after 2100, where chrono-tz lists no more transitions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zone_rules_go_on_after_2100() {
    let (_kpg, _pg, s) = setup().await;
    for zone in ["'America/New_York'", "'Europe/Paris'", "'Australia/Sydney'"] {
        s.exec(&format!("SET TimeZone = {zone}")).await;
        s.check(
            "SELECT timestamptz '2100-07-01 12:00+00', timestamptz '2100-01-01 12:00+00', \
             timestamptz '2104-03-30 12:00+00', timestamptz '2204-10-30 12:00+00', \
             timestamptz '2150-07-01 12:00', timestamptz '2150-03-14 02:30', \
             (timestamptz '2100-07-01 12:00+00')::timestamp, \
             extract(hour FROM timestamptz '2100-07-01 12:00+00')",
        )
        .await;
    }
}

/// `timestamptz + interval` adds the months, then the days, each resolved in the zone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn months_then_days_in_the_zone() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("SET TimeZone = 'America/New_York'").await;
    s.check(
        "SELECT timestamptz '2024-02-10 02:30' + interval '1 month 1 day', \
         timestamptz '2024-04-11 03:30' - interval '1 month 1 day', \
         timestamptz '2024-10-02 01:30' + interval '1 month 1 day 1 hour'",
    )
    .await;
    s.check("SELECT k, t + interval '1 mon 1 day', t - interval '1 mon 1 day' FROM e")
        .await;
    s.check(
        "SELECT * FROM generate_series(timestamptz '2024-02-09 02:30', \
         timestamptz '2024-06-01', interval '1 month 1 day')",
    )
    .await;
}

/// age() of timestamptz values: field by field on the local times of the session's zone,
/// signed by the instants (PostgreSQL's `timestamptz_age`), chosen for dates, unknown
/// literals and timestamp/timestamptz mixes as PostgreSQL resolves the call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn age_of_timestamptz_in_the_zone() {
    let (_kpg, _pg, s) = setup().await;
    for zone in ["'UTC'", "'America/New_York'", "'Asia/Kolkata'", "'+05:30'"] {
        s.exec(&format!("SET TimeZone = {zone}")).await;
        s.check(
            "SELECT a.k, b.k, age(a.t, b.t), age(a.d, b.d), age(a.l, b.t), age(a.t, b.l) \
             FROM e a, e b ORDER BY 1, 2",
        )
        .await;
        s.check(
            "SELECT age(timestamptz '2024-11-03 01:30-04', timestamptz '2024-11-03 01:10-05'), \
             age('2024-03-01', '2023-01-31'), age(timestamp '2024-03-01', '2023-01-31'), \
             age(timestamptz '2024-03-31 12:00', timestamptz '2024-02-29 13:00')",
        )
        .await;
    }
    s.exec("RESET TimeZone").await;
    s.check_through_writes(
        &["SELECT a.k AS ak, b.k AS bk, age(a.t, b.t) AS g FROM e a, e b"],
        "agev",
        &[
            "INSERT INTO e VALUES (8, '2023-01-31 10:00+00', NULL, NULL, NULL)",
            "DELETE FROM e WHERE k = 1",
        ],
    )
    .await;
}
