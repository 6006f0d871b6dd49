//! Plan parameters: the types the binder gives `$n` by its uses (PostgreSQL's rules for
//! unknown-typed parameters), and plans with the values bound computing what the same
//! statement with literals computes.

use super::*;
use crate::{bind_values, plan_prepared};

fn prepare(sql: &str, declared: &[Option<ScalarType>]) -> (PlannedStatement, Vec<ScalarType>) {
    let stmts = parse(sql).unwrap();
    plan_prepared(&stmts[0], &catalog(), declared).unwrap_or_else(|e| panic!("{sql}: {e:?}"))
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
    let e = plan_prepared(&stmts[0], &catalog(), &[]).unwrap_err();
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
