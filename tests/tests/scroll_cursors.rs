//! Scrollable cursors (issue 21), compared with PostgreSQL: `DECLARE c [BINARY]
//! [INSENSITIVE] [[NO] SCROLL] CURSOR [WITH | WITHOUT HOLD] FOR query`, FETCH and MOVE in
//! every direction (NEXT, PRIOR, FIRST, LAST, ABSOLUTE n, RELATIVE n, n, ALL, FORWARD and
//! BACKWARD [n | ALL], FROM or IN), their rows, row counts (`FETCH n`, `MOVE n`) and errors,
//! over long pseudo-random walks; held cursors across COMMIT and ROLLBACK; binary cursors; and
//! SUBSCRIBE cursors, which only move forward.

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// Runs `sql` on both servers: both succeed with the same rows, in order, and the same
/// CommandComplete count, or both fail with the same SQLSTATE. Returns whether they failed.
async fn same(s: &Pair, sql: &str) -> bool {
    let (k, p) = (simple(&s.kpg, sql).await, simple(&s.pg, sql).await);
    match (k, p) {
        (Ok(k), Ok(p)) => {
            assert_eq!(
                k.rows, p.rows,
                "rows of `{sql}` (kpg left, PostgreSQL right)"
            );
            assert_eq!(
                k.count, p.count,
                "count of `{sql}` (kpg left, PostgreSQL right)"
            );
            false
        }
        (Err(k), Err(p)) => {
            assert_eq!(
                sqlstate(&k),
                sqlstate(&p),
                "`{sql}`: kpg says {}, PostgreSQL says {}",
                describe_error(&k),
                describe_error(&p)
            );
            true
        }
        (Ok(k), Err(p)) => panic!(
            "`{sql}`: kpg returned {k:?}, PostgreSQL failed with {}",
            describe_error(&p)
        ),
        (Err(k), Ok(p)) => panic!(
            "`{sql}`: kpg failed with {}, PostgreSQL returned {p:?}",
            describe_error(&k)
        ),
    }
}

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (a int4, b text)").await;
    s.exec("INSERT INTO t VALUES (4, 'd'), (1, 'a'), (6, NULL), (3, 'c'), (2, 'b'), (5, 'e')")
        .await;
    (kpg, pg, s)
}

/// A deterministic walk of FETCH and MOVE statements in every direction and form.
fn walk(cursor: &str, steps: usize, mut seed: u64) -> Vec<String> {
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    (0..steps)
        .map(|_| {
            let count = next(17) as i64 - 8;
            let direction = match next(16) {
                0 => String::new(),
                1 => "NEXT".into(),
                2 => "PRIOR".into(),
                3 => "FIRST".into(),
                4 => "LAST".into(),
                5 | 6 => format!("ABSOLUTE {count}"),
                7 | 8 => format!("RELATIVE {count}"),
                9 => format!("{count}"),
                10 => "ALL".into(),
                11 => format!("FORWARD {count}"),
                12 => format!("BACKWARD {count}"),
                13 => "FORWARD ALL".into(),
                14 => "BACKWARD ALL".into(),
                _ => ["FORWARD", "BACKWARD"][next(2) as usize].into(),
            };
            let verb = ["FETCH", "MOVE"][usize::from(next(3) == 0)];
            let from = ["", "FROM ", "IN "][next(3) as usize];
            format!("{verb} {direction} {from}{cursor}")
        })
        .collect()
}

