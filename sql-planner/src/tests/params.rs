//! Plan parameters: the types the binder gives `$n` by its uses (PostgreSQL's rules for
//! unknown-typed parameters), and plans with the values bound computing what the same
//! statement with literals computes.

use super::*;
use crate::{bind_values, plan_bound, plan_prepared, ParamValue};

fn prepare(sql: &str, declared: &[Option<ScalarType>]) -> (PlannedStatement, Vec<ScalarType>) {
    let stmts = parse(sql).unwrap();
    let prepared = plan_prepared(&stmts[0], &catalog(), declared);
    let planned = prepared.planned.unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    let types = prepared.types.into_iter();
    (
        planned,
        types.map(|t| t.unwrap_or(ScalarType::Text)).collect(),
    )
}

fn types(sql: &str) -> Vec<ScalarType> {
    prepare(sql, &[]).1
}

/// The rows of a SELECT with `values` bound, beside those of `literal` (the same query with
/// the values written in).
fn same_rows(sql: &str, values: &[Option<&str>], literal: &str) {
    let (planned, types) = prepare(sql, &[]);
    let values: Vec<Option<String>> = values.iter().map(|v| v.map(str::to_string)).collect();
    let bound = bind_values(&planned, &types, &values, "UTC".into()).unwrap();
    let PlannedStatement::Select { plan, .. } = bound else {
        panic!("not a select")
    };
    let mut has_param = false;
    let mut plan = plan;
    plan.visit_exprs_mut(&mut |e| has_param |= crate::plan_params::has_param(e));
    assert!(!has_param, "{sql}: a parameter is left");
    let PlannedStatement::Select { plan: lit, .. } = plan_one(literal).unwrap() else {
        panic!("not a select")
    };
    let cat = catalog();
    assert_eq!(eval(&plan, &cat), eval(&lit, &cat), "{sql}");
}

#[test]
fn parameters_take_their_type_from_their_first_use() {
    use ScalarType::*;
    assert_eq!(types("SELECT $1"), [Text]);
    assert_eq!(
        types("SELECT a FROM t WHERE a = $1 AND b = $2"),
        [Int32, Text]
    );
    assert_eq!(types("SELECT a + $1, $2::int8 FROM t"), [Int32, Int64]);
    assert_eq!(types("SELECT a FROM t WHERE a IN ($1, $2)"), [Int32, Int32]);
    assert_eq!(
        types("SELECT a FROM t WHERE a BETWEEN $1 AND $2"),
        [Int32, Int32]
    );
    assert_eq!(types("SELECT a FROM t WHERE b LIKE $1"), [Text]);
    assert_eq!(types("SELECT coalesce(b, $1) FROM t"), [Text]);
    // A parameter used twice has the type its first use gave it.
    assert_eq!(types("SELECT a FROM t WHERE a = $1 OR a + 1 = $1"), [Int32]);
    // Unreferenced and unconstrained parameters are text; declared ones keep their type.
    assert_eq!(types("SELECT a FROM t WHERE a = $2"), [Text, Int32]);
    assert_eq!(
        prepare("SELECT a FROM t WHERE a = $1", &[Some(Int64)]).1,
        [Int64]
    );
}

#[test]
fn conflicting_uses_fail_as_in_postgres() {
    let stmts = parse("SELECT a FROM t WHERE $1 = a AND $1 = b").unwrap();
    let e = plan_prepared(&stmts[0], &catalog(), &[])
        .planned
        .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42883", "operator does not exist: integer = text")
    );
    // Outside a prepared statement there is no parameter.
    assert_eq!(code("SELECT $1"), "42P02");
}

