//! PRIMARY KEY and UNIQUE constraints over the wire, kpg against PostgreSQL: the same
//! statements succeed and fail (SQLSTATE, message and detail), and the tables hold the same rows
//! afterwards. Also what only kpg can show: the constraint's index is used by readers, a
//! transaction block's duplicate is caught at COMMIT, and concurrent sessions inserting one key
//! get exactly one row in.

use kpg_tests::tokio_postgres::error::DbError;
use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    (kpg, pg, s)
}

/// Runs `sql` on both; both must fail with the same SQLSTATE, message and detail.
async fn same_error(s: &Pair, sql: &str) {
    s.check_error(sql).await;
    let db = |e: tokio_postgres::Error| -> (String, Option<String>) {
        let db: &DbError = e.as_db_error().expect("an ErrorResponse");
        (db.message().to_string(), db.detail().map(str::to_string))
    };
    let k = db(simple(&s.kpg, sql).await.unwrap_err());
    let p = db(simple(&s.pg, sql).await.unwrap_err());
    assert_eq!(k, p, "`{sql}`: kpg (left) and PostgreSQL (right) differ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicates_are_refused_as_in_postgres() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE p (id int PRIMARY KEY, email text UNIQUE, n int)")
        .await;
    s.exec("CREATE TABLE pair (a int, b text, c int, PRIMARY KEY (a, b), UNIQUE (c))")
        .await;
    s.exec("INSERT INTO p VALUES (1, 'a@x', 10), (2, 'b@x', 20), (3, NULL, 30)")
        .await;
    // Against existing rows, within one statement, from a SELECT.
    same_error(&s, "INSERT INTO p VALUES (1, 'new@x', 0)").await;
    same_error(&s, "INSERT INTO p VALUES (4, 'a@x', 0)").await;
    same_error(&s, "INSERT INTO p VALUES (5, 'e@x', 0), (5, 'f@x', 0)").await;
    same_error(&s, "INSERT INTO p SELECT id + 1, NULL, n FROM p").await;
    // A primary key is NOT NULL; UNIQUE lets any number of NULLs in.
    same_error(&s, "INSERT INTO p VALUES (NULL, 'z@x', 0)").await;
    s.exec("INSERT INTO p VALUES (6, NULL, 60), (7, NULL, 70)")
        .await;
    // Composite keys conflict only on all their columns; NULL in one never conflicts.
    s.exec("INSERT INTO pair VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', NULL), (3, 'x', NULL)")
        .await;
    same_error(&s, "INSERT INTO pair VALUES (1, 'y', 3)").await;
    same_error(&s, "INSERT INTO pair VALUES (9, 'z', 2)").await;
    // UPDATE: onto an existing key fails; to a free key, or swapping through a delete, works.
    same_error(&s, "UPDATE p SET id = 2 WHERE id = 1").await;
    same_error(&s, "UPDATE p SET email = 'b@x' WHERE id = 3").await;
    s.exec("UPDATE p SET id = 100 WHERE id = 1").await;
    s.exec("UPDATE p SET email = 'moved@x' WHERE email = 'b@x'")
        .await;
    s.exec("DELETE FROM p WHERE id = 2").await;
    s.exec("INSERT INTO p VALUES (2, 'b@x', 22)").await;
    // Every failed statement left the tables as they were.
    s.check("SELECT * FROM p").await;
    s.check("SELECT * FROM pair").await;
    // The constraint's index cannot be dropped; the table (and with it the index) can.
    same_error(&s, "DROP INDEX p_pkey").await;
    same_error(&s, "CREATE TABLE p_email_key (a int)").await;
    s.exec("DROP TABLE p").await;
    s.exec("CREATE TABLE p (id int PRIMARY KEY)").await;
    s.exec("INSERT INTO p VALUES (1)").await;
    same_error(&s, "INSERT INTO p VALUES (1)").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_and_definition_errors_as_in_postgres() {
    let (_kpg, _pg, s) = setup().await;
    // Generated names (a taken one gets a number) appear in the errors.
    s.exec("CREATE TABLE q_pkey (a int)").await;
    s.exec("CREATE TABLE q (a int PRIMARY KEY, b int UNIQUE, c int, UNIQUE (b, c), CONSTRAINT my_c UNIQUE (c))")
        .await;
    s.exec("INSERT INTO q VALUES (1, 1, 1)").await;
    same_error(&s, "INSERT INTO q VALUES (1, 2, 2)").await;
    same_error(&s, "INSERT INTO q VALUES (2, 1, 2)").await;
    same_error(&s, "INSERT INTO q VALUES (2, 2, 1)").await;
    // Definition errors.
    for sql in [
        "CREATE TABLE bad (a int PRIMARY KEY, b int PRIMARY KEY)",
        "CREATE TABLE bad (a int, PRIMARY KEY (a), PRIMARY KEY (a))",
        "CREATE TABLE bad (a int, UNIQUE (nope))",
        "CREATE TABLE bad (a int, UNIQUE (a, a))",
        "CREATE TABLE bad (a int CONSTRAINT q UNIQUE)",
    ] {
        same_error(&s, sql).await;
    }
    // Type text compares as text: 'a' and 'A' are different keys.
    s.exec("CREATE TABLE words (w text PRIMARY KEY)").await;
    s.exec("INSERT INTO words VALUES ('a'), ('A')").await;
    same_error(&s, "INSERT INTO words VALUES ('A')").await;
    s.check("SELECT * FROM words").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_constraint_index_serves_readers() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    for sql in [
        "CREATE TABLE dim (id int PRIMARY KEY, name text)",
        "CREATE TABLE fact (dim_id int, amount int)",
        "INSERT INTO dim VALUES (1, 'one'), (2, 'two')",
        "INSERT INTO fact VALUES (1, 10), (1, 5), (2, 7), (3, 1)",
    ] {
        execute(&c, sql).await;
    }
    let explain = query(
        &c,
        "EXPLAIN PHYSICAL PLAN FOR SELECT name, sum(amount) FROM fact JOIN dim ON dim_id = id GROUP BY name",
    )
    .await;
    let text: String = explain
        .iter()
        .flatten()
        .flatten()
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        text.contains("dim_pkey"),
        "the join reads the index: {text}"
    );
    assert_eq!(
        sorted(
            query(
                &c,
                "SELECT name, sum(amount) FROM fact JOIN dim ON dim_id = id GROUP BY name"
            )
            .await
        ),
        rows(&[&["one", "15"], &["two", "7"]])
    );
    let create = query(&c, "SHOW CREATE TABLE dim").await;
    assert!(
        format!("{create:?}").contains("CONSTRAINT dim_pkey PRIMARY KEY (id)"),
        "{create:?}"
    );
    let flags = query(
        &c,
        "SELECT indisprimary, indisunique FROM pg_index JOIN pg_class ON indexrelid = oid \
         WHERE relname = 'dim_pkey'",
    )
    .await;
    assert_eq!(flags, rows(&[&["t", "t"]]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocks_copy_and_concurrent_sessions() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE k (id int PRIMARY KEY, v text)").await;
    execute(&c, "INSERT INTO k VALUES (1, 'one')").await;
    // In a block, an INSERT is checked against the table when it runs...
    simple(&c, "BEGIN").await.unwrap();
    let (code, _) = expect_error(&c, "INSERT INTO k VALUES (1, 'again')").await;
    assert_eq!(code, "23505");
    simple(&c, "ROLLBACK").await.unwrap();
    // ...and against the block's earlier INSERTs, as PostgreSQL does; the failed block's
    // COMMIT then writes nothing.
    simple(&c, "BEGIN").await.unwrap();
    simple(&c, "INSERT INTO k VALUES (2, 'two')").await.unwrap();
    let (code, msg) = expect_error(&c, "INSERT INTO k VALUES (2, 'deux')").await;
    assert_eq!(code, "23505", "{msg}");
    simple(&c, "COMMIT").await.unwrap();
    assert_eq!(query(&c, "SELECT count(*) FROM k").await, rows(&[&["1"]]));
    // COPY is checked too.
    let copy = async {
        let sink = c.copy_in("COPY k FROM STDIN").await?;
        futures::pin_mut!(sink);
        use futures::SinkExt;
        sink.send(bytes::Bytes::from_static(b"3\tthree\n1\tdup\n"))
            .await?;
        sink.finish().await
    }
    .await;
    let e = copy.expect_err("COPY of a duplicate key must fail");
    assert_eq!(sqlstate(&e).as_deref(), Some("23505"), "{e}");
    assert_eq!(query(&c, "SELECT count(*) FROM k").await, rows(&[&["1"]]));
    // Sessions racing to insert one key: exactly one gets in.
    let mut sessions = Vec::new();
    for i in 0..6 {
        let client = kpg.connect().await;
        sessions.push(tokio::spawn(async move {
            simple(
                &client,
                &format!("INSERT INTO k VALUES (42, 'session {i}')"),
            )
            .await
            .map_err(|e| sqlstate(&e))
        }));
    }
    let mut ok = 0;
    for s in sessions {
        match s.await.unwrap() {
            Ok(_) => ok += 1,
            Err(code) => assert_eq!(code.as_deref(), Some("23505")),
        }
    }
    assert_eq!(ok, 1);
    assert_eq!(
        query(&c, "SELECT count(*) FROM k WHERE id = 42").await,
        rows(&[&["1"]])
    );
}
