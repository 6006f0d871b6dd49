//! Kafka sources against a real broker, the options beyond the basics (issue 19): `ENVELOPE
//! UPSERT (VALUE DECODING ERRORS = INLINE)`, keys of several columns (`KEY FORMAT CSV | JSON
//! WITH n COLUMNS`, identified by their decoded columns), `INCLUDE HEADERS` and `INCLUDE
//! HEADER 'k'`, and a `START TIMESTAMP` relative to now. Upserts are checked against a
//! reference (the latest value of each key, a delete removing it), also across a kpg restart
//! (the keys' rows are read back); header values against PostgreSQL's reading of the same
//! `jsonb` and `bytea`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// Waits until `sql` (ordered) reads `want`, or fails saying what it read last.
async fn wait_rows(c: &Client, sql: &str, want: &Rows) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = query(c, sql).await;
        if &got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "`{sql}` reads {got:?}, still not {want:?} after 30s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inline_value_errors_are_rows_a_later_value_replaces() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("u", 1).await;
    let c = kpg.connect().await;
    let b = kafka.broker();
    execute(
        &c,
        &format!(
            "CREATE SOURCE u (v int, note text) FROM KAFKA BROKER '{b}' TOPIC 'u' \
             KEY FORMAT TEXT VALUE FORMAT CSV ENVELOPE UPSERT (VALUE DECODING ERRORS = INLINE)"
        ),
    )
    .await;
    execute(
        &c,
        &format!(
            "CREATE SOURCE w (v int, note text) FROM KAFKA BROKER '{b}' TOPIC 'u' \
             KEY FORMAT TEXT VALUE FORMAT CSV ENVELOPE UPSERT (VALUE DECODING ERRORS = INLINE \
             AS why)"
        ),
    )
    .await;
    // Without INLINE the same topic leaves a key at its last good value.
    execute(
        &c,
        &format!(
            "CREATE SOURCE plain (v int, note text) FROM KAFKA BROKER '{b}' TOPIC 'u' \
             KEY FORMAT TEXT VALUE FORMAT CSV ENVELOPE UPSERT"
        ),
    )
    .await;
    let rec = |k: &'static str, v: Option<&'static str>| {
        (Some(k.as_bytes()), v.map(str::as_bytes), Some(0))
    };
    kafka.produce(
        "u",
        &[
            rec("k1", Some("1,a")),
            rec("k2", Some("x,b")), // not an integer
            rec("k3", Some("3,c")),
            rec("k3", Some("3,c,extra")), // too many fields: k3's row becomes the error
            rec("k4", Some("4")),         // too few fields, then deleted
            rec("k4", None),
            rec("k5", Some("5,e")),
        ],
    );
    let read = "SELECT key, v, note, error IS NOT NULL FROM u ORDER BY key";
    wait_rows(
        &c,
        read,
        &rows(&[
            &["k1", "1", "a", "f"],
            &["k2", "NULL", "NULL", "t"],
            &["k3", "NULL", "NULL", "t"],
            &["k5", "5", "e", "f"],
        ]),
    )
    .await;
    // The error column says why; the errors are also kept in kpg_source_errors.
    let why = query(
        &c,
        "SELECT key, why FROM w WHERE why IS NOT NULL ORDER BY key",
    )
    .await;
    assert_eq!(why.len(), 2, "{why:?}");
    assert!(cell(&why[0][1]).contains("column \"v\""), "{why:?}");
    assert!(
        cell(&why[1][1]).contains("expected 2 CSV fields, found 3"),
        "{why:?}"
    );
    wait_for(
        &c,
        "SELECT count(*) FROM kpg_source_errors WHERE source = 'u'",
        "3",
    )
    .await;
    wait_rows(
        &c,
        "SELECT key, v, note FROM plain ORDER BY key",
        &rows(&[&["k1", "1", "a"], &["k3", "3", "c"], &["k5", "5", "e"]]),
    )
    .await;
    // Views over the source follow the error rows too.
    execute(
        &c,
        "CREATE MATERIALIZED VIEW bad AS SELECT count(*) AS n FROM u WHERE error IS NOT NULL",
    )
    .await;
    wait_for(&c, "SELECT n FROM bad", "2").await;
    let shown = query(&c, "SHOW CREATE SOURCE w").await;
    assert!(
        cell(&shown[0][1]).contains("ENVELOPE UPSERT (VALUE DECODING ERRORS = INLINE AS why)"),
        "{shown:?}"
    );
    // After a restart the error rows are read back as their keys' rows: later good values
    // replace them, and no key is there twice.
    drop(c);
    kpg.kill();
    kpg.restart().await;
    let c = kpg.connect().await;
    kafka.produce(
        "u",
        &[
            rec("k2", Some("2,b")),
            rec("k3", Some("33,cc")),
            rec("k1", Some("oops,a")),
        ],
    );
    wait_rows(
        &c,
        read,
        &rows(&[
            &["k1", "NULL", "NULL", "t"],
            &["k2", "2", "b", "f"],
            &["k3", "33", "cc", "f"],
            &["k5", "5", "e", "f"],
        ]),
    )
    .await;
    wait_for(&c, "SELECT n FROM bad", "1").await;
    wait_for(&c, "SELECT count(*) - count(DISTINCT key) FROM w", "0").await;
    // What cannot be.
    let (code, msg) = expect_error(
        &c,
        &format!(
            "CREATE SOURCE x (v int NOT NULL) FROM KAFKA BROKER '{b}' TOPIC 'u' KEY FORMAT \
             TEXT VALUE FORMAT CSV ENVELOPE UPSERT (VALUE DECODING ERRORS = INLINE)"
        ),
    )
    .await;
    assert_eq!(code, "42601", "{msg}");
    let (code, _) = expect_error(
        &c,
        &format!(
            "CREATE SOURCE x (v int) FROM KAFKA BROKER '{b}' TOPIC 'u' KEY FORMAT TEXT VALUE \
             FORMAT CSV ENVELOPE UPSERT (VALUE DECODING ERRORS = INLINE AS key)"
        ),
    )
    .await;
    assert_eq!(code, "42701");
    let (code, _) = expect_error(
        &c,
        &format!(
            "CREATE SOURCE x (v int) FROM KAFKA BROKER '{b}' TOPIC 'u' KEY FORMAT TEXT VALUE \
             FORMAT CSV ENVELOPE DEBEZIUM"
        ),
    )
    .await;
    assert_eq!(code, "0A000");
}

