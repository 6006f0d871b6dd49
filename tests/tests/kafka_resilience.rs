//! Kafka sources when things go wrong or change under them (issue 19): the broker stopped and
//! started again mid-stream (the source must show `stalled` with a reason in `kpg_sources` while
//! it is down, then resume with every record exactly once), a 4-partition topic read by a
//! 2-process kpg cluster and by one kpg of 2 workers (the same exact contents, an index, joins,
//! a subscription seeing later records), partitions added to a topic while a source reads it,
//! kpg restarted while the broker is down (it starts anyway, the source stalls, then catches up
//! exactly once when the broker is back), and records deleted by the broker before kpg read them
//! (the source fails visibly instead of skipping them). Every record's id, partition and offset
//! are known, so contents are checked exactly, not just counted.

use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// How long a source gets to reach a state or a count (the machine is shared and slow).
const PATIENCE: Duration = Duration::from_secs(60);

/// Waits until `sql` (one value) returns `want`, or fails after [`PATIENCE`] showing
/// `kpg_sources`.
async fn wait_with_status(client: &Client, sql: &str, want: &str) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let rows = query(client, sql).await;
        let got = cell(&rows[0][0]).to_string();
        if got == want {
            return;
        }
        if Instant::now() > deadline {
            let status = query(client, "SELECT * FROM kpg_sources ORDER BY 1, 2").await;
            panic!(
                "`{sql}` is {got}, still not {want} after {PATIENCE:?}; kpg_sources:\n{}",
                show(&status)
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `(partition, state, last_error)` of each of `source`'s rows in `kpg_sources`.
async fn states(client: &Client, source: &str) -> Vec<(String, String, Option<String>)> {
    query(
        client,
        &format!(
            "SELECT partition, state, last_error FROM kpg_sources WHERE source = '{source}' \
             ORDER BY partition"
        ),
    )
    .await
    .into_iter()
    .map(|r| {
        (
            cell(&r[0]).to_string(),
            cell(&r[1]).to_string(),
            r[2].clone(),
        )
    })
    .collect()
}

/// Whether every row says `stalled` with a non-empty reason.
fn all_stalled(s: &[(String, String, Option<String>)]) -> bool {
    !s.is_empty()
        && s.iter().all(|(_, state, why)| {
            state == "stalled" && why.as_deref().is_some_and(|w| !w.is_empty())
        })
}

/// Waits until `source` shows `stalled` with a reason on every partition; how long it took and
/// the reason. Fails after [`PATIENCE`].
async fn wait_stalled(client: &Client, source: &str) -> (Duration, String) {
    let start = Instant::now();
    loop {
        let s = states(client, source).await;
        if all_stalled(&s) {
            return (start.elapsed(), s[0].2.clone().unwrap_or_default());
        }
        assert!(
            start.elapsed() < PATIENCE,
            "source {source} not stalled {PATIENCE:?} after the broker went away: {s:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Samples `source`'s state every 100 ms for `period` (the broker still down): every sample
/// must say `stalled` with a reason. The samples that did not, if any.
async fn stays_stalled(client: &Client, source: &str, period: Duration) -> Result<(), String> {
    let start = Instant::now();
    let (mut samples, mut bad) = (0, Vec::new());
    while start.elapsed() < period {
        let s = states(client, source).await;
        samples += 1;
        if !all_stalled(&s) {
            bad.push(format!("{:.1}s: {s:?}", start.elapsed().as_secs_f64()));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "source {source}: {} of {samples} samples over {period:?} with the broker down do \
             not say `stalled` with a reason, e.g. {}",
            bad.len(),
            bad.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
        ))
    }
}

/// How soon a source must have read records produced after its broker is back: its reader
/// retries at least every 5 s (the longest backoff), so this is ample.
const RESUME: Duration = Duration::from_secs(20);

/// Fails if a source took longer than [`RESUME`] to read the records produced after its broker
/// came back (checked after everything else, so that a slow source is still checked for
/// exactly-once).
fn resumed_promptly(took: Duration) {
    assert!(
        took <= RESUME,
        "the source read the records produced after the broker was back only {took:?} later \
         (more than {RESUME:?}, although its reader retries at least every 5 s)"
    );
}

/// Waits until every row of `source` in `kpg_sources` says `running` without an error.
async fn wait_running(client: &Client, source: &str) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let s = states(client, source).await;
        if !s.is_empty() && s.iter().all(|(_, st, e)| st == "running" && e.is_none()) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "source {source} not running again after {PATIENCE:?}: {s:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Produces the ids `from..to` as one-field CSV records, id `i` to partition `i % partitions`.
fn produce_ids(kafka: &Kafka, topic: &str, from: i64, to: i64, partitions: i64) {
    let values: Vec<(String, i32)> = (from..to)
        .map(|i| (i.to_string(), (i % partitions) as i32))
        .collect();
    let records: Vec<_> = values
        .iter()
        .map(|(v, p)| (None, Some(v.as_bytes()), Some(*p)))
        .collect();
    kafka.produce(topic, &records);
}

/// The source `source` (columns `id`, `p`, `o`) and its view `view` (`n`, `d`, `s`) hold the
/// ids `0..n`, each once, every partition's offsets from 0 without gaps.
async fn check_exactly_once(client: &Client, source: &str, view: &str, n: i64) {
    wait_with_status(client, &format!("SELECT n FROM {view}"), &n.to_string()).await;
    let sum: i64 = (0..n).sum();
    let want = rows(&[&[&n.to_string(), &n.to_string(), &sum.to_string()]]);
    assert_eq!(
        query(
            client,
            &format!("SELECT count(*), count(DISTINCT id), sum(id) FROM {source}")
        )
        .await,
        want,
        "the source itself"
    );
    assert_eq!(
        query(client, &format!("SELECT n, d, s FROM {view}")).await,
        want,
        "the materialized view"
    );
    assert_eq!(
        query(
            client,
            &format!("SELECT count(*) FROM {source} WHERE id < 0 OR id >= {n}")
        )
        .await,
        rows(&[&["0"]])
    );
    let parts = query(
        client,
        &format!(
            "SELECT p, count(*), count(DISTINCT o), min(o), max(o) FROM {source} GROUP BY p \
             ORDER BY p"
        ),
    )
    .await;
    for r in &parts {
        let count: i64 = cell(&r[1]).parse().unwrap();
        assert_eq!(cell(&r[1]), cell(&r[2]), "an offset twice: {r:?}");
        assert_eq!(cell(&r[3]), "0", "{r:?}");
        assert_eq!(
            cell(&r[4]).parse::<i64>().unwrap(),
            count - 1,
            "a gap: {r:?}"
        );
    }
}

/// `CREATE SOURCE {name} (id bigint NOT NULL)` reading `topic`, with partition `p` and offset
/// `o`, and a materialized view `{name}_totals` of its count, distinct count and sum.
async fn create_counted_source(client: &Client, kafka: &Kafka, name: &str, topic: &str) {
    execute(
        client,
        &format!(
            "CREATE SOURCE {name} (id bigint NOT NULL) FROM KAFKA BROKER '{}' TOPIC '{topic}' \
             FORMAT CSV INCLUDE PARTITION AS p, OFFSET AS o",
            kafka.broker()
        ),
    )
    .await;
    execute(
        client,
        &format!(
            "CREATE MATERIALIZED VIEW {name}_totals AS SELECT count(*) AS n, \
             count(DISTINCT id) AS d, sum(id) AS s FROM {name}"
        ),
    )
    .await;
}

/// A source reading a 3-partition topic; the broker stopped (SIGTERM) right after 10,000 more
/// records: `kpg_sources` must say `stalled` with a reason, and keep saying it while the broker
/// is down; what was read stays readable. The broker started again (same ports and log
/// directory) and more records produced: every record exactly once (source and view), offsets
/// without gaps, read within [`RESUME`].
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broker_stopped_and_restarted_mid_stream() {
    let (mut kafka, kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("events", 3).await;
    let c = kpg.connect().await;
    create_counted_source(&c, &kafka, "events", "events").await;
    produce_ids(&kafka, "events", 0, 3000, 3);
    check_exactly_once(&c, "events", "events_totals", 3000).await;
    wait_running(&c, "events").await;

    // More records, and the broker stopped right after they are acknowledged: the reader is
    // likely in the middle of them.
    produce_ids(&kafka, "events", 3000, 13000, 3);
    let stopped = Instant::now();
    kafka.stop();
    eprintln!("broker stopped in {:?}", stopped.elapsed());
    let (took, why) = wait_stalled(&c, "events").await;
    eprintln!("stalled {took:?} after the broker stopped: {why}");
    // It stays stalled while the broker is down (not `running` between retries).
    let flapping = stays_stalled(&c, "events", Duration::from_secs(8)).await;
    // What was read stays readable, and does not change.
    let n_down = cell(&query(&c, "SELECT n FROM events_totals").await[0][0]).to_string();
    let n_down: i64 = n_down.parse().unwrap();
    assert!((3000..=13000).contains(&n_down), "{n_down}");
    assert_eq!(
        query(&c, "SELECT count(*) FROM events").await,
        rows(&[&[&n_down.to_string()]])
    );
    eprintln!("{n_down} records read before the broker went away");

    kafka.start_again().await;
    let back = Instant::now();
    produce_ids(&kafka, "events", 13000, 15000, 3);
    check_exactly_once(&c, "events", "events_totals", 15000).await;
    let resumed = back.elapsed();
    eprintln!("caught up {resumed:?} after the broker was ready again");
    wait_running(&c, "events").await;
    let status = query(
        &c,
        "SELECT partition, \"offset\", lag FROM kpg_sources WHERE source = 'events' ORDER BY 1",
    )
    .await;
    assert_eq!(status.len(), 3, "{status:?}");
    flapping.unwrap();
    resumed_promptly(resumed);
}

/// `id,grp,name` for id `i`: group `i % 5` (group 4 has no label), to partition `i % 4`, where
/// it is the `i / 4`th record.
fn item(i: i64) -> String {
    format!("{i},{},n{i}", i % 5)
}

/// What `SELECT id, grp, name, p, o FROM items` holds after ids `0..n`.
fn items_rows(n: i64) -> Rows {
    sorted(
        (0..n)
            .map(|i| {
                [
                    i.to_string(),
                    (i % 5).to_string(),
                    format!("n{i}"),
                    (i % 4).to_string(),
                    (i / 4).to_string(),
                ]
                .into_iter()
                .map(Some)
                .collect()
            })
            .collect(),
    )
}

/// What `per_label` (count and sum of ids per labelled group) holds after ids `0..n`.
fn per_label_rows(n: i64) -> Rows {
    let labels = ["zero", "one", "two", "three"];
    sorted(
        labels
            .iter()
            .enumerate()
            .map(|(g, label)| {
                let ids: Vec<i64> = (0..n).filter(|i| i % 5 == g as i64).collect();
                vec![
                    Some(label.to_string()),
                    Some(ids.len().to_string()),
                    Some(ids.iter().sum::<i64>().to_string()),
                ]
            })
            .collect(),
    )
}

/// Produces [`item`]s `from..to` to the topic `items`.
fn produce_items(kafka: &Kafka, from: i64, to: i64) {
    let values: Vec<(String, i32)> = (from..to).map(|i| (item(i), (i % 4) as i32)).collect();
    let records: Vec<_> = values
        .iter()
        .map(|(v, p)| (None, Some(v.as_bytes()), Some(*p)))
        .collect();
    kafka.produce("items", &records);
}

/// The source `items`, a table of labels, two indexes on the source and a materialized join.
async fn create_items(client: &Client, kafka: &Kafka) {
    for sql in [
        "CREATE TABLE groups (grp int, label text)".to_string(),
        "INSERT INTO groups VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (3, 'three')".into(),
        format!(
            "CREATE SOURCE items (id int NOT NULL, grp int, name text) FROM KAFKA BROKER '{}' \
             TOPIC 'items' FORMAT CSV INCLUDE PARTITION AS p, OFFSET AS o",
            kafka.broker()
        ),
        "CREATE INDEX items_id ON items (id)".into(),
        "CREATE INDEX items_grp ON items (grp)".into(),
        "CREATE MATERIALIZED VIEW per_label AS SELECT label, count(*) AS n, sum(id) AS s \
         FROM items JOIN groups USING (grp) GROUP BY label"
            .into(),
    ] {
        execute(client, &sql).await;
    }
}

/// Everything about `items` after ids `0..n`, on one server (`who` names it).
async fn check_items(client: &Client, who: &str, n: i64) {
    wait_with_status(client, "SELECT count(*) FROM items", &n.to_string()).await;
    let got = sorted(query(client, "SELECT id, grp, name, p, o FROM items").await);
    assert!(got == items_rows(n), "{who}: the contents of items differ");
    assert_eq!(
        sorted(query(client, "SELECT * FROM per_label").await),
        per_label_rows(n),
        "{who}: per_label"
    );
    // Lookups through the indexes.
    for id in [0, 1, 2, 3, 777, n - 1] {
        assert_eq!(
            query(
                client,
                &format!("SELECT id, grp, name, p, o FROM items WHERE id = {id}")
            )
            .await,
            vec![items_rows(id + 1)
                .into_iter()
                .find(|r| r[0].as_deref() == Some(&id.to_string()))
                .unwrap()],
            "{who}: id = {id}"
        );
    }
    let g3: Vec<i64> = (0..n).filter(|i| i % 5 == 3).collect();
    assert_eq!(
        query(client, "SELECT count(*), sum(id) FROM items WHERE grp = 3").await,
        rows(&[&[&g3.len().to_string(), &g3.iter().sum::<i64>().to_string()]]),
        "{who}: grp = 3"
    );
    // Ad hoc joins: with the table, and of the source with itself across partitions.
    assert_eq!(
        query(
            client,
            "SELECT i.id, g.label FROM items i JOIN groups g ON i.grp = g.grp WHERE i.id < 7 \
             ORDER BY i.id"
        )
        .await,
        rows(&[
            &["0", "zero"],
            &["1", "one"],
            &["2", "two"],
            &["3", "three"],
            &["5", "zero"],
            &["6", "one"],
        ]),
        "{who}: join with groups"
    );
    assert_eq!(
        query(
            client,
            "SELECT count(*), count(DISTINCT a.p), sum(a.o - b.o) FROM items a JOIN items b \
             ON a.id = b.id + 4"
        )
        .await,
        rows(&[&[&(n - 4).to_string(), "4", &(n - 4).to_string()]]),
        "{who}: self-join"
    );
    let status = query(
        client,
        "SELECT partition, state, \"offset\" FROM kpg_sources WHERE source = 'items' ORDER BY 1",
    )
    .await;
    let want: Vec<Vec<Option<String>>> = (0..4)
        .map(|p| {
            vec![
                Some(p.to_string()),
                Some("running".into()),
                Some(((n - p + 3) / 4).to_string()),
            ]
        })
        .collect();
    assert_eq!(status, want, "{who}: kpg_sources");
}

/// The threads of process `pid` that read a source's partitions (kpg names them
/// `kpg-src-u<source>-<reader>`).
fn source_reader_threads(pid: u32) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .expect("the process's threads")
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|n| n.trim().to_string())
        .filter(|n| n.starts_with("kpg-src-"))
        .collect();
    names.sort();
    names
}

/// A 4-partition topic read by a 2-process cluster and by one kpg of 2 workers: the exact rows
/// (with partitions and offsets), lookups through two indexes, a join with a table (ad hoc and
/// materialized), a self-join, `kpg_sources`; subscriptions started afterwards see exactly the
/// records produced later (the source without a snapshot) and the join's changes. Both spread
/// the partitions over two readers, one per worker: the cluster's second reader runs in its
/// second process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_partitions_on_a_cluster_and_on_two_workers() {
    let (kafka, cluster, single) = tokio::join!(
        Kafka::start(),
        KpgCluster::start(2, 1),
        KpgServer::start_with_workers(2)
    );
    kafka.create_topic("items", 4).await;
    produce_items(&kafka, 0, 1200);
    let (a, b) = (cluster.connect().await, single.connect().await);
    create_items(&a, &kafka).await;
    create_items(&b, &kafka).await;
    check_items(&a, "the cluster", 1200).await;
    check_items(&b, "one process", 1200).await;
    // One reader per worker: the cluster's in each of its processes (process 1 decodes its
    // partitions and sends them to process 0), the single process's both in it.
    let source_threads = |pid| {
        let names = source_reader_threads(pid);
        names
            .iter()
            .map(|n| n.rsplit('-').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        source_threads(cluster.pid()),
        ["0"],
        "the cluster's process 0"
    );
    assert_eq!(
        source_threads(cluster.pid_of(1)),
        ["1"],
        "the cluster's process 1"
    );
    assert_eq!(source_threads(single.pid()), ["0", "1"], "one process");

    // Subscriptions started now see the records produced next: the new rows of the source
    // (no snapshot) and the changes of the join.
    let (sa, sb) = (cluster.connect().await, single.connect().await);
    let subscribe = "COPY (SUBSCRIBE items WITH (SNAPSHOT = false)) TO STDOUT";
    let mut rows_a = Subscription::start(&sa, subscribe).await.unwrap();
    let mut rows_b = Subscription::start(&sb, subscribe).await.unwrap();
    let (la, lb) = (cluster.connect().await, single.connect().await);
    let labels = "COPY (SUBSCRIBE per_label) TO STDOUT";
    let mut labels_a = Subscription::start(&la, labels).await.unwrap();
    let mut labels_b = Subscription::start(&lb, labels).await.unwrap();
    let with_diff = |r: Rows, d: i64| -> Vec<(Vec<Option<String>>, i64)> {
        r.into_iter().map(|r| (r, d)).collect()
    };
    for s in [&mut labels_a, &mut labels_b] {
        s.read_until(&with_diff(per_label_rows(1200), 1)).await;
    }
    produce_items(&kafka, 1200, 1600);
    let new_rows: Rows = items_rows(1600)
        .into_iter()
        .filter(|r| cell(&r[0]).parse::<i64>().unwrap() >= 1200)
        .collect();
    for (who, s) in [("the cluster", &mut rows_a), ("one process", &mut rows_b)] {
        let got = s.read_until(&with_diff(new_rows.clone(), 1)).await;
        assert!(got.iter().all(|r| r.diff == 1), "{who}: {got:?}");
        s.expect_quiet(Duration::from_millis(500)).await;
    }
    let mut change = with_diff(per_label_rows(1200), -1);
    change.extend(with_diff(per_label_rows(1600), 1));
    for s in [&mut labels_a, &mut labels_b] {
        s.read_until(&change).await;
    }
    check_items(&a, "the cluster", 1600).await;
    check_items(&b, "one process", 1600).await;
}

/// A 4-partition topic read by a 2-process cluster (process 1 decodes partitions 1 and 3 and
/// sends them to process 0, which commits them), killed with SIGKILL while it reads and started
/// again: every record exactly once, the progress relation in step with the rows, process 1
/// reading again after the restart, and `DROP SOURCE` stopping its reader there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_killed_mid_stream_reads_every_record_once() {
    let (kafka, mut cluster) = tokio::join!(Kafka::start(), KpgCluster::start(2, 1));
    kafka.create_topic("flow", 4).await;
    // Everything produced first, then read from the start: killed as soon as the first
    // batches are visible, with most of the topic still to read.
    produce_ids(&kafka, "flow", 0, 100_000, 4);
    let c = cluster.connect().await;
    create_counted_source(&c, &kafka, "flow", "flow").await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let read = loop {
        let n: i64 = cell(&query(&c, "SELECT n FROM flow_totals").await[0][0])
            .parse()
            .unwrap();
        if n > 0 {
            break n;
        }
        assert!(Instant::now() < deadline, "nothing read in 60 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert!(read < 100_000, "all read before the kill: {read}");
    drop(c);
    cluster.restart().await;
    produce_ids(&kafka, "flow", 100_000, 110_000, 4);
    let c = cluster.connect().await;
    check_exactly_once(&c, "flow", "flow_totals", 110_000).await;
    assert_eq!(
        query(
            &c,
            "SELECT partition, \"offset\" FROM flow_progress ORDER BY 1"
        )
        .await,
        query(&c, "SELECT p, max(o) + 1 FROM flow GROUP BY p ORDER BY 1").await,
        "the progress relation"
    );
    let readers = source_reader_threads(cluster.pid_of(1));
    assert_eq!(readers.len(), 1, "process 1's readers: {readers:?}");
    execute(&c, "DROP SOURCE flow CASCADE").await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !source_reader_threads(cluster.pid_of(1)).is_empty() {
        assert!(
            Instant::now() < deadline,
            "process 1 still reads the dropped source"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        query(&c, "SELECT count(*) FROM kpg_sources").await,
        rows(&[&["0"]])
    );
}

/// Partitions added to a topic while a source reads it: records produced to them are read
/// (from offset 0) and `kpg_sources` lists them; their offsets survive a SIGKILL like the others.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partitions_added_while_a_source_reads_are_picked_up() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("grow", 2).await;
    let c = kpg.connect().await;
    create_counted_source(&c, &kafka, "grow", "grow").await;
    produce_ids(&kafka, "grow", 0, 1000, 2);
    check_exactly_once(&c, "grow", "grow_totals", 1000).await;
    wait_running(&c, "grow").await;

    kafka.add_partitions("grow", 4).await;
    let added = Instant::now();
    produce_ids(&kafka, "grow", 1000, 2000, 4);
    check_exactly_once(&c, "grow", "grow_totals", 2000).await;
    eprintln!(
        "records of the new partitions read {:?} after they were added",
        added.elapsed()
    );
    assert_eq!(
        query(
            &c,
            "SELECT p, count(*), min(id), max(o) FROM grow WHERE p >= 2 GROUP BY p ORDER BY p"
        )
        .await,
        rows(&[&["2", "250", "1002", "249"], &["3", "250", "1003", "249"]])
    );
    let status = query(
        &c,
        "SELECT partition, state, \"offset\" FROM kpg_sources WHERE source = 'grow' ORDER BY 1",
    )
    .await;
    assert_eq!(
        status,
        rows(&[
            &["0", "running", "750"],
            &["1", "running", "750"],
            &["2", "running", "250"],
            &["3", "running", "250"],
        ])
    );

    // The new partitions' offsets are stored like the others: a SIGKILL and more records.
    drop(c);
    kpg.kill();
    produce_ids(&kafka, "grow", 2000, 2400, 4);
    kpg.restart().await;
    let c = kpg.connect().await;
    check_exactly_once(&c, "grow", "grow_totals", 2400).await;
}

/// kpg SIGKILLed, records produced it has not read, the broker stopped, kpg started again: it
/// accepts connections, the source says `stalled` with a reason and the stored rows are there.
/// The broker back and more records: every record exactly once, read within [`RESUME`].
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kpg_restarted_while_the_broker_is_down() {
    let (mut kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("down", 2).await;
    let c = kpg.connect().await;
    create_counted_source(&c, &kafka, "down", "down").await;
    produce_ids(&kafka, "down", 0, 2000, 2);
    check_exactly_once(&c, "down", "down_totals", 2000).await;

    // kpg goes away, records arrive that it has not read, then the broker goes away too.
    drop(c);
    kpg.kill();
    produce_ids(&kafka, "down", 2000, 2500, 2);
    kafka.stop();
    let restarted = Instant::now();
    kpg.restart().await;
    eprintln!(
        "kpg accepts connections {:?} after its restart, the broker down",
        restarted.elapsed()
    );
    let c = kpg.connect().await;
    let (took, why) = wait_stalled(&c, "down").await;
    eprintln!("stalled {took:?} after connecting: {why}");
    let flapping = stays_stalled(&c, "down", Duration::from_secs(5)).await;
    // What was stored is there, and the view over it.
    assert_eq!(
        query(&c, "SELECT n, d FROM down_totals").await,
        rows(&[&["2000", "2000"]])
    );
    assert_eq!(
        query(&c, "SELECT count(*) FROM down").await,
        rows(&[&["2000"]])
    );

    kafka.start_again().await;
    let back = Instant::now();
    produce_ids(&kafka, "down", 2500, 3000, 2);
    check_exactly_once(&c, "down", "down_totals", 3000).await;
    let resumed = back.elapsed();
    eprintln!("caught up {resumed:?} after the broker was ready again");
    wait_running(&c, "down").await;
    flapping.unwrap();
    resumed_promptly(resumed);
}

/// Records kpg has not read yet are deleted by the broker (as retention would) while kpg is
/// stopped: after its restart the source must say `failed` with the partition and offsets, keep
/// the rows it had, and add nothing from that partition — neither the records after the gap nor
/// later ones (librdkafka's default would jump to the end and skip the gap silently). The other
/// partition goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_deleted_before_kpg_read_them_fail_the_source_visibly() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("gone", 2).await;
    let c = kpg.connect().await;
    create_counted_source(&c, &kafka, "gone", "gone").await;
    produce_ids(&kafka, "gone", 0, 200, 2);
    check_exactly_once(&c, "gone", "gone_totals", 200).await;

    drop(c);
    kpg.kill();
    // Partition 0 gets ids 200, 202, ... at offsets 100..150; all before offset 120 go.
    produce_ids(&kafka, "gone", 200, 300, 2);
    kafka.delete_records("gone", 0, 120).await;
    kpg.restart().await;
    let c = kpg.connect().await;
    let start = Instant::now();
    let why = loop {
        let s = states(&c, "gone").await;
        if let Some((_, _, why)) = s.iter().find(|(_, state, _)| state == "failed") {
            break why.clone().unwrap_or_default();
        }
        assert!(
            start.elapsed() < PATIENCE,
            "source not failed {PATIENCE:?} after records it needs were deleted: {s:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        why.contains("partition 0") && why.contains("100") && why.contains("120"),
        "{why}"
    );
    // Partition 1 is read on: its 50 new records arrive; partition 0 adds nothing.
    wait_with_status(&c, "SELECT count(*) FROM gone WHERE p = 1", "150").await;
    produce_ids(&kafka, "gone", 300, 400, 2);
    wait_with_status(&c, "SELECT count(*) FROM gone WHERE p = 1", "200").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        query(&c, "SELECT count(*), max(o) FROM gone WHERE p = 0").await,
        rows(&[&["100", "99"]]),
        "partition 0 must keep what kpg had read and add nothing past the deleted records"
    );
    let s = states(&c, "gone").await;
    assert!(
        s.iter().all(|(_, state, _)| state == "failed"),
        "the failure is sticky: {s:?}"
    );
}
