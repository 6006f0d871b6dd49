//! Transaction blocks as ORMs and migration tools use them, against PostgreSQL 15: savepoints
//! (`SAVEPOINT`, `RELEASE`, `ROLLBACK TO`, also after an error), reads followed by writes, and
//! `CREATE TABLE` / `VIEW` / `INDEX` inside a block followed by INSERTs into the new table.
//! kpg-only checks: a block's CREATE is undone by ROLLBACK, by ROLLBACK TO, by a failed COMMIT
//! and by the session's end; it is kept by COMMIT together with the block's rows across a
//! SIGKILL, and a SIGKILL before COMMIT leaves neither; other sessions cannot build on an
//! uncommitted CREATE (55006); DDL a ROLLBACK could not undo is refused up front (0A000).

use std::time::Duration;

use kpg_tests::*;

async fn tables(client: &kpg_tests::tokio_postgres::Client) -> Rows {
    query(
        client,
        "SELECT relname FROM pg_class WHERE relname LIKE 'blk%' ORDER BY relname",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn savepoints_match_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (id int PRIMARY KEY, v text)").await;
    s.exec("INSERT INTO t VALUES (1, 'before')").await;

    s.exec("BEGIN").await;
    s.exec("INSERT INTO t VALUES (2, 'kept')").await;
    s.exec("SAVEPOINT a").await;
    s.exec("INSERT INTO t VALUES (3, 'undone')").await;
    s.exec("SAVEPOINT b").await;
    s.exec("INSERT INTO t VALUES (4, 'undone too')").await;
    s.exec("ROLLBACK TO SAVEPOINT a").await;
    s.exec("INSERT INTO t VALUES (5, 'after rollback to')")
        .await;
    // `a` is still there after ROLLBACK TO; `b` is gone.
    s.check_error("RELEASE SAVEPOINT b").await;
    s.exec("ROLLBACK TO a").await;
    s.exec("SAVEPOINT c").await;
    s.exec("INSERT INTO t VALUES (6, 'released')").await;
    s.exec("RELEASE c").await;
    s.exec("COMMIT").await;
    s.check("SELECT * FROM t ORDER BY id").await;

    // An error fails the block; ROLLBACK TO a savepoint set before it recovers it.
    s.exec("BEGIN").await;
    s.exec("INSERT INTO t VALUES (7, 'x')").await;
    s.exec("SAVEPOINT s").await;
    s.check_error("INSERT INTO t VALUES (1, 'duplicate')").await;
    s.check_error("INSERT INTO t VALUES (8, 'refused: block failed')")
        .await;
    s.check_error("SAVEPOINT refused").await;
    s.exec("ROLLBACK TO SAVEPOINT s").await;
    s.exec("INSERT INTO t VALUES (9, 'after recovery')").await;
    s.exec("COMMIT").await;
    s.check("SELECT * FROM t ORDER BY id").await;

    // A savepoint name used twice: ROLLBACK TO and RELEASE take the newest.
    s.exec("BEGIN").await;
    s.exec("SAVEPOINT x").await;
    s.exec("INSERT INTO t VALUES (10, 'first x')").await;
    s.exec("SAVEPOINT x").await;
    s.exec("INSERT INTO t VALUES (11, 'second x')").await;
    s.exec("ROLLBACK TO x").await;
    s.exec("RELEASE x").await;
    s.exec("ROLLBACK TO x").await;
    s.exec("COMMIT").await;
    s.check("SELECT * FROM t ORDER BY id").await;

    // Settings made after a savepoint are undone by ROLLBACK TO.
    s.exec("BEGIN").await;
    s.exec("SET extra_float_digits = 1").await;
    s.exec("SAVEPOINT a").await;
    s.exec("SET extra_float_digits = 3").await;
    s.exec("ROLLBACK TO a").await;
    s.check("SHOW extra_float_digits").await;
    s.exec("COMMIT").await;
    s.check("SHOW extra_float_digits").await;

    // Outside a block, and unknown names.
    s.check_error("SAVEPOINT a").await;
    s.check_error("RELEASE SAVEPOINT a").await;
    s.check_error("ROLLBACK TO SAVEPOINT a").await;
    s.exec("BEGIN").await;
    s.check_error("ROLLBACK TO nothing").await;
    s.check_error("SELECT 1").await;
    s.exec("ROLLBACK").await;
    s.check("SELECT count(*) FROM t").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_then_ddl_and_writes_match_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE src (id int, grp int)").await;
    s.exec("INSERT INTO src SELECT g, g % 3 FROM generate_series(1, 30) g")
        .await;

    // What SQLAlchemy's create_all and pandas' to_sql do: read the catalog, create, insert.
    s.exec("BEGIN").await;
    s.check("SELECT count(*) FROM pg_class WHERE relname = 'blk_a'")
        .await;
    s.check("SELECT count(*) FROM src").await;
    s.exec("CREATE TABLE blk_a (id int PRIMARY KEY, grp int, note text)")
        .await;
    s.exec("CREATE INDEX blk_a_grp ON blk_a (grp)").await;
    s.exec("CREATE VIEW blk_v AS SELECT grp, count(*) AS n FROM blk_a GROUP BY grp")
        .await;
    // Reads of the block's new objects before its first write.
    s.check("SELECT * FROM blk_v").await;
    s.exec("INSERT INTO blk_a VALUES (1, 1, 'one'), (2, 1, NULL), (3, 2, 'three')")
        .await;
    s.exec("INSERT INTO src VALUES (31, 0)").await;
    s.check_error("INSERT INTO blk_a VALUES (1, 9, 'duplicate key')")
        .await;
    s.exec("ROLLBACK").await;
    s.check_error("SELECT * FROM blk_a").await;
    s.check("SELECT count(*) FROM src").await;

    s.exec("BEGIN").await;
    s.exec("CREATE TABLE blk_a (id int PRIMARY KEY, grp int, note text)")
        .await;
    s.exec("CREATE VIEW blk_v AS SELECT grp, count(*) AS n FROM blk_a GROUP BY grp")
        .await;
    s.exec("INSERT INTO blk_a VALUES (1, 1, 'one'), (2, 1, NULL), (3, 2, 'three')")
        .await;
    s.exec("SAVEPOINT before_b").await;
    s.exec("CREATE TABLE blk_b (x int)").await;
    s.exec("INSERT INTO blk_b VALUES (1)").await;
    s.exec("ROLLBACK TO before_b").await;
    s.exec("COMMIT").await;
    s.check("SELECT * FROM blk_a ORDER BY id").await;
    s.check("SELECT * FROM blk_v").await;
    s.check_error("SELECT * FROM blk_b").await;
    assert_eq!(tables(&s.kpg).await, tables(&s.pg).await);

    // A failed block's COMMIT rolls its CREATE back.
    s.exec("BEGIN").await;
    s.exec("CREATE TABLE blk_c (x int)").await;
    s.check_error("SELECT 1/0").await;
    s.exec("COMMIT").await;
    assert_eq!(tables(&s.kpg).await, tables(&s.pg).await);
    s.check("SELECT * FROM blk_a ORDER BY id").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn block_ddl_is_provisional_until_commit() {
    let mut kpg = KpgServer::start().await;
    let a = kpg.connect().await;
    let b = kpg.connect().await;
    execute(&a, "CREATE TABLE base (id int)").await;

    // What a ROLLBACK could not undo is refused up front, and fails the block.
    execute(&a, "BEGIN").await;
    for sql in [
        "DROP TABLE base",
        "ALTER TABLE base RENAME TO other",
        "CREATE OR REPLACE VIEW blk_r AS SELECT 1",
    ] {
        let (code, message) = expect_error(&a, sql).await;
        assert_eq!(code, "0A000", "{sql}: {message}");
        execute(&a, "ROLLBACK").await;
        execute(&a, "BEGIN").await;
    }

    // Another session cannot build on an uncommitted CREATE.
    execute(&a, "CREATE TABLE blk_p (id int)").await;
    let (code, message) = expect_error(&b, "CREATE VIEW blk_on_p AS SELECT * FROM blk_p").await;
    assert_eq!(code, "55006", "{message}");
    let (code, message) = expect_error(&b, "CREATE INDEX blk_p_id ON blk_p (id)").await;
    assert_eq!(code, "55006", "{message}");
    execute(&a, "INSERT INTO blk_p VALUES (1), (2)").await;
    execute(&a, "COMMIT").await;
    // Once committed it is an ordinary table.
    execute(&b, "CREATE VIEW blk_on_p AS SELECT * FROM blk_p").await;
    assert_eq!(
        query(&b, "SELECT count(*) FROM blk_on_p").await,
        rows(&[&["2"]])
    );

    // A session that ends inside a block rolls its CREATE back.
    {
        let c = kpg.connect().await;
        execute(&c, "BEGIN").await;
        execute(&c, "CREATE TABLE blk_orphan (id int)").await;
        assert_eq!(
            query(
                &b,
                "SELECT count(*) FROM pg_class WHERE relname = 'blk_orphan'"
            )
            .await,
            rows(&[&["1"]])
        );
    }
    wait_for(
        &b,
        "SELECT count(*) FROM pg_class WHERE relname = 'blk_orphan'",
        "0",
    )
    .await;

    // SIGKILL before COMMIT: neither the table nor its rows come back; after COMMIT both do.
    execute(&a, "BEGIN").await;
    execute(&a, "CREATE TABLE blk_done (id int)").await;
    execute(&a, "INSERT INTO blk_done VALUES (1), (2), (3)").await;
    execute(&a, "COMMIT").await;
    execute(&a, "BEGIN").await;
    execute(&a, "CREATE TABLE blk_lost (id int)").await;
    execute(&a, "INSERT INTO blk_lost VALUES (1)").await;
    // A later commit of another session is durable; the block's CREATE must not ride on it.
    execute(&b, "INSERT INTO base VALUES (42)").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    kpg.kill();
    kpg.restart().await;
    let c = kpg.connect().await;
    assert_eq!(
        query(
            &c,
            "SELECT relname FROM pg_class WHERE relname LIKE 'blk%' ORDER BY relname"
        )
        .await,
        rows(&[&["blk_done"], &["blk_on_p"], &["blk_p"]])
    );
    assert_eq!(
        query(&c, "SELECT * FROM blk_done ORDER BY id").await,
        rows(&[&["1"], &["2"], &["3"]])
    );
    assert_eq!(query(&c, "SELECT * FROM base").await, rows(&[&["42"]]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_block_refuses_everything_but_its_end_as_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (id int PRIMARY KEY, v text)").await;
    s.exec("INSERT INTO t VALUES (1, 'a')").await;
    s.exec("BEGIN").await;
    s.exec("DECLARE c CURSOR FOR SELECT * FROM t").await;
    s.check_error("SELECT 1/0").await;
    // Every statement the session runs itself is refused too (25P02), not only queries.
    for sql in [
        "SELECT 1",
        "SET extra_float_digits = 1",
        "SHOW extra_float_digits",
        "FETCH ALL c",
        "CLOSE c",
        "DEALLOCATE nothing",
        "COPY t TO STDOUT",
        "COPY t FROM STDIN",
        "SAVEPOINT s",
        "INSERT INTO t VALUES (2, 'b')",
    ] {
        let (code, _) = s.check_error(sql).await;
        assert_eq!(code, "25P02", "{sql}");
    }
    s.exec("ROLLBACK").await;

    // A cursor's statement must be a query: an INSERT is refused, and not run.
    s.exec("BEGIN").await;
    s.check_error("DECLARE d CURSOR FOR INSERT INTO t VALUES (3, 'not inserted')")
        .await;
    s.exec("ROLLBACK").await;
    s.check("SELECT * FROM t ORDER BY id").await;
    // DEALLOCATE of a statement that does not exist (outside a block).
    s.check_error("DEALLOCATE nothing").await;
}
