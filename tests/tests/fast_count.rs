//! `SELECT count(*)` of a relation read straight from its arrangement (no dataflow built):
//! tables, materialized views, indexed plain views and index key lookups, with filters, empty
//! relations, duplicates and retractions (UPDATE, DELETE), right after writes and right after
//! a view is created (the count must be of the complete view at the read's time), on two and
//! three workers; results compared with PostgreSQL. A count of a view holding an error fails
//! with it, as every read of such a view does in kpg.

use kpg_tests::*;

async fn counts_match_postgres(workers: usize) {
    let kpg = KpgServer::start_with_workers(workers).await;
    let pg = Postgres::start().await;
    let p = Pair::new(&kpg, &pg).await;
    p.exec("CREATE TABLE t (k int4, v text, n int4)").await;
    p.exec("CREATE TABLE e (a int4)").await;
    p.exec("CREATE INDEX t_k ON t (k)").await;
    let counts = [
        "SELECT count(*) FROM t",
        "SELECT count(*) FROM e",
        "SELECT count(*) FROM t WHERE n > 3",
        "SELECT count(*) FROM t WHERE k = 7",
        "SELECT count(*) FROM t WHERE k = 7 AND v <> 'x3'",
        "SELECT count(*) FROM t WHERE k = 1000",
        "SELECT count(*) AS how_many FROM t",
    ];
    for q in counts {
        p.check(q).await;
    }
    let rows: Vec<String> = (0..300)
        .map(|i| format!("({}, 'x{}', {})", i % 37, i % 5, i % 9))
        .collect();
    p.exec(&format!("INSERT INTO t VALUES {}", rows.join(", ")))
        .await;
    // Duplicates count as often as they occur.
    p.exec("INSERT INTO t SELECT * FROM t WHERE k < 5").await;
    for q in counts {
        p.check(q).await;
    }
    // Rows of no column (the workers add up such a read's multiplicities in place, as they do
    // for a count): as many as the table has.
    p.check("SELECT FROM t").await;
    p.check("SELECT count(*) FROM (SELECT FROM t) s").await;
    p.create_view("mv", "SELECT k, count(*) AS c FROM t GROUP BY k")
        .await;
    p.check("SELECT count(*) FROM mv").await;
    p.exec("CREATE VIEW pv AS SELECT k, v FROM t WHERE n < 5")
        .await;
    execute(&p.kpg, "CREATE INDEX pv_v ON pv (v)").await;
    for write in [
        "UPDATE t SET n = n + 1 WHERE k % 3 = 0",
        "DELETE FROM t WHERE v = 'x2'",
        "INSERT INTO t VALUES (7, 'x3', 1), (999, NULL, NULL)",
        "DELETE FROM t WHERE k > 20",
    ] {
        p.exec(write).await;
        for q in counts {
            p.check(q).await;
        }
        p.check("SELECT count(*) FROM mv").await;
        p.check("SELECT count(*) FROM pv").await;
        p.check("SELECT count(*) FROM pv WHERE v = 'x1'").await;
    }
    // A view created just before the count: counted complete, at the read's time.
    for i in 0..5 {
        let name = format!("fresh{i}");
        p.create_view(&name, &format!("SELECT * FROM t WHERE n <> {i}"))
            .await;
        p.check(&format!("SELECT count(*) FROM {name}")).await;
        p.exec(&format!("INSERT INTO t VALUES ({i}, 'y', {i})"))
            .await;
        p.check(&format!("SELECT count(*) FROM {name}")).await;
    }
    p.exec("DELETE FROM t").await;
    p.check("SELECT count(*) FROM t").await;
    p.check("SELECT count(*) FROM mv").await;

    // A view whose rows can fail holds the error: counting it fails too (as any read of it).
    p.exec("INSERT INTO t VALUES (1, 'z', 0), (2, 'z', 4)")
        .await;
    execute(
        &p.kpg,
        "CREATE MATERIALIZED VIEW q AS SELECT k, 100 / n AS r FROM t",
    )
    .await;
    let (code, _) = expect_error(&p.kpg, "SELECT count(*) FROM q").await;
    assert_eq!(code, "22012", "count of a view holding an error");
    p.exec("DELETE FROM t WHERE n = 0").await;
    let rows = p.kpg.simple_query("SELECT count(*) FROM q").await.unwrap();
    let counted: Vec<_> = rows
        .iter()
        .filter_map(|m| match m {
            kpg_tests::tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
            _ => None,
        })
        .collect();
    assert_eq!(counted, vec!["1".to_string()]);
}

#[tokio::test]
async fn counts_on_two_workers_match_postgres() {
    counts_match_postgres(2).await;
}

#[tokio::test]
async fn counts_on_three_workers_match_postgres() {
    counts_match_postgres(3).await;
}
