//! Issue 20: temporal filters. `mz_now()` is the logical time (ms) at which a query is
//! evaluated; WHERE conjuncts comparing it with the row keep each row in a time window, which
//! a maintained view keeps by scheduling the row's entry and exit.
//!
//! The oracle is a reference evaluated from the data at each read's own time: an ad hoc read
//! returns `mz_now()` (its timestamp) beside the rows, and a subscription reports each change
//! at its `mz_timestamp`, which must be exactly the bound the row crosses. Windows are placed
//! a second or two after the test's start, so each test runs for a few seconds.

use std::collections::BTreeMap;
use std::time::Duration;

use kpg_tests::*;

/// The read's logical time, as `mz_now()` gives it.
async fn mz_now(c: &tokio_postgres::Client) -> u64 {
    let rows = query(c, "SELECT mz_now()").await;
    cell(&rows[0][0]).parse().expect("mz_now() is a number")
}

/// The rows of `(id, from, to)` present at time `t`: `from <= t < to`, a NULL bound never.
fn reference(data: &BTreeMap<i64, (Option<u64>, Option<u64>)>, t: u64) -> Vec<i64> {
    data.iter()
        .filter(|(_, (from, to))| match (from, to) {
            (Some(f), Some(u)) => *f <= t && t < *u,
            _ => false,
        })
        .map(|(id, _)| *id)
        .collect()
}

fn opt(v: Option<u64>) -> String {
    v.map_or("NULL".into(), |v| v.to_string())
}

/// A subscription to a materialized view with both bounds shows each row enter at its lower
/// bound (or at the snapshot, if it is already in) and leave at its upper bound, exactly;
/// rows whose window is empty, past or NULL never appear; a delete retracts a row that is in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscription_sees_rows_enter_and_leave_at_their_bounds() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(
        &c,
        "CREATE TABLE ev (id int, valid_from bigint, valid_to bigint)",
    )
    .await;
    execute(
        &c,
        "CREATE MATERIALIZED VIEW live AS SELECT id FROM ev \
         WHERE mz_now() >= valid_from AND mz_now() < valid_to",
    )
    .await;
    let b = mz_now(&c).await;
    let mut data: BTreeMap<i64, (Option<u64>, Option<u64>)> = BTreeMap::new();
    data.insert(1, (Some(b - 5000), Some(b + 60_000))); // in throughout
    data.insert(2, (Some(b + 1500), Some(b + 3000))); // enters, then leaves
    data.insert(3, (Some(b - 5000), Some(b + 2000))); // in at first, then leaves
    data.insert(4, (Some(b + 2500), None)); // NULL bound: never
    data.insert(5, (Some(b + 1000), Some(b + 1000))); // empty window: never
    data.insert(6, (Some(b + 2200), Some(b + 100_000))); // enters, stays
    data.insert(7, (Some(b - 10_000), Some(b - 5000))); // already over: never
    data.insert(8, (Some(b + 1800), Some(b + 60_000))); // enters, then deleted
    let values: Vec<String> = data
        .iter()
        .map(|(id, (f, t))| format!("({id}, {}, {})", opt(*f), opt(*t)))
        .collect();
    execute(&c, &format!("INSERT INTO ev VALUES {}", values.join(", "))).await;

    let sub_client = kpg.connect().await;
    let mut sub = Subscription::start(&sub_client, "COPY (SUBSCRIBE live) TO STDOUT")
        .await
        .unwrap();
    let first = sub.next_row().await;
    let snapshot_ts = first.ts;
    assert!(
        snapshot_ts < b + 1000,
        "the test started too late: {snapshot_ts} vs {b}"
    );
    // What the subscription must show up to b + 3000 (row 8's deletion comes later).
    let horizon = b + 3000;
    let mut want: Vec<(u64, i64, i64)> = Vec::new();
    for (id, (from, to)) in &data {
        let (Some(f), Some(u)) = (*from, *to) else {
            continue;
        };
        let enter = f.max(snapshot_ts);
        if enter >= u {
            continue;
        }
        want.push((enter, *id, 1));
        if u <= horizon && *id != 8 {
            want.push((u, *id, -1));
        }
    }
    want.sort();

    let mut got: Vec<(u64, i64, i64)> = Vec::new();
    let parse = |r: &SubRow| (r.ts, cell(&r.cols[0]).parse::<i64>().unwrap(), r.diff);
    got.push(parse(&first));
    let mut deleted = false;
    let mut delete_after = 0;
    loop {
        let done = deleted && want.iter().all(|w| got.contains(w));
        let wait = if done {
            Duration::from_millis(600)
        } else {
            Duration::from_secs(10)
        };
        match sub.try_next(wait).await {
            Ok(Some(r)) => {
                let g = parse(&r);
                // Once row 8 is in, delete it: it must leave at the delete's time.
                if g.1 == 8 && g.2 == 1 && !deleted {
                    execute(&c, "DELETE FROM ev WHERE id = 8").await;
                    deleted = true;
                    delete_after = g.0;
                }
                got.push(g);
            }
            Err(NextError::Timeout) if done => break,
            other => panic!("subscription: {other:?}; got {got:?}, want {want:?}"),
        }
    }
    let (early, late): (Vec<_>, Vec<_>) = got.iter().partition(|g| g.0 <= horizon && g.1 != 8);
    let mut early: Vec<(u64, i64, i64)> = early.into_iter().copied().collect();
    early.sort();
    let mut want_early: Vec<_> = want.iter().copied().filter(|w| w.1 != 8).collect();
    want_early.sort();
    assert_eq!(early, want_early, "changes up to {horizon} (b = {b})");
    // Row 8: in at its lower bound, out at the delete's time (after it was seen), and
    // nothing else later than the horizon.
    let eight: Vec<_> = got.iter().filter(|g| g.1 == 8).copied().collect();
    assert_eq!(eight.len(), 2, "row 8: {eight:?}");
    assert_eq!(eight[0], (b + 1800, 8, 1), "row 8 enters at its bound");
    assert!(
        eight[1].0 > delete_after && eight[1].2 == -1,
        "row 8: {eight:?}"
    );
    let others_late: Vec<_> = late.into_iter().filter(|g| g.1 != 8).collect();
    assert!(
        others_late.is_empty(),
        "unexpected changes: {others_late:?}"
    );
}