/// Records of a two-column key, spelled in ways that decode to the same key.
fn keyed_records() -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for round in 0..5 {
        for region in ["eu", "us", "ap"] {
            for id in 0..6 {
                // The same key, quoted or with spaces: one key once decoded.
                let key = match (round + id) % 3 {
                    0 => format!("{region},{id}"),
                    1 => format!("\"{region}\",{id}"),
                    _ => format!("{region}, {id} "),
                };
                let value = if (round * 7 + id) % 5 == 0 {
                    None
                } else {
                    Some(format!("{},\"r{round}, {region}\"", round * 10 + id))
                };
                out.push((key, value));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_of_several_columns_csv_and_json() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("o", 2).await;
    kafka.create_topic("j", 1).await;
    let c = kpg.connect().await;
    let b = kafka.broker();
    execute(
        &c,
        &format!(
            "CREATE SOURCE o (region text NOT NULL, id int, qty int, note text) FROM KAFKA \
             BROKER '{b}' TOPIC 'o' KEY FORMAT CSV WITH 2 COLUMNS VALUE FORMAT CSV \
             ENVELOPE UPSERT"
        ),
    )
    .await;
    // The key's columns come first.
    assert_eq!(
        query(
            &c,
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'o' \
             ORDER BY ordinal_position"
        )
        .await,
        rows(&[&["region"], &["id"], &["qty"], &["note"]])
    );
    let records = keyed_records();
    let mut reference: BTreeMap<(String, i32), (String, String)> = BTreeMap::new();
    let mut produce = |records: &[(String, Option<String>)]| {
        // The spellings of one key stay in one partition (by region), so its records keep
        // their order.
        let batch: Vec<_> = records
            .iter()
            .map(|(k, v)| {
                let partition = i32::from(k.contains("us"));
                (
                    Some(k.as_bytes()),
                    v.as_deref().map(str::as_bytes),
                    Some(partition),
                )
            })
            .collect();
        kafka.produce("o", &batch);
        for (k, v) in records {
            let (region, id) = k.split_once(',').unwrap();
            let key = (
                region.trim_matches('"').to_string(),
                id.trim().parse().unwrap(),
            );
            match v {
                Some(v) => {
                    let (qty, note) = v.split_once(',').unwrap();
                    reference.insert(key, (qty.to_string(), note.trim_matches('"').to_string()))
                }
                None => reference.remove(&key),
            };
        }
        let want: Rows = reference
            .iter()
            .map(|((r, i), (q, n))| {
                vec![
                    Some(r.clone()),
                    Some(i.to_string()),
                    Some(q.clone()),
                    Some(n.clone()),
                ]
            })
            .collect();
        want
    };
    let read = "SELECT region, id, qty, note FROM o ORDER BY region, id";
    let (first, second) = records.split_at(40);
    // Produced in small batches, so that a key's spellings meet across batches.
    let mut want = Rows::new();
    for chunk in first.chunks(7) {
        want = produce(chunk);
    }
    wait_rows(&c, read, &want).await;
    // A key that cannot be decoded is an error; the source goes on.
    kafka.produce("o", &[(Some(b"eu,x"), Some(b"1,a"), Some(0))]);
    wait_for(
        &c,
        "SELECT count(*) FROM kpg_source_errors WHERE source = 'o'",
        "1",
    )
    .await;
    // A restart: the keys' rows are read back by their decoded columns.
    drop(c);
    kpg.kill();
    kpg.restart().await;
    let c = kpg.connect().await;
    for chunk in second.chunks(11) {
        want = produce(chunk);
    }
    wait_rows(&c, read, &want).await;
    wait_for(
        &c,
        "SELECT count(*) FROM (SELECT region, id FROM o GROUP BY region, id HAVING count(*) > 1) d",
        "0",
    )
    .await;
    // JSON keys: fields by name, in any order.
    execute(
        &c,
        &format!(
            "CREATE SOURCE j (tenant text, id bigint, name text, score numeric) FROM KAFKA \
             BROKER '{b}' TOPIC 'j' KEY FORMAT JSON WITH 2 COLUMNS VALUE FORMAT JSON \
             INCLUDE OFFSET ENVELOPE UPSERT"
        ),
    )
    .await;
    execute(
        &c,
        &format!(
            "CREATE SOURCE jk FROM KAFKA BROKER '{b}' TOPIC 'j' KEY FORMAT JSON VALUE FORMAT \
             TEXT INCLUDE KEY AS k"
        ),
    )
    .await;
    kafka.produce(
        "j",
        &[
            (
                Some(br#"{"tenant": "a", "id": 1}"#),
                Some(br#"{"name": "first", "score": 1.5}"#),
                None,
            ),
            (
                Some(br#"{"tenant": "b", "id": 1}"#),
                Some(br#"{"name": "other", "score": 2}"#),
                None,
            ),
            (
                Some(br#"{"id": 1, "tenant": "a", "ignored": true}"#),
                Some(br#"{"name": "second", "score": "2.50"}"#),
                None,
            ),
            (Some(br#"{"id": 1, "tenant": "b"}"#), None, None),
            (
                Some(br#"{"id": 2, "tenant": "a"}"#),
                Some(br#"{"name": "two"}"#),
                None,
            ),
        ],
    );
    wait_rows(
        &c,
        "SELECT tenant, id, name, score FROM j ORDER BY tenant, id",
        &rows(&[&["a", "1", "second", "2.50"], &["a", "2", "two", "NULL"]]),
    )
    .await;
    wait_for(&c, "SELECT count(*) FROM jk", "4").await;
    assert_eq!(
        query(
            &c,
            "SELECT k->>'tenant', count(*) FROM jk GROUP BY 1 ORDER BY 1"
        )
        .await,
        rows(&[&["a", "3"], &["b", "1"]])
    );
    let shown = query(&c, "SHOW CREATE SOURCE o").await;
    assert!(
        cell(&shown[0][1]).contains("KEY FORMAT CSV WITH 2 COLUMNS VALUE FORMAT CSV"),
        "{shown:?}"
    );
    // What cannot be.
    for (sql, want) in [
        (
            "(a int, b int) KEY FORMAT CSV VALUE FORMAT CSV ENVELOPE UPSERT",
            "42601",
        ),
        (
            "(a int, b int) KEY FORMAT CSV WITH 3 COLUMNS VALUE FORMAT CSV ENVELOPE UPSERT",
            "42601",
        ),
        (
            "(a int, b int) KEY FORMAT CSV WITH 1 COLUMNS VALUE FORMAT CSV INCLUDE KEY AS k",
            "42601",
        ),
        (
            "(a int, b int) KEY FORMAT CSV WITH 1 COLUMNS VALUE FORMAT CSV",
            "42601",
        ),
        (
            "(a int) KEY FORMAT AVRO VALUE FORMAT CSV ENVELOPE UPSERT",
            "0A000",
        ),
    ] {
        let (code, msg) = expect_error(
            &c,
            &format!(
                "CREATE SOURCE x {} ",
                sql.replacen(')', &format!(") FROM KAFKA BROKER '{b}' TOPIC 'o'"), 1)
            ),
        )
        .await;
        assert_eq!(code, want, "{sql}: {msg}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_all_and_one_by_key() {
    let (kafka, kpg, pg) = tokio::join!(Kafka::start(), KpgServer::start(), Postgres::start());
    kafka.create_topic("h", 1).await;
    let c = kpg.connect().await;
    let pgc = pg.connect().await;
    let b = kafka.broker();
    execute(
        &c,
        &format!(
            "CREATE SOURCE h FROM KAFKA BROKER '{b}' TOPIC 'h' FORMAT TEXT INCLUDE OFFSET, \
             HEADERS, HEADER 'trace' AS trace, HEADER 'bin' AS bin BYTES"
        ),
    )
    .await;
    execute(
        &c,
        &format!(
            "CREATE SOURCE hs FROM KAFKA BROKER '{b}' TOPIC 'h' FORMAT TEXT INCLUDE HEADERS AS hs"
        ),
    )
    .await;
    let r = |v: &'static str| (None, Some(v.as_bytes()), Some(0));
    kafka.produce_with_headers(
        "h",
        &[
            (
                r("r0"),
                vec![("trace", Some(b"t-1".as_slice())), ("bin", Some(&[0, 255]))],
            ),
            (r("r1"), vec![]),
            (
                r("r2"),
                vec![("trace", None), ("x", Some(b"y")), ("trace", Some(b"t-2"))],
            ),
            (r("r3"), vec![("trace", None)]),
            (r("r4"), vec![("trace", Some(&[0xff, 0xfe]))]), // not UTF-8: an error
        ],
    );
    wait_for(&c, "SELECT count(*) FROM h", "4").await;
    assert_eq!(
        query(&c, "SELECT text, trace, bin FROM h ORDER BY \"offset\"").await,
        rows(&[
            &["r0", "t-1", "\\x00ff"],
            &["r1", "NULL", "NULL"],
            &["r2", "t-2", "NULL"],
            &["r3", "NULL", "NULL"],
        ])
    );
    wait_for(
        &c,
        "SELECT count(*) FROM kpg_source_errors WHERE source = 'h' AND reason LIKE '%header%'",
        "1",
    )
    .await;
    // Every header in order, values as bytea text: as PostgreSQL reads the same jsonb.
    let want = [
        r#"[{"key": "trace", "value": "\\x742d31"}, {"key": "bin", "value": "\\x00ff"}]"#,
        "[]",
        r#"[{"key": "trace", "value": null}, {"key": "x", "value": "\\x79"}, {"key": "trace", "value": "\\x742d32"}]"#,
        r#"[{"key": "trace", "value": null}]"#,
    ];
    let got = query(&c, "SELECT headers::text FROM h ORDER BY \"offset\"").await;
    for (g, w) in got.iter().zip(want) {
        let pg_text = query(&pgc, &format!("SELECT '{w}'::jsonb::text")).await;
        assert_eq!(cell(&g[0]), cell(&pg_text[0][0]));
    }
    assert_eq!(got.len(), 4);
    // The values read back as bytea, and the array is queryable.
    let sql = "SELECT (headers->0->>'value')::bytea, headers->1->>'key', \
               jsonb_typeof(headers) FROM h ORDER BY \"offset\"";
    let kpg_rows = query(&c, sql).await;
    let pg_sql = format!(
        "SELECT (h->0->>'value')::bytea, h->1->>'key', jsonb_typeof(h) FROM (VALUES {}) v(o, h) \
         ORDER BY o",
        want.iter()
            .enumerate()
            .map(|(i, w)| format!("({i}, '{w}'::jsonb)"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_eq!(kpg_rows, query(&pgc, &pg_sql).await);
    wait_for(&c, "SELECT count(*) FROM hs", "5").await;
    let shown = query(&c, "SHOW CREATE SOURCE h").await;
    assert!(
        cell(&shown[0][1]).contains(
            "INCLUDE OFFSET, HEADERS, HEADER 'trace' AS trace, HEADER 'bin' AS bin BYTES"
        ),
        "{shown:?}"
    );
    let (code, _) = expect_error(
        &c,
        &format!(
            "CREATE SOURCE x FROM KAFKA BROKER '{b}' TOPIC 'h' FORMAT TEXT INCLUDE HEADER 'a'"
        ),
    )
    .await;
    assert_eq!(code, "42601");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_timestamp_relative_to_now() {
    let (kafka, kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    kafka.create_topic("s", 2).await;
    kafka.produce_values("s", &["1", "2", "3"], Some(0));
    kafka.produce_values("s", &["4"], Some(1));
    tokio::time::sleep(Duration::from_millis(4000)).await;
    kafka.produce_values("s", &["10", "11"], Some(0));
    kafka.produce_values("s", &["12"], Some(1));
    let c = kpg.connect().await;
    let b = kafka.broker();
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
    };
    let before = now();
    execute(
        &c,
        &format!(
            "CREATE SOURCE recent (n int) FROM KAFKA BROKER '{b}' TOPIC 's' FORMAT CSV \
             WITH (START TIMESTAMP -2000)"
        ),
    )
    .await;
    let after = now();
    wait_for(&c, "SELECT count(*) FROM recent", "3").await;
    assert_eq!(
        query(&c, "SELECT n FROM recent ORDER BY n").await,
        rows(&[&["10"], &["11"], &["12"]])
    );
    // The statement keeps the instant it meant, so a restart reads from the same place.
    let shown = query(&c, "SHOW CREATE SOURCE recent").await;
    let text = cell(&shown[0][1]).to_string();
    let at: i64 = text
        .rsplit("START TIMESTAMP ")
        .next()
        .and_then(|t| t.trim_end_matches(')').parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        (before - 2000..=after - 2000).contains(&at),
        "{at} not in {}..={}",
        before - 2000,
        after - 2000
    );
}
