//! Expression typing, casts and constant folding.

use super::*;
use kpg_types::{BinaryFunc, ScalarExpr, UnaryFunc};

fn one(sql: &str) -> Datum {
    let rows = query(sql);
    assert_eq!(rows.len(), 1, "{sql}");
    rows[0][0].clone()
}

fn ty(sql: &str) -> ScalarType {
    describe(sql)[0].1.scalar
}

#[test]
fn literal_types() {
    assert_eq!(ty("SELECT 1"), ScalarType::Int32);
    assert_eq!(ty("SELECT 3000000000"), ScalarType::Int64);
    assert_eq!(ty("SELECT 1.5"), ScalarType::NUMERIC);
    assert_eq!(ty("SELECT 'a'"), ScalarType::Text);
    assert_eq!(ty("SELECT NULL"), ScalarType::Text);
    assert_eq!(one("SELECT -2147483648"), Datum::Int32(i32::MIN));
    assert_eq!(
        one("SELECT 99999999999999999999"),
        num("99999999999999999999")
    );
}

#[test]
fn numeric_promotion_and_casts() {
    assert_eq!(ty("SELECT a + x FROM u"), ScalarType::Int64);
    assert_eq!(ty("SELECT a + c FROM t"), ScalarType::NUMERIC);
    assert_eq!(ty("SELECT x * y FROM u"), ScalarType::Float64);
    // Reals stay real among themselves; with any other number they meet in double precision
    // for operators, and are the wider type in CASE/COALESCE/UNION.
    assert_eq!(ty("SELECT 1.5::real * 2::real"), ScalarType::Float32);
    assert_eq!(ty("SELECT 1.5::real + 1"), ScalarType::Float64);
    assert_eq!(ty("SELECT 1.5::real + 2.5"), ScalarType::Float64);
    assert_eq!(ty("SELECT coalesce(1.5::real, 2)"), ScalarType::Float32);
    assert_eq!(
        ty("SELECT coalesce(1.5::real, y) FROM u"),
        ScalarType::Float64
    );
    assert_eq!(ty("SELECT sum(a::float4) FROM t"), ScalarType::Float32);
    assert_eq!(ty("SELECT avg(a::float(10)) FROM t"), ScalarType::Float64);
    assert_eq!(one("SELECT 0.1::real"), Datum::Float32(0.1f32.into()));
    assert_eq!(one("SELECT (0.1::real)::numeric"), num("0.1"));
    assert_eq!(one("SELECT 7 / 2"), Datum::Int32(3));
    assert_eq!(one("SELECT 7.0 / 2"), num("3.5000000000000000"));
    assert_eq!(one("SELECT 1 + '2'"), Datum::Int32(3));
    assert_eq!(one("SELECT '12.345'::numeric(5,2)"), num("12.35"));
    assert_eq!(one("SELECT CAST(2.5 AS integer)"), Datum::Int32(3));
    assert_eq!(one("SELECT 1::bool"), Datum::Bool(true));
    assert_eq!(one("SELECT 'a' || 1 || true"), text("a1true"));
    assert_eq!(one("SELECT 'abc'::varchar(2)"), text("ab"));
    assert_eq!(one("SELECT abs('-1')"), Datum::Float64(1.0.into()));
    // A column compared with a bigint literal is widened, not the literal narrowed.
    let PlannedStatement::Select { plan, .. } =
        plan_one("SELECT b FROM t WHERE a = 3000000000").unwrap()
    else {
        panic!()
    };
    let mut pred = None;
    plan.visit(&mut |n| {
        if let Plan::Filter { predicates, .. } = n {
            pred = Some(predicates[0].clone());
        }
    });
    assert_eq!(
        pred.unwrap(),
        ScalarExpr::Column(0)
            .call_unary(UnaryFunc::Cast(ScalarType::Int64))
            .call_binary(
                BinaryFunc::Eq,
                ScalarExpr::Literal(Datum::Int64(3_000_000_000))
            )
    );
}

