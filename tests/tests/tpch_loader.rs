//! The streaming TPC-H demo's loader and setup (issue 20) against a real Kafka broker:
//! `kpg-tpch load` at a tiny scale factor puts every generated row of the 8 relations, as CSV
//! in the schema's column order, into its relation's topic (read back with a consumer and
//! compared, record for record, with the tpch crate's generator), and `kpg-tpch setup` makes
//! kpg read those topics into sources with the seven primary-key indexes and the demo's views,
//! whose contents equal PostgreSQL's over the same rows. The windowed view (line items of the
//! last minute by their Kafka timestamp) is checked against a reference computed from the
//! arrival timestamps kpg reports.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use kpg_tests::*;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Message, Offset, TopicPartitionList};

use kpg_tpch::demo::{csv_record, views};
use kpg_tpch::{create_tables, rows, CharColumns, TABLES};

const SF: f64 = 0.001;

/// The kpg-tpch binary beside kpg (`$KPG_TPCH_BIN` overrides).
fn loader_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("KPG_TPCH_BIN") {
        return PathBuf::from(p);
    }
    let p = kpg_bin().with_file_name("kpg-tpch");
    assert!(
        p.is_file(),
        "{} not found: run `cargo build --bin kpg-tpch` first",
        p.display()
    );
    p
}

fn run(args: &[&str]) -> String {
    let out = Command::new(loader_bin())
        .args(args)
        .output()
        .expect("run kpg-tpch");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "kpg-tpch {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Every record's value in `topic` (all partitions from the start), as a multiset.
fn consume(broker: &str, topic: &str, partitions: i32, want: usize) -> HashMap<String, usize> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", broker)
        .set("group.id", "tpch-loader-test")
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    let mut assignment = TopicPartitionList::new();
    for p in 0..partitions {
        assignment
            .add_partition_offset(topic, p, Offset::Beginning)
            .unwrap();
    }
    consumer.assign(&assignment).expect("assign");
    let (mut values, mut n) = (HashMap::new(), 0);
    let deadline = Instant::now() + Duration::from_secs(60);
    while n < want && Instant::now() < deadline {
        if let Some(m) = consumer.poll(Duration::from_millis(200)) {
            let m = m.expect("consume");
            let v = String::from_utf8(m.payload().expect("a value").to_vec()).expect("utf-8");
            *values.entry(v).or_insert(0) += 1;
            n += 1;
        }
    }
    // Nothing beyond the generated rows.
    if let Some(Ok(m)) = consumer.poll(Duration::from_millis(500)) {
        panic!(
            "{topic}: an extra record {:?}",
            m.payload().map(String::from_utf8_lossy)
        );
    }
    values
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loader_streams_every_row_and_the_demo_views_match_postgres() {
    let (kafka, kpg, pg) = tokio::join!(Kafka::start(), KpgServer::start(), Postgres::start());
    let broker = kafka.broker();
    let out = run(&[
        "load",
        "--broker",
        &broker,
        "--scale-factor",
        &SF.to_string(),
        "--rate",
        "0",
        "--partitions",
        "2",
    ]);
    let loaded = Instant::now();
    assert!(out.contains("done: "), "no final line:\n{out}");
    assert!(
        out.contains("created topic tpch-lineitem (2 partitions)"),
        "{out}"
    );

    // Each topic holds exactly its relation's generated rows.
    let mut total = 0;
    for table in TABLES {
        let mut want: HashMap<String, usize> = HashMap::new();
        for row in rows(table, SF, 1, 1) {
            *want.entry(csv_record(&row)).or_insert(0) += 1;
        }
        let count: usize = want.values().sum();
        total += count;
        let got = consume(&broker, &format!("tpch-{table}"), 2, count);
        assert_eq!(got.values().sum::<usize>(), count, "{table}: record count");
        assert!(
            got == want,
            "{table}: the records differ from the generator's rows"
        );
    }
    assert!(out.contains(&format!("done: {total} rows")), "{out}");

    // Loading again: the topics exist, and the command says so.
    let port = kpg.port().to_string();
    let setup = run(&["setup", "--port", &port, "--broker", &broker]);
    assert!(setup.contains("topic tpch-orders exists"), "{setup}");
    assert_eq!(setup.matches("ok: ").count(), 1 + 8 + 7 + 5, "{setup}");

    // PostgreSQL with the same rows and the same views (plain views: always current).
    let s = Pair::new(&kpg, &pg).await;
    for sql in create_tables(CharColumns::Varchar) {
        execute(&s.pg, &sql).await;
    }
    for table in TABLES {
        let data: Vec<_> = rows(table, SF, 1, 1).collect();
        for sql in kpg_tpch::insert_statements(table, &data, 500) {
            execute(&s.pg, &sql).await;
        }
        let n = data.len().to_string();
        wait_for(&s.kpg, &format!("SELECT count(*) FROM {table}"), &n).await;
    }
    for view in views(false) {
        let query = view
            .create
            .split_once(" AS ")
            .expect("CREATE MATERIALIZED VIEW name AS query")
            .1;
        execute(&s.pg, &format!("CREATE VIEW {} AS {query}", view.name)).await;
        s.check(&format!("SELECT * FROM {}", view.name)).await;
    }
    // The seven indexes are there and the views read them.
    let indexes = query(&s.kpg, "SHOW INDEXES").await;
    for (name, _, _) in kpg_tpch::demo::INDEXES {
        assert!(
            indexes.iter().any(|r| r.iter().any(|c| cell(c) == name)),
            "index {name} missing: {}",
            show(&indexes)
        );
    }

    // The windowed view against a reference: the line items whose arrival (the record's
    // timestamp) is at most a minute before the read's mz_now(), evaluated in the same read.
    let windowed = "SELECT n_name, count(*) AS lines, \
         sum(l_extendedprice * (1 - l_discount)) AS revenue \
         FROM lineitem JOIN orders ON l_orderkey = o_orderkey \
         JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey \
         WHERE (extract(epoch FROM l_arrival) * 1000)::bigint + 60000 >= mz_now() \
         GROUP BY n_name ORDER BY n_name";
    // (Two reads, at two times: a row may leave the window between them, so a difference is
    // retried a few times.)
    for attempt in 0.. {
        let in_window = loaded.elapsed() < Duration::from_secs(50);
        let got = query(
            &s.kpg,
            "SELECT * FROM last_minute_by_nation ORDER BY n_name",
        )
        .await;
        let reference = query(&s.kpg, windowed).await;
        if in_window {
            assert!(
                !got.is_empty(),
                "rows that arrived within the minute are in the window"
            );
        }
        if show(&got) == show(&reference) || attempt == 3 {
            assert_eq!(
                show(&got),
                show(&reference),
                "windowed view against its reference"
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}
