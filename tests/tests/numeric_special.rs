//! numeric `NaN`, `Infinity` and `-Infinity` as PostgreSQL 15 has them, compared with a real
//! PostgreSQL: their spellings on input, text and binary output, order (`-Infinity` < finite <
//! `Infinity` < `NaN`, with `NaN = NaN`), arithmetic, functions, casts to and from floats and
//! integers, typmods, generate_series, aggregates ad hoc and maintained in views through
//! inserts and deletes of special values (retracting the last infinity gives the finite sum
//! back), RANGE window frames over them, and errors by SQLSTATE.

use kpg_tests::*;
use tokio_postgres::types::{IsNull, ToSql, Type};

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    (kpg, pg, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_output_order_and_arithmetic() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        "SELECT 'NaN'::numeric, 'nan'::numeric, 'Infinity'::numeric, '-Infinity'::numeric",
        "SELECT 'inf'::numeric, ' -INF '::numeric, '+infinity'::numeric, 'InFiNiTy'::numeric",
        "SELECT 'NaN'::float8::numeric, 'Infinity'::float4::numeric, '-inf'::float8::numeric",
        "SELECT 'NaN'::numeric::float8, '-inf'::numeric::float4, 'inf'::numeric::float8",
        "SELECT 'NaN'::numeric(10,2), 'nan'::numeric::text, 'inf'::numeric::varchar",
        "SELECT 'NaN'::numeric = 'NaN'::numeric, 'NaN'::numeric > 'inf'::numeric, \
         'inf'::numeric > 1e1000, '-inf'::numeric < -1e1000, 'NaN'::numeric <> 1",
        "SELECT 'inf'::numeric + 1, 'inf'::numeric - 'inf', 'inf'::numeric + '-inf', \
         1 - 'inf'::numeric, 'nan'::numeric + 1",
        "SELECT 'inf'::numeric * 0, '-inf'::numeric * -2.5, 'inf'::numeric * '-inf', \
         'nan'::numeric * 0",
        "SELECT 1.50 / 'inf'::numeric, -7 / '-inf'::numeric, 'inf'::numeric / -3, \
         'inf'::numeric / 'inf', 'nan'::numeric / 0, 0 / 'nan'::numeric",
        "SELECT 'inf'::numeric % 2, 2.5 % 'inf'::numeric, -2.5 % '-inf'::numeric, \
         'nan'::numeric % 0, mod('inf'::numeric, 3), mod(5.5, '-inf'::numeric)",
        "SELECT -('inf'::numeric), -('nan'::numeric), abs('-inf'::numeric), \
         sign('nan'::numeric), sign('-inf'::numeric), sign('inf'::numeric)",
        "SELECT round('inf'::numeric), round('-inf'::numeric, 2), round('nan'::numeric, -1), \
         trunc('nan'::numeric), trunc('inf'::numeric, 1), ceil('-inf'::numeric), \
         floor('inf'::numeric), ceiling('nan'::numeric)",
        "SELECT sqrt('inf'::numeric), sqrt('nan'::numeric)",
        "SELECT greatest(1, 'inf'::numeric, 'nan'), least('-inf'::numeric, 1, 'nan')",
        "SELECT x FROM (VALUES ('nan'::numeric), ('inf'), (1), ('-inf'), (-1e100), ('NaN')) \
         t(x) ORDER BY x",
        "SELECT x FROM (VALUES ('nan'::numeric), ('inf'), (1), ('-inf')) t(x) ORDER BY x DESC",
        "SELECT DISTINCT x FROM (VALUES ('nan'::numeric), ('NaN'), ('inf'), ('Infinity')) t(x)",
        "SELECT x, sum(x) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM \
         (VALUES (1::numeric), (2), ('inf'), ('nan'), ('-inf'), ('NaN')) t(x) ORDER BY x",
        "SELECT x, count(x) OVER (ORDER BY x DESC RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) \
         FROM (VALUES (1::numeric), (2), ('inf'), ('nan'), ('-inf')) t(x) ORDER BY x",
    ] {
        s.check(q).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_match_postgresql() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        "SELECT '-NaN'::numeric",
        "SELECT '+nan'::numeric",
        "SELECT 'infinit'::numeric",
        "SELECT 'inf'::numeric / 0",
        "SELECT 'inf'::numeric % 0",
        "SELECT 1 / 0::numeric",
        "SELECT sqrt('-inf'::numeric)",
        "SELECT 'inf'::numeric::int",
        "SELECT 'nan'::numeric::int8",
        "SELECT 'nan'::numeric::int2",
        "SELECT '-inf'::numeric::int4",
        "SELECT 'Infinity'::numeric(5,2)",
        "SELECT '-inf'::numeric(3,1)",
        "SELECT * FROM generate_series(1::numeric, 'inf')",
        "SELECT * FROM generate_series('nan'::numeric, 1)",
        "SELECT * FROM generate_series(1::numeric, 2, 'inf')",
        "SELECT sum(x) OVER (ORDER BY x RANGE BETWEEN ('NaN'::numeric) PRECEDING AND CURRENT ROW) \
         FROM (VALUES (1::numeric)) t(x)",
    ] {
        s.check_error(q).await;
    }
    // An infinite RANGE offset is refused rather than given another frame.
    let q = "SELECT sum(x) OVER (ORDER BY x RANGE BETWEEN ('inf'::numeric) PRECEDING AND \
             CURRENT ROW) FROM (VALUES (1::numeric)) t(x)";
    let e = simple(&s.kpg, q).await.expect_err(q);
    assert_eq!(e.code().map(|c| c.code()), Some("0A000"), "{e:?}");
    let (_, msg) = s.check_error("SELECT 'inf'::numeric::int").await;
    assert_eq!(msg, "cannot convert infinity to integer");
    let (_, msg) = s.check_error("SELECT 'nan'::numeric::int8").await;
    assert_eq!(msg, "cannot convert NaN to bigint");
    let detail = error_detail(&s.kpg, "SELECT 'Infinity'::numeric(5,2)").await;
    assert_eq!(
        detail.as_deref(),
        Some("A field with precision 5, scale 2 cannot hold an infinite value.")
    );
    s.check("SELECT 1").await;
}

