//! Self-checks of the test harness that need no kpg binary: the PostgreSQL oracle starts,
//! answers and stops, and the COPY text decoder works.

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_oracle_starts_answers_and_stops() {
    let pg = Postgres::start().await;
    let port = pg.port();
    let c = pg.connect().await;
    let r = simple(&c, "SELECT 1 AS one, 'x'::text AS t, NULL::int AS n")
        .await
        .unwrap();
    assert_eq!(r.columns, vec!["one", "t", "n"]);
    assert_eq!(r.rows, rows(&[&["1", "x", "NULL"]]));
    assert_eq!(r.count, Some(1));
    let (code, _) = expect_error(&c, "SELEC 1").await;
    assert_eq!(code, "42601");
    // The session survives the error.
    assert_eq!(query(&c, "SELECT 2").await, rows(&[&["2"]]));
    drop(c);
    drop(pg);
    // Stopped: nothing accepts connections on its port any more.
    let r = connect_to(&format!(
        "host=127.0.0.1 port={port} user=postgres dbname=postgres connect_timeout=2"
    ))
    .await;
    assert!(r.is_err(), "PostgreSQL still running after drop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_oracles_compare_equal() {
    // Pair's comparison logic, exercised with PostgreSQL on both sides.
    let (a, b) = tokio::join!(Postgres::start(), Postgres::start());
    let pair = Pair {
        kpg: a.connect().await,
        pg: b.connect().await,
    };
    pair.exec("CREATE TABLE t (a int4, b text)").await;
    pair.exec("INSERT INTO t VALUES (2, 'b'), (1, 'a'), (3, NULL)")
        .await;
    pair.check("SELECT * FROM t").await;
    pair.check("SELECT b, a FROM t ORDER BY a DESC").await;
    let (code, _) = pair.check_error("SELECT nope FROM t").await;
    assert_eq!(code, "42703");
}

#[test]
fn copy_text_decoding() {
    assert_eq!(
        decode_copy_line("1\t-1\ta\\tb\t\\N\tx\\\\y\tline\\nbreak"),
        vec![
            Some("1".into()),
            Some("-1".into()),
            Some("a\tb".into()),
            None,
            Some("x\\y".into()),
            Some("line\nbreak".into())
        ]
    );
    assert!(has_order_by("select * from t\n ORDER\tBY a"));
    assert!(!has_order_by("select * from t"));
    let c = consolidate(vec![
        (srow(&["a"]), 1),
        (srow(&["b"]), 1),
        (srow(&["a"]), -1),
    ]);
    assert_eq!(c.len(), 1);
}
