//! Kafka sources against a real broker (issue 19): CSV, JSON, TEXT and BYTES values, keys,
//! `INCLUDE` metadata, `ENVELOPE UPSERT`, bad records (kept in `kpg_source_errors`, the source
//! goes on), several partitions, a view maintained as records arrive, and a kpg restart (and a
//! SIGKILL) mid-stream that neither repeats nor loses a record. Typed fields are checked against
//! PostgreSQL parsing the same CSV with `COPY`.

use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// CSV lines whose fields exercise PostgreSQL's input rules: quoting, NULL versus the empty
/// string, numerics with their scale, dates.
fn csv_lines(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| match i % 4 {
            0 => format!(
                "{i},name {i},{}.{:02},2024-01-{:02}",
                i * 3,
                i % 100,
                1 + i % 28
            ),
            1 => format!("{i},\"quoted, \"\"{i}\"\"\",-{i}.5,"),
            2 => format!("{i},,0,2023-12-31"),
            _ => format!("{i},\"\",{i}e2,1999-02-28"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_records_match_postgres_copy_and_views_follow() {
    let (kafka, kpg, pg) = tokio::join!(Kafka::start(), KpgServer::start(), Postgres::start());
    kafka.create_topic("orders", 3).await;
    let lines = csv_lines(400);
    let (first, rest) = lines.split_at(250);
    let values: Vec<&str> = first.iter().map(String::as_str).collect();
    kafka.produce_values("orders", &values, None);
    let s = Pair::new(&kpg, &pg).await;
    let create = format!(
        "CREATE SOURCE orders (id int NOT NULL, name text, amount numeric(12,2), day date) \
         FROM KAFKA BROKER '{}' TOPIC 'orders' FORMAT CSV INCLUDE PARTITION AS p, OFFSET",
        kafka.broker()
    );
    execute(&s.kpg, &create).await;
    execute(
        &s.pg,
        "CREATE TABLE orders (id int NOT NULL, name text, amount numeric(12,2), day date)",
    )
    .await;
    // A view maintained as records arrive, and one reading the metadata columns.
    execute(
        &s.kpg,
        "CREATE MATERIALIZED VIEW by_day AS SELECT day, count(*) AS n, sum(amount) AS total \
         FROM orders GROUP BY day",
    )
    .await;
    execute(
        &s.pg,
        "CREATE VIEW by_day AS SELECT day, count(*) AS n, sum(amount) AS total FROM orders \
         GROUP BY day",
    )
    .await;
    wait_for(&s.kpg, "SELECT count(*) FROM orders", "250").await;
    let copy_in = |lines: &[String]| format!("{}\n", lines.join("\n"));
    pg_copy(&s.pg, "orders", &copy_in(first)).await;
    s.check("SELECT id, name, amount, day FROM orders").await;
    s.check("SELECT * FROM by_day").await;
    // More records, spread over the partitions: the view follows.
    let values: Vec<&str> = rest.iter().map(String::as_str).collect();
    kafka.produce_values("orders", &values, Some(2));
    wait_for(&s.kpg, "SELECT count(*) FROM orders", "400").await;
    pg_copy(&s.pg, "orders", &copy_in(rest)).await;
    s.check("SELECT * FROM by_day").await;
    // Every (partition, offset) once; offsets from 0 without gaps in each partition.
    let gaps = query(
        &s.kpg,
        "SELECT p, count(*), count(DISTINCT \"offset\"), min(\"offset\"), max(\"offset\") \
         FROM orders GROUP BY p ORDER BY p",
    )
    .await;
    assert!(!gaps.is_empty());
    for r in &gaps {
        let n: i64 = cell(&r[1]).parse().unwrap();
        assert_eq!(cell(&r[1]), cell(&r[2]), "{r:?}");
        assert_eq!(cell(&r[3]), "0", "{r:?}");
        assert_eq!(cell(&r[4]).parse::<i64>().unwrap(), n - 1, "{r:?}");
    }
    // kpg_sources shows the partitions, read to their ends.
    let status = query(
        &s.kpg,
        "SELECT partition, state, lag, errors FROM kpg_sources WHERE source = 'orders' \
         ORDER BY partition",
    )
    .await;
    assert_eq!(status.len(), 3, "{status:?}");
    assert!(
        status.iter().all(|r| cell(&r[1]) == "running"),
        "{status:?}"
    );
    // Every partition's high watermark is known and the source has caught up with it.
    wait_for(
        &s.kpg,
        "SELECT count(*) FILTER (WHERE lag = 0) FROM kpg_sources WHERE source = 'orders'",
        "3",
    )
    .await;
}

/// `COPY table FROM STDIN (FORMAT csv)` on PostgreSQL: its parsing of the same lines is the
/// oracle for kpg's.
async fn pg_copy(pg: &Client, table: &str, data: &str) {
    use futures::SinkExt;
    let sink = pg
        .copy_in(&format!("COPY {table} FROM STDIN (FORMAT csv)"))
        .await
        .expect("COPY on PostgreSQL");
    let mut sink = Box::pin(sink);
    sink.send(bytes::Bytes::from(data.to_string()))
        .await
        .expect("COPY data");
    sink.as_mut().finish().await.expect("COPY done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_records_are_kept_and_the_source_goes_on() {
    let (kafka, kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("mixed", 1).await;
    let c = kpg.connect().await;
    let create = format!(
        "CREATE SOURCE mixed (id int NOT NULL, amount numeric(6,2), day date) FROM KAFKA \
         BROKER '{}' TOPIC 'mixed' FORMAT CSV",
        kafka.broker()
    );
    execute(&c, &create).await;
    kafka.produce(
        "mixed",
        &[
            (None, Some(b"1,1.50,2024-01-01"), None),
            (None, Some(b"2,1.50"), None),            // too few fields
            (None, Some(b"x,1.50,2024-01-01"), None), // not an integer
            (None, Some(b"4,12345.678,2024-01-01"), None), // numeric overflow
            (None, Some(b"5,1,2024-02-30"), None),    // no such date
            (None, Some(&[0xff, 0xfe, b',', b'1']), None), // not UTF-8
            (None, None, None),                       // no value
            (None, Some(b",1,2024-01-01"), None),     // NULL in a NOT NULL column
            (None, Some(b"9,9.99,2024-12-31"), None),
        ],
    );
    wait_for(&c, "SELECT count(*) FROM mixed", "2").await;
    assert_eq!(
        query(&c, "SELECT id FROM mixed ORDER BY id").await,
        rows(&[&["1"], &["9"]])
    );
    wait_for(&c, "SELECT count(*) FROM kpg_source_errors", "7").await;
    let errors = query(
        &c,
        "SELECT \"offset\", reason FROM kpg_source_errors WHERE source = 'mixed' ORDER BY 1",
    )
    .await;
    let offsets: Vec<&str> = errors.iter().map(|r| cell(&r[0])).collect();
    assert_eq!(offsets, ["1", "2", "3", "4", "5", "6", "7"]);
    let reason = |o: usize| cell(&errors[o - 1][1]).to_string();
    assert!(
        reason(1).contains("expected 3 CSV fields, found 2"),
        "{}",
        reason(1)
    );
    assert!(reason(2).contains("column \"id\""), "{}", reason(2));
    assert!(reason(3).contains("column \"amount\""), "{}", reason(3));
    assert!(reason(4).contains("column \"day\""), "{}", reason(4));
    assert!(reason(5).contains("UTF-8"), "{}", reason(5));
    assert!(reason(6).contains("without a value"), "{}", reason(6));
    assert!(reason(7).contains("NOT NULL"), "{}", reason(7));
    let status = query(
        &c,
        "SELECT errors, records FROM kpg_sources WHERE source = 'mixed'",
    )
    .await;
    assert_eq!(status, rows(&[&["7", "9"]]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_text_bytes_keys_and_metadata() {
    let (kafka, kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    for t in ["j", "t"] {
        kafka.create_topic(t, 1).await;
    }
    kafka.produce(
        "j",
        &[
            (
                Some(b"k1"),
                Some(br#"{"id": 1, "name": "a", "ok": true, "extra": [1]}"#),
                None,
            ),
            (
                Some(b"k2"),
                Some(br#"{"id": 2, "ok": "false", "name": null}"#),
                None,
            ),
            (None, Some(br#"{"id": 3, "name": {"nested": 1}}"#), None),
        ],
    );
    kafka.produce(
        "t",
        &[
            (Some(b"a"), Some(b"hello"), None),
            (Some(&[0xff]), Some(&[0xde, 0xad]), None),
        ],
    );
    let c = kpg.connect().await;
    let b = kafka.broker();
    execute(
        &c,
        &format!(
            "CREATE SOURCE j (id bigint, name text, ok boolean) FROM KAFKA BROKER '{b}' TOPIC 'j' \
             KEY FORMAT TEXT VALUE FORMAT JSON INCLUDE KEY AS k, TIMESTAMP AS ts"
        ),
    )
    .await;
    execute(
        &c,
        &format!("CREATE SOURCE t FROM KAFKA BROKER '{b}' TOPIC 't' FORMAT TEXT INCLUDE KEY"),
    )
    .await;
    execute(
        &c,
        &format!("CREATE SOURCE tb FROM KAFKA BROKER '{b}' TOPIC 't' FORMAT BYTES"),
    )
    .await;
    wait_for(&c, "SELECT count(*) FROM j", "3").await;
    assert_eq!(
        query(
            &c,
            "SELECT id, name, ok, k, ts IS NOT NULL FROM j ORDER BY id"
        )
        .await,
        rows(&[
            &["1", "a", "t", "k1", "t"],
            &["2", "NULL", "f", "k2", "t"],
            &["3", r#"{"nested":1}"#, "NULL", "NULL", "t"],
        ])
    );
    wait_for(&c, "SELECT count(*) FROM tb", "2").await;
    assert_eq!(
        query(&c, "SELECT text, key FROM t WHERE key = 'a'").await,
        rows(&[&["hello", "a"]])
    );
    assert_eq!(
        query(&c, "SELECT data FROM tb ORDER BY data").await,
        rows(&[&["\\x68656c6c6f"], &["\\xdead"]])
    );
    // The topic of `t` has a key that is not UTF-8: a TEXT key cannot hold it.
    wait_for(
        &c,
        "SELECT count(*) FROM kpg_source_errors WHERE source = 't'",
        "1",
    )
    .await;
    // SHOW CREATE SOURCE spells every option out.
    let shown = query(&c, "SHOW CREATE SOURCE j").await;
    assert!(
        cell(&shown[0][1]).contains(
            "KEY FORMAT TEXT VALUE FORMAT JSON INCLUDE KEY AS k, TIMESTAMP AS ts ENVELOPE NONE"
        ),
        "{shown:?}"
    );
    // Errors a user can make.
    let (code, msg) = expect_error(
        &c,
        &format!("CREATE SOURCE nope (a int) FROM KAFKA BROKER '{b}' TOPIC 'nope' FORMAT CSV"),
    )
    .await;
    assert_eq!(code, "42704", "{msg}");
    assert!(msg.contains("topic \"nope\" does not exist"), "{msg}");
    let (code, _) = expect_error(
        &c,
        &format!("CREATE SOURCE x FROM KAFKA BROKER '{b}' TOPIC 't' FORMAT AVRO"),
    )
    .await;
    assert_eq!(code, "0A000");
    let (code, _) = expect_error(
        &c,
        &format!("CREATE SOURCE x FROM KAFKA BROKER '{b}' TOPIC 't' FORMAT CSV"),
    )
    .await;
    assert_eq!(code, "42601");
    let (code, _) = expect_error(
        &c,
        "CREATE SOURCE x FROM KAFKA CONNECTION k (TOPIC 't') FORMAT TEXT",
    )
    .await;
    assert_eq!(code, "42704");
    let (code, _) = expect_error(
        &c,
        &format!("CREATE SOURCE x FROM KAFKA BROKER '{b}' TOPIC 't' FORMAT PROTOBUF"),
    )
    .await;
    assert_eq!(code, "0A000");
    // A source is not a table: writes are refused as for PostgreSQL's non-tables.
    let (code, _) = expect_error(&c, "INSERT INTO t VALUES ('x', 'y')").await;
    assert_eq!(code, "42809");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upsert_keeps_the_latest_value_of_each_key() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("u", 2).await;
    let c = kpg.connect().await;
    execute(
        &c,
        &format!(
            "CREATE SOURCE u (v int, note text) FROM KAFKA BROKER '{}' TOPIC 'u' \
             KEY FORMAT TEXT VALUE FORMAT CSV ENVELOPE UPSERT",
            kafka.broker()
        ),
    )
    .await;
    // A reference: the latest value per key, deletes removing the key.
    let mut expected = std::collections::BTreeMap::new();
    let mut records: Vec<(String, Option<String>)> = Vec::new();
    for round in 0..6 {
        for k in 0..20 {
            let key = format!("k{k}");
            let value = if (k + round) % 7 == 0 {
                None
            } else {
                Some(format!("{},round {round}", k * 100 + round))
            };
            records.push((key, value));
        }
    }
    let mut produce = |records: &[(String, Option<String>)]| {
        let batch: Vec<_> = records
            .iter()
            .map(|(k, v)| {
                // One key always goes to one partition, so its records stay in order.
                let partition = (k[1..].parse::<i32>().unwrap()) % 2;
                (
                    Some(k.as_bytes()),
                    v.as_deref().map(str::as_bytes),
                    Some(partition),
                )
            })
            .collect();
        kafka.produce("u", &batch);
        for (k, v) in records {
            match v {
                Some(v) => expected.insert(k.clone(), v.clone()),
                None => expected.remove(k),
            };
        }
        let mut want: Vec<Vec<Option<String>>> = expected
            .iter()
            .map(|(k, v)| {
                let (num, note) = v.split_once(',').unwrap();
                vec![
                    Some(num.to_string()),
                    Some(note.to_string()),
                    Some(k.clone()),
                ]
            })
            .collect();
        want.sort();
        want
    };
    let (first, second) = records.split_at(60);
    let want = produce(first);
    let read = "SELECT v::text, note, key FROM u ORDER BY 1, 2, 3";
    let deadline = Instant::now() + Duration::from_secs(30);
    let sorted = |mut r: Rows| {
        r.sort();
        r
    };
    while sorted(query(&c, read).await) != want {
        assert!(Instant::now() < deadline, "upsert never reached {want:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A restart in the middle: the keys' current rows are read back, and later records
    // update them (no key twice).
    drop(c);
    kpg.kill();
    kpg.restart().await;
    let c = kpg.connect().await;
    let want = produce(second);
    let deadline = Instant::now() + Duration::from_secs(30);
    while sorted(query(&c, read).await) != want {
        assert!(
            Instant::now() < deadline,
            "upsert after a restart never reached {want:?}: {:?}",
            query(&c, read).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    wait_for(&c, "SELECT count(*) - count(DISTINCT key) FROM u", "0").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_mid_stream_neither_repeats_nor_loses_records() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("events", 4).await;
    let c = kpg.connect().await;
    execute(
        &c,
        &format!(
            "CREATE SOURCE events (id int) FROM KAFKA BROKER '{}' TOPIC 'events' FORMAT CSV",
            kafka.broker()
        ),
    )
    .await;
    execute(
        &c,
        "CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, count(DISTINCT id) AS d, \
         sum(id) AS s FROM events",
    )
    .await;
    let batch =
        |from: usize, to: usize| -> Vec<String> { (from..to).map(|i| i.to_string()).collect() };
    let produce = |from: usize, to: usize| {
        let values = batch(from, to);
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        kafka.produce_values("events", &values, None);
    };
    produce(0, 3000);
    // Killed while it may still be reading the first batch.
    tokio::time::sleep(Duration::from_millis(150)).await;
    drop(c);
    kpg.kill();
    produce(3000, 5000);
    kpg.restart().await;
    let c = kpg.connect().await;
    wait_for(&c, "SELECT n FROM totals", "5000").await;
    let sum: i64 = (0..5000).sum();
    assert_eq!(
        query(&c, "SELECT n, d, s FROM totals").await,
        rows(&[&["5000", "5000", &sum.to_string()]])
    );
    // And a clean stop: the same, with more records while it was down.
    drop(c);
    assert_eq!(
        kpg.terminate(Duration::from_secs(30)).map(|s| s.code()),
        Some(Some(0))
    );
    produce(5000, 6000);
    kpg.restart().await;
    let c = kpg.connect().await;
    wait_for(&c, "SELECT n FROM totals", "6000").await;
    assert_eq!(
        query(&c, "SELECT n, d FROM totals").await,
        rows(&[&["6000", "6000"]])
    );
    // DROP SOURCE stops the reader and forgets the source.
    execute(&c, "DROP SOURCE events CASCADE").await;
    let status = query(&c, "SELECT count(*) FROM kpg_sources").await;
    assert_eq!(status, rows(&[&["0"]]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_name_a_broker_and_survive_restarts() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("c", 1).await;
    kafka.produce_values("c", &["x", "y"], None);
    let c = kpg.connect().await;
    execute(
        &c,
        &format!("CREATE CONNECTION k TO KAFKA (BROKER '{}')", kafka.broker()),
    )
    .await;
    let (code, _) = expect_error(
        &c,
        &format!("CREATE CONNECTION k TO KAFKA (BROKER '{}')", kafka.broker()),
    )
    .await;
    assert_eq!(code, "42710");
    execute(
        &c,
        "CREATE SOURCE s FROM KAFKA CONNECTION k (TOPIC 'c') FORMAT TEXT",
    )
    .await;
    let (code, _) = expect_error(
        &c,
        "CREATE SOURCE s2 FROM KAFKA CONNECTION nope (TOPIC 'c') FORMAT TEXT",
    )
    .await;
    assert_eq!(code, "42704");
    wait_for(&c, "SELECT count(*) FROM s", "2").await;
    assert_eq!(
        query(&c, "SHOW CONNECTIONS").await,
        rows(&[&["k", "kafka", &kafka.broker()]])
    );
    assert_eq!(
        query(&c, "SHOW SOURCES").await,
        rows(&[&["s", "kafka"], &["s_progress", "progress"]])
    );
    let shown = query(&c, "SHOW CREATE SOURCE s").await;
    assert!(
        cell(&shown[0][1]).contains("FROM KAFKA CONNECTION k (TOPIC 'c') FORMAT TEXT"),
        "{shown:?}"
    );
    // The source depends on the connection.
    let (code, msg) = expect_error(&c, "DROP CONNECTION k").await;
    assert_eq!(code, "2BP01", "{msg}");
    // Both come back after a restart, and the source reads on.
    drop(c);
    kpg.kill();
    kafka.produce_values("c", &["z"], None);
    kpg.restart().await;
    let c = kpg.connect().await;
    wait_for(&c, "SELECT count(*) FROM s", "3").await;
    execute(&c, "DROP CONNECTION k CASCADE").await;
    assert_eq!(query(&c, "SHOW SOURCES").await, rows(&[]));
    assert_eq!(query(&c, "SHOW CONNECTIONS").await, rows(&[]));
    execute(&c, "DROP CONNECTION IF EXISTS k").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_offset_and_start_timestamp() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("s", 2).await;
    let values: Vec<String> = (0..10).map(|i| i.to_string()).collect();
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    kafka.produce_values("s", &values, Some(0));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cut = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    tokio::time::sleep(Duration::from_millis(100)).await;
    kafka.produce_values("s", &["10", "11", "12"], Some(0));
    kafka.produce_values("s", &["100"], Some(1));
    let c = kpg.connect().await;
    let b = kafka.broker();
    // Partition 0 from offset 7, partition 1 (not listed) from its beginning.
    execute(
        &c,
        &format!(
            "CREATE SOURCE by_offset (n int) FROM KAFKA BROKER '{b}' TOPIC 's' FORMAT CSV \
             WITH (START OFFSET (7))"
        ),
    )
    .await;
    execute(&c, &format!("CREATE CONNECTION k TO KAFKA (BROKER '{b}')")).await;
    execute(
        &c,
        &format!(
            "CREATE SOURCE by_time (n int) FROM KAFKA CONNECTION k (TOPIC 's', START TIMESTAMP \
             {cut}) FORMAT CSV"
        ),
    )
    .await;
    wait_for(&c, "SELECT count(*) FROM by_offset", "7").await;
    assert_eq!(
        query(&c, "SELECT n FROM by_offset ORDER BY n").await,
        rows(&[&["7"], &["8"], &["9"], &["10"], &["11"], &["12"], &["100"]])
    );
    wait_for(&c, "SELECT count(*) FROM by_time", "4").await;
    assert_eq!(
        query(&c, "SELECT n FROM by_time ORDER BY n").await,
        rows(&[&["10"], &["11"], &["12"], &["100"]])
    );
    let shown = query(&c, "SHOW CREATE SOURCE by_offset").await;
    assert!(
        cell(&shown[0][1]).ends_with("ENVELOPE NONE WITH (START OFFSET (7))"),
        "{shown:?}"
    );
    // A start past every record: nothing is read, and the position stored is the start
    // (a restart must not read the partition from 0).
    kafka.create_topic("past", 1).await;
    kafka.produce_values("past", &["1", "2", "3"], Some(0));
    let from_3 = "FORMAT CSV WITH (START OFFSET (3))";
    let sql =
        format!("CREATE SOURCE past_end (n int) FROM KAFKA BROKER '{b}' TOPIC 'past' {from_3}");
    execute(&c, &sql).await;
    let past_end = "SELECT \"offset\" FROM kpg_sources WHERE source = 'past_end'";
    wait_for(&c, past_end, "3").await;
    // After a restart the stored offsets win: nothing is read twice.
    drop(c);
    kpg.kill();
    kafka.produce_values("s", &["13"], Some(0));
    kpg.restart().await;
    let c = kpg.connect().await;
    wait_for(&c, "SELECT count(*) FROM by_offset", "8").await;
    wait_for(&c, past_end, "3").await;
    assert_eq!(
        query(&c, "SELECT count(*) FROM past_end").await,
        rows(&[&["0"]])
    );
    wait_for(&c, "SELECT count(*) FROM by_time", "5").await;
    assert_eq!(
        query(&c, "SELECT count(*) - count(DISTINCT n) FROM by_time").await,
        rows(&[&["0"]])
    );
}

/// `FORMAT CSV WITH HEADER`: a partition's record at offset 0 that holds the column names is a
/// header line, not a row — neither a row nor a bad record, and not read again after a restart;
/// a partition whose first record is data keeps it; without `WITH HEADER` the header lines are
/// bad records (typed columns) or rows (text columns).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_with_header_skips_each_partitions_header_line() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("h", 3).await;
    kafka.produce_values("h", &["id,name"], Some(0));
    // Names match whatever their ASCII case and surrounding blanks.
    kafka.produce_values("h", &[" ID , Name\r\n"], Some(1));
    kafka.produce_values("h", &["1,a", "2,b"], Some(0));
    kafka.produce_values("h", &["3,c"], Some(1));
    // This partition has no header line: its first record is a row.
    kafka.produce_values("h", &["5,e"], Some(2));
    let c = kpg.connect().await;
    let b = kafka.broker();
    // `CREATE SOURCE name (columns) FROM KAFKA ... TOPIC 'topic' FORMAT CSV rest`.
    let create = |name: &str, columns: &str, topic: &str, rest: &str| {
        format!(
            "CREATE SOURCE {name} ({columns}) FROM KAFKA BROKER '{b}' TOPIC '{topic}' \
             FORMAT CSV {rest}"
        )
    };
    let (ints, texts) = ("id int, name text", "id text, name text");
    let with_header = "WITH HEADER";
    let typed = create(
        "typed",
        ints,
        "h",
        "WITH HEADER INCLUDE PARTITION AS p, OFFSET",
    );
    execute(&c, &typed).await;
    execute(&c, &create("texts", texts, "h", with_header)).await;
    execute(&c, &create("no_header", ints, "h", "")).await;
    wait_for(&c, "SELECT count(*) FROM typed", "4").await;
    wait_for(&c, "SELECT count(*) FROM texts", "4").await;
    wait_for(&c, "SELECT count(*) FROM no_header", "4").await;
    assert_eq!(
        query(&c, "SELECT id, name, p, \"offset\" FROM typed ORDER BY id").await,
        rows(&[
            &["1", "a", "0", "1"],
            &["2", "b", "0", "2"],
            &["3", "c", "1", "1"],
            &["5", "e", "2", "0"]
        ])
    );
    assert_eq!(
        query(&c, "SELECT id, name FROM texts ORDER BY id").await,
        rows(&[&["1", "a"], &["2", "b"], &["3", "c"], &["5", "e"]])
    );
    // Without WITH HEADER each header line is a record int cannot read.
    wait_for(
        &c,
        "SELECT count(*) FROM kpg_source_errors WHERE source = 'no_header'",
        "2",
    )
    .await;
    assert_eq!(
        query(
            &c,
            "SELECT count(*) FROM kpg_source_errors WHERE source IN ('typed', 'texts')"
        )
        .await,
        rows(&[&["0"]])
    );
    // A partition holding nothing but its header line is read to its end: lag 0, no row.
    kafka.create_topic("ho", 1).await;
    kafka.produce_values("ho", &["id,name"], Some(0));
    execute(&c, &create("only_header", ints, "ho", with_header)).await;
    let only_header = "FROM kpg_sources WHERE source = 'only_header'";
    wait_for(&c, &format!("SELECT high_watermark {only_header}"), "1").await;
    wait_for(&c, &format!("SELECT lag {only_header}"), "0").await;
    assert_eq!(
        query(&c, "SELECT count(*) FROM only_header").await,
        rows(&[&["0"]])
    );
    let shown = query(&c, "SHOW CREATE SOURCE typed").await;
    assert!(
        cell(&shown[0][1]).contains("FORMAT CSV WITH HEADER INCLUDE PARTITION AS p, OFFSET"),
        "{shown:?}"
    );
    // A key has no header line; header names in the statement are Materialize's, not kpg's.
    for sql in [
        format!(
            "CREATE SOURCE k (id int, name text) FROM KAFKA BROKER '{b}' TOPIC 'h' \
             KEY FORMAT CSV WITH HEADER WITH 1 COLUMNS VALUE FORMAT CSV"
        ),
        format!(
            "CREATE SOURCE k (id int, name text) FROM KAFKA BROKER '{b}' TOPIC 'h' \
             FORMAT CSV WITH HEADER (id, name)"
        ),
    ] {
        let (code, _) = expect_error(&c, &sql).await;
        assert_eq!(code, "0A000", "{sql}");
    }
    // After a restart the sources go on after what they read: the header lines stay skipped
    // and nothing is read twice.
    drop(c);
    kpg.kill();
    kafka.produce_values("h", &["4,d"], Some(0));
    kpg.restart().await;
    let c = kpg.connect().await;
    wait_for(&c, "SELECT count(*) FROM typed", "5").await;
    wait_for(&c, "SELECT count(*) FROM texts", "5").await;
    assert_eq!(
        query(&c, "SELECT count(*), count(DISTINCT id) FROM typed").await,
        rows(&[&["5", "5"]])
    );
}
