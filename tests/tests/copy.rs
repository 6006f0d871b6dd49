//! COPY t FROM STDIN, text and CSV, through tokio-postgres' copy_in (extended protocol) and
//! psql's \copy (simple protocol), compared with a real PostgreSQL loading the same bytes.

use std::process::Command;

use futures::SinkExt;
use kpg_tests::*;

async fn copy_in(
    client: &tokio_postgres::Client,
    sql: &str,
    data: &str,
) -> Result<u64, tokio_postgres::Error> {
    let sink = client.copy_in(sql).await?;
    let mut sink = Box::pin(sink);
    sink.send(bytes::Bytes::copy_from_slice(data.as_bytes()))
        .await?;
    sink.as_mut().finish().await
}

/// A COPY that must fail with `state`: its error.
async fn copy_fails(
    client: &tokio_postgres::Client,
    sql: &str,
    data: &str,
    state: &str,
) -> tokio_postgres::Error {
    let err = copy_in(client, sql, data)
        .await
        .expect_err(&format!("{sql} of {:.40?} failed", data));
    assert_eq!(
        sqlstate(&err).as_deref(),
        Some(state),
        "{sql}: {}",
        describe_error(&err)
    );
    err
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_from_stdin_matches_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let p = Pair::new(&kpg, &pg).await;
    p.exec("CREATE TABLE c (k int4 NOT NULL, s text, n numeric(5,2), d date, b boolean)")
        .await;
    let text = "1\thello\t1.5\t2024-01-02\tt\n2\t\\N\t2.25\t\\N\tf\n3\ttab\\there\\\\\t0\t2024-03-04\t\\N\n";
    let csv = "k,s,n,d,b\n4,\"a,b\",1,2024-05-06,true\n5,,2,,false\n6,\"\",3,2024-07-08,\n";
    for client in [&p.kpg, &p.pg] {
        assert_eq!(
            copy_in(client, "COPY c FROM STDIN", text)
                .await
                .expect("text copy"),
            3
        );
        let n = copy_in(
            client,
            "COPY c (k, s, n, d, b) FROM STDIN WITH (FORMAT csv, HEADER true)",
            csv,
        )
        .await;
        assert_eq!(n.expect("csv copy"), 3);
    }
    p.check("SELECT k, s, s IS NULL AS s_null, n, d, b FROM c ORDER BY k")
        .await;

    // A bad line fails the whole COPY, with PostgreSQL's SQLSTATE, and writes nothing.
    for client in [&p.kpg, &p.pg] {
        copy_fails(
            client,
            "COPY c FROM STDIN",
            "7\tx\t1\t\\N\tt\n8\tx\tabc\t\\N\tt\n",
            "22P02",
        )
        .await;
        copy_fails(client, "COPY c FROM STDIN", "9\tx\n", "22P04").await;
        copy_fails(client, "COPY c FROM STDIN", "\\N\tx\t1\t\\N\tt\n", "23502").await;
    }
    p.check("SELECT count(*) FROM c").await;

    // psql's \copy uses the simple protocol.
    let file = std::env::temp_dir().join(format!("kpg-copy-{}.txt", kpg.port()));
    std::fs::write(&file, "10\tfrom psql\t9.99\t2024-12-31\tt\n").unwrap();
    let out = Command::new("psql")
        .args([
            "-X",
            "-h",
            "127.0.0.1",
            "-p",
            &kpg.port().to_string(),
            "-U",
            "kpg",
            "kpg",
        ])
        .args(["-c", &format!("\\copy c FROM '{}'", file.display())])
        .output()
        .expect("run psql");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "COPY 1");
    assert_eq!(
        query(&p.kpg, "SELECT s FROM c WHERE k = 10").await,
        rows(&[&["from psql"]])
    );
    let _ = std::fs::remove_file(file);
}