/// Reads of a plain view, a materialized view and an ad hoc SELECT with temporal filters at
/// many times each equal the reference at the read's own time (`mz_now()` in the same read),
/// for each comparison operator, bounds over bigint milliseconds and over timestamptz.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_at_many_times_match_the_reference() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(
        &c,
        "CREATE TABLE w (id int, start_ms bigint, ts timestamptz)",
    )
    .await;
    let b = mz_now(&c).await;
    // Rows starting every 150 ms from b - 600 on; one with a NULL start.
    let mut starts: BTreeMap<i64, Option<u64>> = BTreeMap::new();
    for k in 0..24i64 {
        starts.insert(k, Some(b - 600 + (k as u64) * 150));
    }
    starts.insert(99, None);
    let values: Vec<String> = starts
        .iter()
        .map(|(id, s)| format!("({id}, {})", opt(*s)))
        .collect();
    execute(
        &c,
        &format!("INSERT INTO w (id, start_ms) VALUES {}", values.join(", ")),
    )
    .await;
    // ts: the start plus 0.4 ms, so its millisecond is the start's (rounded down).
    execute(
        &c,
        "UPDATE w SET ts = TIMESTAMPTZ '1970-01-01 00:00:00+00' \
         + start_ms * INTERVAL '1 millisecond' + INTERVAL '400 microseconds'",
    )
    .await;
    // Each filter and its reference window [from, to) as a function of the start.
    type Window = fn(u64) -> (u64, u64);
    let filters: [(&str, Window); 4] = [
        ("mz_now() >= start_ms AND mz_now() < start_ms + 1000", |s| {
            (s, s + 1000)
        }),
        ("mz_now() > start_ms AND start_ms + 700 >= mz_now()", |s| {
            (s + 1, s + 701)
        }),
        (
            "mz_now() >= ts AND mz_now() <= ts + INTERVAL '800 milliseconds'",
            |s| (s, s + 801),
        ),
        (
            "mz_now() BETWEEN ts AND ts + INTERVAL '500 milliseconds' AND id % 2 = 0",
            |s| (s, s + 501),
        ),
    ];
    for (i, (f, _)) in filters.iter().enumerate() {
        execute(
            &c,
            &format!("CREATE VIEW v{i} AS SELECT id FROM w WHERE {f}"),
        )
        .await;
        execute(
            &c,
            &format!("CREATE MATERIALIZED VIEW m{i} AS SELECT id FROM w WHERE {f}"),
        )
        .await;
    }
    let mut deleted = false;
    let mut reads = 0;
    let deadline = std::time::Instant::now() + Duration::from_millis(3500);
    while std::time::Instant::now() < deadline {
        if !deleted && mz_now(&c).await > b + 1200 {
            // A delete is seen by every later read.
            execute(&c, "DELETE FROM w WHERE id = 10").await;
            deleted = true;
        }
        for (i, (f, window)) in filters.iter().enumerate() {
            let data: BTreeMap<i64, (Option<u64>, Option<u64>)> = starts
                .iter()
                .filter(|(id, _)| !(deleted && **id == 10))
                .filter(|(id, _)| i != 3 || *id % 2 == 0)
                .map(|(id, s)| (*id, (s.map(|s| window(s).0), s.map(|s| window(s).1))))
                .collect();
            for source in [
                format!("v{i}"),
                format!("m{i}"),
                format!("(SELECT id FROM w WHERE {f}) q"),
            ] {
                let sql =
                    format!("SELECT mz_now(), string_agg(id::text, ',' ORDER BY id) FROM {source}");
                let rows = query(&c, &sql).await;
                let t: u64 = cell(&rows[0][0]).parse().unwrap();
                let got: Vec<i64> = cell(&rows[0][1])
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().unwrap())
                    .collect();
                assert_eq!(got, reference(&data, t), "{sql} at {t} (b = {b})");
                reads += 1;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(deleted && reads >= 60, "{reads} reads");
}

/// `mz_now()` outside a temporal filter is refused (0A000) where a dataflow maintains the
/// result, and evaluated at the read's time in an ad hoc SELECT; EXPLAIN shows the filter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_uses_are_refused_where_maintained() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(
        &c,
        "CREATE TABLE t (id int, ts timestamp, n numeric, s text)",
    )
    .await;
    execute(&c, "INSERT INTO t VALUES (1, '2000-01-01', 5, 'x')").await;
    for sql in [
        "CREATE MATERIALIZED VIEW r1 AS SELECT mz_now() FROM t",
        "CREATE MATERIALIZED VIEW r2 AS SELECT id FROM t WHERE mz_now() > ts OR id = 1",
        "CREATE MATERIALIZED VIEW r3 AS SELECT id FROM t WHERE mz_now() <> ts",
        "CREATE MATERIALIZED VIEW r4 AS SELECT id FROM t WHERE NOT (mz_now() > ts)",
        "CREATE MATERIALIZED VIEW r5 AS SELECT id FROM t WHERE CASE WHEN mz_now() > ts THEN true END",
        "COPY (SUBSCRIBE (SELECT id, mz_now() FROM t)) TO STDOUT",
        "INSERT INTO t (id, n) VALUES (2, mz_now())",
    ] {
        let (code, message) = expect_error(&c, sql).await;
        assert_eq!(code, "0A000", "{sql}: {message}");
        assert!(message.contains("mz_now()"), "{sql}: {message}");
    }
    execute(
        &c,
        "CREATE VIEW plain AS SELECT id, mz_now() AS at FROM t WHERE mz_now() > ts",
    )
    .await;
    let (code, message) = expect_error(&c, "CREATE INDEX plain_id ON plain (id)").await;
    assert_eq!(code, "0A000", "{message}");
    for sql in [
        "SELECT id FROM t WHERE mz_now() > s",
        "SELECT id FROM t WHERE mz_now() > 'x'",
        "SELECT mz_now(1)",
    ] {
        let (code, message) = expect_error(&c, sql).await;
        assert_eq!(code, "42883", "{sql}: {message}");
    }
    // Ad hoc: every mz_now() is the read's time (rows: 2000-01-01 is long past).
    let rows = query(
        &c,
        "SELECT mz_now() >= 1700000000000, mz_now() > ts OR false, mz_now() < n FROM t",
    )
    .await;
    assert_eq!(rows, vec![srow(&["t", "t", "f"])]);
    let rows = query(&c, "SELECT id, at > 0 FROM plain").await;
    assert_eq!(rows, vec![srow(&["1", "t"])]);
    // Numeric and timestamp bounds, and EXPLAIN of the maintained filter.
    execute(
        &c,
        "CREATE MATERIALIZED VIEW ok AS SELECT id FROM t \
         WHERE mz_now() >= n AND mz_now() <= ts + INTERVAL '100 years'",
    )
    .await;
    assert_eq!(query(&c, "SELECT id FROM ok").await, vec![srow(&["1"])]);
    let explained = query(&c, "EXPLAIN PHYSICAL PLAN FOR MATERIALIZED VIEW ok").await;
    let text: Vec<&str> = explained.iter().map(|r| cell(&r[0])).collect();
    let text = text.join("\n");
    assert!(
        text.contains("TemporalFilter mz_now() >= ") && text.contains("mz_now() < "),
        "{text}"
    );
}

