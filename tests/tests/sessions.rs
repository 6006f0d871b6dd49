//! Sessions: transaction blocks (BEGIN / COMMIT / ROLLBACK) and many concurrent connections.

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_makes_buffered_inserts_visible_at_once_and_rollback_discards_them() {
    let kpg = KpgServer::start().await;
    let writer = kpg.connect().await;
    let reader = kpg.connect().await;
    execute(&writer, "CREATE TABLE t (a int4 NOT NULL)").await;
    execute(
        &writer,
        "CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n FROM t",
    )
    .await;

    execute(&writer, "BEGIN").await;
    execute(&writer, "INSERT INTO t VALUES (1)").await;
    execute(&writer, "INSERT INTO t VALUES (2), (3)").await;
    // Not visible to anyone before COMMIT.
    assert_eq!(query(&reader, "SELECT n FROM c").await, rows(&[&["0"]]));
    execute(&writer, "COMMIT").await;
    assert_eq!(query(&reader, "SELECT n FROM c").await, rows(&[&["3"]]));

    execute(&writer, "BEGIN").await;
    execute(&writer, "INSERT INTO t VALUES (4)").await;
    execute(&writer, "ROLLBACK").await;
    assert_eq!(query(&reader, "SELECT n FROM c").await, rows(&[&["3"]]));

    // An error fails the block: later statements are refused, COMMIT rolls back.
    execute(&writer, "BEGIN").await;
    execute(&writer, "INSERT INTO t VALUES (5)").await;
    let (code, _) = expect_error(&writer, "INSERT INTO t VALUES (NULL)").await;
    assert_eq!(code, "23502");
    let (code, _) = expect_error(&writer, "INSERT INTO t VALUES (6)").await;
    assert_eq!(code, "25P02");
    simple(&writer, "COMMIT")
        .await
        .expect("COMMIT ends a failed block (rolling it back)");
    assert_eq!(query(&reader, "SELECT n FROM c").await, rows(&[&["3"]]));

    // Reads and writes do not mix in one block; other statements are refused.
    execute(&writer, "BEGIN").await;
    execute(&writer, "INSERT INTO t VALUES (7)").await;
    let (code, _) = expect_error(&writer, "SELECT * FROM t").await;
    assert_eq!(code, "25000");
    execute(&writer, "ROLLBACK").await;
    execute(&writer, "BEGIN").await;
    let (code, _) = expect_error(&writer, "DELETE FROM t").await;
    assert_eq!(code, "0A000");
    execute(&writer, "ROLLBACK").await;
    assert_eq!(query(&writer, "SELECT n FROM c").await, rows(&[&["3"]]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_sessions() {
    let kpg = KpgServer::start().await;
    let setup = kpg.connect().await;
    execute(&setup, "CREATE TABLE hits (session int4, n int4)").await;
    execute(&setup, "CREATE MATERIALIZED VIEW per_session AS SELECT session, count(*) AS c FROM hits GROUP BY session").await;
    let mut tasks = Vec::new();
    for s in 0..100 {
        let client = kpg.connect().await;
        tasks.push(tokio::spawn(async move {
            for n in 0..3 {
                execute(&client, &format!("INSERT INTO hits VALUES ({s}, {n})")).await;
            }
            // Each session reads its own acknowledged writes.
            let got = query(
                &client,
                &format!("SELECT c FROM per_session WHERE session = {s}"),
            )
            .await;
            assert_eq!(got, rows(&[&["3"]]), "session {s}");
        }));
    }
    for t in tasks {
        t.await.expect("session task");
    }
    assert_eq!(
        query(&setup, "SELECT count(*), count(DISTINCT session) FROM hits").await,
        rows(&[&["300", "100"]])
    );
}

/// SET / SHOW / RESET of the parameters clients send, compared with PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_variables_match_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for sql in [
        "SET application_name = 'kpg test'",
        "SET extra_float_digits = 3",
        "SET search_path = public",
        "SET statement_timeout = 0",
        "SET client_encoding = 'UTF8'",
        "SET DateStyle = ISO, MDY",
    ] {
        s.exec(sql).await;
    }
    for sql in [
        "SHOW application_name",
        "SHOW extra_float_digits",
        "SHOW search_path",
        "SHOW client_encoding",
        "SHOW DateStyle",
        "SHOW statement_timeout",
    ] {
        s.check(sql).await;
    }
    s.exec("RESET application_name").await;
    s.check("SHOW application_name").await;
    s.check_error("SET no_such_parameter = 1").await;
    s.check_error("SHOW no_such_parameter").await;
}

/// The session's user: `current_user` and its synonyms as PostgreSQL answers them (the two
/// servers are connected to under different names, so the checks compare them with each
/// other), the user a connection named, and a view may not keep the creating session's user.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_user_matches_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let s = Pair::new(&kpg, &pg).await;
    s.check(
        "SELECT current_user = session_user, user = current_role, current_user = user, \
         length(current_user) > 0",
    )
    .await;
    s.exec("CREATE TABLE people (id int, \"current_role\" text)")
        .await;
    s.exec("INSERT INTO people VALUES (1, 'x'), (2, 'y')").await;
    // Unquoted, `current_role` is the keyword; quoted, the column.
    s.check("SELECT id, current_role = session_user, \"current_role\" FROM people ORDER BY id")
        .await;

    let alice = kpg.connect_as("alice").await;
    let row = alice
        .query_one("SELECT current_user, session_user", &[])
        .await
        .expect("current_user");
    assert_eq!(
        (row.get::<_, String>(0), row.get::<_, String>(1)),
        ("alice".to_string(), "alice".to_string())
    );
    let e = alice
        .batch_execute("CREATE VIEW mine AS SELECT * FROM people WHERE current_role = current_user")
        .await
        .expect_err("a view keeping the session's user");
    assert_eq!(e.code().map(|c| c.code()), Some("0A000"), "{e:?}");
}