/// The COPY TO STDOUT output of `sql` on a client, as lines (sorted unless the query orders).
async fn copy_out_lines(c: &kpg_tests::tokio_postgres::Client, sql: &str) -> Vec<String> {
    use futures::StreamExt;
    let stream = c
        .copy_out(sql)
        .await
        .unwrap_or_else(|e| panic!("`{sql}`: {}", describe_error(&e)));
    let mut stream = Box::pin(stream);
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        bytes.extend_from_slice(&chunk.expect("copy data"));
    }
    let mut lines: Vec<String> = String::from_utf8(bytes)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect();
    if !has_order_by(sql) {
        lines.sort();
    }
    lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_to_stdout_matches_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (id int4, name text, price numeric(8,2), d date, ok boolean)")
        .await;
    s.exec(
        "INSERT INTO t VALUES (1, 'plain', 1.50, '2024-01-02', true), \
         (2, 'tab\there', NULL, NULL, false), (3, 'quote\"comma,', 0, '2023-12-31', NULL), \
         (4, '', 10, '2024-02-29', true), (5, NULL, -2.25, '2024-03-01', false), \
         (6, 'back\\\\slash', 3, '2024-03-02', true)",
    )
    .await;
    for sql in [
        "COPY (SELECT * FROM t ORDER BY id) TO STDOUT",
        "COPY (SELECT name, price * 2 AS doubled FROM t WHERE id > 1 ORDER BY id) TO STDOUT",
        "COPY t TO STDOUT",
        "COPY t (name, id) TO STDOUT",
        "COPY (SELECT * FROM t ORDER BY id) TO STDOUT WITH (FORMAT csv)",
        "COPY (SELECT * FROM t ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER true)",
        "COPY (SELECT id, name FROM t ORDER BY id) TO STDOUT WITH (FORMAT csv, DELIMITER ';', NULL 'NIL')",
        "COPY (SELECT id, name FROM t ORDER BY id) TO STDOUT WITH (DELIMITER '|', NULL '?')",
        "COPY (SELECT count(*) FROM t WHERE false) TO STDOUT",
    ] {
        assert_eq!(
            copy_out_lines(&s.kpg, sql).await,
            copy_out_lines(&s.pg, sql).await,
            "{sql} (kpg left, PostgreSQL right)"
        );
    }
    s.check_error("COPY (SELECT * FROM nope) TO STDOUT").await;
}