#[test]
fn unknown_literals_take_the_context_type() {
    assert_eq!(
        query("SELECT a FROM t WHERE d = '2024-02-01'"),
        vec![vec![Datum::Int32(2)]]
    );
    assert_eq!(
        query("SELECT a FROM t WHERE d < '2024-02-01'::date + 1"),
        vec![vec![Datum::Int32(1)], vec![Datum::Int32(2)]]
    );
    assert_eq!(
        one("SELECT DATE '2024-03-01' - DATE '2024-02-01'"),
        Datum::Int32(29)
    );
    assert_eq!(
        one("SELECT DATE '2024-02-28' + 2"),
        Datum::parse_text("2024-03-01", &ScalarType::Date).unwrap()
    );
    assert_eq!(err("SELECT a FROM t WHERE a = 'x'").code, "22P02");
    assert_eq!(
        err("SELECT a FROM t WHERE a = 'x'").message,
        "invalid input syntax for type integer: \"x\""
    );
}

#[test]
fn boolean_and_null_logic() {
    assert_eq!(one("SELECT NULL AND false"), Datum::Bool(false));
    assert_eq!(one("SELECT NULL OR false"), Datum::Null);
    assert_eq!(one("SELECT NULL IS NULL"), Datum::Bool(true));
    assert_eq!(one("SELECT NULL::bool IS NOT TRUE"), Datum::Bool(true));
    assert_eq!(one("SELECT (1 = NULL) IS UNKNOWN"), Datum::Bool(true));
    assert_eq!(one("SELECT NULL IS DISTINCT FROM 1"), Datum::Bool(true));
    assert_eq!(one("SELECT 2 IS NOT DISTINCT FROM 2"), Datum::Bool(true));
    assert_eq!(one("SELECT 2 BETWEEN 1 AND 3"), Datum::Bool(true));
    assert_eq!(one("SELECT 2 NOT BETWEEN 1 AND 3"), Datum::Bool(false));
    assert_eq!(one("SELECT 2 IN (1, NULL)"), Datum::Null);
    assert_eq!(one("SELECT 2 NOT IN (1, 3)"), Datum::Bool(true));
    assert_eq!(one("SELECT 'abc' LIKE 'a%'"), Datum::Bool(true));
    assert_eq!(one("SELECT 'ABC' NOT ILIKE 'a%'"), Datum::Bool(false));
}

#[test]
fn case_coalesce_nullif_functions() {
    assert_eq!(query("SELECT CASE WHEN a = 1 THEN 'one' WHEN a = 2 THEN 'two' ELSE 'many' END FROM t ORDER BY a").len(), 4);
    assert_eq!(
        one("SELECT CASE 2 WHEN 1 THEN 1.5 WHEN 2 THEN 2 END"),
        num("2")
    );
    assert_eq!(one("SELECT CASE WHEN false THEN 1 END"), Datum::Null);
    assert_eq!(
        ty("SELECT CASE WHEN true THEN 1 ELSE 2.5 END"),
        ScalarType::NUMERIC
    );
    assert_eq!(one("SELECT coalesce(NULL, 2, 3)"), Datum::Int32(2));
    assert_eq!(one("SELECT nullif(2, 2)"), Datum::Null);
    assert_eq!(one("SELECT nullif(2, 3)"), Datum::Int32(2));
    assert_eq!(one("SELECT abs(-4)"), Datum::Int32(4));
    assert_eq!(one("SELECT upper('ab') || lower('CD')"), text("ABcd"));
    assert_eq!(one("SELECT length('héllo')"), Datum::Int32(5));
    assert_eq!(
        one("SELECT char_length(s) FROM u WHERE a = 1"),
        Datum::Int32(1)
    );
}

#[test]
fn constant_folding_errors_at_plan_time() {
    assert_eq!(code("SELECT 1/0"), "22012");
    assert_eq!(code("SELECT 2147483647 + 1"), "22003");
    assert_eq!(code("SELECT 'abc'::int"), "22P02");
    // Not folded away: only the branch taken is evaluated for a constant condition.
    assert_eq!(
        one("SELECT CASE WHEN true THEN 1 ELSE 2 END"),
        Datum::Int32(1)
    );
}
