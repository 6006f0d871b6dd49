//! Issue 5, scale: kpg as a cluster of processes. Two kpg processes of one worker each (timely
//! over localhost TCP) run a workload — tables with inserts, updates and deletes, a maintained
//! join + aggregate, indexes read by key lookups, ad hoc queries, a subscription, introspection —
//! and every answer must equal PostgreSQL's (the oracle) and a one-process kpg's given the same
//! statements. A TPC-H source, whose snapshot each process generates a part of, holds exactly
//! what it holds in one process. When process 0 goes away the other process exits by itself. Bad cluster flags are
//! refused with clear messages.

use std::process::Command;
use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// The cluster and PostgreSQL in lockstep, plus a one-process kpg given the same statements.
struct Three {
    pair: Pair,
    single: Client,
}

impl Three {
    /// Runs `sql` everywhere; for INSERT, UPDATE and DELETE the row counts must agree.
    async fn exec(&self, sql: &str) {
        let pg = simple(&self.pair.pg, sql).await.unwrap_or_else(|e| {
            panic!("oracle PostgreSQL rejected `{sql}`: {}", describe_error(&e))
        });
        let cluster = simple(&self.pair.kpg, sql)
            .await
            .unwrap_or_else(|e| panic!("the cluster failed `{sql}`: {}", describe_error(&e)));
        let single = simple(&self.single, sql)
            .await
            .unwrap_or_else(|e| panic!("one-process kpg failed `{sql}`: {}", describe_error(&e)));
        let verb = sql
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        if matches!(verb.as_str(), "INSERT" | "UPDATE" | "DELETE") {
            assert_eq!(
                cluster.count, pg.count,
                "row count of `{sql}`: cluster vs PostgreSQL"
            );
            assert_eq!(
                single.count, pg.count,
                "row count of `{sql}`: one process vs PostgreSQL"
            );
        }
    }

    /// Runs a kpg-only statement on both kpgs.
    async fn kpg_only(&self, sql: &str) {
        execute(&self.pair.kpg, sql).await;
        execute(&self.single, sql).await;
    }

    async fn create_view(&self, name: &str, query: &str) {
        self.pair.create_view(name, query).await;
        execute(
            &self.single,
            &format!("CREATE MATERIALIZED VIEW {name} AS {query}"),
        )
        .await;
    }

    /// The cluster's answer equals PostgreSQL's and the one-process kpg's.
    async fn check(&self, sql: &str) {
        self.pair.check(sql).await;
        self.same(sql).await;
    }

    /// The cluster's answer equals the one-process kpg's (for kpg-only relations and syntax).
    async fn same(&self, sql: &str) -> Rows {
        let order = |r: Rows| if has_order_by(sql) { r } else { sorted(r) };
        let cluster = order(query(&self.pair.kpg, sql).await);
        let single = order(query(&self.single, sql).await);
        assert_eq!(
            cluster,
            single,
            "`{sql}`: two processes (left) and one process (right) differ\n--- cluster:\n{}\n--- one process:\n{}",
            show(&cluster),
            show(&single)
        );
        cluster
    }
}