/// Runs a walk over a cursor declared by `declare`; after an error (which aborts the block)
/// the block is rolled back and the cursor declared afresh. Returns how many steps failed.
async fn run_walk(s: &Pair, declare: &str, steps: &[String]) -> usize {
    s.exec("BEGIN").await;
    s.exec(declare).await;
    let mut failed = 0;
    for sql in steps {
        if same(s, sql).await {
            failed += 1;
            s.exec("ROLLBACK").await;
            s.exec("BEGIN").await;
            s.exec(declare).await;
        }
    }
    s.exec("COMMIT").await;
    failed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scroll_cursor_walks_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    // Every edge by name first, then long walks.
    let edges: Vec<String> = [
        "FETCH 0 c",
        "MOVE 0 c",
        "FETCH PRIOR c",
        "FETCH RELATIVE 0 c",
        "FETCH NEXT FROM c",
        "FETCH RELATIVE 0 c",
        "MOVE 0 c",
        "FETCH ABSOLUTE -1 c",
        "FETCH NEXT c",
        "FETCH RELATIVE 0 c",
        "MOVE 0 c",
        "FETCH BACKWARD ALL IN c",
        "FETCH ABSOLUTE 0 c",
        "FETCH ABSOLUTE 7 c",
        "FETCH ABSOLUTE -7 c",
        "FETCH LAST c",
        "MOVE BACKWARD ALL c",
        "MOVE FORWARD ALL c",
        "MOVE BACKWARD ALL c",
        "FETCH -2 c",
        "MOVE ABSOLUTE 3 c",
        "FETCH FORWARD 0 c",
        "FETCH BACKWARD 0 c",
        "FETCH BACKWARD c",
        "FETCH FORWARD c",
        "FETCH +2 c",
        "FETCH ALL c",
        "FETCH FIRST c",
    ]
    .map(String::from)
    .to_vec();
    let declare = "DECLARE c SCROLL CURSOR FOR SELECT a, b FROM t ORDER BY a";
    assert_eq!(run_walk(&s, declare, &edges).await, 0);
    assert_eq!(run_walk(&s, declare, &walk("c", 300, 1)).await, 0);
    // Descending, with a filter, a projection and a LIMIT.
    let declare = "DECLARE c INSENSITIVE SCROLL CURSOR WITHOUT HOLD FOR \
                   SELECT b, a * 10 AS x FROM t WHERE a > 1 ORDER BY a DESC LIMIT 4";
    assert_eq!(run_walk(&s, declare, &walk("c", 200, 2)).await, 0);
    // An empty result.
    let declare = "DECLARE c SCROLL CURSOR FOR SELECT a FROM t WHERE a > 100 ORDER BY a";
    assert_eq!(run_walk(&s, declare, &walk("c", 60, 3)).await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_scroll_and_default_cursors_match_postgres() {
    let (kpg, _pg, s) = setup().await;
    // NO SCROLL: the runs that go backward or rewind fail as in PostgreSQL (some do not:
    // ABSOLUTE ahead of the position, MOVE 0, MOVE BACKWARD ALL before the first FETCH).
    let declare = "DECLARE c NO SCROLL CURSOR FOR SELECT a, b FROM t ORDER BY a";
    let edges: Vec<String> = [
        "MOVE BACKWARD ALL c",
        "FETCH ABSOLUTE 2 c",
        "FETCH ABSOLUTE 5 c",
        "MOVE 0 c",
        "FETCH RELATIVE 0 c",
        "FETCH 2 c",
        "FETCH PRIOR c",
        "FETCH ALL c",
        "FETCH ABSOLUTE 1 c",
        "FETCH -1 c",
        "FETCH FIRST c",
    ]
    .map(String::from)
    .to_vec();
    assert!(run_walk(&s, declare, &edges).await >= 3);
    assert!(run_walk(&s, declare, &walk("c", 200, 4)).await > 0);
    // Neither SCROLL nor NO SCROLL over a plain read of one table: PostgreSQL's plan (a Sort
    // over a scan) moves backward, and so does kpg's cursor.
    let declare = "DECLARE c CURSOR FOR SELECT a, b FROM t WHERE b IS NOT NULL ORDER BY b DESC";
    assert_eq!(run_walk(&s, declare, &walk("c", 150, 5)).await, 0);
    // Over a grouping PostgreSQL decides from its plan; kpg refuses to move backward.
    let c = kpg.connect().await;
    execute(&c, "BEGIN").await;
    execute(
        &c,
        "DECLARE g CURSOR FOR SELECT a % 2 AS k, count(*) FROM t GROUP BY 1 ORDER BY 1",
    )
    .await;
    assert_eq!(query(&c, "FETCH NEXT g").await, rows(&[&["0", "3"]]));
    let e = simple(&c, "FETCH PRIOR g").await.expect_err("backward");
    let db = e.as_db_error().expect("an ErrorResponse");
    assert_eq!(
        (db.code().code(), db.message()),
        ("55000", "cursor can only scan forward")
    );
    assert!(db
        .detail()
        .is_some_and(|d| d.contains("plain read of one table")));
    execute(&c, "ROLLBACK").await;
    // Options that conflict, and DECLARE without HOLD outside a block.
    s.check_error("DECLARE c SCROLL NO SCROLL CURSOR WITH HOLD FOR SELECT a FROM t ORDER BY a")
        .await;
    s.check_error("DECLARE c ASENSITIVE INSENSITIVE CURSOR WITH HOLD FOR SELECT a FROM t")
        .await;
    s.check_error("DECLARE c SCROLL CURSOR FOR SELECT a FROM t ORDER BY a")
        .await;
    // The query is checked before the block and the name, as in PostgreSQL.
    s.check_error("DECLARE c CURSOR FOR SELECT * FROM nope")
        .await;
    s.exec("BEGIN").await;
    s.exec("DECLARE d CURSOR FOR SELECT a FROM t ORDER BY a")
        .await;
    s.check_error("DECLARE d CURSOR FOR SELECT * FROM nope")
        .await;
    s.exec("ROLLBACK").await;
    s.exec("BEGIN").await;
    s.exec("DECLARE d CURSOR FOR SELECT a FROM t ORDER BY a")
        .await;
    s.check_error("DECLARE d CURSOR FOR SELECT a FROM t").await;
    s.exec("ROLLBACK").await;
    // After an error the block refuses cursor statements until it ends.
    s.exec("BEGIN").await;
    s.exec("DECLARE d NO SCROLL CURSOR FOR SELECT a FROM t ORDER BY a")
        .await;
    s.check_error("FETCH PRIOR d").await;
    for sql in [
        "FETCH NEXT d",
        "MOVE d",
        "CLOSE d",
        "DECLARE e CURSOR FOR SELECT 1",
    ] {
        let (code, _) = s.check_error(sql).await;
        assert_eq!(code, "25P02", "{sql}");
    }
    s.exec("ROLLBACK").await;
    // Without FROM, PostgreSQL's plan cannot scan backward, nor does kpg's cursor.
    s.exec("BEGIN").await;
    s.exec("DECLARE d CURSOR FOR SELECT 1 AS x").await;
    same(&s, "FETCH NEXT d").await;
    s.check_error("FETCH PRIOR d").await;
    s.exec("ROLLBACK").await;
    s.check_error("FETCH PRIOR nope").await;
    s.check_error("MOVE nope").await;
    s.check_error("FETCH ABSOLUTE 3000000000 c").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_and_binary_cursors_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    // WITH HOLD outside a block, then a write it does not see.
    s.exec("DECLARE h SCROLL CURSOR WITH HOLD FOR SELECT a, b FROM t ORDER BY a")
        .await;
    s.exec("INSERT INTO t VALUES (0, 'z')").await;
    for sql in [
        "FETCH 2 h",
        "FETCH PRIOR h",
        "FETCH LAST h",
        "MOVE BACKWARD ALL h",
    ] {
        same(&s, sql).await;
    }
    // Held cursors survive COMMIT; declared in a block that rolls back, they end with it;
    // those declared before the block stay, where they were.
    s.exec("BEGIN").await;
    s.exec("DECLARE h2 CURSOR WITH HOLD FOR SELECT a FROM t ORDER BY a DESC")
        .await;
    s.exec("DECLARE n CURSOR WITHOUT HOLD FOR SELECT a FROM t ORDER BY a")
        .await;
    same(&s, "FETCH h2").await;
    s.exec("COMMIT").await;
    for (sql, fails) in [
        ("FETCH 2 h2", false),
        ("FETCH n", true),
        ("FETCH NEXT h", false),
    ] {
        assert_eq!(same(&s, sql).await, fails, "{sql}");
    }
    s.exec("BEGIN").await;
    s.exec("DECLARE h3 CURSOR WITH HOLD FOR SELECT a FROM t ORDER BY a")
        .await;
    same(&s, "FETCH h").await;
    s.exec("ROLLBACK").await;
    for (sql, fails) in [
        ("FETCH h3", true),
        ("FETCH h", false),
        ("FETCH ALL h2", false),
        ("CLOSE h", false),
        ("FETCH h", true),
    ] {
        assert_eq!(same(&s, sql).await, fails, "{sql}");
    }
    s.exec("CLOSE ALL").await;
    // BINARY: the rows in binary (an int4's and a text's bytes are valid UTF-8 here).
    s.exec("BEGIN").await;
    s.exec("DECLARE bc BINARY SCROLL CURSOR FOR SELECT a, b FROM t WHERE a < 100 ORDER BY a")
        .await;
    for sql in [
        "FETCH 3 bc",
        "FETCH PRIOR bc",
        "MOVE LAST bc",
        "FETCH BACKWARD 2 bc",
    ] {
        same(&s, sql).await;
    }
    s.exec("COMMIT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_cursors_move_forward_only() {
    let kpg = KpgServer::start().await;
    let c: Client = kpg.connect().await;
    execute(&c, "CREATE TABLE t (a int4)").await;
    execute(&c, "INSERT INTO t VALUES (1), (2), (3)").await;
    execute(&c, "BEGIN").await;
    let (code, _) = expect_error(&c, "DECLARE s SCROLL CURSOR FOR SUBSCRIBE t").await;
    assert_eq!(code, "0A000");
    execute(&c, "ROLLBACK").await;
    execute(&c, "BEGIN").await;
    execute(&c, "DECLARE s CURSOR FOR SUBSCRIBE t").await;
    let mut seen = 0;
    while seen < 1 {
        seen += query(&c, "FETCH NEXT s WITH (TIMEOUT = '5s')").await.len();
    }
    for sql in [
        "FETCH PRIOR s",
        "FETCH ABSOLUTE 1 s",
        "FETCH -1 s",
        "MOVE BACKWARD ALL s",
    ] {
        let (code, message) = expect_error(&c, sql).await;
        assert_eq!(
            (code.as_str(), message.as_str()),
            ("55000", "cursor can only scan forward"),
            "{sql}"
        );
        execute(&c, "ROLLBACK").await;
        execute(&c, "BEGIN").await;
        execute(&c, "DECLARE s CURSOR FOR SUBSCRIBE t").await;
    }
    // MOVE passes rows: its count is theirs; FETCH FORWARD reads on.
    let mut moved = 0;
    while moved < 2 {
        moved += execute(&c, "MOVE FORWARD 2 s").await;
    }
    assert_eq!(moved, 2);
    let rest = query(&c, "FETCH FORWARD ALL FROM s WITH (TIMEOUT = '5s')").await;
    assert_eq!(rest.len(), 1);
    execute(&c, "COMMIT").await;
}

/// Cursor statements through the extended protocol (Parse, Describe, Bind, Execute: what
/// pgjdbc and tokio-postgres send) answer as PostgreSQL's: a FETCH is described with its
/// cursor's columns, DECLARE, MOVE and CLOSE with none, and the rows and counts are the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extended_protocol_cursor_statements_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    let mut transcripts = Vec::new();
    for c in [&s.kpg, &s.pg] {
        let mut out = Vec::new();
        c.execute("BEGIN", &[]).await.expect("BEGIN");
        let n = c
            .execute(
                "DECLARE e SCROLL CURSOR FOR SELECT a, b FROM t ORDER BY a",
                &[],
            )
            .await
            .expect("DECLARE");
        out.push(format!("declare {n}"));
        for sql in [
            "FETCH PRIOR e",
            "FETCH 2 e",
            "FETCH LAST e",
            "FETCH BACKWARD 3 FROM e",
            "FETCH ABSOLUTE 2 e",
        ] {
            let stmt = c.prepare(sql).await.expect(sql);
            let columns: Vec<String> = stmt
                .columns()
                .iter()
                .map(|col| format!("{}:{}", col.name(), col.type_()))
                .collect();
            let rows = c.query(&stmt, &[]).await.expect(sql);
            let values: Vec<String> = rows
                .iter()
                .map(|r| {
                    format!(
                        "{:?}/{:?}",
                        r.get::<_, Option<i32>>(0),
                        r.get::<_, Option<&str>>(1)
                    )
                })
                .collect();
            out.push(format!("{sql}: {columns:?} {values:?}"));
        }
        for sql in ["MOVE FIRST e", "MOVE FORWARD ALL e", "CLOSE e"] {
            let stmt = c.prepare(sql).await.expect(sql);
            out.push(format!("{sql}: {} columns", stmt.columns().len()));
            let n = c.execute(&stmt, &[]).await.expect(sql);
            out.push(format!("{sql}: {n}"));
        }
        let e = c
            .execute("FETCH 1 e", &[])
            .await
            .expect_err("a closed cursor");
        out.push(format!("closed: {:?}", sqlstate(&e)));
        c.execute("ROLLBACK", &[]).await.expect("ROLLBACK");
        transcripts.push(out);
    }
    assert_eq!(
        transcripts[0], transcripts[1],
        "kpg (left) and PostgreSQL (right)"
    );
}
