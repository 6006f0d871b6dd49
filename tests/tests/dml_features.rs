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
    s.check_error("CREATE TABLE bad (a int DEFAULT (SELECT 1))")
        .await;
    s.check_error("INSERT INTO d (id, a) VALUES (11, DEFAULT + 1)")
        .await;
    s.check_error("INSERT INTO d (id, a) SELECT 11, DEFAULT")
        .await;
    s.check_error("UPDATE d SET a = DEFAULT + 1").await;
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
    // Column names: the first columns renamed, the rest keep theirs.
    same_result(
        &s,
        "CREATE TABLE c7 (x, \"Y\") AS SELECT a, b, n FROM src WHERE a < 3",
    )
    .await;
    s.check("SELECT * FROM c7").await;
    s.check("SELECT x, \"Y\", n FROM c7").await;
    s.exec("CREATE TABLE IF NOT EXISTS c8 (p) AS SELECT a FROM src WITH NO DATA")
        .await;
    s.check("SELECT p FROM c8").await;
    s.check_error("CREATE TABLE c9 (x, y, z) AS SELECT 1, 2")
        .await;
    s.check_error("CREATE TABLE c9 (x, x) AS SELECT 1, 2").await;
    // Refused as in PostgreSQL.
    s.check_error("CREATE TABLE c1 AS SELECT 1").await;
    s.check_error("SELECT 1 INTO c1").await;
    s.check_error("CREATE TABLE c6 AS SELECT 1 AS x, 2 AS x")
        .await;
    s.check_error("CREATE TABLE c6 AS SELECT * FROM nope").await;
    s.check_error("SELECT * FROM c6").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn returning() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE r (id int PRIMARY KEY, name text, n numeric(6,2) DEFAULT 0)")
        .await;
    s.create_view("rv", "SELECT count(*) AS c, sum(n) AS s FROM r")
        .await;
    same_result(
        &s,
        "INSERT INTO r VALUES (1, 'a', 1.5), (2, 'b', 2) RETURNING *",
    )
    .await;
    same_result(
        &s,
        "INSERT INTO r (id, name) VALUES (3, 'c') RETURNING id, n, name || '!' AS shout, n * 2",
    )
    .await;
    same_result(
        &s,
        "INSERT INTO r AS x SELECT id + 10, name, n FROM r RETURNING x.id, x.*",
    )
    .await;
    same_result(
        &s,
        "INSERT INTO r VALUES (20, NULL) RETURNING 'lit', 1 + 1, NULL",
    )
    .await;
    s.check_view("rv").await;
    same_result(
        &s,
        "UPDATE r SET n = n + 1 WHERE id > 10 RETURNING id, n, r.name",
    )
    .await;
    same_result(
        &s,
        "UPDATE r AS q SET name = 'z' WHERE q.id = 1 RETURNING q.*",
    )
    .await;
    same_result(&s, "UPDATE r SET n = 0 WHERE false RETURNING *").await;
    same_result(
        &s,
        "DELETE FROM r WHERE id IN (2, 12) RETURNING *, id * 10 AS tens",
    )
    .await;
    same_result(&s, "DELETE FROM r WHERE id = 999 RETURNING id").await;
    s.check("SELECT * FROM r").await;
    s.check_view("rv").await;
    // A failing RETURNING or a failing write writes nothing.
    s.check_error("INSERT INTO r VALUES (30, 'x') RETURNING 1 / 0")
        .await;
    s.check_error("INSERT INTO r VALUES (1, 'dup') RETURNING *")
        .await;
    s.check_error("UPDATE r SET id = 3 WHERE id = 1 RETURNING *")
        .await;
    s.check_error("DELETE FROM r RETURNING nope").await;
    s.check("SELECT * FROM r").await;
    s.check_view("rv").await;
    // Inside a transaction block (INSERT ... VALUES only, as kpg's write blocks take).
    s.exec("BEGIN").await;
    same_result(&s, "INSERT INTO r VALUES (50, 'in block') RETURNING id, n").await;
    same_result(&s, "INSERT INTO r (id) VALUES (51), (52) RETURNING *").await;
    s.exec("COMMIT").await;
    s.exec("BEGIN").await;
    same_result(&s, "INSERT INTO r VALUES (53, 'gone') RETURNING name").await;
    s.exec("ROLLBACK").await;
    s.check("SELECT * FROM r").await;
    s.check_view("rv").await;
    // Through the extended protocol, as drivers send it.
    let sql = "INSERT INTO r VALUES ($1, $2) RETURNING id, name";
    let k = s.kpg.query(sql, &[&40i32, &"p"]).await.expect("kpg");
    let p = s.pg.query(sql, &[&40i32, &"p"]).await.expect("PostgreSQL");
    let get = |rows: &[tokio_postgres::Row]| -> Vec<(i32, String)> {
        rows.iter().map(|r| (r.get(0), r.get(1))).collect()
    };
    assert_eq!(get(&k), get(&p));
    let sql = "UPDATE r SET name = $1 WHERE id = 40 RETURNING name";
    let k = s.kpg.query_one(sql, &[&"q"]).await.expect("kpg");
    let p = s.pg.query_one(sql, &[&"q"]).await.expect("PostgreSQL");
    assert_eq!(k.get::<_, String>(0), p.get::<_, String>(0));
    s.check("SELECT * FROM r").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_from_and_delete_using() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE acct (id int PRIMARY KEY, owner text, balance int)")
        .await;
    s.exec("CREATE TABLE moves (acct int, amount int, note text)")
        .await;
    s.exec("CREATE TABLE owners (name text, region text)").await;
    s.exec("INSERT INTO acct VALUES (1, 'ann', 100), (2, 'bob', 50), (3, 'cy', 0), (4, 'ann', 7)")
        .await;
    s.exec("INSERT INTO moves VALUES (1, 10, 'a'), (2, -20, 'b'), (9, 5, 'none')")
        .await;
    s.exec("INSERT INTO owners VALUES ('ann', 'eu'), ('bob', 'us'), ('bob', 'us'), ('cy', 'eu')")
        .await;
    s.create_view(
        "by_region",
        "SELECT o.region, sum(a.balance) AS total, count(*) AS n \
         FROM acct a JOIN (SELECT DISTINCT name, region FROM owners) o ON a.owner = o.name \
         GROUP BY o.region",
    )
    .await;
    // Each target row matches at most one row of the other table.
    same_result(
        &s,
        "UPDATE acct SET balance = balance + m.amount FROM moves m WHERE acct.id = m.acct",
    )
    .await;
    s.check("SELECT * FROM acct").await;
    s.check_view("by_region").await;
    same_result(
        &s,
        "UPDATE acct a SET owner = upper(a.owner), balance = m.amount * 2 FROM moves AS m \
         WHERE a.id = m.acct AND m.note = 'b' RETURNING a.id, a.owner, a.balance, m.note",
    )
    .await;
    // Several FROM items, a join inside FROM, a subquery in WHERE, DEFAULT.
    s.exec("CREATE TABLE flags (id int, f int DEFAULT 42)")
        .await;
    s.exec("INSERT INTO flags VALUES (1, 0), (2, 0), (3, 0)")
        .await;
    same_result(
        &s,
        "UPDATE flags SET f = DEFAULT FROM acct JOIN moves ON acct.id = moves.acct \
         WHERE flags.id = acct.id AND moves.amount > 0",
    )
    .await;
    same_result(
        &s,
        "UPDATE flags SET f = x.balance FROM acct x, (SELECT 3 AS k) k \
         WHERE flags.id = x.id AND x.id = k.k \
         AND x.balance < (SELECT max(amount) FROM moves)",
    )
    .await;
    s.check("SELECT * FROM flags").await;
    // DELETE ... USING: a target row joined with several rows is deleted once.
    same_result(
        &s,
        "DELETE FROM acct USING owners WHERE acct.owner = owners.name AND owners.region = 'us'",
    )
    .await;
    s.check("SELECT * FROM acct").await;
    s.check_view("by_region").await;
    same_result(
        &s,
        "DELETE FROM acct a USING owners o, moves WHERE a.owner = o.name AND o.region = 'eu' \
         AND moves.acct = a.id RETURNING a.*, o.region",
    )
    .await;
    same_result(&s, "DELETE FROM acct USING moves WHERE false").await;
    s.check("SELECT * FROM acct").await;
    s.check_view("by_region").await;
    // A key conflict made by UPDATE ... FROM fails as a whole.
    s.exec("INSERT INTO acct VALUES (10, 'dee', 1), (11, 'eve', 2)")
        .await;
    s.exec("INSERT INTO moves VALUES (10, 11, 'to 11')").await;
    s.check_error(
        "UPDATE acct SET id = m.amount FROM moves m WHERE acct.id = m.acct AND m.acct = 10",
    )
    .await;
    s.check("SELECT * FROM acct").await;
    // Refused as in PostgreSQL.
    s.check_error("UPDATE acct SET balance = 0 FROM acct WHERE true")
        .await;
    s.check_error("UPDATE acct SET balance = nope.x FROM moves WHERE true")
        .await;
    s.check_error("DELETE FROM acct USING nope WHERE true")
        .await;
    s.check_error("UPDATE acct SET balance = 'x' FROM moves WHERE acct.id = moves.acct")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_on_conflict() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE kv (k int PRIMARY KEY, v text, n int DEFAULT 0, u int UNIQUE)")
        .await;
    s.exec("CREATE TABLE pair (a int, b text, c int, PRIMARY KEY (a, b))")
        .await;
    s.create_view(
        "kvv",
        "SELECT v, sum(n) AS total, count(*) AS cnt FROM kv GROUP BY v",
    )
    .await;
    s.exec("INSERT INTO kv VALUES (1, 'a', 1, 10), (2, 'b', 2, 20)")
        .await;
    // DO NOTHING, with and without a target; a NULL key never conflicts.
    same_result(
        &s,
        "INSERT INTO kv VALUES (1, 'x', 0, 11), (3, 'c', 3, 30) ON CONFLICT DO NOTHING",
    )
    .await;
    same_result(
        &s,
        "INSERT INTO kv VALUES (1, 'x', 0, 11), (3, 'c', 3, 30) ON CONFLICT (k) DO NOTHING RETURNING *",
    )
    .await;
    same_result(
        &s,
        "INSERT INTO kv VALUES (4, 'd', 0, 10) ON CONFLICT DO NOTHING",
    )
    .await;
    same_result(
        &s,
        "INSERT INTO kv VALUES (6, 'f', 0, NULL), (7, 'g', 0, NULL) ON CONFLICT (u) DO NOTHING",
    )
    .await;
    // Two proposed rows with one key: DO NOTHING keeps the first.
    same_result(
        &s,
        "INSERT INTO kv VALUES (8, 'h', 1, 80), (8, 'i', 2, 81) ON CONFLICT DO NOTHING RETURNING v",
    )
    .await;
    s.check("SELECT * FROM kv").await;
    s.check_view("kvv").await;
    // DO UPDATE with EXCLUDED, the existing row, an alias, WHERE, DEFAULT, RETURNING.
    same_result(
        &s,
        "INSERT INTO kv VALUES (1, 'y', 5, 12), (5, 'e', 5, 50) ON CONFLICT (k) \
         DO UPDATE SET v = excluded.v, n = kv.n + excluded.n RETURNING *",
    )
    .await;
    same_result(
        &s,
        "INSERT INTO kv AS t VALUES (2, 'q', 0, 0), (3, 'r', 0, 0) ON CONFLICT (k) \
         DO UPDATE SET v = excluded.v WHERE t.n > 2",
    )
    .await;
    same_result(
        &s,
        "INSERT INTO kv VALUES (4, 'zz', 9, 99) ON CONFLICT ON CONSTRAINT kv_pkey \
         DO UPDATE SET n = DEFAULT, u = excluded.u + 1000",
    )
    .await;
    same_result(
        &s,
        "INSERT INTO kv SELECT k, v || '+', n, u FROM kv WHERE k < 3 \
         ON CONFLICT (k) DO UPDATE SET v = excluded.v",
    )
    .await;
    s.check("SELECT * FROM kv").await;
    s.check_view("kvv").await;
    // Composite keys: the target columns in any order.
    s.exec("INSERT INTO pair VALUES (1, 'x', 1), (1, 'y', 2)")
        .await;
    same_result(
        &s,
        "INSERT INTO pair VALUES (1, 'x', 10), (2, 'x', 20) ON CONFLICT (b, a) \
         DO UPDATE SET c = pair.c + excluded.c RETURNING a, b, c",
    )
    .await;
    s.check("SELECT * FROM pair").await;
    // Errors as in PostgreSQL, leaving the tables as they were.
    s.check_error(
        "INSERT INTO kv VALUES (1, 'z', 5, 12), (1, 'w', 5, 13) ON CONFLICT (k) \
         DO UPDATE SET v = excluded.v",
    )
    .await;
    s.check_error("INSERT INTO kv VALUES (40, 'd', 0, 10) ON CONFLICT (k) DO NOTHING")
        .await;
    s.check_error("INSERT INTO kv VALUES (2, 'q', 0, 0) ON CONFLICT (v) DO NOTHING")
        .await;
    s.check_error("INSERT INTO kv VALUES (2, 'q', 0, 0) ON CONFLICT ON CONSTRAINT nope DO NOTHING")
        .await;
    s.check_error(
        "INSERT INTO kv VALUES (2, 'q', 0, 0) ON CONFLICT ON CONSTRAINT kv_u_key \
         DO UPDATE SET v = 'via u'",
    )
    .await;
    s.check_error("INSERT INTO kv VALUES (2, 'q', 0, 0) ON CONFLICT DO UPDATE SET v = 'x'")
        .await;
    s.check_error("INSERT INTO kv VALUES (2, 'q', 0, 0) ON CONFLICT (nope) DO NOTHING")
        .await;
    s.check_error("INSERT INTO kv VALUES (2, 'q', 0, 0) ON CONFLICT (k) DO UPDATE SET u = 10")
        .await;
    s.check("SELECT * FROM kv").await;
    s.check_view("kvv").await;
    // The message and hint of 21000.
    let e = simple(
        &s.kpg,
        "INSERT INTO kv VALUES (1, 'z', 5, 12), (1, 'w', 5, 13) ON CONFLICT (k) DO UPDATE SET v = 'w'",
    )
    .await
    .unwrap_err();
    let db = e.as_db_error().unwrap();
    assert_eq!(
        db.message(),
        "ON CONFLICT DO UPDATE command cannot affect row a second time"
    );
    assert!(db
        .hint()
        .is_some_and(|h| h.starts_with("Ensure that no rows")));
}

