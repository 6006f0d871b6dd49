//! Indexes as shared arrangements, over the wire: CREATE [DEFAULT] INDEX, lookups answered from
//! the index, joins that import it, SHOW INDEXES, and DROP rules. Results are compared with a
//! real PostgreSQL (which has its own indexes on the same columns) after every change.

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_lookups_and_joins_match_postgres() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let p = Pair::new(&kpg, &pg).await;
    p.exec("CREATE TABLE dims (k int4, name text, weight numeric(6,2))")
        .await;
    p.exec("CREATE TABLE facts (id int4, k int4, qty int8)")
        .await;
    p.exec("INSERT INTO dims VALUES (1, 'one', 1.50), (2, 'two', 2.25), (3, NULL, 0), (NULL, 'none', 9)").await;
    let facts: Vec<String> = (0..300)
        .map(|i| format!("({i}, {}, {})", i % 5, i * 3))
        .collect();
    p.exec(&format!("INSERT INTO facts VALUES {}", facts.join(", ")))
        .await;
    p.exec("CREATE INDEX dims_k ON dims (k)").await;
    p.exec("CREATE INDEX facts_k ON facts (k)").await;

    // Lookups of literal keys (answered from the index without a dataflow), and scans.
    for sql in [
        "SELECT * FROM dims WHERE k = 2",
        "SELECT name FROM dims WHERE k = 3",
        "SELECT * FROM dims WHERE k = 42",
        "SELECT id, qty FROM facts WHERE k = 4 AND qty > 600",
        "SELECT * FROM dims",
    ] {
        p.check(sql).await;
    }

    // A view whose join reads both indexes instead of arranging its inputs.
    let view = "SELECT f.id, d.name, f.qty * d.weight AS w FROM facts f JOIN dims d ON f.k = d.k";
    p.create_view("weighted", view).await;
    p.check_view("weighted").await;
    p.exec("INSERT INTO dims VALUES (4, 'four', 4.00)").await;
    p.exec("UPDATE facts SET qty = qty + 1 WHERE k = 1").await;
    p.exec("DELETE FROM dims WHERE k = 2").await;
    p.check_view("weighted").await;
    p.check("SELECT * FROM dims WHERE k = 4").await;
    p.check("SELECT count(*), sum(w) FROM weighted").await;

    // A filtered, projected dimension input still reads its index: the filter and the
    // projection are applied after the join (EXPLAIN shows the import), with the same answers.
    let filtered = "SELECT f.id, d.w FROM facts f \
                    JOIN (SELECT weight AS w, k FROM dims WHERE name <> 'four') d ON f.k = d.k";
    let physical = query(&p.kpg, &format!("EXPLAIN PHYSICAL PLAN FOR {filtered}")).await;
    let text = physical[0][0].clone().unwrap_or_default();
    assert!(text.contains("through index dims_k"), "{text}");
    assert!(text.contains("through index facts_k"), "{text}");
    assert!(text.contains("New arrangements: 0"), "{text}");
    p.check(filtered).await;
    p.create_view("filtered", filtered).await;
    p.exec("UPDATE dims SET name = 'four' WHERE k = 1").await;
    p.check_view("filtered").await;
    p.drop_view("filtered").await;

    // The index cannot be dropped while the view reads it; the error names both.
    let (code, _) = expect_error(&p.kpg, "DROP INDEX dims_k").await;
    assert_eq!(code, "2BP01");
    p.drop_view("weighted").await;
    p.exec("DROP INDEX dims_k").await;
    p.check("SELECT * FROM dims WHERE k = 1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_indexes_default_index_and_drop_with_table() {
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE t (a int4, b text)").await;
    execute(&c, "CREATE TABLE u (x int4)").await;
    execute(&c, "CREATE INDEX ON t (b)").await;
    execute(&c, "CREATE DEFAULT INDEX ON u").await;
    assert_eq!(
        query(&c, "SHOW INDEXES").await,
        rows(&[&["t_b_idx", "t", "{b}"], &["u_primary_idx", "u", "{x}"]])
    );
    assert_eq!(
        query(&c, "SHOW INDEXES ON u").await,
        rows(&[&["u_primary_idx", "u", "{x}"]])
    );
    assert_eq!(query(&c, "SHOW TABLES").await, rows(&[&["t"], &["u"]]));
    assert_eq!(
        query(&c, "SHOW SOURCES").await,
        Vec::<Vec<Option<String>>>::new()
    );
    assert_eq!(
        query(&c, "SHOW COLUMNS FROM t").await,
        rows(&[&["a", "true", "integer"], &["b", "true", "text"]])
    );
    let (code, _) = expect_error(&c, "CREATE INDEX t_b_idx ON t (a)").await;
    assert_eq!(code, "42P07");
    let (code, _) = expect_error(&c, "DROP INDEX t").await;
    assert_eq!(code, "42809");
    // A table's indexes go with it.
    execute(&c, "INSERT INTO u VALUES (1), (2)").await;
    assert_eq!(
        query(&c, "SELECT x FROM u WHERE x = 2").await,
        rows(&[&["2"]])
    );
    execute(&c, "DROP TABLE u").await;
    assert_eq!(
        query(&c, "SHOW INDEXES").await,
        rows(&[&["t_b_idx", "t", "{b}"]])
    );
    execute(&c, "CREATE TABLE u (x int4)").await;
    execute(&c, "CREATE DEFAULT INDEX ON u").await;
}
