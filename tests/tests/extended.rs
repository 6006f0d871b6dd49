//! The extended query protocol (Parse/Describe/Bind/Execute, no parameters), as used by
//! tokio-postgres `query`/`prepare`/`execute`: results come back in binary format with the
//! PostgreSQL type of each column, compared with PostgreSQL 15.

use kpg_tests::tokio_postgres::types::Type;
use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (id int4, big int8, name text, code varchar(8), ok boolean, price numeric(10,2), score double precision, day date)").await;
    s.exec(
        "INSERT INTO t VALUES (1, 10000000000, 'one', 'A1', true, 12.50, 0.5, '2024-01-31'), \
         (2, -2, 'two', 'B2', false, 0.01, -1e10, '2023-12-31'), (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    )
    .await;
    (kpg, pg, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extended_protocol_select_returns_typed_rows() {
    let (_kpg, _pg, s) = setup().await;
    let sql = "SELECT id, big, name, code, ok, score FROM t ORDER BY id";
    let k = s
        .kpg
        .query(sql, &[])
        .await
        .unwrap_or_else(|e| panic!("kpg: {}", describe_error(&e)));
    let p = s.pg.query(sql, &[]).await.expect("PostgreSQL");
    assert_eq!(k.len(), p.len());
    type R = (
        i32,
        Option<i64>,
        Option<String>,
        Option<String>,
        Option<bool>,
        Option<f64>,
    );
    let decode = |r: &tokio_postgres::Row| -> R {
        (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))
    };
    let kv: Vec<R> = k.iter().map(decode).collect();
    let pv: Vec<R> = p.iter().map(decode).collect();
    assert_eq!(kv, pv);
    assert_eq!(
        kv[0],
        (
            1,
            Some(10000000000),
            Some("one".into()),
            Some("A1".into()),
            Some(true),
            Some(0.5)
        )
    );
    // query_one over a view as well.
    execute(
        &s.kpg,
        "CREATE MATERIALIZED VIEW named AS SELECT id, name FROM t WHERE name IS NOT NULL",
    )
    .await;
    let row = s
        .kpg
        .query_one("SELECT name FROM named WHERE id = 2", &[])
        .await
        .expect("query_one");
    assert_eq!(row.get::<_, String>(0), "two");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_column_types_match_postgres() {
    // Describe reports PostgreSQL's types: count(*) and sum(int4) are bigint, sum(int8) and
    // sum(numeric) are numeric, comparisons are boolean, int4 / int4 stays int4, etc.
    let (_kpg, _pg, s) = setup().await;
    execute(&s.kpg, "CREATE MATERIALIZED VIEW agg AS SELECT ok, count(*) AS n, sum(id) AS s4, sum(big) AS s8, sum(price) AS sp, min(day) AS first, max(name) AS last, max(score) AS best FROM t GROUP BY ok").await;
    execute(&s.pg, "CREATE VIEW agg AS SELECT ok, count(*) AS n, sum(id) AS s4, sum(big) AS s8, sum(price) AS sp, min(day) AS first, max(name) AS last, max(score) AS best FROM t GROUP BY ok").await;
    for sql in [
        "SELECT * FROM t",
        "SELECT * FROM agg",
        "SELECT id + 1, id + big, id / 2, price * 2, price * id, score * 2, id > 1, name = 'x' FROM t",
        "SELECT count(*), sum(id), sum(big), sum(price), min(code), max(day) FROM t GROUP BY ok",
    ] {
        let k = s.kpg.prepare(sql).await.unwrap_or_else(|e| panic!("kpg prepare `{sql}`: {}", describe_error(&e)));
        let p = s.pg.prepare(sql).await.expect("PostgreSQL prepare");
        let kt: Vec<(String, Type)> = k.columns().iter().map(|c| (c.name().to_string(), c.type_().clone())).collect();
        let pt: Vec<(String, Type)> = p.columns().iter().map(|c| (c.name().to_string(), c.type_().clone())).collect();
        assert_eq!(kt, pt, "column names/types differ for `{sql}` (kpg left, PostgreSQL right)");
        assert!(k.params().is_empty());
    }
    // The values agree too (text format).
    s.check("SELECT * FROM agg").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extended_protocol_dml_without_parameters() {
    let (_kpg, _pg, s) = setup().await;
    for sql in [
        "INSERT INTO t (id, name) VALUES (4, 'four'), (5, 'five')",
        "UPDATE t SET name = 'FOUR' WHERE id = 4",
        "DELETE FROM t WHERE id = 5",
    ] {
        let k = s
            .kpg
            .execute(sql, &[])
            .await
            .unwrap_or_else(|e| panic!("kpg `{sql}`: {}", describe_error(&e)));
        let p = s.pg.execute(sql, &[]).await.expect("PostgreSQL");
        assert_eq!(k, p, "affected rows for `{sql}`");
    }
    s.check("SELECT * FROM t").await;
}