const SP: &str = "CREATE TABLE sp (id int, g int, x numeric, y numeric(10,2))";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_aggregates_and_views_through_writes() {
    let (_kpg, _pg, s) = setup().await;
    s.exec(SP).await;
    s.exec("INSERT INTO sp VALUES (1, 1, 1.5, 1.5), (2, 1, 2.25, 'NaN'), (3, 2, -4, -4)")
        .await;
    let queries = [
        "SELECT g, sum(x), avg(x), min(x), max(x), count(x) FROM sp GROUP BY g",
        "SELECT sum(x) AS sx, avg(x), min(x) AS nx, max(x) AS mx, sum(y), max(y), min(y) FROM sp",
        "SELECT g, var_pop(x), var_samp(x), stddev_pop(x) FROM sp GROUP BY g",
        "SELECT x, count(*) FROM sp GROUP BY x",
        "SELECT id, x * 2 AS d, x / 4 AS q, x::float8 AS f FROM sp WHERE x > 0",
        "SELECT a.id AS a, b.id AS b FROM sp a JOIN sp b ON a.x = b.x",
        "SELECT sum(DISTINCT x), count(DISTINCT x) FROM sp",
    ];
    let writes = [
        "INSERT INTO sp VALUES (4, 1, 'Infinity', 1)",
        "INSERT INTO sp VALUES (5, 2, '-inf', 'nan')",
        "INSERT INTO sp VALUES (6, 1, '-Infinity', 2)",
        "DELETE FROM sp WHERE id = 6",
        "INSERT INTO sp VALUES (7, 2, 'NaN', 3)",
        "DELETE FROM sp WHERE id = 4",
        "DELETE FROM sp WHERE id = 7",
        "UPDATE sp SET x = 'inf' WHERE id = 1",
        "DELETE FROM sp WHERE id IN (1, 5)",
        "INSERT INTO sp VALUES (8, 3, 'inf', 1), (9, 3, 'inf', 1)",
        "DELETE FROM sp WHERE id = 9",
    ];
    s.check_through_writes(&queries, "spv", &writes).await;
    s.check("SELECT * FROM sp ORDER BY id").await;
}

/// A numeric parameter sent as PostgreSQL's binary form with only a sign word.
#[derive(Debug)]
struct SpecialParam(u16);

impl ToSql for SpecialParam {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(&[0, 0, 0, 0]);
        out.extend_from_slice(&self.0.to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        Ok(IsNull::No)
    }
    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }
    tokio_postgres::types::to_sql_checked!();
}

/// The binary wire form (sign words 0xC000, 0xD000, 0xF000) in results and in parameters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_wire_form() {
    let (_kpg, _pg, s) = setup().await;
    let sql = "SELECT 'NaN'::numeric, 'inf'::numeric, '-inf'::numeric, 1.5::numeric";
    let raw = |rows: Vec<tokio_postgres::Row>| -> Vec<Raw> {
        (0..rows[0].len()).map(|i| rows[0].get(i)).collect()
    };
    let k = raw(s.kpg.query(sql, &[]).await.expect("kpg"));
    let p = raw(s.pg.query(sql, &[]).await.expect("PostgreSQL"));
    assert_eq!(k, p);
    for sign in [0xC000u16, 0xD000, 0xF000] {
        let q = "SELECT $1::numeric::text, $1::numeric + 1";
        let param = SpecialParam(sign);
        let text = |rows: Vec<tokio_postgres::Row>| -> String { rows[0].get(0) };
        let k = s.kpg.query(q, &[&param]).await.expect("kpg");
        let p = s.pg.query(q, &[&param]).await.expect("PostgreSQL");
        assert_eq!(raw(k.clone())[1], raw(p.clone())[1]);
        assert_eq!(text(k), text(p));
    }
}
