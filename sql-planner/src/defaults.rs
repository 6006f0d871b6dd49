//! Column DEFAULT expressions: planned once at CREATE TABLE, used by INSERT (columns a column
//! list leaves out, `DEFAULT` in VALUES, `DEFAULT VALUES`) and `UPDATE ... SET c = DEFAULT`.
//!
//! A default is bound without any columns in scope and converted to its column's type with an
//! assignment cast, as PostgreSQL's `cookDefault` does (42804 when it cannot be). A column
//! reference is 0A000, as in PostgreSQL; kpg has no volatile functions (`now()`, `random()`),
//! so every default it accepts is a constant expression, evaluated when a row takes it (an
//! error such as a division by zero is the INSERT's, as in PostgreSQL). `DEFAULT NULL` is no
//! default at all, as PostgreSQL stores none for it.
//!
//! Each default keeps the text PostgreSQL's `pg_get_expr` shows for it (psql's `\d`,
//! `information_schema.columns.column_default`): a literal as PostgreSQL's deparser prints a
//! constant (`5`, `1.5`, `'-1'::integer`, `'x'::text`, `true`), anything else as written.

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::scope::Scope;
use crate::types::{coerce, CastContext};
use kpg_types::{ColumnType, ScalarExpr, ScalarType};
use sqlparser::ast::{Expr, UnaryOperator, Value};

/// A column's default: the expression (over no columns, of the column's type) and its text.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnDefault {
    pub expr: ScalarExpr,
    pub sql: String,
}

/// Plans `DEFAULT e` of column `name` of type `ty`; `None` for `DEFAULT NULL`.
pub fn plan_default(
    e: &Expr,
    name: &str,
    ty: &ColumnType,
) -> Result<Option<ColumnDefault>, PlanError> {
    if matches!(e, Expr::Value(v) if v.value == Value::Null) {
        return Ok(None);
    }
    let empty = Scope::empty();
    let bound = ExprContext::new(&empty, "DEFAULT")
        .bind(e)
        .map_err(|err| match err.code {
            "42703" | "42P01" => {
                PlanError::unsupported("cannot use column reference in DEFAULT expression")
            }
            "0A000" if err.message.starts_with("subqueries") => {
                PlanError::unsupported("cannot use subquery in DEFAULT expression")
            }
            _ => err,
        })?;
    let from = bound.type_name();
    let cast = coerce(bound, &ty.scalar, CastContext::Assignment)?.ok_or_else(|| {
        PlanError::datatype_mismatch(format!(
            "column \"{name}\" is of type {} but default expression is of type {from}",
            ty.scalar
        ))
    })?;
    Ok(Some(ColumnDefault {
        expr: cast.expr,
        sql: deparse(e, &ty.scalar),
    }))
}

/// The text PostgreSQL's deparser gives a default as written in `e` (its constants keep the
/// type the parser gave them, a quoted literal takes the column's type `ty`; implicit casts to
/// the column's type are not shown).
fn deparse(e: &Expr, ty: &ScalarType) -> String {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => number(n),
            Value::SingleQuotedString(s) => {
                format!("'{}'::{}", s.replace('\'', "''"), cast_name(ty))
            }
            Value::Boolean(b) => b.to_string(),
            other => other.to_string(),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => number(&format!("-{n}")),
                _ => e.to_string(),
            },
            _ => e.to_string(),
        },
        Expr::Nested(inner) => deparse(inner, ty),
        Expr::Cast {
            expr, data_type, ..
        } => match expr.as_ref() {
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) => match crate::types::scalar_type(data_type) {
                    Ok(ty) => format!("'{}'::{}", s.replace('\'', "''"), cast_name(&ty)),
                    Err(_) => e.to_string(),
                },
                _ => e.to_string(),
            },
            _ => e.to_string(),
        },
        // An operator's quoted operands are read as text (the usual resolution, `'a' || 'b'`).
        Expr::BinaryOp { left, op, right } => format!(
            "({} {op} {})",
            deparse(left, &ScalarType::Text),
            deparse(right, &ScalarType::Text)
        ),
        _ => e.to_string(),
    }
}

/// A number constant as PostgreSQL prints it: bare if it is a non-negative integer that fits
/// int4 or a non-negative decimal, otherwise quoted with its type.
fn number(n: &str) -> String {
    let negative = n.starts_with('-');
    let integral = n
        .trim_start_matches('-')
        .chars()
        .all(|c| c.is_ascii_digit());
    if integral {
        match n.parse::<i64>() {
            Ok(v) if i32::try_from(v).is_ok() => {
                if negative {
                    format!("'{n}'::integer")
                } else {
                    n.to_string()
                }
            }
            Ok(_) => format!("'{n}'::bigint"),
            Err(_) => format!("'{n}'::numeric"),
        }
    } else if negative {
        format!("'{n}'::numeric")
    } else {
        n.to_string()
    }
}

/// The type name PostgreSQL's deparser writes after `::` (without a length or precision).
fn cast_name(ty: &ScalarType) -> String {
    match ty {
        ScalarType::VarChar { .. } => "character varying".into(),
        ScalarType::Char { .. } => "bpchar".into(),
        ScalarType::Numeric { .. } => "numeric".into(),
        ScalarType::IntervalOf(_) => "interval".into(),
        ScalarType::TimestampOf(_) => "timestamp without time zone".into(),
        ScalarType::TimestampTzOf(_) => "timestamp with time zone".into(),
        ScalarType::TimeOf(_) => "time without time zone".into(),
        other => other.to_string(),
    }
}