/// A window feeding an aggregate and a join with an indexed table (the streaming TPC-H
/// shape: windowed events joined with shared, keyed relations), and a temporal HAVING: reads
/// at many times equal the reference at the read's time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windows_feed_joins_aggregates_and_having() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE e (id int, grp int, start_ms bigint)").await;
    execute(&c, "CREATE TABLE g (grp int, name text)").await;
    execute(&c, "CREATE INDEX g_grp ON g (grp)").await;
    execute(
        &c,
        "INSERT INTO g VALUES (0, 'zero'), (1, 'one'), (2, 'two')",
    )
    .await;
    let b = mz_now(&c).await;
    let starts: Vec<(i64, i64, u64)> = (0..30i64)
        .map(|k| (k, k % 3, b - 500 + (k as u64) * 97))
        .collect();
    let values: Vec<String> = starts
        .iter()
        .map(|(id, grp, s)| format!("({id}, {grp}, {s})"))
        .collect();
    execute(&c, &format!("INSERT INTO e VALUES {}", values.join(", "))).await;
    let window = "mz_now() >= e.start_ms AND mz_now() < e.start_ms + 900";
    execute(
        &c,
        &format!(
            "CREATE MATERIALIZED VIEW per_name AS SELECT g.name, count(*) AS n \
             FROM e JOIN g ON e.grp = g.grp WHERE {window} GROUP BY g.name"
        ),
    )
    .await;
    execute(
        &c,
        "CREATE MATERIALIZED VIEW recent_groups AS SELECT grp FROM e GROUP BY grp \
         HAVING mz_now() < max(start_ms) + 300",
    )
    .await;
    let names = ["zero", "one", "two"];
    let deadline = std::time::Instant::now() + Duration::from_millis(3500);
    let mut reads = 0;
    while std::time::Instant::now() < deadline {
        let rows = query(
            &c,
            "SELECT mz_now(), string_agg(name || ':' || n, ',' ORDER BY name) FROM per_name",
        )
        .await;
        let t: u64 = cell(&rows[0][0]).parse().unwrap();
        let mut want: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, grp, s) in &starts {
            if *s <= t && t < s + 900 {
                *want.entry(names[*grp as usize]).or_default() += 1;
            }
        }
        let want: Vec<String> = want.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        assert_eq!(
            cell(&rows[0][1]),
            want.join(","),
            "per_name at {t} (b = {b})"
        );

        let rows = query(
            &c,
            "SELECT mz_now(), string_agg(grp::text, ',' ORDER BY grp) FROM recent_groups",
        )
        .await;
        let t: u64 = cell(&rows[0][0]).parse().unwrap();
        let want: Vec<String> = (0..3i64)
            .filter(|grp| {
                let max = starts.iter().filter(|s| s.1 == *grp).map(|s| s.2).max();
                max.is_some_and(|m| t < m + 300)
            })
            .map(|grp| grp.to_string())
            .collect();
        assert_eq!(
            cell(&rows[0][1]),
            want.join(","),
            "recent_groups at {t} (b = {b})"
        );
        reads += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(reads >= 10, "{reads} reads");
    let explained = query(&c, "EXPLAIN PHYSICAL PLAN FOR MATERIALIZED VIEW per_name").await;
    let text: Vec<&str> = explained.iter().map(|r| cell(&r[0])).collect();
    let text = text.join("\n");
    assert!(
        text.contains("TemporalFilter") && text.contains("g_grp"),
        "{text}"
    );
}

