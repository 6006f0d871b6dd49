//! Sources end to end: `CREATE SOURCE ... FROM LOAD GENERATOR` over the wire.
//!
//! - The TPC-H source's snapshot is the data `kpg-tpch` generates: every table read from kpg
//!   equals the same table loaded into PostgreSQL from the generator.
//! - While the source changes orders (every 50 ms), materialized views of TPC-H queries stay
//!   exact: one SELECT reads, at one timestamp, the changing tables and the views; PostgreSQL
//!   loaded with those tables computes the queries, and must agree with the views.
//! - The counter's values appear exactly one tick interval apart, in a subscription.
//! - DDL: SHOW SOURCES, SHOW CREATE SOURCE, indexes on subsources reused by later views, DROP
//!   rules, and the SQLSTATEs of what is refused.

use std::collections::BTreeMap;
use std::time::Duration;

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;
use kpg_tpch::{CharColumns, TABLES};

const SF: f64 = 0.01;

/// Creates the 8 tables on PostgreSQL and loads the generated rows of `tables` into them.
async fn load_generated(pg: &Client, tables: &[&str]) {
    let data = kpg_tpch::generate(SF);
    for ddl in kpg_tpch::create_tables(CharColumns::Char) {
        execute(pg, &ddl).await;
    }
    for t in &data.tables {
        if tables.contains(&t.name) {
            for sql in t.insert_statements(1000) {
                execute(pg, &sql).await;
            }
        }
    }
}

/// A text value as a SQL literal (PostgreSQL gives the column's type to it on insert).
fn literal(v: &Option<String>) -> String {
    match v {
        None => "NULL".into(),
        Some(s) => format!("'{}'", s.replace('\'', "''")),
    }
}

