//! Typing consistency: every expression the planner accepts must evaluate without hitting the
//! evaluator's "planner typed this wrong" panics. Operands of every type (columns, literals,
//! untyped strings, NULL) are combined with every operator, planned, and evaluated over the
//! mock data; planning errors and evaluation errors are fine, panics are not.

use super::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

const OPERANDS: &[&str] = &[
    "t.a",
    "t.b",
    "t.c",
    "t.d",
    "u.x",
    "u.y",
    "u.s",
    "1",
    "3000000000",
    "2.5",
    "'7'",
    "'2024-01-01'",
    "NULL",
    "true",
    "DATE '2024-01-01'",
    "1e3",
    "(t.a > 1)",
    "count(*)",
    "sum(t.c)",
    "coalesce(u.a, 1)",
    "CASE WHEN t.a > 1 THEN t.b END",
    "t.a::text",
    "nullif(u.s, 'x')",
];

const OPERATORS: &[&str] = &[
    "+",
    "-",
    "*",
    "/",
    "%",
    "=",
    "<>",
    "<",
    ">=",
    "||",
    "AND",
    "OR",
    "LIKE",
    "NOT ILIKE",
    "IS DISTINCT FROM",
];

fn check(sql: &str, cat: &MockCatalog) {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let Ok(stmts) = parse(sql) else { return };
        if let Ok(PlannedStatement::Select { plan, .. }) = plan(&stmts[0], cat) {
            let _ = try_eval(&plan, cat);
        }
    }));
    assert!(outcome.is_ok(), "panicked on {sql}");
}

#[test]
fn every_operator_over_every_operand_type() {
    let cat = catalog();
    for l in OPERANDS {
        for r in OPERANDS {
            for op in OPERATORS {
                check(&format!("SELECT {l} {op} {r} FROM t JOIN u ON t.a = u.a GROUP BY t.a, t.b, t.c, t.d, u.x, u.y, u.s, u.a"), &cat);
                check(&format!("SELECT {l} {op} {r} FROM t, u"), &cat);
            }
            for f in ["coalesce", "nullif"] {
                check(&format!("SELECT {f}({l}, {r}) FROM t, u"), &cat);
            }
            check(
                &format!("SELECT CASE WHEN t.a = 1 THEN {l} ELSE {r} END FROM t, u"),
                &cat,
            );
            check(&format!("SELECT {l} IN ({r}, {l}) FROM t, u"), &cat);
            check(&format!("SELECT {l} FROM t UNION SELECT {r} FROM u"), &cat);
            check(&format!("SELECT count(*) FROM t, u WHERE {l} = {r}"), &cat);
        }
        for ty in [
            "int",
            "bigint",
            "numeric(5,1)",
            "text",
            "varchar(2)",
            "bool",
            "date",
            "float8",
        ] {
            check(&format!("SELECT CAST({l} AS {ty}) FROM t, u"), &cat);
            check(&format!("INSERT INTO u (s) SELECT {l}::{ty} FROM t"), &cat);
        }
        for f in [
            "abs", "upper", "lower", "length", "sum", "min", "max", "avg", "count", "bool_and", "-",
        ] {
            check(&format!("SELECT {f}({l}) FROM t, u"), &cat);
        }
        check(&format!("SELECT {l} FROM t, u ORDER BY 1"), &cat);
        check(
            &format!("SELECT {l} IS NULL, {l} IS TRUE, {l} BETWEEN 1 AND 2 FROM t, u"),
            &cat,
        );
    }
}
