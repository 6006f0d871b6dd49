//! `random()`: evaluated anew for every row of an ad hoc query (never folded into one value),
//! usable in INSERT ... SELECT and in plain views read ad hoc, and refused with 0A000 where a
//! dataflow maintains its result (materialized views, indexes, subscriptions), since a row's
//! retraction would not cancel its insertion. `current_date`, `localtimestamp` and `localtime`:
//! one value per statement, in SELECTs, VALUES, defaults and UPDATE, refused in maintained
//! dataflows the same way. Results that do not depend on the values drawn or the clock are
//! compared with PostgreSQL.

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_in_ad_hoc_queries_and_refused_in_maintained_ones() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (id int, v int)").await;
    s.exec("INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)")
        .await;
    for q in [
        "SELECT count(*) FROM generate_series(1, 1000) g WHERE random() >= 0 AND random() < 1",
        // One draw per row, not one per query.
        "SELECT count(DISTINCT r) > 990 FROM (SELECT random() AS r FROM generate_series(1, 1000) g) k",
        "SELECT id, random() < 1.0 AS below_one FROM t ORDER BY id",
        "SELECT count(*) FROM t WHERE v * random() <= v",
    ] {
        s.check(q).await;
    }
    // Written once, the drawn values are ordinary data.
    s.exec("CREATE TABLE draws (g int, d int)").await;
    s.exec_each(
        "INSERT INTO draws SELECT g, floor(random() * 10)::int FROM generate_series(1, 200) g",
        "INSERT INTO draws SELECT g, floor(random() * 10)::int FROM generate_series(1, 200) g",
    )
    .await;
    s.check("SELECT count(*), min(d) >= 0, max(d) <= 9 FROM draws")
        .await;
    // A plain view is planned into its readers: read ad hoc, it draws like a SELECT.
    s.exec("CREATE VIEW noisy AS SELECT id, random() AS r FROM t")
        .await;
    s.check("SELECT count(*) FROM noisy WHERE r < 1").await;
    for refused in [
        "CREATE MATERIALIZED VIEW m AS SELECT id, random() AS r FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT id FROM t WHERE random() < 0.5",
        "CREATE MATERIALIZED VIEW m AS SELECT * FROM noisy",
        "CREATE INDEX noisy_id ON noisy (id)",
    ] {
        let (code, msg) = expect_error(&s.kpg, refused).await;
        assert_eq!(code, "0A000", "{refused}: {msg}");
        assert!(msg.contains("random()"), "{refused}: {msg}");
    }
    let (code, msg) = expect_error(
        &s.kpg,
        "COPY (SUBSCRIBE (SELECT id, random() FROM t)) TO STDOUT",
    )
    .await;
    assert_eq!(code, "0A000", "{msg}");
    // Names read as OIDs as they run hold the catalog of the plan: not maintained either.
    let (code, msg) = expect_error(
        &s.kpg,
        "CREATE MATERIALIZED VIEW m AS SELECT id, to_regclass(id::text) FROM t",
    )
    .await;
    assert_eq!(code, "0A000", "{msg}");
    assert!(msg.contains("regclass"), "{msg}");
    // Nothing was created by the refused statements.
    s.check("SELECT count(*) FROM noisy").await;
    let (code, _) = expect_error(&s.kpg, "SELECT * FROM m").await;
    assert_eq!(code, "42P01");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_time_functions() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE d (id int, at date DEFAULT current_date, ts timestamp)")
        .await;
    s.exec("INSERT INTO d (id) VALUES (1)").await;
    s.exec("INSERT INTO d VALUES (2, current_date, localtimestamp)")
        .await;
    s.exec("INSERT INTO d SELECT 3, current_date - 1, localtimestamp")
        .await;
    s.exec("UPDATE d SET ts = localtimestamp WHERE id = 1")
        .await;
    for q in [
        // One value for the whole statement.
        "SELECT count(DISTINCT localtimestamp), count(DISTINCT current_date), \
         count(DISTINCT localtime) FROM generate_series(1, 500) g",
        "SELECT current_date + 1 - current_date, localtimestamp - localtimestamp, \
         localtime - localtime, extract(year FROM current_date) >= 2024",
        "SELECT id, at = current_date AS today, ts <= localtimestamp AS past FROM d ORDER BY id",
        "SELECT id FROM d WHERE at < current_date",
        "SELECT count(DISTINCT ts) FROM d WHERE id IN (2, 3)",
    ] {
        s.check(q).await;
    }
    s.exec("CREATE VIEW today AS SELECT id FROM d WHERE at = current_date")
        .await;
    s.check("SELECT * FROM today").await;
    for refused in [
        "CREATE MATERIALIZED VIEW m AS SELECT id FROM d WHERE at = current_date",
        "CREATE MATERIALIZED VIEW m AS VALUES (localtimestamp)",
        "CREATE INDEX today_id ON today (id)",
    ] {
        let (code, msg) = expect_error(&s.kpg, refused).await;
        assert_eq!(code, "0A000", "{refused}: {msg}");
        assert!(msg.contains("current_date"), "{refused}: {msg}");
    }
    // now() and current_timestamp (timestamp with time zone; tests/timestamptz.rs) are the
    // transaction's start, as current_date is.
    s.check("SELECT now() = current_timestamp AS same, now()::date = current_date AS today")
        .await;
}

