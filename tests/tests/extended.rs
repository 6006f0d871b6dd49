//! The extended query protocol (Parse/Describe/Bind/Execute) as tokio-postgres uses it, compared
//! with PostgreSQL 15: results in binary format with each column's PostgreSQL type; typed
//! parameters (`$1`, ...) in SELECT, INSERT, UPDATE and DELETE, with the parameter types
//! PostgreSQL infers from their context or the client declares; errors for bad values and for
//! parameters where none may be; and portals read a few rows per Execute.

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

/// Numerics in binary format (base-10000 digits, weight, sign, display scale) are byte for byte
/// PostgreSQL's, small and beyond 28 digits, zero with a scale, tiny fractions and negatives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numeric_binary_results_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for sql in [
        "SELECT id, price, price * 1e-30 AS tiny, -price AS neg FROM t ORDER BY id",
        "SELECT 0.00::numeric, 1e40::numeric, -0.0001::numeric, 10000::numeric, 1.50::numeric",
        "SELECT 123456789012345678901234567890.123456789::numeric, 2/3::numeric, 1e-40::numeric",
        "SELECT sum(price), avg(price), sum(price * 1e25) FROM t",
    ] {
        check_params(&s, sql, &[]).await;
    }
}

type Param<'a> = &'a (dyn tokio_postgres::types::ToSql + Sync);

