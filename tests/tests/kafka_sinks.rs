//! Kafka sinks (issue 19) against a real broker: every change of a table (or view) reaches the
//! topic in timestamp order, read back by a real consumer with `isolation.level =
//! read_committed`; DEBEZIUM messages add up to the object's contents, UPSERT messages leave each
//! key at its row (a null value for a deleted key); after a SIGKILL and a restart, with writes
//! while kpg was down, the topic still adds up exactly — nothing written twice, nothing missed.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use serde_json::Value;

/// Every committed message of `topic`: (key, value, kpg-timestamp header).
fn read_committed(broker: &str, topic: &str) -> Vec<(Option<String>, Option<String>, u64)> {
    let consumer: BaseConsumer = rdkafka::config::ClientConfig::new()
        .set("bootstrap.servers", broker)
        .set("group.id", "test-reader")
        .set("isolation.level", "read_committed")
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    let mut list = rdkafka::TopicPartitionList::new();
    list.add_partition_offset(topic, 0, rdkafka::Offset::Beginning)
        .unwrap();
    consumer.assign(&list).unwrap();
    let (_, high) = consumer
        .fetch_watermarks(topic, 0, Duration::from_secs(10))
        .unwrap();
    let mut out = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let position = consumer.position().unwrap();
        let at = match position.find_partition(topic, 0).map(|e| e.offset()) {
            Some(rdkafka::Offset::Offset(o)) => o,
            _ => 0,
        };
        if at >= high || Instant::now() > deadline {
            return out;
        }
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            let text = |b: Option<&[u8]>| b.map(|b| String::from_utf8(b.to_vec()).unwrap());
            let ts = m
                .headers()
                .and_then(|h| h.iter().find(|h| h.key == "kpg-timestamp"))
                .and_then(|h| h.value)
                .map(|v| std::str::from_utf8(v).unwrap().parse().unwrap())
                .expect("a kpg-timestamp header");
            out.push((text(m.key()), text(m.payload()), ts));
        }
    }
}

/// What DEBEZIUM messages add up to: each row (as JSON text) with its count.
fn debezium_net(messages: &[(Option<String>, Option<String>, u64)]) -> BTreeMap<String, i64> {
    let mut net = BTreeMap::new();
    for (_, value, _) in messages {
        let v: Value = serde_json::from_str(value.as_deref().unwrap()).unwrap();
        if !v["after"].is_null() {
            *net.entry(v["after"].to_string()).or_insert(0) += 1;
        }
        if !v["before"].is_null() {
            *net.entry(v["before"].to_string()).or_insert(0) -= 1;
        }
    }
    net.retain(|_, n| *n != 0);
    net
}

/// The table's rows as the sink writes them.
async fn table_json(c: &Client) -> BTreeMap<String, i64> {
    let rows = query(c, "SELECT id, v, n FROM t").await;
    let mut out = BTreeMap::new();
    for r in rows {
        let id: i64 = r[0].as_deref().unwrap().parse().unwrap();
        let v = r[1].clone().map_or(Value::Null, Value::String);
        let n = r[2].clone().map_or(Value::Null, Value::String);
        let row = serde_json::json!({ "id": id, "v": v, "n": n });
        *out.entry(row.to_string()).or_insert(0) += 1;
    }
    out
}

