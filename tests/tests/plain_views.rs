//! Issue 5: `CREATE VIEW` (not materialized). A view runs nothing by itself: readers plan its
//! definition in place, so a SELECT, a join with it, a materialized view over it and a
//! SUBSCRIBE to it all see the current data. Once indexed, the view is maintained by the index's
//! dataflow and readers read the index. Results are compared with PostgreSQL's views after every
//! write; dependency errors are compared by SQLSTATE.

use std::time::Duration;

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE items (id int4, grp text, price numeric(8,2))")
        .await;
    s.exec("CREATE TABLE groups (grp text, label text)").await;
    s.exec(
        "INSERT INTO items VALUES (1, 'a', 1.50), (2, 'a', 2.25), (3, 'b', 10.00), (4, NULL, 3.00)",
    )
    .await;
    s.exec("INSERT INTO groups VALUES ('a', 'Apples'), ('b', 'Bananas'), ('c', 'Cherries')")
        .await;
    (kpg, pg, s)
}

const WRITES: &[&str] = &[
    "INSERT INTO items VALUES (5, 'c', 7.00), (6, 'a', 0.25)",
    "UPDATE items SET grp = 'b' WHERE id = 1",
    "DELETE FROM items WHERE price > 5",
    "UPDATE groups SET label = 'Apfel' WHERE grp = 'a'",
];

const READS: &[&str] = &[
    "SELECT * FROM cheap",
    "SELECT * FROM per_group",
    "SELECT * FROM labelled",
    "SELECT grp, count(*) FROM cheap GROUP BY grp",
    "SELECT g.label, p.total FROM per_group p JOIN groups g ON p.grp = g.grp",
    "SELECT * FROM per_group_mv",
];

async fn check_all(s: &Pair) {
    for q in READS {
        s.check(q).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_are_planned_into_their_readers() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE VIEW cheap AS SELECT id, grp, price FROM items WHERE price < 5")
        .await;
    // A view over a view, and one joining a view with a table.
    s.exec("CREATE VIEW per_group AS SELECT grp, count(*) AS n, sum(price) AS total FROM cheap GROUP BY grp")
        .await;
    s.exec(
        "CREATE VIEW labelled AS SELECT c.id, g.label FROM cheap c JOIN groups g ON c.grp = g.grp",
    )
    .await;
    s.exec_each(
        "CREATE MATERIALIZED VIEW per_group_mv AS SELECT * FROM per_group",
        "CREATE VIEW per_group_mv AS SELECT * FROM per_group",
    )
    .await;
    check_all(&s).await;
    for w in WRITES {
        s.exec(w).await;
        check_all(&s).await;
    }
    // SHOW VIEWS is kpg's (PostgreSQL has none): the plain views, not the materialized one.
    assert_eq!(
        query(&s.kpg, "SHOW VIEWS").await,
        rows(&[&["cheap"], &["labelled"], &["per_group"]])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_dependencies_are_enforced() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE VIEW cheap AS SELECT id, grp FROM items WHERE price < 5")
        .await;
    s.exec("CREATE VIEW cheap_a AS SELECT id FROM cheap WHERE grp = 'a'")
        .await;
    // The table and the inner view cannot go while a view reads them.
    let (code, _) = s.check_error("DROP TABLE items").await;
    assert_eq!(code, "2BP01");
    s.check_error("DROP VIEW cheap").await;
    // Views cannot be written to (PostgreSQL would rewrite simple views; kpg refuses with the
    // SQLSTATE PostgreSQL gives for views it cannot update).
    let (code, _) = expect_error(&s.kpg, "INSERT INTO cheap VALUES (9, 'z')").await;
    assert_eq!(code, "42809");
    // DROP VIEW of the wrong kind of object.
    s.check_error("DROP VIEW items").await;
    // CASCADE takes the dependent view too.
    s.exec("DROP VIEW cheap CASCADE").await;
    s.check_error("SELECT * FROM cheap_a").await;
    s.exec("DROP VIEW IF EXISTS cheap").await;
    s.exec("DROP TABLE items").await;
    assert_eq!(query(&s.kpg, "SHOW VIEWS").await, rows(&[]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_indexed_view_is_maintained_and_read_through_its_index() {
    let (kpg, _pg, s) = setup().await;
    s.exec("CREATE VIEW per_group AS SELECT grp, count(*) AS n, sum(price) AS total FROM items GROUP BY grp")
        .await;
    assert_eq!(query(&s.kpg, "SHOW VIEWS").await, rows(&[&["per_group"]]));
    execute(&s.kpg, "CREATE INDEX per_group_idx ON per_group (grp)").await;
    // Whole reads and key lookups (the fast path), joins keyed by the index and not.
    let reads = [
        "SELECT * FROM per_group",
        "SELECT n, total FROM per_group WHERE grp = 'a'",
        "SELECT g.label, p.n FROM groups g JOIN per_group p ON g.grp = p.grp",
        "SELECT p.grp FROM per_group p JOIN items i ON p.n = i.id",
    ];
    for q in reads {
        s.check(q).await;
    }
    // A subscriber sees the view change as the table does.
    let subscriber = kpg.connect().await;
    let mut sub = Subscription::start(&subscriber, "COPY (SUBSCRIBE per_group) TO STDOUT")
        .await
        .expect("subscribe to an indexed view");
    let mut snapshot = Vec::new();
    while snapshot.len() < 3 {
        let row = sub
            .try_next(Duration::from_secs(20))
            .await
            .expect("subscription row")
            .expect("subscription open");
        assert_eq!(row.diff, 1, "snapshot rows are inserts: {row:?}");
        snapshot.push(row);
    }
    for w in WRITES {
        s.exec(w).await;
        for q in reads {
            s.check(q).await;
        }
    }
    let change = sub
        .try_next(Duration::from_secs(20))
        .await
        .expect("subscription change")
        .expect("subscription open");
    assert!(
        change.ts > snapshot[0].ts,
        "a change after the snapshot: {change:?} after {snapshot:?}"
    );
    // The index cannot be dropped from under nothing; dropping it leaves the view planned in
    // place, with the same answers.
    execute(&s.kpg, "DROP INDEX per_group_idx").await;
    for q in reads {
        s.check(q).await;
    }
}