/// Prepares `sql` on both servers, checks they describe the same parameter and column types,
/// runs it with `params` (binary format, as tokio-postgres sends them) and compares the rows.
async fn check_params(s: &Pair, sql: &str, params: &[Param<'_>]) {
    let k = s
        .kpg
        .prepare(sql)
        .await
        .unwrap_or_else(|e| panic!("kpg prepare `{sql}`: {}", describe_error(&e)));
    let p = s.pg.prepare(sql).await.expect("PostgreSQL prepare");
    assert_eq!(k.params(), p.params(), "parameter types of `{sql}`");
    let cols = |st: &tokio_postgres::Statement| -> Vec<(String, Type)> {
        st.columns()
            .iter()
            .map(|c| (c.name().to_string(), c.type_().clone()))
            .collect()
    };
    assert_eq!(cols(&k), cols(&p), "result columns of `{sql}`");
    let kr = s
        .kpg
        .query(&k, params)
        .await
        .unwrap_or_else(|e| panic!("kpg `{sql}`: {}", describe_error(&e)));
    let pr = s.pg.query(&p, params).await.expect("PostgreSQL");
    let (mut kr, mut pr) = (raw_rows(&kr), raw_rows(&pr));
    if !has_order_by(sql) {
        kr.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        pr.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    }
    assert_eq!(kr, pr, "rows of `{sql}` (kpg left, PostgreSQL right)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_parameters_in_select() {
    let (_kpg, _pg, s) = setup().await;
    let none: Option<i64> = None;
    let cases: &[(&str, &[Param<'_>])] = &[
        ("SELECT * FROM t WHERE id = $1", &[&1i32]),
        (
            "SELECT id, name FROM t WHERE big > $1 ORDER BY id",
            &[&0i64],
        ),
        (
            "SELECT id FROM t WHERE name = $1 OR code = $2",
            &[&"two", &"A1"],
        ),
        ("SELECT id, ok FROM t WHERE ok = $1", &[&true]),
        ("SELECT id, score FROM t WHERE score < $1", &[&1.0f64]),
        (
            "SELECT $1::int8 + id AS x, $2 || name AS y FROM t ORDER BY id",
            &[&5i64, &"x-"],
        ),
        (
            "SELECT id FROM t WHERE id IN ($1, $2) ORDER BY id",
            &[&1i32, &3i32],
        ),
        (
            "SELECT id FROM t WHERE id BETWEEN $1 AND $2",
            &[&2i32, &9i32],
        ),
        (
            "SELECT count(*), sum(price) FROM t WHERE id > $1 AND name IS NOT NULL",
            &[&0i32],
        ),
        (
            "SELECT id FROM t ORDER BY id LIMIT $1 OFFSET $2",
            &[&2i64, &1i64],
        ),
        ("SELECT id FROM t WHERE big = $1", &[&none]),
        ("SELECT $1 AS label, $2::int4 AS n", &[&"lbl", &7i32]),
        (
            "SELECT id FROM t WHERE id IN (SELECT id FROM t WHERE big < $1)",
            &[&0i64],
        ),
        (
            "SELECT * FROM t WHERE day > $1::text::date - 1",
            &[&"2024-01-01"],
        ),
    ];
    for (sql, params) in cases {
        check_params(&s, sql, params).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameter_types_inferred_like_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for sql in [
        "SELECT $1",
        "SELECT $1 + 1",
        "SELECT * FROM t WHERE id = $1 AND name LIKE $2 AND code = $3 AND day > $4 \
         AND price BETWEEN $5 AND $6 AND big IN ($7, $8) AND $9 < score",
        "INSERT INTO t (id, name, price, code) VALUES ($1, $2, $3, $4)",
        "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        "UPDATE t SET name = $1, big = big + $2 WHERE ok = $3",
        "DELETE FROM t WHERE day = $1 OR NOT $2",
        "SELECT id * $1, price * $2, $3::int8 FROM t",
        "SELECT $1 = $2",
        "SELECT CASE id WHEN $1 THEN $2 ELSE name END FROM t",
        "SELECT upper($1), coalesce($2, 5), abs(id - $3), lower(name) = $4 FROM t LIMIT $5",
        "SELECT x.n FROM (SELECT name AS n FROM t) x WHERE x.n = $1",
    ] {
        let k = s
            .kpg
            .prepare(sql)
            .await
            .unwrap_or_else(|e| panic!("kpg prepare `{sql}`: {}", describe_error(&e)));
        let p = s.pg.prepare(sql).await.expect("PostgreSQL prepare");
        assert_eq!(k.params(), p.params(), "parameter types of `{sql}`");
    }
    // Types the client declares win over inference.
    let sql = "SELECT id FROM t WHERE id = $1 OR big = $2";
    let types = [Type::INT8, Type::INT4];
    let k = s.kpg.prepare_typed(sql, &types).await.expect("kpg");
    let p = s.pg.prepare_typed(sql, &types).await.expect("PostgreSQL");
    assert_eq!(k.params(), p.params());
    let kr = s.kpg.query(&k, &[&2i64, &-2i32]).await.expect("kpg");
    let pr = s.pg.query(&p, &[&2i64, &-2i32]).await.expect("PostgreSQL");
    assert_eq!(raw_rows(&kr), raw_rows(&pr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_parameters_in_writes() {
    let (_kpg, _pg, s) = setup().await;
    let no_text: Option<&str> = None;
    let writes: &[(&str, &[Param<'_>])] = &[
        (
            "INSERT INTO t (id, big, name, code, ok, score) VALUES ($1, $2, $3, $4, $5, $6)",
            &[&4i32, &40i64, &"four's", &"D4", &false, &-0.25f64],
        ),
        (
            "INSERT INTO t (id, name, code) VALUES ($1, $2, $3), ($4, $2, $5)",
            &[&5i32, &"many", &no_text, &6i32, &"F6"],
        ),
        (
            "UPDATE t SET name = $1, big = big * $2 WHERE id < $3",
            &[&"low", &3i64, &3i32],
        ),
        ("UPDATE t SET ok = NOT ok WHERE code = $1", &[&"D4"]),
        (
            "DELETE FROM t WHERE id = $1 OR name = $2",
            &[&5i32, &"nobody"],
        ),
    ];
    for (sql, params) in writes {
        let k = s
            .kpg
            .execute(*sql, params)
            .await
            .unwrap_or_else(|e| panic!("kpg `{sql}`: {}", describe_error(&e)));
        let p = s.pg.execute(*sql, params).await.expect("PostgreSQL");
        assert_eq!(k, p, "affected rows of `{sql}`");
    }
    s.check("SELECT * FROM t").await;
    // Bad values are the errors PostgreSQL gives, at Bind or when the statement runs.
    for (sql, types, value) in [
        ("SELECT $1::int4", Type::TEXT, "abc"),
        (
            "INSERT INTO t (id, code) VALUES (1, $1)",
            Type::TEXT,
            "much too long",
        ),
        ("SELECT 1 / $1::int4", Type::TEXT, "0"),
    ] {
        let k = s
            .kpg
            .prepare_typed(sql, std::slice::from_ref(&types))
            .await
            .expect("kpg prepare");
        let p =
            s.pg.prepare_typed(sql, &[types])
                .await
                .expect("PostgreSQL prepare");
        let ke = s
            .kpg
            .query(&k, &[&value])
            .await
            .expect_err("kpg accepted a bad value");
        let pe =
            s.pg.query(&p, &[&value])
                .await
                .expect_err("PostgreSQL accepted it");
        assert_eq!(
            sqlstate(&ke),
            sqlstate(&pe),
            "`{sql}` with {value:?}: {}",
            describe_error(&ke)
        );
    }
    // A view's query cannot have parameters: a view prepares with none and fails when it
    // runs, a materialized view is refused at Parse, as in PostgreSQL.
    let sql = "CREATE VIEW v AS SELECT * FROM t WHERE id = $1";
    let k = s.kpg.prepare(sql).await.expect("kpg prepare");
    let p = s.pg.prepare(sql).await.expect("PostgreSQL prepare");
    assert_eq!(k.params(), p.params());
    let ke = s.kpg.execute(&k, &[]).await.expect_err("kpg ran it");
    let pe = s.pg.execute(&p, &[]).await.expect_err("PostgreSQL ran it");
    assert_eq!(
        sqlstate(&ke),
        sqlstate(&pe),
        "`{sql}`: {}",
        describe_error(&ke)
    );
    assert_eq!(sqlstate(&ke).as_deref(), Some("42P02"));
    let sql = "CREATE MATERIALIZED VIEW v AS SELECT $1 AS x";
    let ke = s.kpg.prepare(sql).await.expect_err("kpg prepared it");
    let pe = s.pg.prepare(sql).await.expect_err("PostgreSQL prepared it");
    assert_eq!(
        sqlstate(&ke),
        sqlstate(&pe),
        "`{sql}`: {}",
        describe_error(&ke)
    );
    assert_eq!(sqlstate(&ke).as_deref(), Some("0A000"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn portals_return_rows_in_batches() {
    // Execute with a row limit suspends the portal (PortalSuspended) and the next Execute
    // continues where it stopped, as tokio-postgres' query_portal uses it.
    let (_kpg, _pg, mut s) = setup().await;
    let sql = "SELECT id, name FROM t WHERE id >= $1 ORDER BY id";
    let mut batches = Vec::new();
    for client in [&mut s.kpg, &mut s.pg] {
        let tx = client.transaction().await.expect("BEGIN");
        let stmt = tx.prepare(sql).await.expect("prepare");
        let portal = tx.bind(&stmt, &[&1i32]).await.expect("bind");
        let mut got = Vec::new();
        loop {
            let rows = tx.query_portal(&portal, 2).await.expect("execute portal");
            let n = rows.len();
            got.push(raw_rows(&rows));
            if n < 2 {
                break;
            }
        }
        tx.commit().await.expect("COMMIT");
        batches.push(got);
    }
    assert_eq!(batches[0].iter().map(Vec::len).collect::<Vec<_>>(), [2, 1]);
    assert_eq!(batches[0], batches[1]);
}