/// `sql` fails alike in a new session on both (another session's temporary objects are
/// invisible).
async fn c_sees_nothing(kpg: &KpgServer, pg: &Postgres, sql: &str) {
    Pair::new(kpg, pg).await.check_error(sql).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn temporary_tables() {
    let (kpg, pg, a) = setup().await;
    let b = Pair::new(&kpg, &pg).await;
    a.exec("CREATE TABLE t (a int)").await;
    a.exec("INSERT INTO t VALUES (1)").await;
    // A temporary table hides the shared one of its name, for its session only.
    a.exec("CREATE TEMPORARY TABLE t (a int, b text DEFAULT 'temp')")
        .await;
    a.exec("INSERT INTO t (a) VALUES (2), (3)").await;
    a.check("SELECT * FROM t").await;
    a.check("SELECT * FROM public.t").await;
    b.check("SELECT * FROM t").await;
    b.check_error("INSERT INTO t VALUES (1, 'x')").await;
    // Every write works on it: keys, ON CONFLICT, UPDATE ... FROM, RETURNING, TRUNCATE.
    b.exec("CREATE TEMP TABLE tk (k int PRIMARY KEY, v text)")
        .await;
    b.exec("INSERT INTO tk VALUES (1, 'a'), (2, 'b')").await;
    b.check_error("INSERT INTO tk VALUES (1, 'dup')").await;
    same_result(
        &b,
        "INSERT INTO tk VALUES (1, 'c') ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING *",
    )
    .await;
    same_result(
        &b,
        "UPDATE tk SET v = t.a::text FROM t WHERE tk.k = t.a RETURNING tk.*",
    )
    .await;
    b.check("SELECT * FROM tk").await;
    a.check_error("SELECT * FROM tk").await;
    same_result(&a, "DELETE FROM t WHERE a = 3 RETURNING *").await;
    a.exec("TRUNCATE t").await;
    a.check("SELECT * FROM t").await;
    a.check("SELECT * FROM public.t").await;
    // CREATE TEMP TABLE AS, SELECT INTO TEMP.
    same_result(
        &a,
        "CREATE TEMP TABLE ct AS SELECT a * 10 AS x FROM public.t",
    )
    .await;
    same_result(&a, "SELECT x + 1 AS y INTO TEMP TABLE si FROM ct").await;
    a.check("SELECT * FROM si").await;
    b.check_error("SELECT * FROM si").await;
    // The catalog: the session's own temporary tables, in its temporary schema.
    let tables = "SELECT table_name, table_type, table_schema LIKE 'pg_temp%' AS temp \
                  FROM information_schema.tables WHERE table_name IN ('t', 'tk', 'ct', 'si') \
                  ORDER BY 1, 2";
    a.check(tables).await;
    b.check(tables).await;
    // A plain view over them is a temporary view; a materialized one is refused.
    a.check_error("CREATE MATERIALIZED VIEW mv AS SELECT * FROM t")
        .await;
    a.exec("CREATE VIEW tv AS SELECT a, b || '!' AS c FROM t")
        .await;
    a.exec("CREATE VIEW tv2 AS SELECT count(*) AS n FROM tv")
        .await;
    a.exec("INSERT INTO t VALUES (7, 'seven')").await;
    a.check("SELECT * FROM tv").await;
    a.check("SELECT * FROM tv2").await;
    a.check_error("CREATE MATERIALIZED VIEW mv AS SELECT * FROM tv")
        .await;
    c_sees_nothing(&kpg, &pg, "SELECT * FROM tv").await;
    a.check_error("DROP TABLE t").await;
    a.exec("DROP VIEW tv CASCADE").await;
    a.check_error("SELECT * FROM tv2").await;
    // ON COMMIT PRESERVE ROWS is what a temporary table does; other tables take no ON COMMIT.
    a.exec("CREATE TEMP TABLE oc (a int) ON COMMIT PRESERVE ROWS")
        .await;
    a.check_error("CREATE TABLE oc2 (a int) ON COMMIT PRESERVE ROWS")
        .await;
    // DROP drops the temporary table first, then the shared one is seen again.
    a.exec("DROP TABLE t").await;
    a.check("SELECT * FROM t").await;
    a.exec("CREATE TEMP TABLE IF NOT EXISTS t (z int)").await;
    a.exec("CREATE TEMP TABLE IF NOT EXISTS t (z int)").await;
    a.check_error("CREATE TEMP TABLE t (z int)").await;
    a.check("SELECT * FROM pg_temp.t").await;
    let create = query(&a.kpg, "SHOW CREATE TABLE t").await;
    assert!(
        create[0][1]
            .as_deref()
            .unwrap()
            .starts_with("CREATE TEMPORARY TABLE t "),
        "{create:?}"
    );
    // Qualified names reach past the temporary table, or only it.
    a.exec("INSERT INTO public.t VALUES (8)").await;
    a.check("SELECT * FROM public.t").await;
    a.exec("DROP TABLE public.t").await;
    a.check("SELECT * FROM t").await;
    a.check_error("SELECT * FROM public.t").await;
    a.check_error("DROP TABLE pg_temp.nope").await;
    // A session's temporary tables end with it: their collections (and the constraint's
    // index) are dropped.
    let tk = "SELECT count(*) FROM kpg_dataflows WHERE name IN ('table-tk', 'index-tk_pkey')";
    assert_eq!(query(&a.kpg, tk).await, rows(&[&["2"]]));
    drop(b);
    let mut left = query(&a.kpg, tk).await;
    for _ in 0..100 {
        if left == rows(&[&["0"]]) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        left = query(&a.kpg, tk).await;
    }
    assert_eq!(
        left,
        rows(&[&["0"]]),
        "the ended session's temporary table is dropped"
    );
    let c = Pair::new(&kpg, &pg).await;
    c.check_error("SELECT * FROM tk").await;
    c.exec("CREATE TEMP TABLE tk (k int PRIMARY KEY)").await;
    c.exec("INSERT INTO tk VALUES (1)").await;
    c.check("SELECT * FROM tk").await;
    a.check("SELECT * FROM t").await;
}