#[test]
fn bound_plans_compute_what_literals_do() {
    same_rows(
        "SELECT a, b FROM t WHERE a = $1",
        &[Some("2")],
        "SELECT a, b FROM t WHERE a = 2",
    );
    same_rows(
        "SELECT a * $1, $2 || b FROM t WHERE b <> $3",
        &[Some("3"), Some("x"), None],
        "SELECT a * 3, 'x' || b FROM t WHERE b <> NULL",
    );
    same_rows(
        "SELECT $1, $2::int4 + 1",
        &[Some("v"), Some("41")],
        "SELECT 'v', 42",
    );
    let (planned, types) = prepare("SELECT a FROM t WHERE a = $1", &[]);
    let e = bind_values(&planned, &types, &[Some("abc".into())], "UTC".into()).unwrap_err();
    assert_eq!(e.code, "22P02");
}

#[test]
fn limit_and_offset_are_parameters_of_the_plan() {
    let sql = "SELECT a FROM t ORDER BY a LIMIT $1 OFFSET $2";
    let (planned, types) = prepare(sql, &[]);
    assert_eq!(types, [ScalarType::Int64, ScalarType::Int64]);
    let bind = |limit: Option<&str>, offset: &str| {
        let values = [limit.map(str::to_string), Some(offset.to_string())];
        bind_values(&planned, &types, &values, "UTC".into())
    };
    let PlannedStatement::Select { finishing, .. } = bind(Some("2"), "1").unwrap() else {
        panic!("not a select")
    };
    assert_eq!((finishing.limit, finishing.offset), (Some(2), 1));
    assert!(finishing.counts.is_none());
    // NULL is no limit; negative values fail at Bind as literals fail at planning.
    let PlannedStatement::Select { finishing, .. } = bind(None, "0").unwrap() else {
        panic!("not a select")
    };
    assert_eq!((finishing.limit, finishing.offset), (None, 0));
    assert_eq!(bind(Some("-1"), "0").unwrap_err().code, "2201W");
    assert_eq!(bind(Some("1"), "-1").unwrap_err().code, "2201X");
    // Both are typed before either is evaluated.
    let stmts = parse("SELECT a FROM t LIMIT $1 OFFSET 'x'::text").unwrap();
    let e = plan_prepared(&stmts[0], &catalog(), &[]);
    assert_eq!(e.types, [Some(ScalarType::Int64)]);
    assert_eq!(e.planned.unwrap_err().code, "42804");
}

