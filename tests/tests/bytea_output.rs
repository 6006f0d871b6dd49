//! `bytea_output = 'escape'` against PostgreSQL 15: the escape form of bytea values in rows of
//! the simple protocol and in text-format rows of the extended one, COPY TO, subscriptions and
//! views through writes; the escape form read back as input; and the refusal of converting a
//! bytea to text inside a query under it (kpg's expressions write hex).

use futures::TryStreamExt;
use kpg_tests::*;

const VALUES: &[&str] = &[
    "'\\x00ff'",
    "'abc'",
    "'\\\\'",
    "'\\x0a7f20'",
    "''",
    "NULL",
    "'a\\\\b\\001\\377z'",
    "'\\x5c785c'",
    "convert_to('héllo', 'UTF8')",
];

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE b (k int, v bytea)").await;
    for (k, v) in VALUES.iter().enumerate() {
        let v = if v.starts_with("convert_to") {
            "'\\x68c3a96c6c6f'"
        } else {
            v
        };
        s.exec(&format!("INSERT INTO b VALUES ({k}, {v})")).await;
    }
    (kpg, pg, s)
}

async fn copy_out(c: &tokio_postgres::Client, sql: &str) -> String {
    let stream = c.copy_out(sql).await.expect("copy out");
    let chunks: Vec<_> = Box::pin(stream).try_collect().await.expect("copy data");
    String::from_utf8(chunks.concat()).expect("utf-8")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escape_output_as_postgres() {
    let (kpg, pg, s) = setup().await;
    for setting in ["escape", "hex", "ESCAPE"] {
        s.exec(&format!("SET bytea_output = '{setting}'")).await;
        s.check("SHOW bytea_output").await;
        s.check("SELECT k, v FROM b ORDER BY k").await;
        s.check("SELECT k, v, ARRAY[v, v] AS a FROM b WHERE v IS NOT NULL")
            .await;
        for sql in [
            "COPY (SELECT k, v FROM b ORDER BY k) TO STDOUT",
            "COPY (SELECT k, v FROM b ORDER BY k) TO STDOUT WITH (FORMAT csv)",
        ] {
            assert_eq!(
                copy_out(&s.kpg, sql).await,
                copy_out(&s.pg, sql).await,
                "{sql}"
            );
        }
        let set = format!("SET bytea_output = '{setting}'");
        let sql = "SELECT k, v FROM b ORDER BY k";
        let (kp, pp) = (kpg.port(), pg.port());
        let set2 = set.clone();
        let k = tokio::task::spawn_blocking(move || extended_text_rows(kp, "kpg", &set, sql));
        let p = tokio::task::spawn_blocking(move || extended_text_rows(pp, "postgres", &set2, sql));
        assert_eq!(k.await.unwrap(), p.await.unwrap(), "{setting}");
    }
    // The escape form written by PostgreSQL reads back as the same bytes in both.
    s.exec("SET bytea_output = 'escape'").await;
    let written = query(
        &s.pg,
        "SELECT v::text FROM b WHERE v IS NOT NULL ORDER BY k",
    )
    .await;
    for (i, row) in written.iter().enumerate() {
        let text = row[0].clone().expect("not null").replace('\'', "''");
        s.exec(&format!("INSERT INTO b VALUES ({}, '{text}')", 100 + i))
            .await;
    }
    s.check("SELECT a.k, a.v = b.v FROM b a JOIN b b ON b.k = a.k + 100")
        .await;
    // A view through writes, read in escape form.
    s.check_through_writes(
        &["SELECT k, v, length(v) AS n FROM b WHERE k < 100"],
        "bv",
        &[
            "INSERT INTO b VALUES (50, '\\x5c00'), (51, 'x\\\\y')",
            "DELETE FROM b WHERE k = 0",
            "UPDATE b SET v = '\\377' WHERE k = 1",
        ],
    )
    .await;
    // Converting a bytea to text inside a query would write hex: refused under escape.
    let (code, msg) = expect_error(&s.kpg, "SELECT v::text FROM b").await;
    assert_eq!(code, "0A000", "{msg}");
    s.exec("SET bytea_output = hex").await;
    s.check("SELECT v::text FROM b ORDER BY k").await;
    s.check_error("SET bytea_output = 'octal'").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escape_output_in_subscriptions() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("SET bytea_output = 'escape'").await;
    let mut sub = Subscription::start(&s.kpg, "COPY (SUBSCRIBE (SELECT k, v FROM b)) TO STDOUT")
        .await
        .expect("subscribe");
    let mut got = Vec::new();
    for _ in VALUES {
        got.push(sub.next_row().await.cols);
    }
    got.sort_by_key(|cols| cols[0].as_deref().map(|k| k.parse::<i32>().unwrap()));
    assert_eq!(got, query(&s.pg, "SELECT k, v FROM b ORDER BY k").await);
}