/// Bounds at bigint's extremes: `mz_now() <= 9223372036854775807` holds at every time (its
/// exclusive upper bound saturates instead of overflowing) and `mz_now() > 9223372036854775807`
/// never; `mz_now() >= -9223372036854775808` always. Ad hoc reads agree with the view.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bounds_at_bigint_extremes() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE e (id int, lo bigint, hi bigint)").await;
    execute(
        &c,
        "INSERT INTO e VALUES (1, -9223372036854775808, 9223372036854775807), \
         (2, 9223372036854775807, 9223372036854775807), (3, 0, 9223372036854775806)",
    )
    .await;
    for (name, filter, expected) in [
        ("le_max", "mz_now() <= hi", vec!["1", "2", "3"]),
        ("gt_max", "mz_now() > hi", vec![]),
        (
            "ge_lo_le_hi",
            "mz_now() >= lo AND mz_now() <= hi",
            vec!["1", "3"],
        ),
        ("eq_max", "mz_now() = hi", vec![]),
    ] {
        execute(
            &c,
            &format!("CREATE MATERIALIZED VIEW {name} AS SELECT id FROM e WHERE {filter}"),
        )
        .await;
        let view = query(&c, &format!("SELECT id FROM {name} ORDER BY id")).await;
        let adhoc = query(&c, &format!("SELECT id FROM e WHERE {filter} ORDER BY id")).await;
        let expected: Vec<_> = expected.iter().map(|id| srow(&[id])).collect();
        assert_eq!(view, expected, "{filter} as a view");
        assert_eq!(adhoc, expected, "{filter} ad hoc");
    }
}
