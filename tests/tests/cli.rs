//! The `kpg` binary: `--help` describes every flag, the flags work, any user name connects to
//! database `kpg`, logs go to stderr, and `--data-dir` is created.

use std::process::Command;

use kpg_tests::*;

#[test]
fn help_mentions_every_flag() {
    let out = Command::new(kpg_bin())
        .arg("--help")
        .output()
        .expect("run kpg --help");
    assert!(
        out.status.success(),
        "kpg --help exited with {}",
        out.status
    );
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in ["--listen", "--workers", "--data-dir"] {
        assert!(
            help.contains(flag),
            "`kpg --help` does not mention {flag}:\n{help}"
        );
    }
    // The defaults, as documented in the README.
    for default in ["127.0.0.1:6875", "kpg-data"] {
        assert!(
            help.contains(default),
            "`kpg --help` does not mention the default {default}:\n{help}"
        );
    }
}

#[test]
fn unknown_flag_is_rejected() {
    let out = Command::new(kpg_bin())
        .arg("--no-such-flag")
        .output()
        .expect("run kpg");
    assert!(!out.status.success(), "kpg accepted --no-such-flag");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--no-such-flag"),
        "error should name the flag: {err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_user_name_connects_to_database_kpg() {
    let kpg = KpgServer::start().await;
    for user in ["kpg", "alice", "postgres", "materialize"] {
        let c = kpg.connect_as(user).await;
        execute(&c, &format!("CREATE TABLE t_{user} (i int4)")).await;
        execute(&c, &format!("INSERT INTO t_{user} VALUES (1), (2)")).await;
        assert_eq!(
            sorted(query(&c, &format!("SELECT i FROM t_{user}")).await),
            rows(&[&["1"], &["2"]])
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_database_kpg_exists() {
    let kpg = KpgServer::start().await;
    let conn = format!(
        "host=127.0.0.1 port={} user=kpg dbname=nope connect_timeout=10",
        kpg.port()
    );
    let err = match tokio_postgres::connect(&conn, tokio_postgres::NoTls).await {
        Ok(_) => panic!("connected to database nope"),
        Err(e) => e,
    };
    let db = err.as_db_error().expect("a server error");
    assert_eq!(db.code().code(), "3D000");
    assert_eq!(db.message(), "database \"nope\" does not exist");
    // The server goes on.
    let c = kpg.connect().await;
    assert_eq!(query(&c, "SELECT 1").await, rows(&[&["1"]]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_and_three_workers() {
    for workers in [1, 3] {
        let kpg = KpgServer::start_with_workers(workers).await;
        let c = kpg.connect().await;
        execute(&c, "CREATE TABLE t (k int4, v int4)").await;
        execute(&c, "CREATE MATERIALIZED VIEW s AS SELECT k, sum(v) AS total, count(*) AS n FROM t GROUP BY k").await;
        let values: Vec<String> = (0..200).map(|i| format!("({}, {i})", i % 7)).collect();
        execute(&c, &format!("INSERT INTO t VALUES {}", values.join(", "))).await;
        let got = query(&c, "SELECT k, total, n FROM s ORDER BY k").await;
        let want: Vec<Vec<Option<String>>> = (0..7)
            .map(|k| {
                let vs: Vec<i64> = (0..200).filter(|i| i % 7 == k).collect();
                vec![
                    Some(k.to_string()),
                    Some(vs.iter().sum::<i64>().to_string()),
                    Some(vs.len().to_string()),
                ]
            })
            .collect();
        assert_eq!(got, want, "with {workers} workers");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_go_to_stderr_and_data_dir_is_created() {
    let kpg = KpgServer::start().await;
    assert!(
        kpg.data_dir().is_dir(),
        "--data-dir {} was not created",
        kpg.data_dir().display()
    );
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE t (i int4)").await;
    // The harness runs kpg with RUST_LOG=info unless set; tracing writes to stderr.
    assert!(
        !kpg.stderr().trim().is_empty(),
        "kpg wrote nothing to stderr at RUST_LOG=info"
    );
}