/// Polls `sql` on `c` until `done` accepts its rows.
async fn wait_for(c: &Client, sql: &str, done: impl Fn(&Rows) -> bool) -> Rows {
    for _ in 0..400 {
        let got = query(c, sql).await;
        if done(&got) {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("`{sql}` never reached the expected state");
}

/// kpg with a TPC-H source at [`SF`] ticking every `tick`, and PostgreSQL (empty).
async fn kpg_with_tpch_and_postgres(tick: &str) -> (KpgServer, Client, Postgres, Client) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let (k, p) = (kpg.connect().await, pg.connect().await);
    execute(
        &k,
        &format!(
            "CREATE SOURCE tpch FROM LOAD GENERATOR TPCH \
             (SCALE FACTOR {SF}, TICK INTERVAL '{tick}') FOR ALL TABLES"
        ),
    )
    .await;
    (kpg, k, pg, p)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tpch_source_snapshot_is_the_generated_data() {
    // Ticks a thousand days apart: only the snapshot is ever seen.
    let (_kpg, k, _pg, p) = kpg_with_tpch_and_postgres("1000 days").await;
    load_generated(&p, &TABLES).await;
    for table in TABLES {
        let sql = format!("SELECT * FROM {table}");
        let (kr, pr) = (sorted(query(&k, &sql).await), sorted(query(&p, &sql).await));
        assert_eq!(kr.len(), pr.len(), "{table}: row count");
        assert!(
            kr == pr,
            "{table}: kpg's source differs from the generated data"
        );
    }
    // The source object itself has no columns and no rows; the subsources have the
    // specification's types.
    assert_eq!(
        query(&k, "SELECT count(*) FROM tpch").await,
        rows(&[&["0"]])
    );
    for sql in [
        kpg_tpch::query(1).sql(),
        kpg_tpch::query(3).sql(),
        "SELECT n_name, count(*) FROM customer JOIN nation ON c_nationkey = n_nationkey \
         GROUP BY n_name ORDER BY n_name"
            .to_string(),
    ] {
        assert_eq!(query(&k, &sql).await, query(&p, &sql).await, "{sql}");
    }
}

/// The columns of `relation` on kpg.
async fn columns_of(k: &Client, relation: &str) -> Vec<String> {
    match simple(k, &format!("SELECT * FROM {relation} LIMIT 0")).await {
        Ok(r) => r.columns,
        Err(e) => panic!("{relation}: {}", describe_error(&e)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_over_a_changing_tpch_source_stay_exact() {
    let (_kpg, k, _pg, p) = kpg_with_tpch_and_postgres("50ms").await;
    execute(&k, "CREATE INDEX orders_pk ON orders (o_orderkey)").await;
    let views: Vec<(String, String)> = [1, 3, 18]
        .iter()
        .map(|n| (format!("q{n:02}"), kpg_tpch::query(*n).sql()))
        .collect();
    for (name, sql) in &views {
        execute(&k, &format!("CREATE MATERIALIZED VIEW {name} AS {sql}")).await;
    }
    // Let the orders change for a while (the views are maintained meanwhile).
    let generated = kpg_tpch::generate(SF);
    let original_orders = &generated.table("orders").rows;
    tokio::time::sleep(Duration::from_secs(2)).await;

    // One read of the changing tables and of the views, at one timestamp.
    const WIDTH: usize = 16;
    let mut branches = Vec::new();
    for relation in ["orders", "lineitem"]
        .into_iter()
        .chain(views.iter().map(|(n, _)| n.as_str()))
    {
        let cols = columns_of(&k, relation).await;
        let mut items: Vec<String> = cols.iter().map(|c| format!("{c}::text")).collect();
        items.resize(WIDTH, "NULL::text".into());
        branches.push(format!(
            "SELECT '{relation}' AS relation, {} FROM {relation}",
            items.join(", ")
        ));
    }
    let read = query(&k, &branches.join(" UNION ALL ")).await;
    let mut by_relation: BTreeMap<String, Rows> = BTreeMap::new();
    for row in read {
        let relation = row[0].clone().expect("relation tag");
        by_relation
            .entry(relation)
            .or_default()
            .push(row[1..].to_vec());
    }

    // The orders changed, and nothing but what the generator changes did.
    let orders = &by_relation["orders"];
    assert_eq!(
        orders.len(),
        original_orders.len(),
        "orders keep their number"
    );
    let mut original_text: BTreeMap<String, String> = BTreeMap::new();
    for row in original_orders {
        let mut s = String::new();
        row[3].write_sql(&mut s);
        original_text.insert(row[0].as_int().to_string(), s);
    }
    let changed = orders
        .iter()
        .filter(|o| original_text[o[0].as_deref().unwrap()] != *o[3].as_ref().unwrap())
        .count();
    assert!(
        changed >= 5,
        "only {changed} orders changed in 2 s of 50 ms ticks"
    );

    // PostgreSQL with the same data computes the same views.
    load_generated(
        &p,
        &[
            "region", "nation", "supplier", "part", "partsupp", "customer",
        ],
    )
    .await;
    for (table, width) in [("orders", 9), ("lineitem", 16)] {
        for chunk in by_relation[table].chunks(1000) {
            let values: Vec<String> = chunk
                .iter()
                .map(|r| {
                    let vals: Vec<String> = r[..width].iter().map(literal).collect();
                    format!("({})", vals.join(", "))
                })
                .collect();
            execute(
                &p,
                &format!("INSERT INTO {table} VALUES {}", values.join(", ")),
            )
            .await;
        }
    }
    for (name, sql) in &views {
        let cols = columns_of(&k, name).await;
        let items: Vec<String> = cols.iter().map(|c| format!("{c}::text")).collect();
        let oracle =
            sorted(query(&p, &format!("SELECT {} FROM ({sql}) q", items.join(", "))).await);
        let view: Rows = sorted(
            by_relation
                .get(name)
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|r| r[..cols.len()].to_vec())
                .collect(),
        );
        assert!(
            view == oracle,
            "{name} differs from PostgreSQL on the same data\n--- kpg:\n{}\n--- PostgreSQL:\n{}",
            show(&view),
            show(&oracle)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counter_values_arrive_one_tick_apart() {
    let kpg = KpgServer::start().await;
    let k = kpg.connect().await;
    execute(
        &k,
        "CREATE SOURCE c FROM LOAD GENERATOR COUNTER (TICK INTERVAL '25ms', MAX CARDINALITY 3)",
    )
    .await;
    // Subscribe a few ticks later, so that the snapshot is past values that have left already.
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    let sub_client = kpg.connect().await;
    let mut sub = Subscription::start(&sub_client, "COPY (SUBSCRIBE c) TO STDOUT")
        .await
        .unwrap_or_else(|e| panic!("SUBSCRIBE failed: {}", describe_error(&e)));
    // Insertions and retractions by value, with their timestamps.
    let mut inserted: BTreeMap<i64, u64> = BTreeMap::new();
    let mut retracted: BTreeMap<i64, u64> = BTreeMap::new();
    while inserted.len() < 30 {
        let row = sub.next_row().await;
        let v: i64 = row.cols[0].as_deref().unwrap().parse().unwrap();
        let slot = if row.diff > 0 {
            &mut inserted
        } else {
            &mut retracted
        };
        assert_eq!(row.diff.abs(), 1, "{row:?}");
        assert!(slot.insert(v, row.ts).is_none(), "value {v} twice: {row:?}");
    }
    // The snapshot holds the latest (at most three) values at its time, which need not be a tick
    // time; after it, value v + 1 comes one tick after v, and v leaves when v + 3 comes.
    let snapshot_ts = *inserted.values().min().unwrap();
    let snapshot_len = inserted.values().filter(|ts| **ts == snapshot_ts).count();
    assert!(snapshot_len <= 3, "{snapshot_len} values in the snapshot");
    let first_change = *inserted
        .iter()
        .find(|(_, ts)| **ts > snapshot_ts)
        .expect("changes after the snapshot")
        .0;
    for (v, ts) in inserted.range(first_change..) {
        if let Some(prev) = inserted.get(&(v - 1)).filter(|prev| **prev > snapshot_ts) {
            assert_eq!(
                ts - prev,
                25,
                "value {v} came {} ms after {}",
                ts - prev,
                v - 1
            );
        }
        if *v > 3 {
            assert_eq!(
                retracted.get(&(v - 3)),
                Some(ts),
                "value {} leaves as {v} comes",
                v - 3
            );
        }
    }
    let live = inserted.len() - retracted.len();
    assert!(live <= 3, "{live} values live with MAX CARDINALITY 3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn source_ddl_listing_indexes_and_errors() {
    let kpg = KpgServer::start().await;
    let k = kpg.connect().await;
    let create = "CREATE SOURCE tpch FROM LOAD GENERATOR TPCH \
                  (SCALE FACTOR 0.002, TICK INTERVAL '1000 days') FOR TABLES (nation, region AS r)";
    execute(&k, create).await;
    assert_eq!(
        query(&k, "SHOW SOURCES").await,
        rows(&[
            &["nation", "subsource"],
            &["r", "subsource"],
            &["tpch", "load-generator"]
        ])
    );
    let spelled = "CREATE SOURCE tpch FROM LOAD GENERATOR TPCH (SCALE FACTOR 0.002, \
                   TICK INTERVAL '86400000000ms') FOR TABLES (nation, region AS r)";
    assert_eq!(
        query(&k, "SHOW CREATE SOURCE r").await,
        rows(&[&["r", spelled]])
    );
    assert_eq!(
        query(&k, "SELECT count(*) FROM nation").await,
        rows(&[&["25"]])
    );
    // IF NOT EXISTS on the source's name; a subsource name taken by another relation.
    execute(
        &k,
        &create.replace("SOURCE tpch", "SOURCE IF NOT EXISTS tpch"),
    )
    .await;
    let (code, _) = expect_error(&k, create).await;
    assert_eq!(code, "42P07");
    let (code, _) = expect_error(
        &k,
        "CREATE SOURCE t2 FROM LOAD GENERATOR TPCH FOR TABLES (region AS nation)",
    )
    .await;
    assert_eq!(code, "42P07");
    assert!(
        query(&k, "SHOW SOURCES")
            .await
            .iter()
            .all(|r| r[0].as_deref() != Some("t2")),
        "a refused source leaves nothing behind"
    );

    // An index on a subsource: lookups and later views use it.
    execute(&k, "CREATE INDEX nation_pk ON nation (n_nationkey)").await;
    assert_eq!(
        query(&k, "SELECT n_name FROM nation WHERE n_nationkey = 7").await,
        rows(&[&["GERMANY                  "]])
    );
    execute(&k, "CREATE TABLE people (name text, nation int4)").await;
    execute(
        &k,
        "INSERT INTO people VALUES ('ann', 7), ('bob', 24), ('cy', 99)",
    )
    .await;
    let view = "SELECT name, n_name::text FROM people JOIN nation ON nation = n_nationkey";
    execute(
        &k,
        &format!("CREATE MATERIALIZED VIEW people_nations AS {view}"),
    )
    .await;
    let plan = query(
        &k,
        "EXPLAIN PHYSICAL PLAN FOR MATERIALIZED VIEW people_nations",
    )
    .await;
    assert!(
        show(&plan).contains("nation_pk"),
        "the view imports the subsource's index:\n{}",
        show(&plan)
    );
    assert_eq!(
        sorted(query(&k, "SELECT * FROM people_nations").await),
        rows(&[&["ann", "GERMANY"], &["bob", "UNITED STATES"]])
    );
    wait_for(
        &k,
        "SELECT sum(readers) FROM kpg_arrangements \
         WHERE owner = 'nation_pk' AND arrangement = 'index'",
        |r| r == &rows(&[&["1"]]),
    )
    .await;

    // What is refused, and how.
    for (sql, expected) in [
        ("INSERT INTO nation VALUES (99, 'X', 1, 'y')", "42809"),
        ("DELETE FROM r", "42809"),
        ("DROP SOURCE nation", "0A000"),
        ("DROP TABLE nation", "42809"),
        ("DROP SOURCE people", "42809"),
        ("DROP SOURCE tpch", "2BP01"),
        (
            "CREATE SOURCE k FROM POSTGRES CONNECTION pg (PUBLICATION 'p') FOR ALL TABLES",
            "0A000",
        ),
        (
            "CREATE SOURCE k FROM KAFKA CONNECTION kc (TOPIC 't') FORMAT TEXT",
            "42704",
        ),
        (
            "CREATE SOURCE g FROM LOAD GENERATOR AUCTION FOR ALL TABLES",
            "0A000",
        ),
        ("CREATE SOURCE g FROM LOAD GENERATOR TPCH", "42601"),
        (
            "CREATE SOURCE g FROM LOAD GENERATOR COUNTER (TICK INTERVAL 'often')",
            "22023",
        ),
        (
            "BEGIN; CREATE SOURCE g FROM LOAD GENERATOR COUNTER",
            "0A000",
        ),
    ] {
        let (code, message) = expect_error(&k, sql).await;
        assert_eq!(code, expected, "{sql}: {message}");
    }
    execute(&k, "ROLLBACK").await;

    // CASCADE drops the subsources, their indexes and the views over them.
    execute(&k, "DROP SOURCE tpch CASCADE").await;
    assert_eq!(
        query(&k, "SHOW SOURCES").await,
        Vec::<Vec<Option<String>>>::new()
    );
    for sql in ["SELECT * FROM nation", "SELECT * FROM people_nations"] {
        let (code, _) = expect_error(&k, sql).await;
        assert_eq!(code, "42P01", "{sql}");
    }
    assert_eq!(
        query(&k, "SHOW INDEXES").await,
        Vec::<Vec<Option<String>>>::new()
    );
    execute(&k, "DROP SOURCE IF EXISTS tpch").await;
    assert_eq!(
        query(&k, "SELECT count(*) FROM people").await,
        rows(&[&["3"]])
    );
}