#[test]
fn statements_that_need_their_values_are_planned_with_them() {
    // A subquery's LIMIT and OFFSET are planned into the dataflow as expressions of the
    // parameters, computed when the values are bound: planned once.
    let sql = "SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT $1 OFFSET $3) s WHERE a > $2";
    let prepared = plan_prepared(&parse(sql).unwrap()[0], &catalog(), &[]);
    assert!(prepared.planned.is_ok());
    assert_eq!(
        prepared.types,
        [
            Some(ScalarType::Int64),
            Some(ScalarType::Int32),
            Some(ScalarType::Int64)
        ]
    );
    let planned = prepared.planned.unwrap();
    let types = [ScalarType::Int64, ScalarType::Int32, ScalarType::Int64];
    for (values, literal) in [
        (["2", "0", "1"], "LIMIT '2' OFFSET '1') s WHERE a > '0'"),
        (["1", "5", "0"], "LIMIT '1' OFFSET '0') s WHERE a > '5'"),
    ] {
        let values: Vec<_> = values.iter().map(|v| Some(v.to_string())).collect();
        let bound = bind_values(&planned, &types, &values, "UTC".into()).unwrap();
        let literal = format!("SELECT a FROM (SELECT a FROM t ORDER BY a {literal}");
        assert_eq!(bound, plan_one(&literal).unwrap(), "{sql} with {values:?}");
    }
    // A negative count is PostgreSQL's error, when the values are bound.
    let values = [Some("-1".to_string()), Some("0".into()), Some("0".into())];
    let e = bind_values(&planned, &types, &values, "UTC".into()).unwrap_err();
    assert_eq!(e.code, "2201W");
    // An OID type's input from a parameter is looked up as it runs: planned once.
    for (sql, types) in [
        (
            "SELECT $1::regclass, a FROM t WHERE a > $2",
            [Some(ScalarType::Text), Some(ScalarType::Int32)],
        ),
        (
            "SELECT to_regclass($1), a FROM t WHERE b = $2",
            [Some(ScalarType::Text), Some(ScalarType::Text)],
        ),
    ] {
        let prepared = plan_prepared(&parse(sql).unwrap()[0], &catalog(), &[]);
        assert!(prepared.planned.is_ok(), "{sql}");
        assert_eq!(prepared.types, types, "{sql}");
    }
    let (planned, types) = prepare("SELECT $1::regtype, to_regtype($1)", &[]);
    for (name, oids) in [
        ("int4", Ok([Datum::Int64(23), Datum::Int64(23)])),
        (
            "pg_catalog.INTEGER",
            Ok([Datum::Int64(23), Datum::Int64(23)]),
        ),
        ("\"text\"", Ok([Datum::Int64(25), Datum::Int64(25)])),
        ("nosuch", Err("42704")),
    ] {
        // Folded when the value is bound (a constant): its error is the Bind's.
        let bound = bind_values(&planned, &types, &[Some(name.into())], "UTC".into());
        let rows = bound.map(|bound| {
            let PlannedStatement::Select { plan, .. } = bound else {
                panic!("not a select")
            };
            eval(&plan, &catalog())[0].0.datums()
        });
        match oids {
            Ok(oids) => assert_eq!(rows.unwrap(), oids, "{name}"),
            Err(code) => assert_eq!(rows.unwrap_err().code, code, "{name}"),
        }
    }
    let (planned, types) = prepare("SELECT to_regtype($1)", &[]);
    let bound = bind_values(&planned, &types, &[Some("nosuch".into())], "UTC".into()).unwrap();
    let PlannedStatement::Select { plan, .. } = bound else {
        panic!("not a select")
    };
    assert_eq!(eval(&plan, &catalog())[0].0.datums(), [Datum::Null]);
    // A value given a type is that type's literal (named as PostgreSQL names a parameter's
    // column, not as the cast the text was once rewritten into); NULL is NULL.
    let stmts = parse("SELECT $1, $2 FROM t").unwrap();
    let values = [
        ParamValue {
            text: Some("7".into()),
            declared: Some(ScalarType::Int64),
        },
        ParamValue {
            text: None,
            declared: None,
        },
    ];
    let bound = plan_bound(&stmts[0], &catalog(), &values).unwrap();
    assert_eq!(
        bound,
        plan_one("SELECT CAST('7' AS int8) AS \"?column?\", NULL FROM t").unwrap()
    );
    // A parameter without a value is 42P02, as in a statement that takes none.
    let e = plan_bound(&stmts[0], &catalog(), &values[..1]).unwrap_err();
    assert_eq!(e.code, "42P02");
}

/// A prepared INSERT whose VALUES read the clock is planned once: the clock is read when it
/// runs (`values_now`), not when it was prepared.
#[test]
fn inserts_reading_the_clock_are_planned_once() {
    let sql = "INSERT INTO t (a, b, d) VALUES ($1, 'x', current_date), (2, $2, current_date + 1)";
    let prepared = plan_prepared(&parse(sql).unwrap()[0], &catalog(), &[]);
    assert!(prepared.planned.is_ok());
    let planned = prepared.planned.unwrap();
    let types = [ScalarType::Int32, ScalarType::Text];
    let values = [Some("1".to_string()), None];
    let at = |day: u32| {
        let t = chrono::NaiveDate::from_ymd_opt(2024, 1, day)
            .unwrap()
            .and_hms_opt(3, 4, 5)
            .unwrap();
        let mut bound = bind_values(&planned, &types, &values, "UTC".into()).unwrap();
        // The run's clock, as the coordinator binds it into a write.
        bound.visit_exprs_mut(&mut |e| e.bind_clock(t, t));
        crate::values_now(&mut bound).unwrap();
        let PlannedStatement::Insert { plan, .. } = bound else {
            panic!("not an insert")
        };
        plan
    };
    let date =
        |s: &str| kpg_types::Datum::Date(chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap());
    let row = |a: i32, b: Datum, d: String| {
        (Row::new(vec![Datum::Int32(a), b, Datum::Null, date(&d)]), 1)
    };
    // Two runs, on two days: each reads its own.
    for day in [2, 9] {
        let expected = vec![
            row(1, Datum::String("x".into()), format!("2024-01-{day:02}")),
            row(2, Datum::Null, format!("2024-01-{:02}", day + 1)),
        ];
        assert_eq!(at(day), Plan::Constant { rows: expected }, "on day {day}");
    }
}