/// Polls `sql` on `c` until it returns `want` (introspection follows dataflows asynchronously).
async fn eventually(c: &Client, sql: &str, want: &Rows) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = sorted(query(c, sql).await);
        if got == *want {
            return;
        }
        if Instant::now() > deadline {
            panic!("`{sql}`: wanted {want:?}, still {got:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A view's rows as subscription rows with diff `diff`.
fn as_changes(rows: &Rows, diff: i64) -> Vec<(Vec<Option<String>>, i64)> {
    rows.iter().map(|r| (r.clone(), diff)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_answer_like_one_and_like_postgres() {
    let (mut cluster, single, pg) = tokio::join!(
        KpgCluster::start(2, 1),
        KpgServer::start_with_workers(2),
        Postgres::start()
    );
    let t = Three {
        pair: Pair::new(cluster.server(), &pg).await,
        single: single.connect().await,
    };

    t.exec("CREATE TABLE customers (id int4, name text, region text, since date)")
        .await;
    t.exec("CREATE TABLE orders (id int4, customer int4, amount numeric(10,2), weight float8, placed timestamp)")
        .await;
    let customers: Vec<String> = (0..40)
        .map(|i| {
            format!(
                "({i}, 'c{i}', '{}', DATE '2024-01-{:02}')",
                ["north", "south", "east", "west", "centre"][i % 5],
                1 + i % 28
            )
        })
        .collect();
    t.exec(&format!(
        "INSERT INTO customers VALUES {}",
        customers.join(", ")
    ))
    .await;
    let orders: Vec<String> = (0..400)
        .map(|i| {
            format!(
                "({i}, {}, {}.{:02}, {}.5, TIMESTAMP '2024-02-{:02} 10:{:02}:00')",
                (i * 7) % 43,
                i % 97,
                i % 100,
                i % 13,
                1 + i % 28,
                i % 60
            )
        })
        .collect();
    t.exec(&format!("INSERT INTO orders VALUES {}", orders.join(", ")))
        .await;

    // A maintained join + aggregate, indexes on a table and on the view.
    let revenue =
        "SELECT c.region, count(*) AS orders, sum(o.amount) AS total, max(o.placed) AS latest \
                   FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region";
    t.create_view("revenue", revenue).await;
    t.exec("CREATE INDEX customers_id ON customers (id)").await;
    // (PostgreSQL's `revenue` is a plain view, which cannot be indexed.)
    t.kpg_only("CREATE INDEX revenue_region ON revenue (region)")
        .await;
    t.check("SELECT * FROM revenue").await;

    // Updates and deletes, then everything again.
    t.exec("UPDATE orders SET amount = amount + 1 WHERE id % 7 = 0")
        .await;
    t.exec("DELETE FROM orders WHERE id % 11 = 0").await;
    t.exec("INSERT INTO orders VALUES (1000, 3, 99.99, 0.25, TIMESTAMP '2024-03-01 00:00:00')")
        .await;
    t.check("SELECT * FROM revenue").await;
    t.check("SELECT * FROM revenue ORDER BY total DESC").await;

    // Key lookups through the indexes (the fast path) and whole reads of indexed objects.
    t.check("SELECT * FROM customers WHERE id = 17").await;
    t.check("SELECT name, region FROM customers WHERE id = 3")
        .await;
    t.check("SELECT * FROM customers WHERE id = 12345").await;
    t.check("SELECT * FROM customers").await;
    t.check("SELECT orders, total FROM revenue WHERE region = 'east'")
        .await;

    // Ad hoc queries (transient dataflows).
    t.check(
        "SELECT c.name, count(*), sum(o.amount), sum(o.weight), min(o.placed) \
         FROM orders o JOIN customers c ON o.customer = c.id \
         WHERE c.since < DATE '2024-01-15' GROUP BY c.name ORDER BY c.name",
    )
    .await;
    t.check("SELECT customer, count(*) FROM orders GROUP BY customer HAVING count(*) > 9")
        .await;
    t.check("SELECT count(*), sum(amount), max(weight) FROM orders WHERE customer > 40")
        .await;
    t.check("SELECT DISTINCT region FROM customers ORDER BY region")
        .await;

    // Introspection sums both processes' shards: the index holds every customer once
    // (checked before customers are updated: an update leaves a retraction and an insertion in
    // the trace until its batches merge).
    let customers_count = query(&t.pair.pg, "SELECT count(*) FROM customers").await;
    let index_records = "SELECT sum(records) FROM kpg_arrangements \
                         WHERE owner = 'customers_id' AND arrangement = 'index'";
    eventually(&t.pair.kpg, index_records, &customers_count).await;
    eventually(&t.single, index_records, &customers_count).await;
    t.same(
        "SELECT owner, owner_kind, arrangement, key, readers FROM kpg_arrangements \
            WHERE owner IN ('customers_id', 'revenue_region', 'revenue')",
    )
    .await;
    t.same("SELECT name, imports, exports FROM kpg_dataflows WHERE exports IS NOT NULL")
        .await;

    // A subscription on each kpg sees its snapshot, then a change made by another session.
    let before = query(&t.pair.pg, "SELECT * FROM revenue").await;
    let cluster_sub = cluster.connect().await;
    let single_sub = single.connect().await;
    let mut subs = Vec::new();
    for client in [&cluster_sub, &single_sub] {
        let mut sub = Subscription::start(client, "COPY (SUBSCRIBE revenue) TO STDOUT")
            .await
            .unwrap_or_else(|e| panic!("SUBSCRIBE failed: {}", describe_error(&e)));
        sub.read_until(&as_changes(&before, 1)).await;
        subs.push(sub);
    }
    t.exec("UPDATE customers SET region = 'north' WHERE id = 3")
        .await;
    t.exec("INSERT INTO orders VALUES (1001, 4, 5.00, 1.0, TIMESTAMP '2024-03-02 00:00:00')")
        .await;
    let after = query(&t.pair.pg, "SELECT * FROM revenue").await;
    let mut change = as_changes(&after, 1);
    change.extend(as_changes(&before, -1));
    for sub in &mut subs {
        let rows = sub.read_until(&change).await;
        assert!(
            rows.windows(2).all(|w| w[0].ts <= w[1].ts),
            "changes arrive in timestamp order: {rows:?}"
        );
    }
    t.check("SELECT * FROM revenue").await;
    t.check("SELECT * FROM customers WHERE id = 3").await;

    // Without process 0 the other process stops by itself.
    drop(subs);
    drop((cluster_sub, t));
    let statuses = cluster.stop_process_0(Duration::from_secs(60));
    assert!(
        statuses.iter().all(Option::is_some),
        "process 1 still runs after process 0 went away; its log:\n{}",
        cluster.stderr_of(1)
    );
    assert!(
        cluster.stderr_of(1).contains("lost the connection"),
        "process 1 says why it stopped:\n{}",
        cluster.stderr_of(1)
    );
}

/// Runs the kpg binary with `args`; it must fail, and its stderr must mention `needle`.
fn refused(args: &[&str], needle: &str) {
    let out = Command::new(kpg_bin())
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run kpg");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "kpg {args:?} should fail");
    assert!(
        stderr.contains(needle),
        "kpg {args:?}: expected `{needle}` in:\n{stderr}"
    );
}

#[test]
fn bad_cluster_flags_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    let file = dir.path().join("addresses");
    std::fs::write(&file, "127.0.0.1:1\nno port here\n").unwrap();
    let file = file.to_str().unwrap();
    refused(
        &["--data-dir", data, "--processes", "0"],
        "--processes must be at least 1",
    );
    refused(
        &["--data-dir", data, "--processes", "2", "--process", "2"],
        "--process 2 is out of range",
    );
    refused(
        &["--data-dir", data, "--processes", "2"],
        "needs --addresses",
    );
    refused(
        &["--data-dir", data, "--processes", "3", "--addresses", file],
        "line 2",
    );
    refused(
        &[
            "--data-dir",
            data,
            "--processes",
            "2",
            "--addresses",
            "/nonexistent/x",
        ],
        "reading the --addresses file",
    );
    let help = Command::new(kpg_bin())
        .arg("--help")
        .output()
        .expect("run kpg --help");
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in ["--process <I>", "--processes <N>", "--addresses <FILE>"] {
        assert!(help.contains(flag), "--help documents {flag}:\n{help}");
    }
}

/// A TPC-H source in a cluster: each process's worker generates its part of the snapshot, and
/// together they hold exactly what one process holds (checked whole, through an index on a
/// subsource, and through a query over several tables).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_in_a_cluster_holds_what_one_process_holds() {
    let (cluster, single) = tokio::join!(KpgCluster::start(2, 1), KpgServer::start_with_workers(1));
    let (c, s) = (cluster.connect().await, single.connect().await);
    for client in [&c, &s] {
        execute(
            client,
            "CREATE SOURCE tpch FROM LOAD GENERATOR TPCH \
             (SCALE FACTOR 0.005, TICK INTERVAL '1000 days') FOR ALL TABLES",
        )
        .await;
        execute(client, "CREATE INDEX part_pk ON part (p_partkey)").await;
    }
    let mut checks: Vec<String> = kpg_tpch::TABLES
        .iter()
        .map(|t| format!("SELECT * FROM {t}"))
        .collect();
    checks.push("SELECT * FROM part WHERE p_partkey = 77".into());
    checks.push(kpg_tpch::query(5).sql());
    for sql in &checks {
        let (in_cluster, alone) = (sorted(query(&c, sql).await), sorted(query(&s, sql).await));
        assert!(!alone.is_empty(), "`{sql}` has rows");
        assert!(
            in_cluster == alone,
            "`{sql}`: two processes and one process differ"
        );
    }
    let parts = query(&s, "SELECT count(*) FROM part").await;
    let index_records = "SELECT sum(records) FROM kpg_arrangements \
                         WHERE owner = 'part_pk' AND arrangement = 'index'";
    eventually(&c, index_records, &parts).await;
}