/// Fields written straight into rows: a column list in another order and one that leaves
/// columns out (NULL), `char(n)` padding, `varchar(n)` and `numeric(p, s)` limits and
/// rounding, timestamptz text read in the session's zone, and the errors of values that do
/// not fit — each as PostgreSQL loads the same bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_typed_columns_and_column_lists_match_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let p = Pair::new(&kpg, &pg).await;
    p.exec(
        "CREATE TABLE t (id int8 NOT NULL, c char(4), v varchar(5), n numeric(6,2), \
         ts timestamptz, tags text[])",
    )
    .await;
    p.exec("SET TIME ZONE 'America/New_York'").await;
    let rows = "1\tab\tabc\t1.005\t2024-03-10 01:30:00\t{x,y}\n\
                2\t\\N\tab   \t-12.344\t2024-03-10 12:00:00+02\t\\N\n\
                3\tabcd\t\t9999.994\t\\N\t{}\n";
    let reordered = "x,7.5,4\n\"a b\",,5\n";
    let partial = "6\t  z\n";
    for client in [&p.kpg, &p.pg] {
        assert_eq!(copy_in(client, "COPY t FROM STDIN", rows).await.unwrap(), 3);
        let n = copy_in(
            client,
            "COPY t (v, n, id) FROM STDIN WITH (FORMAT csv)",
            reordered,
        )
        .await;
        assert_eq!(n.unwrap(), 2);
        assert_eq!(
            copy_in(client, "COPY t (id, c) FROM STDIN", partial)
                .await
                .unwrap(),
            1
        );
    }
    p.check(
        "SELECT id, c, length(c) AS len, v, n, ts, tags, ts IS NULL AS no_ts FROM t ORDER BY id",
    )
    .await;
    // Values that do not fit the column's type fail the COPY with PostgreSQL's SQLSTATE.
    for (line, state) in [
        ("8\tabcde\t\\N\t\\N\t\\N\t\\N\n", "22001"),
        ("9\t\\N\ttoolong\t\\N\t\\N\t\\N\n", "22001"),
        ("10\t\\N\t\\N\t10000\t\\N\t\\N\n", "22003"),
        ("11\t\\N\t\\N\t\\N\tnot a time\t\\N\n", "22007"),
    ] {
        for client in [&p.kpg, &p.pg] {
            copy_fails(client, "COPY t FROM STDIN", line, state).await;
        }
    }
    p.check("SELECT count(*) FROM t").await;
    // Quoted names keep their case, in the table's name and in the column list.
    p.exec(r#"CREATE TABLE "Mixed" ("Key" int8, "val" text)"#)
        .await;
    for client in [&p.kpg, &p.pg] {
        let sql = r#"COPY "Mixed" ("val", "Key") FROM STDIN"#;
        assert_eq!(copy_in(client, sql, "a\t1\nb\t2\n").await.unwrap(), 2);
    }
    p.check(r#"SELECT "Key", val FROM "Mixed" ORDER BY 1"#)
        .await;
}

/// The line number of a COPY's error, from PostgreSQL's context or kpg's detail.
fn error_line(e: &tokio_postgres::Error) -> Option<u64> {
    let db = e.as_db_error()?;
    let text = db.where_().or(db.detail())?;
    let at = text.find("line ")? + 5;
    text[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// A COPY large enough to be parsed in parts: its rows, a bad line's number wherever it
/// falls (first part or a later one), and the end line `\.` in the middle of the data (what
/// follows it is not read), as PostgreSQL has them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_copy_matches_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let p = Pair::new(&kpg, &pg).await;
    p.exec("CREATE TABLE big (k int8 NOT NULL, s text, d date)")
        .await;
    // About 2.5 MiB.
    let line = |i: u64| match i % 1000 {
        0 => format!("{i}\t\\N\t\\N\n"),
        _ => format!("{i}\tsome text of row {i}\t2024-01-{:02}\n", i % 28 + 1),
    };
    let n = 60_000u64;
    let data: String = (0..n).map(line).collect();
    for client in [&p.kpg, &p.pg] {
        assert_eq!(
            copy_in(client, "COPY big FROM STDIN", &data).await.unwrap(),
            n
        );
    }
    p.check("SELECT count(*), sum(k), count(s), count(d), max(s) FROM big")
        .await;
    for bad_at in [10u64, 31_000, 59_990] {
        let data: String = (0..n)
            .map(|i| match i == bad_at {
                true => format!("{i}\tx\tnot a date\n"),
                false => line(i),
            })
            .collect();
        let mut lines = Vec::new();
        for client in [&p.kpg, &p.pg] {
            let err = copy_fails(client, "COPY big FROM STDIN", &data, "22007").await;
            lines.push(error_line(&err));
        }
        assert!(lines[0].is_some(), "kpg names the line");
        assert_eq!(lines[0], lines[1], "bad row {bad_at}: kpg, PostgreSQL");
    }
    // The end line: what follows it (here a bad line) is not read.
    let data: String = (0..n)
        .map(|i| match i {
            40_000 => "\\.\n".to_string(),
            40_001 => "bad\tbad\tbad\n".to_string(),
            _ => line(i + n),
        })
        .collect();
    for client in [&p.kpg, &p.pg] {
        assert_eq!(
            copy_in(client, "COPY big FROM STDIN", &data).await.unwrap(),
            40_000
        );
    }
    p.check("SELECT count(*), sum(k) FROM big").await;

    // An empty line is a record of one empty field: a row of one text column, an error
    // (missing data, or the empty field's own) where there are more columns.
    p.exec("CREATE TABLE one (s text)").await;
    p.exec("CREATE TABLE two (s text, t text)").await;
    for client in [&p.kpg, &p.pg] {
        assert_eq!(
            copy_in(client, "COPY one FROM STDIN", "a\n\nb\n\n")
                .await
                .unwrap(),
            4
        );
        let err = copy_fails(client, "COPY two FROM STDIN", "a\tb\n\n", "22P04").await;
        let message = err.as_db_error().map(|e| e.message().to_string());
        assert_eq!(message.as_deref(), Some("missing data for column \"t\""));
        // A field is read before a later column is found missing.
        copy_fails(client, "COPY big FROM STDIN", "1\tx\t\\N\n\n", "22P02").await;
        copy_fails(
            client,
            "COPY big (d, k) FROM STDIN",
            "2024-01-01\n",
            "22P04",
        )
        .await;
        copy_fails(client, "COPY big (d, k) FROM STDIN", "x\n", "22007").await;
    }
    p.check("SELECT s, length(s) AS len FROM one ORDER BY s")
        .await;
}

/// Line ends of the text format as PostgreSQL reads them: `\n`, `\r\n` or `\r`, as the first
/// line ends; data mixing them is refused (22P04, naming the line), also a bare `\r` in a value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_text_line_ends_match_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let p = Pair::new(&kpg, &pg).await;
    p.exec("CREATE TABLE l (k int4, s text)").await;
    for data in [
        "1\tnl\n2\tnl\n",
        "3\tcrnl\r\n4\tcrnl\r\n",
        "5\tcr\r6\tcr\r",
        "7\tno end",
        "8\tescaped \\r and \\n\n",
        "9\tthen the end line\r\n\\.\r\n",
    ] {
        for client in [&p.kpg, &p.pg] {
            copy_in(client, "COPY l FROM STDIN", data)
                .await
                .unwrap_or_else(|e| panic!("{data:?}: {}", describe_error(&e)));
        }
    }
    p.check("SELECT k, s, length(s) AS len FROM l ORDER BY k")
        .await;
    for data in [
        "1\ta\n2\tb\r\n",
        "1\ta\r\n2\tb\n",
        "1\ta\r\n2\tb\rc\r\n",
        "1\ta\r2\tb\n",
        "1\ta\n2\tb\r\n3\tc\n",
    ] {
        let mut lines = Vec::new();
        for client in [&p.kpg, &p.pg] {
            let err = copy_fails(client, "COPY l FROM STDIN", data, "22P04").await;
            lines.push((
                error_line(&err),
                err.as_db_error().map(|e| e.message().to_string()),
            ));
        }
        assert_eq!(lines[0], lines[1], "{data:?}: kpg, PostgreSQL");
    }
    p.check("SELECT count(*) FROM l").await;
}
