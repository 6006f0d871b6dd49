//! Issue 21, "SQL that PostgreSQL users type": TRUNCATE, column DEFAULTs, CREATE TABLE AS and
//! SELECT INTO, RETURNING, UPDATE ... FROM and DELETE ... USING, INSERT ... ON CONFLICT. Each
//! statement runs on kpg and on PostgreSQL: row counts (CommandComplete), returned rows, errors
//! (SQLSTATE) and the tables afterwards must agree, and materialized views over the tables
//! (plain views on PostgreSQL) must follow every write.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    (kpg, pg, s)
}

/// The rows and CommandComplete count of `sql` must be the same on both (rows sorted).
async fn same_result(s: &Pair, sql: &str) {
    let k = simple(&s.kpg, sql)
        .await
        .unwrap_or_else(|e| panic!("kpg failed `{sql}`: {}", describe_error(&e)));
    let p = simple(&s.pg, sql)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL failed `{sql}`: {}", describe_error(&e)));
    assert_eq!(k.count, p.count, "count differs for `{sql}` (kpg left)");
    assert_eq!(
        k.columns, p.columns,
        "columns differ for `{sql}` (kpg left)"
    );
    assert_eq!(
        sorted(k.rows),
        sorted(p.rows),
        "rows differ for `{sql}` (kpg left)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncate_empties_tables_and_their_views() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE a (k int PRIMARY KEY, v text)").await;
    s.exec("CREATE TABLE b (k int, n int)").await;
    s.exec("INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z')")
        .await;
    s.exec("INSERT INTO b VALUES (1, 10), (1, 10), (2, 20)")
        .await;
    s.create_view("ab", "SELECT a.k, a.v, b.n FROM a JOIN b ON a.k = b.k")
        .await;
    s.create_view("counts", "SELECT count(*) AS c, sum(n) AS s FROM b")
        .await;
    s.check_view("ab").await;
    s.exec("TRUNCATE b").await;
    s.check("SELECT * FROM b").await;
    s.check_view("ab").await;
    s.check_view("counts").await;
    s.exec("INSERT INTO b VALUES (3, 30)").await;
    s.check_view("ab").await;
    // Several tables at once, the options that have nothing to act on, ONLY, repeats.
    s.exec("TRUNCATE TABLE a, b RESTART IDENTITY CASCADE").await;
    s.check_view("ab").await;
    s.check_view("counts").await;
    s.exec("INSERT INTO a VALUES (1, 'again')").await;
    s.exec("TRUNCATE ONLY a, a CONTINUE IDENTITY RESTRICT")
        .await;
    s.check("SELECT * FROM a").await;
    // A key freed by TRUNCATE can be used again.
    s.exec("INSERT INTO a VALUES (1, 'back'), (2, 'y')").await;
    s.exec("INSERT INTO b VALUES (1, 1), (2, 2)").await;
    s.check_view("ab").await;
    // Not a table, not there.
    s.check_error("TRUNCATE ab").await;
    s.check_error("TRUNCATE nope").await;
    s.check_error("TRUNCATE a, nope").await;
    s.check("SELECT * FROM a").await;
    let k = simple(&s.kpg, "TRUNCATE a").await.unwrap();
    let p = simple(&s.pg, "TRUNCATE a").await.unwrap();
    assert_eq!(k.count, p.count, "TRUNCATE TABLE's tag");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn column_defaults() {
    let (_kpg, _pg, s) = setup().await;
    s.exec(
        "CREATE TABLE d (id int, a int DEFAULT 5, b int DEFAULT -1, c text DEFAULT 'x', \
         v varchar(10) DEFAULT 'ab', n numeric(10,2) DEFAULT 1.555, dd date DEFAULT '2024-01-01', \
         bo boolean DEFAULT true, e int DEFAULT 1 + 2, f bigint DEFAULT 5000000000, \
         g double precision DEFAULT 1.5, h char(3) DEFAULT 'q', z int DEFAULT NULL, \
         w text DEFAULT 'a' || 'b', i interval DEFAULT '1 day')",
    )
    .await;
    s.create_view("dv", "SELECT a, c, count(*) AS cnt FROM d GROUP BY a, c")
        .await;
    s.exec("INSERT INTO d (id) VALUES (1)").await;
    s.exec("INSERT INTO d (id, a, c) VALUES (2, 7, 'y'), (3, DEFAULT, DEFAULT)")
        .await;
    s.exec("INSERT INTO d DEFAULT VALUES").await;
    s.exec("INSERT INTO d VALUES (5, DEFAULT, 8, DEFAULT)")
        .await;
    s.exec("INSERT INTO d (id, a) SELECT id + 100, id FROM d WHERE id < 3")
        .await;
    s.check("SELECT * FROM d").await;
    s.check_view("dv").await;
    s.exec("UPDATE d SET a = 0, c = 'zz' WHERE id = 1").await;
    s.exec("UPDATE d SET a = DEFAULT, z = DEFAULT, c = DEFAULT WHERE id <> 3")
        .await;
    s.check("SELECT * FROM d").await;
    s.check_view("dv").await;
    // The catalog shows the defaults as PostgreSQL prints them.
    s.check(
        "SELECT column_name, column_default FROM information_schema.columns \
         WHERE table_name = 'd' ORDER BY ordinal_position",
    )
    .await;
    s.check(
        "SELECT a.attname, a.atthasdef, pg_catalog.pg_get_expr(d.adbin, d.adrelid, true) \
         FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d \
         ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
         WHERE a.attrelid = 'd'::regclass AND a.attnum > 0 ORDER BY a.attnum",
    )
    .await;
    // A NOT NULL column whose default is NULL, a default broken at run time.
    s.exec("CREATE TABLE nn (k int NOT NULL DEFAULT NULL, m int DEFAULT 1 / 0, o int)")
        .await;
    s.check_error("INSERT INTO nn (m, o) VALUES (1, 1)").await;
    s.check_error("INSERT INTO nn (k, o) VALUES (1, 1)").await;
    s.exec("INSERT INTO nn (k, m) VALUES (1, 1)").await;
    s.check("SELECT * FROM nn").await;
    // Refused as in PostgreSQL.
    s.check_error("CREATE TABLE bad (a int DEFAULT b, b int)")
        .await;
    s.check_error("CREATE TABLE bad (a int DEFAULT true)").await;
    s.check_error("CREATE TABLE bad (a int DEFAULT 'x')").await;
    s.check_error("INSERT INTO d (id, a) VALUES (9, DEFAULT), (10)")
        .await;
    // SHOW CREATE TABLE keeps the defaults: replayed, the table behaves the same.
    let create = query(&s.kpg, "SHOW CREATE TABLE d").await;
    let sql = create[0][1].clone().unwrap();
    assert!(sql.contains("DEFAULT 5"), "{sql}");
    let replay = sql.replacen("CREATE TABLE d ", "CREATE TABLE d2 ", 1);
    s.exec(&replay).await;
    s.exec("INSERT INTO d2 (id) VALUES (1)").await;
    s.check("SELECT * FROM d2").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_table_as_and_select_into() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE src (a int, b text, n numeric(6,2))")
        .await;
    s.exec("INSERT INTO src VALUES (3, 'c', 1.5), (1, 'a', NULL), (2, 'b', 2.25), (2, 'b', 2.25)")
        .await;
    // The tag is SELECT n; the rows are written in the query's order.
    same_result(&s, "CREATE TABLE c1 AS SELECT * FROM src ORDER BY a DESC").await;
    s.check_in_order("SELECT * FROM c1").await;
    same_result(
        &s,
        "CREATE TABLE c2 AS SELECT b, sum(n) AS total, count(*) FROM src GROUP BY b",
    )
    .await;
    s.check("SELECT * FROM c2").await;
    same_result(&s, "SELECT a, b, a * 2 AS d INTO c3 FROM src WHERE a > 1").await;
    same_result(&s, "SELECT 1 AS x, 'lit' AS y, NULL AS z INTO TABLE c4").await;
    s.check("SELECT * FROM c3").await;
    s.check("SELECT * FROM c4").await;
    // Column types as PostgreSQL gives them (an untyped literal is text).
    s.check(
        "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns \
         WHERE table_name IN ('c1', 'c2', 'c3', 'c4') ORDER BY table_name, ordinal_position",
    )
    .await;
    // A table, not a view: later writes to the source leave it alone; it takes writes itself,
    // and views over it follow them.
    s.create_view("c3v", "SELECT b, count(*) AS cnt FROM c3 GROUP BY b")
        .await;
    s.exec("INSERT INTO src VALUES (9, 'z', 9)").await;
    s.check("SELECT * FROM c3").await;
    s.exec("INSERT INTO c3 VALUES (7, 'q', 14)").await;
    s.exec("UPDATE c3 SET b = 'x' WHERE a = 2").await;
    s.check_view("c3v").await;
    // WITH NO DATA: the columns only.
    s.exec("CREATE TABLE c5 AS SELECT a, b FROM src WITH NO DATA")
        .await;
    s.check("SELECT * FROM c5").await;
    s.exec("INSERT INTO c5 SELECT a, b FROM src WHERE a = 1")
        .await;
    s.check("SELECT * FROM c5").await;
    s.exec("CREATE TABLE IF NOT EXISTS c5 AS SELECT 1").await;
    s.check("SELECT * FROM c5").await;
    // Refused as in PostgreSQL.
    s.check_error("CREATE TABLE c1 AS SELECT 1").await;
    s.check_error("SELECT 1 INTO c1").await;
    s.check_error("CREATE TABLE c6 AS SELECT 1 AS x, 2 AS x")
        .await;
    s.check_error("CREATE TABLE c6 AS SELECT * FROM nope").await;
    s.check_error("SELECT * FROM c6").await;
}
