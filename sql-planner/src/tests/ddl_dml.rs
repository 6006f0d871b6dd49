//! CREATE, DROP, INSERT, UPDATE, DELETE and SUBSCRIBE.

use super::*;
use crate::{ParsedStatement, SubscribeTarget, UniqueKey};
use kpg_types::{BinaryFunc, ScalarExpr, UnaryFunc};

#[test]
fn create_table_types_and_nullability() {
    let p = plan_one(
        "CREATE TABLE IF NOT EXISTS Foo (A int, b INTEGER NOT NULL, c bigint, d smallint, e text, \
         f varchar(10), g character varying(3), h boolean, i numeric(15,2), j decimal, k double precision, \
         l float8, m date, \"Q\" bool NULL, n float)",
    )
    .unwrap();
    let PlannedStatement::CreateTable {
        name,
        desc,
        if_not_exists,
        ..
    } = p
    else {
        panic!()
    };
    assert_eq!(name, "foo");
    assert!(if_not_exists);
    let cols: Vec<(&str, ScalarType, bool)> = desc
        .columns
        .iter()
        .map(|(n, t)| (n.as_str(), t.scalar, t.nullable))
        .collect();
    assert_eq!(cols[0], ("a", ScalarType::Int32, true));
    assert_eq!(cols[1], ("b", ScalarType::Int32, false));
    assert_eq!(cols[2].1, ScalarType::Int64);
    assert_eq!(cols[3].1, ScalarType::Int16);
    assert_eq!(
        cols[5].1,
        ScalarType::VarChar {
            max_length: Some(10)
        }
    );
    assert_eq!(
        cols[8].1,
        ScalarType::Numeric {
            precision: Some(15),
            scale: Some(2)
        }
    );
    assert_eq!(cols[9].1, ScalarType::NUMERIC);
    assert_eq!(cols[10].1, ScalarType::Float64);
    assert_eq!(cols[13].0, "Q");
    assert_eq!(cols[14].1, ScalarType::Float64);
}

#[test]
fn create_errors() {
    assert_eq!(
        err("CREATE TABLE t (a int)").message,
        "relation \"t\" already exists"
    );
    assert_eq!(code("CREATE TABLE t (a int)"), "42P07");
    assert!(matches!(
        plan_one("CREATE TABLE IF NOT EXISTS t (a int)"),
        Ok(PlannedStatement::CreateTable { .. })
    ));
    assert_eq!(code("CREATE TABLE z (a int REFERENCES t (a))"), "0A000");
    assert_eq!(code("CREATE TABLE z (a int, CHECK (a > 0))"), "0A000");
    assert_eq!(code("CREATE TABLE z (a int DEFAULT b)"), "0A000");
    assert_eq!(code("CREATE TABLE z (a int DEFAULT true)"), "42804");
    assert_eq!(code("CREATE TABLE z (a json)"), "0A000");
    assert_eq!(code("CREATE TABLE z (a timetz)"), "0A000");
    assert_eq!(code("CREATE TABLE z (a int, A text)"), "42701");
    assert_eq!(code("CREATE TABLE z (a foo)"), "42704");
    assert_eq!(code("CREATE MATERIALIZED VIEW v AS SELECT 1"), "42P07");
    assert_eq!(code("CREATE MATERIALIZED VIEW w AS SELECT 1, 2"), "42701");
}

fn keys_of(sql: &str) -> (Vec<UniqueKey>, Vec<bool>) {
    let Ok(PlannedStatement::CreateTable { keys, desc, .. }) = plan_one(sql) else {
        panic!("{sql} did not plan")
    };
    (keys, desc.columns.iter().map(|(_, t)| t.nullable).collect())
}

fn key(name: &str, columns: &[usize], primary: bool) -> UniqueKey {
    UniqueKey {
        name: name.into(),
        columns: columns.to_vec(),
        primary,
    }
}