/// A volatile predicate is evaluated once per row where the query puts it, as PostgreSQL does,
/// not once per row of an input it was moved into: the counts of rows it keeps follow one
/// draw per output row (each check holds in PostgreSQL but for odds below 1e-9).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn volatile_predicates_are_drawn_per_row_where_they_stand() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for q in [
        // Reads no column: not moved below the function scan (it was drawn once: 0 or 1000).
        "SELECT count(*) BETWEEN 300 AND 700 FROM generate_series(1, 1000) g WHERE random() < 0.5",
        // Nor into one input of a join (drawn once per row of the one-row input).
        "SELECT count(*) BETWEEN 300 AND 700 FROM (VALUES (1)) a(x) \
         JOIN generate_series(1, 1000) g ON true WHERE random() < 0.5",
        // HAVING keeps or drops whole groups, one draw each (below the grouping it was one
        // draw per input row, keeping a two-row group three times in four).
        "SELECT count(*) BETWEEN 175 AND 325 FROM \
         (SELECT g % 500 AS k FROM generate_series(1, 1000) g GROUP BY g % 500 \
          HAVING random() < 0.5) s",
        // An IN list's operand is drawn once, not once per item; the list's literals take
        // its type, and the statement's time is one value (no array needed).
        "SELECT count(*) FROM generate_series(1, 300) g \
         WHERE floor(random() * 2 + g * 0)::int IN (0, 1)",
        "SELECT gen_random_uuid() IN ('00000000-0000-0000-0000-000000000000', \
         '11111111-1111-1111-1111-111111111111'), random() IN (NULL, NULL), \
         random() NOT IN (2, 3.5), current_date IN ('2024-01-01', '2024-01-02')",
        // A simple CASE's operand written in a subquery is one value per row: every row
        // takes a branch.
        "SELECT count(*) FILTER (WHERE c IS NULL) FROM (SELECT CASE x WHEN 0 THEN 'a' \
         WHEN 1 THEN 'b' WHEN 2 THEN 'c' END AS c FROM (SELECT floor(random() * 3) AS x \
         FROM generate_series(1, 2000)) s) t",
        // The statement's time is one value: the comparisons may repeat it.
        "SELECT CASE current_date WHEN current_date THEN 'today' END",
    ] {
        s.check(q).await;
    }
    // Written in place, PostgreSQL draws the operand once and kpg would draw it at each WHEN
    // (rows matching none): refused, with the rewrite that works in the detail.
    let (code, msg) = expect_error(
        &s.kpg,
        "SELECT CASE floor(random() * 3) WHEN 0 THEN 'a' WHEN 1 THEN 'b' END \
         FROM generate_series(1, 10)",
    )
    .await;
    assert_eq!(code, "0A000", "{msg}");
    assert!(msg.contains("CASE with an operand"), "{msg}");
    // NULLIF compares and returns its first argument: two draws (kpg found 235 zeros of 1000
    // where PostgreSQL finds none). Refused.
    let (code, msg) = expect_error(
        &s.kpg,
        "SELECT nullif(floor(random() * 2), 0) FROM generate_series(1, 10)",
    )
    .await;
    assert_eq!(code, "0A000", "{msg}");
    s.check("SELECT nullif(current_date, current_date), nullif(1, 2)")
        .await;
    // An outer join's matched pairs and unmatched rows are computed apart: an ON condition
    // that draws per call would be drawn for each (kpg found 981 rows of a LEFT JOIN that
    // must keep all 1000). Refused; an inner join draws once per pair, as PostgreSQL.
    for kind in ["LEFT", "RIGHT", "FULL"] {
        let (code, msg) = expect_error(
            &s.kpg,
            &format!(
                "SELECT count(*) FROM generate_series(1, 1000) a {kind} JOIN \
                 generate_series(1, 1) b ON random() < 0.5"
            ),
        )
        .await;
        assert_eq!(code, "0A000", "{kind}: {msg}");
    }
    s.check(
        "SELECT count(*) BETWEEN 300 AND 700 FROM generate_series(1, 1000) a \
         JOIN generate_series(1, 1) b ON random() < 0.5",
    )
    .await;
    // An equality that draws at each call is evaluated per joined pair, not made a join key
    // drawn once per input row (which matched every row of the one-row side exactly once).
    let mut counts = Vec::new();
    for _ in 0..10 {
        let rows = query(
            &s.kpg,
            "SELECT count(*) FROM generate_series(1, 1000) a(x) \
             JOIN (VALUES (0)) b(y) ON a.x = b.y + ceil(random() * 1000)::int",
        )
        .await;
        counts.push(rows[0][0].clone());
    }
    assert!(
        counts.iter().any(|c| c.as_deref() != Some("1")),
        "one match every time: {counts:?}"
    );
}
