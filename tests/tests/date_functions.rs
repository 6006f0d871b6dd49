//! make_date, justify_days, justify_hours, justify_interval and age(timestamp, timestamp)
//! of issue 21 compared with a real PostgreSQL: over table data (evaluated by dataflows) with
//! NULLs and signs mixed, over constants, in a materialized view kept through writes, and
//! their errors by SQLSTATE. Calls PostgreSQL resolves to age(timestamptz, timestamptz) (two
//! dates, unknown literals) are compared too; age of one argument (measured from the current
//! date) must be refused with 0A000.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE d (k int, y int, m int, dd int, iv interval, a timestamp, b timestamp, dt date)")
        .await;
    s.exec(
        "INSERT INTO d VALUES \
         (1, 2024, 2, 29, '65 days 30:00:00', '2020-03-01', '2020-01-31', '2020-02-29'), \
         (2, -44, 3, 15, '1 mon -65 days', '2020-01-31', '2020-03-01 12:00', '1999-12-31'), \
         (3, 1, 1, 1, '-1 mon 40 days -50:00:00', '2001-05-31 23:59:59.5', '2000-06-30 00:00:00.75', '2000-03-01'), \
         (4, 1999, 12, 31, '1 year -1 day 23:00:00', '1900-02-28', '2000-02-29', '1900-03-01'), \
         (5, NULL, 1, 1, NULL, NULL, '2020-01-01', NULL), \
         (6, 2023, 11, 30, '-29 days -23:59:59.999999', '2023-03-31 01:00', '2023-02-28 02:00', '2023-01-31'), \
         (7, 5874, 6, 1, '-3 mons 95 days 01:00', '0044-03-15', '2024-01-01', '0001-01-01')",
    )
    .await;
    (kpg, pg, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn date_functions_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    let queries = [
        "SELECT k, make_date(y, m, dd), make_date(y, 1, 1), make_date(2000, m, 1) FROM d",
        "SELECT k, justify_days(iv), justify_hours(iv), justify_interval(iv), \
         justify_interval(-iv), justify_days(-iv), justify_hours(-iv) FROM d",
        "SELECT k, age(a, b), age(b, a), age(a, dt), age(dt, b), age(a, '2000-01-01'), \
         age(a, a) FROM d",
        "SELECT k FROM d WHERE age(a, b) > interval '1 mon' OR make_date(y, m, dd) < dt",
    ];
    for q in queries {
        s.check(q).await;
    }
    s.check(
        "SELECT make_date(2013, 7, 15), make_date(-1, 12, 31), justify_days(interval '35 days'), \
         justify_hours(interval '27 hours'), justify_interval(interval '1 mon -1 hour'), \
         age(timestamp '2001-04-10', timestamp '1957-06-13'), \
         age(timestamp '2000-02-29', date '1999-02-28'), make_date(NULL, 1, 1), justify_days(NULL), \
         age(NULL::timestamp, NULL)",
    )
    .await;
    s.create_view(
        "dv",
        "SELECT k, make_date(y, m, dd) AS md, justify_interval(iv) AS ji, age(a, b) AS ab, \
         justify_hours(iv) AS jh FROM d",
    )
    .await;
    for w in [
        "INSERT INTO d VALUES (8, 2016, 2, 29, '100 days 100:00', '2016-03-31', '2016-02-29', '2016-01-01')",
        "UPDATE d SET iv = iv * 2, a = a + interval '40 days' WHERE k < 4",
        "DELETE FROM d WHERE k = 2",
    ] {
        s.exec(w).await;
        s.check_view("dv").await;
    }
    for e in [
        "SELECT make_date(2023, 2, 29)",
        "SELECT make_date(0, 1, 1)",
        "SELECT make_date(2023, 13, 1)",
        "SELECT make_date(y, m, dd + 40) FROM d",
        "SELECT make_date(2023, 1, 1.5)",
        "SELECT make_date(2023, 1)",
        "SELECT justify_days(1)",
        "SELECT justify_days(interval '2147483647 mons 30 days')",
        "SELECT justify_hours(interval '2147483647 days 24:00:00')",
        "SELECT justify_interval(interval '2147483647 mons 30 days')",
        "SELECT age(k, k) FROM d",
        "SELECT age(a, 1) FROM d",
    ] {
        s.check_error(e).await;
    }
    // Dates and unknown literals resolve to age(timestamptz, timestamptz), as in PostgreSQL.
    s.check("SELECT k, age(dt, dt), age(dt, date '2019-01-31') FROM d ORDER BY k")
        .await;
    s.check("SELECT age('2020-01-01', '2019-01-01')").await;
    for q in ["SELECT age(a) FROM d", "SELECT age(date '2020-01-01')"] {
        let (code, msg) = expect_error(&s.kpg, q).await;
        assert_eq!(code, "0A000", "{q}: {msg}");
        simple(&s.pg, q).await.expect("PostgreSQL answers it");
    }
    s.check("SELECT 1").await;
}

/// Seeded random timestamps and intervals: age both ways and the justify functions of every
/// sign combination, compared with PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_ages_and_justifications_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE z (id int, a timestamp, b timestamp, iv interval)")
        .await;
    let mut seed: u64 = 0xdead_beef_cafe_f00d;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut rows = Vec::new();
    for id in 0..200 {
        let mut ts = || {
            let month = 1 + next(12);
            let days = match month {
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            format!(
                "'{:04}-{month:02}-{:02} {:02}:{:02}:{:02}.{:06}'",
                1 + next(2400),
                1 + next(days),
                next(24),
                next(60),
                next(60),
                next(1_000_000)
            )
        };
        let (a, b) = (ts(), ts());
        let signed = |v: u64, n: u64| v as i64 - (n / 2) as i64;
        let iv = format!(
            "'{} mons {} days {} microseconds'",
            signed(next(400), 400),
            signed(next(2000), 2000),
            signed(next(1 << 40), 1 << 40)
        );
        rows.push(format!("({id}, {a}, {b}, {iv})"));
    }
    s.exec(&format!("INSERT INTO z VALUES {}", rows.join(", ")))
        .await;
    s.check("SELECT id, age(a, b), age(b, a), age(a, date_trunc('month', a)) FROM z")
        .await;
    s.check(
        "SELECT id, justify_days(iv), justify_hours(iv), justify_interval(iv), \
         justify_interval(-iv), justify_interval(justify_hours(iv)) FROM z",
    )
    .await;
}