#[test]
fn create_table_constraints() {
    // Column and table constraints, PostgreSQL's names, the primary key first and NOT NULL.
    let (keys, nullable) = keys_of(
        "CREATE TABLE z (a int UNIQUE, b int, c text PRIMARY KEY, UNIQUE (b, a), \
         CONSTRAINT Named UNIQUE (c, b))",
    );
    assert_eq!(
        keys,
        vec![
            key("z_pkey", &[2], true),
            key("z_a_key", &[0], false),
            key("z_b_a_key", &[1, 0], false),
            key("named", &[2, 1], false),
        ]
    );
    assert_eq!(nullable, vec![true, true, false]);
    let (keys, nullable) = keys_of("CREATE TABLE z (a int, b int, PRIMARY KEY (b, a))");
    assert_eq!(keys, vec![key("z_pkey", &[1, 0], true)]);
    assert_eq!(nullable, vec![false, false]);
    // A unique constraint repeating another's columns is dropped; the primary key wins.
    let (keys, _) = keys_of("CREATE TABLE z (a int UNIQUE PRIMARY KEY, UNIQUE (a))");
    assert_eq!(keys, vec![key("z_pkey", &[0], true)]);
    // A taken name gets a number: `t` exists, so does the name chosen first.
    let (keys, _) = keys_of("CREATE TABLE z (t int UNIQUE, \"z_t_key\" int UNIQUE)");
    assert_eq!(
        keys,
        vec![
            key("z_t_key", &[0], false),
            key("z_z_t_key_key", &[1], false)
        ]
    );
    let (keys, _) =
        keys_of("CREATE TABLE z (a int, UNIQUE (a), CONSTRAINT uk UNIQUE (a, a2), a2 int)");
    assert_eq!(keys[1], key("uk", &[0, 1], false));
    let (keys, _) = keys_of("CREATE TABLE t_pkey (a int)");
    assert!(keys.is_empty());
    // Errors as PostgreSQL reports them.
    assert_eq!(
        code("CREATE TABLE z (a int PRIMARY KEY, b int PRIMARY KEY)"),
        "42P16"
    );
    assert_eq!(code("CREATE TABLE z (a int, PRIMARY KEY (b))"), "42703");
    assert_eq!(code("CREATE TABLE z (a int, UNIQUE (a, a))"), "42701");
    assert_eq!(code("CREATE TABLE z (a int CONSTRAINT t UNIQUE)"), "42P07");
    assert_eq!(
        code("CREATE TABLE z (a int CONSTRAINT c UNIQUE, b int CONSTRAINT c UNIQUE)"),
        "42P07"
    );
    // What kpg does not implement is refused, not ignored.
    assert_eq!(
        code("CREATE TABLE z (a int, UNIQUE NULLS NOT DISTINCT (a))"),
        "0A000"
    );
    assert_eq!(
        code("CREATE TABLE z (a int, UNIQUE (a) DEFERRABLE)"),
        "0A000"
    );
    assert_eq!(
        code("CREATE TABLE z (a int, b int, PRIMARY KEY (a) INCLUDE (b))"),
        "0A000"
    );
}

#[test]
fn create_materialized_view() {
    let p = plan_one("CREATE MATERIALIZED VIEW w AS SELECT b, count(*), sum(c) AS total FROM t GROUP BY b ORDER BY b").unwrap();
    let PlannedStatement::CreateView {
        name, desc, plan, ..
    } = p
    else {
        panic!()
    };
    assert_eq!(name, "w");
    assert_eq!(desc.names().collect::<Vec<_>>(), ["b", "count", "total"]);
    assert!(matches!(plan, Plan::Reduce { .. }));
    let p = plan_one("CREATE MATERIALIZED VIEW w (x, y) AS SELECT a, b FROM t").unwrap();
    let PlannedStatement::CreateView { desc, plan, .. } = p else {
        panic!()
    };
    assert_eq!(desc.names().collect::<Vec<_>>(), ["x", "y"]);
    assert_eq!(
        plan,
        Plan::Project {
            input: Box::new(Plan::Get { id: 1 }),
            outputs: vec![0, 1]
        }
    );
}