async fn until_equal<F: Fn() -> BTreeMap<String, i64>>(c: &Client, topic_net: F) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let want = table_json(c).await;
        let got = topic_net();
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the topic adds up to\n{got:?}\nnot the table's\n{want:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debezium_sink_adds_up_exactly_through_a_crash() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    let b = kafka.broker();
    let c = kpg.connect().await;
    execute(
        &c,
        "CREATE TABLE t (id int PRIMARY KEY, v text, n numeric(8,2))",
    )
    .await;
    execute(
        &c,
        "INSERT INTO t VALUES (1, 'a', 1.50), (2, NULL, 2), (3, 'c', NULL)",
    )
    .await;
    execute(&c, &format!("CREATE CONNECTION k TO KAFKA (BROKER '{b}')")).await;
    execute(
        &c,
        "CREATE SINK s FROM t INTO KAFKA CONNECTION k (TOPIC 'out') FORMAT JSON ENVELOPE DEBEZIUM",
    )
    .await;
    execute(&c, "UPDATE t SET v = 'b' WHERE id = 2").await;
    execute(&c, "DELETE FROM t WHERE id = 3").await;
    execute(
        &c,
        "INSERT INTO t SELECT g, 'g' || g, g / 4.0 FROM generate_series(10, 60) g",
    )
    .await;
    until_equal(&c, || debezium_net(&read_committed(&b, "out"))).await;
    // Timestamps never go backwards along the topic.
    let messages = read_committed(&b, "out");
    assert!(messages.windows(2).all(|w| w[0].2 <= w[1].2));
    // Each transaction carried the sink's progress: frontiers after the changes they cover.
    let progress = read_committed(&b, "_kpg-progress");
    let frontiers: Vec<u64> = progress
        .iter()
        .map(|(_, v, _)| {
            let v: Value = serde_json::from_str(v.as_deref().unwrap()).unwrap();
            v["frontier"].as_u64().unwrap()
        })
        .collect();
    assert!(!frontiers.is_empty());
    assert!(frontiers.windows(2).all(|w| w[0] < w[1]), "{frontiers:?}");
    assert!(messages.iter().all(|m| m.2 < *frontiers.last().unwrap()));
    // A crash while writes go on, more writes after the restart.
    execute(&c, "DELETE FROM t WHERE id > 50").await;
    drop(c);
    kpg.kill();
    kpg.restart().await;
    let c = kpg.connect().await;
    execute(&c, "UPDATE t SET v = 'after restart' WHERE id < 20").await;
    until_equal(&c, || debezium_net(&read_committed(&b, "out"))).await;
    let net = debezium_net(&read_committed(&b, "out"));
    assert!(
        net.values().all(|n| *n == 1),
        "a row written twice: {net:?}"
    );
    // The sink depends on the table; it can be dropped, and then writes no more.
    let (code, _) = expect_error(&c, "DROP TABLE t").await;
    assert_eq!(code, "2BP01");
    assert_eq!(query(&c, "SHOW SINKS").await, rows(&[&["s", "kafka"]]));
    execute(&c, "DROP SINK s").await;
    let before = read_committed(&b, "out").len();
    execute(&c, "INSERT INTO t VALUES (1000, 'late', 0)").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(read_committed(&b, "out").len(), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upsert_sink_leaves_each_key_at_its_row() {
    let (kafka, mut kpg) = tokio::join!(Kafka::start(), KpgServer::start());
    let b = kafka.broker();
    let c = kpg.connect().await;
    execute(
        &c,
        "CREATE TABLE t (id int PRIMARY KEY, v text, n numeric(8,2))",
    )
    .await;
    execute(
        &c,
        "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
    )
    .await;
    let (code, _) = expect_error(
        &c,
        &format!(
            "CREATE SINK s FROM t INTO KAFKA BROKER '{b}' TOPIC 'u' FORMAT JSON ENVELOPE UPSERT"
        ),
    )
    .await;
    assert_eq!(code, "42601");
    execute(
        &c,
        &format!(
            "CREATE SINK s FROM t INTO KAFKA BROKER '{b}' TOPIC 'u' KEY (id) FORMAT JSON \
             ENVELOPE UPSERT"
        ),
    )
    .await;
    let upserted = || {
        let mut last: BTreeMap<String, Option<String>> = BTreeMap::new();
        for (key, value, _) in read_committed(&b, "u") {
            last.insert(key.unwrap(), value);
        }
        last.into_values()
            .flatten()
            .map(|v| (v, 1))
            .collect::<BTreeMap<String, i64>>()
    };
    execute(&c, "UPDATE t SET v = 'B' WHERE id = 2").await;
    execute(&c, "DELETE FROM t WHERE id = 1").await;
    until_equal(&c, upserted).await;
    // A deleted key ends with a null value.
    let messages = read_committed(&b, "u");
    let last_of_1 = messages
        .iter()
        .rev()
        .find(|(k, _, _)| k.as_deref() == Some(r#"{"id":1}"#));
    assert_eq!(last_of_1.map(|m| m.1.clone()), Some(None), "{messages:?}");
    drop(c);
    kpg.kill();
    kpg.restart().await;
    let c = kpg.connect().await;
    execute(&c, "INSERT INTO t VALUES (1, 'back', 9)").await;
    execute(&c, "DELETE FROM t WHERE id = 3").await;
    until_equal(&c, upserted).await;
}