/// A unit given by a parameter is read as the function runs: such statements are planned
/// once, and compute what the unit written in computes.
#[test]
fn units_from_parameters_are_planned_once() {
    for (sql, unit, literal) in [
        ("SELECT date_part($1, d) FROM t", "doy", "SELECT date_part('doy', d) FROM t"),
        (
            "SELECT date_trunc($1, CAST(d AS timestamp)), a FROM t",
            "quarter",
            "SELECT date_trunc('quarter', CAST(d AS timestamp)), a FROM t",
        ),
        (
            "SELECT date_trunc($1, d) FROM t",
            "month",
            "SELECT date_trunc('month', d) FROM t",
        ),
        (
            "SELECT date_trunc($1, CAST(d AS timestamptz), 'Asia/Tokyo') FROM t",
            "day",
            "SELECT date_trunc('day', CAST(d AS timestamptz), 'Asia/Tokyo') FROM t",
        ),
        (
            "SELECT date_part($1, CAST(d AS timestamptz) + interval '7 hours') FROM t",
            "hour",
            "SELECT date_part('hour', CAST(d AS timestamptz) + interval '7 hours') FROM t",
        ),
        (
            "SELECT date_part($1, CAST(d AS timestamp) - CAST('2020-01-01' AS timestamp)) FROM t",
            "epoch",
            "SELECT date_part('epoch', CAST(d AS timestamp) - CAST('2020-01-01' AS timestamp)) FROM t",
        ),
    ] {
        let prepared = plan_prepared(&parse(sql).unwrap()[0], &catalog(), &[]);
        assert!(prepared.planned.is_ok(), "{sql}");
        assert_eq!(prepared.types, [Some(ScalarType::Text)], "{sql}");
        same_rows(sql, &[Some(unit)], literal);
    }
    // A unit the value's type has not: PostgreSQL's errors, as the function runs.
    let (planned, types) = prepare("SELECT date_trunc($1, CAST(d AS timestamp)) FROM t", &[]);
    for (unit, code) in [
        ("fortnight", "22023"),
        ("timezone", "0A000"),
        ("dow", "22023"),
    ] {
        let bound = bind_values(&planned, &types, &[Some(unit.into())], "UTC".into()).unwrap();
        let PlannedStatement::Select { plan, .. } = bound else {
            panic!("not a select")
        };
        let e = try_eval(&plan, &catalog()).unwrap_err();
        assert_eq!(e.sqlstate(), code, "{unit}: {e}");
    }
}

/// A window frame's offsets given by parameters are computed as the query runs: planned
/// once, and computing what the offsets written in compute.
#[test]
fn frame_offsets_from_parameters_are_planned_once() {
    for (sql, values, literal) in [
        (
            "SELECT a, sum(a) OVER (ORDER BY a ROWS BETWEEN $1 PRECEDING AND $2 FOLLOWING) FROM t",
            [Some("1"), Some("0")],
            "SELECT a, sum(a) OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND 0 FOLLOWING) FROM t",
        ),
        (
            "SELECT a, count(*) OVER (ORDER BY c RANGE BETWEEN $1 PRECEDING AND $2 FOLLOWING) FROM t",
            [Some("1"), Some("8")],
            "SELECT a, count(*) OVER (ORDER BY c RANGE BETWEEN 1 PRECEDING AND 8 FOLLOWING) FROM t",
        ),
    ] {
        let prepared = plan_prepared(&parse(sql).unwrap()[0], &catalog(), &[]);
        assert!(prepared.planned.is_ok(), "{sql}");
        same_rows(sql, &values, literal);
    }
}