#[test]
fn drop() {
    assert_eq!(
        plan_one("DROP TABLE t, u CASCADE").unwrap(),
        PlannedStatement::Drop {
            ids: vec![1, 2],
            cascade: true,
            tag: "DROP TABLE",
            sql: Some("DROP TABLE t, u CASCADE".into()),
        }
    );
    assert_eq!(
        plan_one("DROP MATERIALIZED VIEW IF EXISTS v, nope").unwrap(),
        PlannedStatement::Drop {
            ids: vec![3],
            cascade: false,
            tag: "DROP MATERIALIZED VIEW",
            sql: Some("DROP MATERIALIZED VIEW IF EXISTS v, nope".into()),
        }
    );
    assert_eq!(
        err("DROP TABLE nope").message,
        "table \"nope\" does not exist"
    );
    assert_eq!(code("DROP TABLE nope"), "42P01");
    assert_eq!(err("DROP TABLE v").message, "\"v\" is not a table");
    assert_eq!(code("DROP TABLE v"), "42809");
    assert_eq!(code("DROP MATERIALIZED VIEW t"), "42809");
    assert_eq!(code("DROP INDEX i"), "42704");
}

fn constant_rows(p: PlannedStatement) -> Vec<Vec<Datum>> {
    let PlannedStatement::Insert {
        plan: Plan::Constant { rows },
        ..
    } = p
    else {
        panic!("{p:?}")
    };
    rows.into_iter()
        .map(|(r, d)| {
            assert_eq!(d, 1);
            r.into_datums()
        })
        .collect()
}

#[test]
fn insert_values_with_assignment_casts() {
    let rows = constant_rows(
        plan_one("INSERT INTO t VALUES (1, 'x', 2.345, '2024-01-02'), (2, NULL, 7, NULL)").unwrap(),
    );
    assert_eq!(
        rows[0],
        vec![
            Datum::Int32(1),
            text("x"),
            num("2.35"),
            Datum::parse_text("2024-01-02", &ScalarType::Date).unwrap()
        ]
    );
    assert_eq!(
        rows[1],
        vec![Datum::Int32(2), Datum::Null, num("7.00"), Datum::Null]
    );
    let rows = constant_rows(plan_one("INSERT INTO u (s, a) VALUES ('abc', 2.5)").unwrap());
    assert_eq!(
        rows[0],
        vec![Datum::Int32(3), Datum::Null, Datum::Null, text("abc")]
    );
    let rows = constant_rows(plan_one("INSERT INTO u VALUES (1)").unwrap());
    assert_eq!(
        rows[0],
        vec![Datum::Int32(1), Datum::Null, Datum::Null, Datum::Null]
    );
    let rows = constant_rows(plan_one("INSERT INTO u (x, s) VALUES (1 + 1, 12)").unwrap());
    assert_eq!(
        rows[0],
        vec![Datum::Null, Datum::Int64(2), Datum::Null, text("12")]
    );
}

#[test]
fn insert_errors() {
    // NOT NULL is checked by the server on the rows written (23502), not here.
    assert!(plan_one("INSERT INTO t VALUES (NULL)").is_ok());
    assert_eq!(
        err("INSERT INTO t (a) VALUES (true)").message,
        "column \"a\" is of type integer but expression is of type boolean"
    );
    assert_eq!(code("INSERT INTO t (a) VALUES (true)"), "42804");
    assert_eq!(code("INSERT INTO t (a) VALUES ('x')"), "22P02");
    assert_eq!(code("INSERT INTO u (s) VALUES ('toolong')"), "22001");
    assert_eq!(code("INSERT INTO u (a) VALUES (3000000000)"), "22003");
    assert_eq!(code("INSERT INTO t (c) VALUES (123456789012)"), "22003");
    assert_eq!(code("INSERT INTO t (a) VALUES (1, 2)"), "42601");
    assert_eq!(code("INSERT INTO t (a, b) VALUES (1)"), "42601");
    assert_eq!(code("INSERT INTO t (zz) VALUES (1)"), "42703");
    assert_eq!(
        err("INSERT INTO v VALUES (1, 2)").message,
        "cannot change materialized view \"v\""
    );
    assert_eq!(code("INSERT INTO v VALUES (1, 2)"), "42809");
    assert_eq!(code("INSERT INTO nope VALUES (1)"), "42P01");
    assert_eq!(code("INSERT INTO t (d) SELECT b FROM t"), "42804");
}

