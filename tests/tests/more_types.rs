//! Issue 21's types, `uuid`, `bytea`, `time`/`time(p)` and `timestamp(p)`, compared with a real
//! PostgreSQL 15: every input form of each (and its error's SQLSTATE), text output,
//! comparisons, casts, operators and functions ad hoc; then tables and materialized views
//! through writes (GROUP BY, DISTINCT, joins and indexes on the new types), the types clients
//! see (RowDescription OIDs, `format_type` as psql's `\d` asks it), COPY in and out, and the
//! binary format of the extended protocol (parameters and results byte for byte).

use futures::SinkExt;
use kpg_tests::tokio_postgres::types::{FromSql, IsNull, ToSql, Type};
use kpg_tests::*;

async fn pair() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    (kpg, pg, s)
}

/// `'text'`, quoted for SQL.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

const UUIDS: &[&str] = &[
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
    "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
    "a0eebc999c0b4ef8bb6d6bb9bd380a11",
    "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
    "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
    "00000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "12345678-1234-5678-1234-567812345678",
];

const BAD_UUIDS: &[&str] = &[
    "",
    " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
    "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
    "-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
    "a0eeb-c99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
];

/// bytea input as SQL literals (E'' strings where a backslash must be doubled).
const BYTEAS: &[&str] = &[
    r"'\xDEADBEEF'",
    r"'\xdeadbeef'",
    r"'\x'",
    r"''",
    r"'abc'",
    r"'abc\000def'",
    r"'\\'",
    r"'a\\b\377\001'",
    r"E'\\xde ad\nbe'",
    r"E'\\000\\377'",
    r"E'\\\\x41'",
    "'héllo'",
    r"'\x00ff10'",
];

const BAD_BYTEAS: &[&str] = &[
    r"'\xabc'", r"'\xa b'", r"'\xzz'", r"'\'", r"'a\b'", r"'\400'", r"'\08'",
];

const TIMES: &[&str] = &[
    "10:00",
    "10:00:00",
    "00:00:00",
    "23:59:59.999999",
    "10:00:00.1234567",
    "23:59:59.9999999",
    "24:00:00",
    "24:00",
    "2024-01-05 10:00",
    "2024-01-05 10:00:00.5 +05",
    "040506",
    "0405",
    "1030",
    "100506.5",
    "1030.5",
    "allballs",
    "10:00 PM",
    "12:00 AM",
    "12:30 pm",
    "4:05 AM",
    "10:00 +05",
    "10:00 EST",
    "2024-01-05 10:00 America/New_York",
    "T10:00",
    "10:00:60",
    "1:2:3",
    "10::",
    " 10:00 ",
    "10:00:00.0000005",
    "10:00:00.0000015",
    "23:59:59.9999995",
    "10:00:00.5",
    "10:00:01.5",
    "23:59:59.5",
];

const BAD_TIMES: &[&str] = &[
    "2024-01-05",
    "10",
    "103",
    "10305",
    "12345678",
    "10.5",
    "epoch",
    "today",
    "10:00 America/New_York",
    "24:00:00.000001",
    "23:59:60.5",
    "25:00",
    "13:00 pm",
    "10:60",
    "2024-02-30 10:00",
    "hello",
    "",
];

