//! SQL-like text for expressions and aggregates: `#n` for input columns, literals as SQL writes
//! them, operators infix, functions by name. Used by EXPLAIN and by introspection (index and
//! arrangement keys), so both show an expression the same way.

use std::fmt;

use crate::agg::AggregateExpr;
use crate::datum::Datum;
use crate::expr::{BinaryFunc, ScalarExpr, UnaryFunc};
use crate::subquery::{BoundSubquery, SubqueryKind};

impl fmt::Display for ScalarExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&expr(self))
    }
}

impl fmt::Display for AggregateExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&aggregate(self))
    }
}

/// `(e1, e2, ...)`
pub fn expr_list(es: &[ScalarExpr]) -> String {
    let parts: Vec<String> = es.iter().map(expr).collect();
    format!("({})", parts.join(", "))
}

fn aggregate(a: &AggregateExpr) -> String {
    let name = a.func.name();
    let distinct = if a.distinct { "distinct " } else { "" };
    if name == "count" && a.expr == ScalarExpr::literal_true() {
        return "count(*)".to_string();
    }
    format!("{name}({distinct}{})", expr(&a.expr))
}

/// A literal as SQL would write it.
fn literal(d: &Datum) -> String {
    // The session's zone as a zone argument (`datetime::SESSION_ZONE`), which no SQL text
    // holds: shown by name, without its mark.
    if let Datum::String(s) = d {
        if let Some(zone) = s.strip_prefix(crate::datetime::SESSION_ZONE) {
            return format!("session TimeZone '{zone}'");
        }
    }
    match d.to_text() {
        None => "NULL".to_string(),
        Some(t) => match d {
            Datum::Bool(_) => if t == "t" { "true" } else { "false" }.to_string(),
            Datum::Int32(_) | Datum::Int64(_) | Datum::Float64(_) | Datum::Numeric(_) => t,
            _ => format!("'{}'", t.replace('\'', "''")),
        },
    }
}

/// An infix operator for a binary function, if it is written as one. Functions named for
/// their operation on particular types (`AddDateDays`, `SubTimestamps`, ...) are `+`/`-`/...
fn infix(func: &BinaryFunc) -> Option<&'static str> {
    Some(match func {
        BinaryFunc::And => "AND",
        BinaryFunc::Or => "OR",
        BinaryFunc::Eq => "=",
        BinaryFunc::NotEq => "<>",
        BinaryFunc::Lt => "<",
        BinaryFunc::Lte => "<=",
        BinaryFunc::Gt => ">",
        BinaryFunc::Gte => ">=",
        BinaryFunc::Mod => "%",
        BinaryFunc::Concat => "||",
        BinaryFunc::JsonbGet { as_text: false } => "->",
        BinaryFunc::JsonbGet { as_text: true } => "->>",
        BinaryFunc::JsonbPath { as_text: false } => "#>",
        BinaryFunc::JsonbPath { as_text: true } => "#>>",
        BinaryFunc::JsonbContains => "@>",
        BinaryFunc::JsonbExists => "?",
        BinaryFunc::JsonbConcat => "||",
        BinaryFunc::JsonbDelete => "-",
        BinaryFunc::Like => "LIKE",
        BinaryFunc::ILike => "ILIKE",
        other => {
            let name = format!("{other:?}");
            [("Add", "+"), ("Sub", "-"), ("Mul", "*"), ("Div", "/")]
                .into_iter()
                .find(|(prefix, _)| name.starts_with(prefix))?
                .1
        }
    })
}

/// An expression in SQL-like text, fully parenthesized below the top.
fn expr(e: &ScalarExpr) -> String {
    match e {
        ScalarExpr::Column(c) => format!("#{c}"),
        ScalarExpr::Literal(d) => literal(d),
        ScalarExpr::Unary { func, expr: arg } => {
            let a = operand(arg);
            match func {
                UnaryFunc::Not => format!("NOT {a}"),
                UnaryFunc::IsNull => format!("{a} IS NULL"),
                UnaryFunc::IsNotNull => format!("{a} IS NOT NULL"),
                UnaryFunc::Neg => format!("-{a}"),
                UnaryFunc::Cast(ty) => format!("{a}::{ty}"),
                UnaryFunc::OctetLength => format!("octet_length({})", expr(arg)),
                UnaryFunc::ToMzTimestamp => format!("{a}::mz_timestamp"),
                UnaryFunc::MzTimestampNext => format!("{a} + 1"),
                UnaryFunc::ToJsonb => format!("to_jsonb({})", expr(arg)),
                UnaryFunc::JsonbObjectOfPairs => format!("jsonb_object_of_pairs({})", expr(arg)),
                other => {
                    let name = format!("{other:?}");
                    let (name, detail) = match name.split_once('(') {
                        Some((n, rest)) => (
                            n.to_lowercase(),
                            format!("'{}', ", rest.trim_end_matches(')').to_lowercase()),
                        ),
                        None => (name.to_lowercase(), String::new()),
                    };
                    format!("{name}({detail}{})", expr(arg))
                }
            }
        }
        ScalarExpr::Binary { func, left, right } => match infix(func) {
            Some(op) => format!("{} {op} {}", operand(left), operand(right)),
            None => {
                // Named as SQL writes them; the two-argument forms of round and trunc have
                // variant names of their own.
                let name = match func {
                    BinaryFunc::RoundScale => "round".to_string(),
                    BinaryFunc::TruncScale => "trunc".to_string(),
                    _ => format!("{func:?}").to_lowercase(),
                };
                format!("{name}({}, {})", expr(left), expr(right))
            }
        },
        ScalarExpr::Variadic {
            func: crate::expr::VariadicFunc::MzNow,
            ..
        } => "mz_now()".to_string(),
        ScalarExpr::Variadic { func, exprs: args } => {
            let parts: Vec<String> = args.iter().map(expr).collect();
            let name = match func {
                crate::expr::VariadicFunc::JsonbBuildArray => "jsonb_build_array".to_string(),
                crate::expr::VariadicFunc::JsonbBuildObject => "jsonb_build_object".to_string(),
                _ => format!("{func:?}").to_lowercase(),
            };
            format!("{name}({})", parts.join(", "))
        }
        ScalarExpr::If { cond, then, els } => format!(
            "CASE WHEN {} THEN {} ELSE {} END",
            expr(cond),
            expr(then),
            expr(els)
        ),
        ScalarExpr::Subquery(s) => subquery(s),
        ScalarExpr::Param(n) => format!("${n}"),
    }
}

/// A subquery node, its plan left out (EXPLAIN RAW prints it below the operator): the
/// kind, and the outer values it reads, e.g. `exists(outer: #0, #2)`, `#1 = any()`.
fn subquery(s: &BoundSubquery) -> String {
    let outer: Vec<String> = s.outer.iter().map(expr).collect();
    let args = if outer.is_empty() {
        String::new()
    } else {
        format!("outer: {}", outer.join(", "))
    };
    match &s.kind {
        SubqueryKind::Scalar => format!("select({args})"),
        SubqueryKind::Exists => format!("exists({args})"),
        SubqueryKind::Quantified { left, op, all } => format!(
            "{} {} {}({args})",
            operand(left),
            infix(op).unwrap_or("?"),
            if *all { "all" } else { "any" }
        ),
    }
}

/// An operand of an operator: parenthesized unless it is a column or a literal.
fn operand(e: &ScalarExpr) -> String {
    match e {
        ScalarExpr::Column(_) | ScalarExpr::Literal(_) => expr(e),
        _ => format!("({})", expr(e)),
    }
}