#[test]
fn insert_select() {
    let p = plan_one("INSERT INTO u (a, x) SELECT a, a FROM t WHERE a > 1").unwrap();
    let PlannedStatement::Insert { table, plan, .. } = p else {
        panic!()
    };
    assert_eq!(table, 2);
    let rows = eval(&plan, &catalog());
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0].0.datums(),
        &[Datum::Int32(2), Datum::Int64(2), Datum::Null, Datum::Null]
    );
    assert_eq!(rows[0].1, 2);
    // Untyped literals of a SELECT convert to the column type, as in PostgreSQL.
    let p = plan_one("INSERT INTO t (a, d) SELECT '7', '2024-05-06'").unwrap();
    let PlannedStatement::Insert {
        plan: Plan::Constant { rows },
        ..
    } = p
    else {
        panic!()
    };
    assert_eq!(rows[0].0.get(0).to_datum(), Datum::Int32(7));
    assert_eq!(code("INSERT INTO t (a) SELECT 'x'"), "22P02");
    assert_eq!(code("INSERT INTO t (a) SELECT b FROM t"), "42804");
}

#[test]
fn update_and_delete() {
    let p = plan_one("UPDATE t SET c = c * 2, b = 'z' WHERE a = 2 AND d IS NOT NULL").unwrap();
    let PlannedStatement::Update {
        table,
        predicates,
        assignments,
        ..
    } = p
    else {
        panic!()
    };
    assert_eq!(table, 1);
    assert_eq!(predicates.len(), 2);
    assert_eq!(assignments[0], ScalarExpr::Column(0));
    assert_eq!(assignments[1], ScalarExpr::Literal(text("z")));
    let numeric_10_2 = ScalarType::Numeric {
        precision: Some(10),
        scale: Some(2),
    };
    assert_eq!(
        assignments[2],
        ScalarExpr::Column(2)
            .call_binary(BinaryFunc::Mul, ScalarExpr::Literal(num("2")))
            .call_unary(UnaryFunc::Cast(numeric_10_2))
    );
    assert_eq!(assignments[3], ScalarExpr::Column(3));
    assert!(plan_one("UPDATE t SET a = NULL WHERE false").is_ok());
    assert_eq!(code("UPDATE t SET zz = 1"), "42703");
    assert_eq!(code("UPDATE t SET a = 1, a = 2"), "42601");
    assert_eq!(code("UPDATE v SET a = 1"), "42809");
    assert_eq!(code("UPDATE t SET a = count(*)"), "42803");
    let p = plan_one("DELETE FROM u AS q WHERE q.s LIKE 'x%'").unwrap();
    let PlannedStatement::Delete {
        table, predicates, ..
    } = p
    else {
        panic!()
    };
    assert_eq!((table, predicates.len()), (2, 1));
    assert_eq!(
        plan_one("DELETE FROM t").unwrap(),
        PlannedStatement::Delete {
            table: 1,
            predicates: vec![],
            returning: None,
        }
    );
    assert_eq!(code("DELETE FROM v"), "42809");
    assert_eq!(code("DELETE FROM t WHERE a"), "42804");
}