const TIMESTAMPS: &[&str] = &[
    "2024-01-01 10:00:00.1235",
    "2024-01-01 10:00:00.1225",
    "1999-12-31 10:00:00.1235",
    "1999-12-31 10:00:00.1225",
    "2024-01-01 23:59:59.5",
    "2024-12-31 23:59:59.9999999",
    "1970-01-01 00:00:00.05",
    "1900-06-30 12:00:00.55",
    "2024-01-01",
    "2000-01-01 00:00:00.5",
    "1999-12-31 23:59:59.5",
    "1999-12-31 23:59:59.95",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uuid_as_postgres() {
    let (_kpg, _pg, s) = pair().await;
    for u in UUIDS {
        s.check(&format!("SELECT {}::uuid", literal(u))).await;
        s.check(&format!("SELECT CAST({} AS uuid)::text AS t", literal(u)))
            .await;
    }
    for u in BAD_UUIDS {
        let (code, _) = s.check_error(&format!("SELECT {}::uuid", literal(u))).await;
        assert_eq!(code, "22P02", "{u}");
    }
    let message = s.check_error("SELECT 'abc'::uuid").await.1;
    assert_eq!(message, r#"invalid input syntax for type uuid: "abc""#);
    for sql in [
        "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid = 'A0EEBC999C0B4EF8BB6D6BB9BD380A11'",
        "SELECT uuid 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' < 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
        "SELECT '00000000-0000-0000-0000-000000000001'::uuid > '00000000-0000-0000-0000-000000000000'",
        "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::text::uuid",
        "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid::varchar(40)",
        "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid || 'x'",
        "SELECT coalesce(NULL::uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')",
        "SELECT greatest('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, \
         'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')",
        "SELECT x FROM (VALUES ('ffffffff-0000-0000-0000-000000000000'::uuid), \
         ('0fffffff-0000-0000-0000-000000000000'), (NULL)) v(x) ORDER BY x",
    ] {
        s.check(sql).await;
    }
    for sql in [
        "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid = 1",
        "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid + 1",
        "SELECT 1::uuid",
        "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid::bytea",
    ] {
        s.check_error(sql).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bytea_as_postgres() {
    let (_kpg, _pg, s) = pair().await;
    for b in BYTEAS {
        s.check(&format!("SELECT {b}::bytea")).await;
        s.check(&format!(
            "SELECT length({b}::bytea), octet_length({b}::bytea), {b}::bytea::text AS t"
        ))
        .await;
    }
    for b in BAD_BYTEAS {
        s.check_error(&format!("SELECT {b}::bytea")).await;
    }
    for (sql, message) in [
        (
            r"SELECT '\xabc'::bytea",
            "invalid hexadecimal data: odd number of digits",
        ),
        (r"SELECT '\xzz'::bytea", r#"invalid hexadecimal digit: "z""#),
        (
            r"SELECT '\400'::bytea",
            "invalid input syntax for type bytea",
        ),
    ] {
        assert_eq!(s.check_error(sql).await.1, message, "{sql}");
    }
    for sql in [
        r"SELECT '\x0102'::bytea || '\x03'::bytea",
        r"SELECT '\x0102'::bytea || '\x03'",
        r"SELECT 'ab'::bytea || 'cd'::bytea",
        r"SELECT '\x0102'::bytea || 'x'::text",
        r"SELECT '\x01'::bytea < '\x0100'::bytea, '\x02'::bytea > '\x0100'::bytea",
        r"SELECT '\x'::bytea = ''::bytea, 'a'::bytea = '\x61'",
        r"SELECT x FROM (VALUES ('\xff'::bytea), ('\x00'), ('\x'), ('\x00ff'), (NULL)) v(x) ORDER BY x",
        r"SELECT x FROM (VALUES ('\xff'::bytea), ('\x00'), ('\x00ff')) v(x) ORDER BY x DESC",
        r"SELECT 'abc'::text::bytea",
        r"SELECT '\x41'::bytea::varchar",
        r"SELECT octet_length('\xdeadbeef'::bytea), length('\xdeadbeef'::bytea)",
        "SHOW bytea_output",
        "SET bytea_output = 'hex'",
        "SET bytea_output TO hex",
    ] {
        s.check(sql).await;
    }
    for sql in [
        "SELECT 'a'::bytea + 'b'::bytea",
        "SELECT char_length('abc'::bytea)",
        "SELECT upper('abc'::bytea)",
        "SET bytea_output = 'base64'",
    ] {
        s.check_error(sql).await;
    }
    // PostgreSQL's bytea forms of string functions and operators, which kpg refuses.
    for sql in [
        r"SELECT substring('\x010203'::bytea FROM 2)",
        r"SELECT substr('\x010203'::bytea, 2, 1)",
        r"SELECT position('\x02'::bytea IN '\x010203'::bytea)",
        r"SELECT trim('\x01'::bytea FROM '\x010201'::bytea)",
        r"SELECT btrim('\x010201'::bytea, '\x01'::bytea)",
        r"SELECT md5('\x01'::bytea)",
        r"SELECT sha256('\x01'::bytea)",
        r"SELECT encode('\x01'::bytea, 'hex')",
        r"SELECT get_byte('\x01'::bytea, 0)",
        r"SELECT '\x61'::bytea LIKE 'a%'",
        r"SELECT string_agg(x, '\x2c'::bytea) FROM (VALUES ('\x01'::bytea)) v(x)",
    ] {
        simple(&s.pg, sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {}", describe_error(&e)));
        let (code, message) = expect_error(&s.kpg, sql).await;
        assert_eq!(code, "0A000", "{sql}: {message}");
    }
    s.check(r"SELECT '\x00'::bytea").await;
    // gen_random_uuid(): a version 4 UUID, a new one at each evaluation (an IN list's
    // operand is evaluated once).
    s.check(
        "SELECT gen_random_uuid() IS NOT NULL, length(gen_random_uuid()::text), \
         substr(gen_random_uuid()::text, 15, 1), gen_random_uuid() <> gen_random_uuid(), \
         substr(gen_random_uuid()::text, 20, 1) IN ('8', '9', 'a', 'b')",
    )
    .await;
    s.check(
        "SELECT count(*) FROM generate_series(1, 200) g \
         WHERE substr(gen_random_uuid()::text, 20, 1) IN ('8', '9', 'a', 'b') \
         AND floor(random() * 2)::int IN (0, 1) AND floor(random() * 2)::int NOT IN (2, 3)",
    )
    .await;
    let (code, _) = expect_error(
        &s.kpg,
        "CREATE MATERIALIZED VIEW ids AS SELECT gen_random_uuid() AS id",
    )
    .await;
    assert_eq!(code, "0A000");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_as_postgres() {
    let (_kpg, _pg, s) = pair().await;
    for t in TIMES {
        s.check(&format!("SELECT {}::time", literal(t))).await;
        for p in [0, 2, 6] {
            s.check(&format!("SELECT {}::time({p})", literal(t))).await;
        }
    }
    for t in BAD_TIMES {
        s.check_error(&format!("SELECT {}::time", literal(t))).await;
    }
    assert_eq!(
        s.check_error("SELECT '10'::time").await.1,
        r#"invalid input syntax for type time: "10""#
    );
    // The clock: the transaction's start, as localtime.
    s.check("SELECT 'now'::time = localtime").await;
    for sql in [
        "SELECT time '10:00' + interval '1 hour 30 minutes'",
        "SELECT interval '1 hour' + time '23:30'",
        "SELECT time '01:00' - interval '2 hours'",
        "SELECT time '10:00' + interval '3 days 1 month 2 hours'",
        "SELECT time '24:00' + interval '0'",
        "SELECT time '10:00' - time '12:30:00.5'",
        "SELECT time '23:00' - time '01:00'",
        "SELECT time '10:00' - '01:00', time '01:00' - '10:00'",
        "SELECT timestamp '2024-01-01' + time '10:00', timestamp '2024-01-01' - time '10:00'",
        "SELECT time '10:00' * 2, time '10:00' / 4, interval '1 day' - time '10:00'",
        "SELECT -time '10:00', time '10:00' BETWEEN '09:00' AND '11:00'",
        "SELECT time '10:00' = interval '10 hours', interval '1 hour' < time '00:30'",
        "SELECT time '10:00' + '01:00', '01:00' + time '10:00'",
        "SELECT date '2024-01-05' + time '10:30'",
        "SELECT time '10:30' + date '2024-01-05'",
        "SELECT date '2024-12-31' + time '24:00'",
        "SELECT time '10:00' < time '10:00:00.000001', time '24:00' > time '23:59:59.999999'",
        "SELECT time '10:00' = '10:00:00', time '10:00' <> '10:00:01'",
        "SELECT timestamp '2024-01-05 10:30:15.25'::time",
        "SELECT timestamp '2024-01-05 10:30:15.25'::time(1)",
        "SELECT time '10:30:15.25'::text",
        "SELECT '10:30'::text::time",
        "SELECT time '10:30:15.25'::interval",
        "SELECT interval '26 hours 10 minutes'::time, interval '-1 hour'::time",
        "SELECT interval '1 day 02:00'::time",
        "SELECT EXTRACT(hour FROM time '10:30:15.25'), EXTRACT(minute FROM time '10:30:15.25')",
        "SELECT EXTRACT(second FROM time '10:30:15.25'), EXTRACT(milliseconds FROM time '10:30:15.25')",
        "SELECT EXTRACT(microseconds FROM time '10:30:15.25'), EXTRACT(epoch FROM time '10:30:15.25')",
        "SELECT date_part('hour', time '10:30:15.25'), date_part('epoch', time '24:00')",
        "SELECT date_trunc('hour', time '10:30:15.25')",
        "SELECT x FROM (VALUES (time '24:00'), ('00:00'), ('12:00'), (NULL)) v(x) ORDER BY x",
        "SELECT max(x), min(x) FROM (VALUES (time '24:00'), ('00:00'), ('12:00')) v(x)",
        "SELECT sum(x), avg(x) FROM (VALUES (time '23:00'), ('10:00:00.5'), ('12:00')) v(x)",
        "SELECT time(2) '10:00:00.123'",
        "SELECT CAST('10:00:00.125' AS time(2))",
        "SELECT '23:59:59.96'::time(1)",
    ] {
        s.check(sql).await;
    }
    for sql in [
        "SELECT time '10:00' + time '01:00'",
        "SELECT min(x) FROM (VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)) v(x)",
        "SELECT max(x) FROM (VALUES ('\\x00'::bytea)) v(x)",
        "SELECT time '10:00' = 1",
        "SELECT time '10:00' = date '2024-01-01'",
        "SELECT time '10:00'::date",
        "SELECT EXTRACT(day FROM time '10:00')",
        "SELECT EXTRACT(foo FROM time '10:00')",
        "SELECT date_part('dow', time '10:00')",
    ] {
        s.check_error(sql).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamp_precision_as_postgres() {
    let (_kpg, _pg, s) = pair().await;
    for t in TIMESTAMPS {
        for p in [0, 1, 3, 5, 6] {
            s.check(&format!("SELECT {}::timestamp({p})", literal(t)))
                .await;
        }
    }
    for sql in [
        "SELECT timestamp(3) '2024-01-01 10:00:00.12345'",
        "SELECT CAST(timestamp '2024-01-01 10:00:00.12345' AS timestamp(2))",
        "SELECT (timestamp '1999-12-31 23:59:59.95')::timestamp(1)",
        "SELECT date '2024-01-05'::timestamp(0)",
        "SELECT '2024-01-01 10:00:00.12345'::timestamp(3) + interval '1 day'",
        "SELECT '2024-01-01 10:00:00.12345'::timestamp(3) = '2024-01-01 10:00:00.123'",
        "SELECT '2024-01-01 10:00:00.123456'::timestamp(7)",
    ] {
        s.check(sql).await;
    }
}

/// The column types psql's `\d` shows (`format_type(atttypid, atttypmod)`), RowDescription's
/// OIDs and modifiers, and information_schema's precision.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type_names_as_clients_see_them() {
    let (_kpg, _pg, s) = pair().await;
    s.exec(
        "CREATE TABLE named (u uuid, b bytea, t time, t0 time(0), t3 time (3) without time zone, \
         ts3 timestamp(3), ts0 timestamp(0) without time zone, ts timestamp)",
    )
    .await;
    s.check(
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.atttypmod, a.attlen \
         FROM pg_attribute a JOIN pg_class c ON a.attrelid = c.oid \
         WHERE c.relname = 'named' AND a.attnum > 0 ORDER BY a.attnum",
    )
    .await;
    s.check(
        "SELECT column_name, data_type, udt_name, datetime_precision \
         FROM information_schema.columns WHERE table_name = 'named' ORDER BY ordinal_position",
    )
    .await;
    s.check(
        "SELECT t.typname, format_type(t.oid, NULL) FROM pg_type t \
         WHERE t.typname IN ('uuid', 'bytea', 'time') ORDER BY 1",
    )
    .await;
    let statement = "SELECT u, b, t, t0, t3, ts3, ts0, ts FROM named";
    let (k, p) = (
        s.kpg.prepare(statement).await.unwrap(),
        s.pg.prepare(statement).await.unwrap(),
    );
    let types = |st: &tokio_postgres::Statement| {
        st.columns()
            .iter()
            .map(|c| c.type_().oid())
            .collect::<Vec<_>>()
    };
    assert_eq!(types(&k), types(&p));
}

/// A value as raw bytes in either direction: results decoded as their binary format, and
/// parameters sent as given with the declared type.
#[derive(Debug, PartialEq)]
struct Raw(Vec<u8>);

impl<'a> FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(raw.to_vec()))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

impl ToSql for Raw {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_format_round_trips() {
    let (_kpg, _pg, s) = pair().await;
    s.exec("CREATE TABLE bin (k int, u uuid, b bytea, t time, ts timestamp(2))")
        .await;
    let uuid = Raw((1..=16).collect());
    let bytes = Raw(vec![0, 1, 0xfe, 0xff, b'\\', b'x']);
    let time = Raw((37_800_123_456i64).to_be_bytes().to_vec());
    // 2024-01-01 10:00:00.123456 in microseconds since 2000-01-01.
    let ts = Raw((757_418_400_123_456i64).to_be_bytes().to_vec());
    let insert = "INSERT INTO bin VALUES (1, $1, $2, $3, $4)";
    let types = [Type::UUID, Type::BYTEA, Type::TIME, Type::TIMESTAMP];
    for client in [&s.kpg, &s.pg] {
        let st = client.prepare_typed(insert, &types).await.unwrap();
        client
            .execute(&st, &[&uuid, &bytes, &time, &ts])
            .await
            .unwrap_or_else(|e| panic!("{}", describe_error(&e)));
    }
    s.check("SELECT * FROM bin").await;
    let select = "SELECT u, b, t, ts, u::text, $1::uuid = u, $2::bytea || b, $3::time + \
                  interval '1 hour' FROM bin WHERE u = $1 AND b = $2 AND t = $3";
    let mut results = Vec::new();
    for client in [&s.kpg, &s.pg] {
        let st = client
            .prepare_typed(select, &types[..3])
            .await
            .unwrap_or_else(|e| panic!("{}", describe_error(&e)));
        let rows = client
            .query(&st, &[&uuid, &bytes, &time])
            .await
            .unwrap_or_else(|e| panic!("{}", describe_error(&e)));
        let values: Vec<Vec<Raw>> = rows
            .iter()
            .map(|r| (0..r.len()).map(|i| r.get::<_, Raw>(i)).collect())
            .collect();
        let oids: Vec<u32> = st.columns().iter().map(|c| c.type_().oid()).collect();
        results.push((values, oids));
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[0].0.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_in_and_out() {
    let (_kpg, _pg, s) = pair().await;
    s.exec("CREATE TABLE c (k int, u uuid, b bytea, t time(1), ts timestamp(3))")
        .await;
    let text = "1\ta0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\t\\\\xdeadbeef\t10:00:00.25\t2024-01-01 10:00:00.12345\n\
                2\t{A0EEBC999C0B4EF8BB6D6BB9BD380A12}\tab\\\\000c\t24:00\t1999-12-31 23:59:59.9995\n\
                3\t\\N\t\\N\t\\N\t\\N\n";
    let csv = "k,u,b,t,ts\n4,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a13,\\x00,23:59:59.99,2024-06-01\n";
    for client in [&s.kpg, &s.pg] {
        for (sql, data) in [
            ("COPY c FROM STDIN", text),
            ("COPY c FROM STDIN WITH (FORMAT csv, HEADER true)", csv),
        ] {
            let sink = client.copy_in(sql).await.unwrap();
            let mut sink = Box::pin(sink);
            sink.send(bytes::Bytes::copy_from_slice(data.as_bytes()))
                .await
                .unwrap();
            sink.as_mut()
                .finish()
                .await
                .unwrap_or_else(|e| panic!("{sql}: {}", describe_error(&e)));
        }
    }
    s.check("SELECT * FROM c").await;
    for sql in [
        "COPY (SELECT * FROM c ORDER BY k) TO STDOUT",
        "COPY (SELECT * FROM c ORDER BY k) TO STDOUT WITH (FORMAT csv)",
    ] {
        let mut out = Vec::new();
        for client in [&s.kpg, &s.pg] {
            use futures::StreamExt;
            let stream = client.copy_out(sql).await.unwrap();
            let mut stream = Box::pin(stream);
            let mut bytes = Vec::new();
            while let Some(chunk) = stream.next().await {
                bytes.extend_from_slice(&chunk.unwrap());
            }
            out.push(String::from_utf8(bytes).unwrap());
        }
        assert_eq!(out[0], out[1], "{sql}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_and_views_through_writes() {
    let (_kpg, _pg, s) = pair().await;
    s.exec(
        "CREATE TABLE items (k int, u uuid, b bytea, t time, t2 time(2), ts3 timestamp(3), \
         d date)",
    )
    .await;
    s.exec("CREATE TABLE owners (u uuid, name text)").await;
    s.exec("CREATE TABLE blobs (b bytea, tag text)").await;
    s.exec("CREATE INDEX items_u ON items (u)").await;
    s.create_view("items_v", "SELECT * FROM items").await;
    s.create_view(
        "by_owner",
        "SELECT o.name, i.u, count(*) AS n, max(i.t) AS latest, min(i.ts3) AS first \
         FROM items i JOIN owners o ON i.u = o.u GROUP BY o.name, i.u",
    )
    .await;
    s.create_view(
        "by_blob",
        "SELECT b.tag, i.b, length(i.b) AS len, i.b || '\\x00'::bytea AS padded \
         FROM items i JOIN blobs b ON i.b = b.b",
    )
    .await;
    s.create_view("distinct_u", "SELECT DISTINCT u FROM items")
        .await;
    s.create_view(
        "times",
        "SELECT t, t2, t + interval '90 minutes' AS later, t - t2 AS diff, d + t AS at, \
         EXTRACT(hour FROM t) AS h, ts3::time(1) AS ts_time FROM items",
    )
    .await;
    s.create_view(
        "per_hour",
        "SELECT date_trunc('hour', ts3) AS hour, count(*) AS n, max(t) AS t, sum(t) AS total \
         FROM items GROUP BY date_trunc('hour', ts3)",
    )
    .await;
    let views = [
        "items_v",
        "by_owner",
        "by_blob",
        "distinct_u",
        "times",
        "per_hour",
    ];
    let uuid = |i: usize| format!("'{i:08x}-0000-4000-8000-00000000000{}'", i % 10);
    let rows: Vec<String> = (0..24)
        .map(|i| {
            format!(
                "({i}, {}, '\\x{:02x}{:02x}', '{:02}:{:02}:{:02}.{}', '{:02}:30:00.125', \
                 '2024-01-{:02} {:02}:00:00.{}', '2024-02-{:02}')",
                uuid(i % 7),
                i % 5,
                i % 3,
                i % 24,
                (i * 7) % 60,
                (i * 13) % 60,
                i * 1234,
                (i + 3) % 24,
                i % 28 + 1,
                i % 24,
                i * 987_654 % 10_000_000,
                i % 28 + 1
            )
        })
        .collect();
    for chunk in rows.chunks(6) {
        s.exec(&format!("INSERT INTO items VALUES {}", chunk.join(", ")))
            .await;
        for v in views {
            s.check_view(v).await;
        }
    }
    let owners: Vec<String> = (0..5)
        .map(|i| format!("({}, 'owner{i}')", uuid(i)))
        .collect();
    s.exec(&format!("INSERT INTO owners VALUES {}", owners.join(", ")))
        .await;
    s.exec(
        "INSERT INTO blobs VALUES ('\\x0000', 'zero'), ('\\x0102', 'one-two'), ('\\x0401', 'four')",
    )
    .await;
    for v in views {
        s.check_view(v).await;
    }
    s.exec("UPDATE items SET t = t + interval '12 hours', b = b || '\\xff'::bytea WHERE k % 3 = 0")
        .await;
    s.exec("DELETE FROM items WHERE u = '00000002-0000-4000-8000-000000000002'")
        .await;
    s.exec("UPDATE items SET ts3 = '2024-03-01 12:00:00.99999' WHERE k % 4 = 1")
        .await;
    s.exec("INSERT INTO items VALUES (100, NULL, NULL, NULL, NULL, NULL, NULL)")
        .await;
    for v in views {
        s.check_view(v).await;
    }
    for sql in [
        "SELECT k, u, b, t, t2, ts3 FROM items ORDER BY u, k",
        "SELECT k FROM items WHERE u = '00000003-0000-4000-8000-000000000003' ORDER BY k",
        "SELECT k FROM items WHERE b > '\\x0200' ORDER BY k",
        "SELECT k FROM items WHERE t BETWEEN '05:00' AND '15:00' ORDER BY k",
        "SELECT u, count(*) FROM items GROUP BY u",
        "SELECT DISTINCT b FROM items",
        "SELECT b, count(*) FROM items GROUP BY b",
        "SELECT t2, count(*) FROM items GROUP BY t2",
        "SELECT u FROM items UNION SELECT u FROM owners",
        "SELECT u FROM items INTERSECT SELECT u FROM owners",
    ] {
        s.check(sql).await;
    }
    // Values cut to the column's precision on the way in, and refused when they do not read.
    for sql in [
        "INSERT INTO items (k, t) VALUES (200, '10')",
        "INSERT INTO items (k, u) VALUES (200, 'nope')",
        "INSERT INTO items (k, b) VALUES (200, '\\xa')",
        "INSERT INTO items (k, u) VALUES (200, 5)",
    ] {
        s.check_error(sql).await;
    }
    s.check("SELECT count(*) FROM items").await;
    // Values computed into precision columns are rounded as they are stored.
    s.exec("CREATE TABLE src (ts timestamp, t time)").await;
    s.exec(
        "INSERT INTO src VALUES ('2024-05-05 10:00:00.123456', '10:00:00.987654'), \
         ('1990-05-05 10:00:00.0005', '23:59:59.999')",
    )
    .await;
    s.exec("INSERT INTO items (k, t2, ts3) SELECT 300, t, ts FROM src")
        .await;
    s.exec("UPDATE items SET ts3 = ts3 + interval '0.0004 seconds', t2 = t2 + interval '0.004 s' WHERE k = 300")
        .await;
    s.check("SELECT t2, ts3 FROM items WHERE k = 300").await;
    s.exec("CREATE TABLE spans (a interval hour to minute, b interval)")
        .await;
    s.exec("INSERT INTO spans SELECT t, t2 FROM items WHERE k = 300")
        .await;
    s.check("SELECT * FROM spans").await;
    for v in views {
        s.check_view(v).await;
    }
}

/// The types the extended protocol infers for parameters next to the new types.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameter_types_are_inferred_as_postgres() {
    let (_kpg, _pg, s) = pair().await;
    s.exec("CREATE TABLE p (u uuid, b bytea, t time, ts3 timestamp(3))")
        .await;
    for sql in [
        "SELECT * FROM p WHERE u = $1",
        "SELECT * FROM p WHERE b = $1",
        "SELECT * FROM p WHERE t < $1",
        "SELECT * FROM p WHERE ts3 > $1",
        "SELECT t + $1 FROM p",
        "SELECT $1 + ts3 FROM p",
        "SELECT $1 || b FROM p",
        "SELECT t - $1 FROM p",
        "SELECT b || $1 FROM p",
        "SELECT $1::time(2)",
        "INSERT INTO p VALUES ($1, $2, $3, $4)",
        "UPDATE p SET t = $1 WHERE u = $2",
    ] {
        let (k, p) = (s.kpg.prepare(sql).await, s.pg.prepare(sql).await);
        let oids = |st: &tokio_postgres::Statement| {
            let params: Vec<u32> = st.params().iter().map(|t| t.oid()).collect();
            let columns: Vec<u32> = st.columns().iter().map(|c| c.type_().oid()).collect();
            (params, columns)
        };
        let p = p.unwrap_or_else(|e| panic!("PostgreSQL: {sql}: {}", describe_error(&e)));
        let k = k.unwrap_or_else(|e| panic!("kpg: {sql}: {}", describe_error(&e)));
        assert_eq!(oids(&k), oids(&p), "{sql}");
    }
}
