//! File sources (issue 19): `CREATE SOURCE ... FROM FILE 'path' FORMAT CSV | JSON | TEXT [WITH
//! (TAIL = true)]`. CSV fields are checked against PostgreSQL's `COPY ... (FORMAT csv, HEADER)`
//! of the same file; a tailed file's appended lines arrive (a half-written line only once it is
//! complete), and a restart resumes after the last line read, neither repeating nor skipping
//! one. Paths outside `--file-source-dir`, or any path without it, are refused.

use std::io::Write;
use std::time::Duration;

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

fn append(path: &std::path::Path, data: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(data.as_bytes()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_file_matches_postgres_and_a_tailed_file_follows_through_restarts() {
    let files = tempfile::tempdir().unwrap();
    let dir = files.path().to_str().unwrap().to_string();
    let args = ["--file-source-dir", &dir];
    let (mut kpg, pg) = tokio::join!(KpgServer::start_with_args(2, &args), Postgres::start());
    let path = files.path().join("orders.csv");
    let mut lines = vec!["id,name,amount,day".to_string()];
    for i in 0..200 {
        lines.push(match i % 3 {
            0 => format!("{i},\"n, {i}\",{i}.5,2024-03-{:02}", 1 + i % 30),
            1 => format!("{i},,-{i},"),
            _ => format!("{i},\"\",1e{},2000-01-01", i % 5),
        });
    }
    std::fs::write(&path, format!("{}\n", lines.join("\n"))).unwrap();
    let s = Pair::new(&kpg, &pg).await;
    let columns = "(id int, name text, amount numeric(20,2), day date)";
    execute(
        &s.kpg,
        &format!(
            "CREATE SOURCE orders {columns} FROM FILE 'orders.csv' FORMAT CSV WITH HEADER \
             WITH (TAIL = true)"
        ),
    )
    .await;
    execute(&s.pg, &format!("CREATE TABLE orders {columns}")).await;
    pg_copy(&s.pg, &std::fs::read_to_string(&path).unwrap()).await;
    wait_for(&s.kpg, "SELECT count(*) FROM orders", "200").await;
    s.check("SELECT * FROM orders").await;
    execute(
        &s.kpg,
        "CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(amount) AS s FROM orders",
    )
    .await;
    // Appended lines arrive; a half-written one waits for its line break.
    append(&path, "200,tail,1.25,2024-01-01\n201,half");
    wait_for(&s.kpg, "SELECT n FROM totals", "201").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        query(&s.kpg, "SELECT count(*) FROM orders WHERE id = 201").await,
        rows(&[&["0"]])
    );
    append(&path, "way,2.5,2024-01-02\n");
    wait_for(&s.kpg, "SELECT n FROM totals", "202").await;
    assert_eq!(
        query(&s.kpg, "SELECT name FROM orders WHERE id = 201").await,
        rows(&[&["halfway"]])
    );
    // A crash, lines appended while kpg is down, a restart: every line exactly once.
    drop(s);
    kpg.kill();
    append(&path, "202,down,3,2024-01-03\n203,down,4,2024-01-04\n");
    kpg.restart().await;
    let c = kpg.connect().await;
    wait_for(&c, "SELECT n FROM totals", "204").await;
    assert_eq!(
        query(
            &c,
            "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM orders"
        )
        .await,
        rows(&[&["204", "204", "0", "203"]])
    );
    let status = query(
        &c,
        "SELECT state, lag FROM kpg_sources WHERE source = 'orders'",
    )
    .await;
    assert_eq!(status, rows(&[&["running", "0"]]));
}

async fn pg_copy(pg: &Client, data: &str) {
    use futures::SinkExt;
    let sink = pg
        .copy_in("COPY orders FROM STDIN (FORMAT csv, HEADER)")
        .await
        .unwrap();
    let mut sink = Box::pin(sink);
    sink.send(bytes::Bytes::from(data.to_string()))
        .await
        .unwrap();
    sink.as_mut().finish().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_and_text_lines_and_bad_lines() {
    let files = tempfile::tempdir().unwrap();
    let dir = files.path().to_str().unwrap().to_string();
    let kpg = KpgServer::start_with_args(2, &["--file-source-dir", &dir]).await;
    std::fs::write(
        files.path().join("events.json"),
        "{\"id\": 1, \"kind\": \"a\"}\n\n{\"id\": 2}\nnot json\n{\"id\": \"x\"}\n{\"id\": 3, \"kind\": \"c\"}",
    )
    .unwrap();
    std::fs::write(files.path().join("log.txt"), "one\ntwo\r\nthree\n").unwrap();
    let c = kpg.connect().await;
    execute(
        &c,
        "CREATE SOURCE events (id int, kind text) FROM FILE 'events.json' FORMAT JSON",
    )
    .await;
    execute(&c, "CREATE SOURCE log FROM FILE 'log.txt' FORMAT TEXT").await;
    wait_for(&c, "SELECT count(*) FROM events", "3").await;
    assert_eq!(
        query(&c, "SELECT id, kind FROM events ORDER BY id").await,
        rows(&[&["1", "a"], &["2", "NULL"], &["3", "c"]])
    );
    wait_for(
        &c,
        "SELECT count(*) FROM kpg_source_errors WHERE source = 'events'",
        "2",
    )
    .await;
    wait_for(&c, "SELECT count(*) FROM log", "3").await;
    assert_eq!(
        query(&c, "SELECT text FROM log ORDER BY text").await,
        rows(&[&["one"], &["three"], &["two"]])
    );
    // Without TAIL the file is read once, to its end.
    wait_for(
        &c,
        "SELECT state FROM kpg_sources WHERE source = 'log'",
        "finished",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paths_outside_the_allowed_directory_are_refused() {
    let files = tempfile::tempdir().unwrap();
    let allowed = files.path().join("allowed");
    std::fs::create_dir(&allowed).unwrap();
    std::fs::write(files.path().join("secret.csv"), "1\n").unwrap();
    std::fs::write(allowed.join("ok.csv"), "1\n").unwrap();
    let args = ["--file-source-dir", allowed.to_str().unwrap()];
    let (kpg, plain) = tokio::join!(KpgServer::start_with_args(2, &args), KpgServer::start());
    let c = kpg.connect().await;
    for path in [
        files
            .path()
            .join("secret.csv")
            .to_str()
            .unwrap()
            .to_string(),
        "../secret.csv".to_string(),
        "/etc/hostname".to_string(),
    ] {
        let (code, msg) = expect_error(
            &c,
            &format!("CREATE SOURCE s (a int) FROM FILE '{path}' FORMAT CSV"),
        )
        .await;
        assert_eq!(code, "42501", "{path}: {msg}");
        assert!(msg.contains("outside --file-source-dir"), "{msg}");
    }
    let (code, _) = expect_error(
        &c,
        "CREATE SOURCE s (a int) FROM FILE 'missing.csv' FORMAT CSV",
    )
    .await;
    assert_eq!(code, "42704");
    execute(&c, "CREATE SOURCE s (a int) FROM FILE 'ok.csv' FORMAT CSV").await;
    wait_for(&c, "SELECT count(*) FROM s", "1").await;
    // Without --file-source-dir no file can be read.
    let p = plain.connect().await;
    let (code, msg) = expect_error(
        &p,
        &format!(
            "CREATE SOURCE s (a int) FROM FILE '{}' FORMAT CSV",
            allowed.join("ok.csv").display()
        ),
    )
    .await;
    assert_eq!(code, "42501", "{msg}");
    assert!(msg.contains("--file-source-dir"), "{msg}");
}