#[test]
fn subscribe_options() {
    let stmts = parse(
        "SUBSCRIBE v WITH (SNAPSHOT = false, PROGRESS) AS OF 1700000000000 UP TO 1700000001000; \
         COPY (SUBSCRIBE TO t WITH (progress = true) AS OF AT LEAST 5) TO STDOUT; SUBSCRIBE v",
    )
    .unwrap();
    let options = |s: &ParsedStatement| match s {
        ParsedStatement::Subscribe { options, .. } => options.clone(),
        other => panic!("{other:?}"),
    };
    let o = options(&stmts[0]);
    assert!(!o.snapshot && o.progress && !o.at_least);
    assert_eq!(
        (o.as_of, o.up_to),
        (Some(1_700_000_000_000), Some(1_700_000_001_000))
    );
    let o = options(&stmts[1]);
    assert!(o.snapshot && o.progress && o.at_least);
    assert_eq!((o.as_of, o.up_to), (Some(5), None));
    assert_eq!(options(&stmts[2]), crate::SubscribeOptions::default());
    assert!(parse("SUBSCRIBE v WITH (COLOR = red)").is_err());
    assert!(parse("SUBSCRIBE v AS OF now()").is_err());
    assert_eq!(code("SUBSCRIBE v AS OF 10 UP TO 5"), "22023");
}

#[test]
fn subscribe_parsing_and_planning() {
    let stmts = parse("SUBSCRIBE v; subscribe to \"V\"; COPY (SUBSCRIBE (SELECT a FROM t)) TO STDOUT; SUBSCRIBE TO public.t").unwrap();
    assert_eq!(stmts.len(), 4);
    assert!(
        matches!(&stmts[0], ParsedStatement::Subscribe { target: SubscribeTarget::Name(n), copy_to_stdout: false, .. } if n == "v")
    );
    assert!(
        matches!(&stmts[1], ParsedStatement::Subscribe { target: SubscribeTarget::Name(n), .. } if n == "V")
    );
    assert!(matches!(
        &stmts[2],
        ParsedStatement::Subscribe {
            target: SubscribeTarget::Query(_),
            copy_to_stdout: true,
            ..
        }
    ));
    let cat = catalog();
    let PlannedStatement::Subscribe { plan: p, desc, .. } = plan(&stmts[0], &cat).unwrap() else {
        panic!()
    };
    assert_eq!(p, Plan::Get { id: 3 });
    assert_eq!(desc.arity(), 2);
    let PlannedStatement::Subscribe { plan: p, desc, .. } = plan(&stmts[2], &cat).unwrap() else {
        panic!()
    };
    assert_eq!(
        p,
        Plan::Project {
            input: Box::new(Plan::Get { id: 1 }),
            outputs: vec![0]
        }
    );
    assert_eq!(desc.names().collect::<Vec<_>>(), ["a"]);
    assert_eq!(plan(&stmts[1], &cat).unwrap_err().code, "42P01");
    assert!(matches!(
        plan(&stmts[3], &cat),
        Ok(PlannedStatement::Subscribe { .. })
    ));
    assert_eq!(parse("COPY (SUBSCRIBE v) TO").unwrap_err().code, "42601");
    assert_eq!(parse("SUBSCRIBE").unwrap_err().code, "42601");
}

#[test]
fn session_statements_parse() {
    let stmts =
        parse("BEGIN; SELECT 1; COMMIT; ROLLBACK; SET x = 1; SHOW x; DISCARD ALL;").unwrap();
    assert_eq!(stmts.len(), 7);
}

#[test]
fn materialized_view_if_not_exists() {
    let p = plan_one("CREATE MATERIALIZED VIEW IF NOT EXISTS v AS SELECT a FROM t").unwrap();
    assert!(matches!(
        p,
        PlannedStatement::CreateView {
            if_not_exists: true,
            ..
        }
    ));
    let p = plan_one(
        "CREATE MATERIALIZED VIEW w AS SELECT t.a, u.x, t.a + u.x AS s FROM t, u WHERE t.a = u.a",
    )
    .unwrap();
    let PlannedStatement::CreateView { desc, .. } = p else {
        panic!()
    };
    assert_eq!(desc.names().collect::<Vec<_>>(), ["a", "x", "s"]);
    assert_eq!(desc.columns[2].1.scalar, ScalarType::Int64);
}
