//! `SHOW CREATE TABLE | VIEW | MATERIALIZED VIEW | INDEX` (issue 5): the statement shown creates
//! the object again — replayed on a fresh kpg it gives the same objects (same SHOW CREATE text,
//! same contents), and the table and view statements are valid PostgreSQL too.

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

const OBJECTS: &[(&str, &str)] = &[
    ("TABLE", "items"),
    ("TABLE", "Odd Name"),
    ("VIEW", "cheap"),
    ("MATERIALIZED VIEW", "per_grp"),
    ("INDEX", "items_grp"),
    ("INDEX", "items_expr"),
];

async fn show_create(c: &Client, what: &str, name: &str) -> String {
    let quoted = format!("\"{name}\"");
    let rows = query(c, &format!("SHOW CREATE {what} {quoted}")).await;
    assert_eq!(rows.len(), 1, "{what} {name}");
    assert_eq!(rows[0][0].as_deref(), Some(name));
    rows[0][1].clone().expect("create_sql")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_create_round_trips() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let c = kpg.connect().await;
    for stmt in [
        "CREATE TABLE items (id int4 NOT NULL, grp varchar(10), price numeric(8,2), d date, ok boolean, note text)",
        "CREATE TABLE \"Odd Name\" (\"Mixed Case\" int8, x double precision)",
        "CREATE VIEW cheap AS SELECT id, grp FROM items WHERE price < 5 AND note LIKE 'a#%'",
        "CREATE MATERIALIZED VIEW per_grp (g, n) AS SELECT grp, count(*) FROM items GROUP BY grp",
        "CREATE INDEX items_grp ON items (grp)",
        "CREATE INDEX items_expr ON items (id + 1, upper(note))",
        "INSERT INTO items VALUES (1, 'a', 1.50, '2024-01-01', true, 'a#1'), (2, 'b', 9, NULL, NULL, NULL)",
    ] {
        execute(&c, stmt).await;
    }
    let mut shown = Vec::new();
    for (what, name) in OBJECTS {
        shown.push(show_create(&c, what, name).await);
    }
    // Replayed on a fresh kpg: the same SHOW CREATE text and the same contents.
    let fresh = KpgServer::start().await;
    let f = fresh.connect().await;
    for sql in &shown {
        execute(&f, sql).await;
    }
    execute(&f, "INSERT INTO items VALUES (1, 'a', 1.50, '2024-01-01', true, 'a#1'), (2, 'b', 9, NULL, NULL, NULL)").await;
    for ((what, name), sql) in OBJECTS.iter().zip(&shown) {
        assert_eq!(&show_create(&f, what, name).await, sql);
    }
    for q in [
        "SELECT * FROM cheap",
        "SELECT * FROM per_grp",
        "SELECT * FROM items WHERE grp = 'a'",
    ] {
        assert_eq!(query(&c, q).await, query(&f, q).await, "{q}");
    }
    // The table and view statements are PostgreSQL's DDL as well.
    let p = pg.connect().await;
    for sql in &shown[..3] {
        p.batch_execute(sql)
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL rejects `{sql}`: {e}"));
    }
    // Wrong kind, unknown name.
    let (code, _) = expect_error(&c, "SHOW CREATE VIEW items").await;
    assert_eq!(code, "42809");
    let (code, _) = expect_error(&c, "SHOW CREATE TABLE nope").await;
    assert_eq!(code, "42P01");
}
