//! The jsonb operators: `->` and `->>` (a field by text key, an element by integer index),
//! `#>` and `#>>` (a path given as a text array, `'{a,0,b}'` or `ARRAY['a', '0', 'b']`), `@>` and `<@`
//! (containment) and `?` (key existence), typed as PostgreSQL types them; `||` of two jsonb
//! values and `-` of a key or an index (reached from `ops.rs`). An unknown literal on the
//! jsonb side is read as jsonb.

use kpg_types::{BinaryFunc, ScalarType};
use sqlparser::ast::{BinaryOperator, Expr};

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::fold;
use crate::ops::{names, no_operator};
use crate::types::{coerce, CastContext, Typed};

/// Whether `op` is one of the jsonb operators.
pub fn is_jsonb_operator(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Arrow
            | BinaryOperator::LongArrow
            | BinaryOperator::HashArrow
            | BinaryOperator::HashLongArrow
            | BinaryOperator::AtArrow
            | BinaryOperator::ArrowAt
            | BinaryOperator::Question
    )
}

pub fn operator(
    cx: &ExprContext<'_>,
    left: &Expr,
    op: &BinaryOperator,
    right: &Expr,
) -> Result<Typed, PlanError> {
    let (l, r) = (cx.bind(left)?, cx.bind(right)?);
    let sym = op.to_string();
    let fail = |l: &Typed, r: &Typed| no_operator(&sym, &names(l, r));
    let jsonb = |t: Typed, other: &Typed, first: bool| -> Result<Typed, PlanError> {
        match t.ty {
            None | Some(ScalarType::Jsonb) => coerce(t, &ScalarType::Jsonb, CastContext::Implicit)?
                .ok_or_else(|| PlanError::new("XX000", "jsonb coercion")),
            Some(_) if first => Err(fail(&t, other)),
            Some(_) => Err(fail(other, &t)),
        }
    };
    let text = |t: Typed, other: &Typed| -> Result<Typed, PlanError> {
        match t.ty {
            None => coerce(t, &ScalarType::Text, CastContext::Implicit)?
                .ok_or_else(|| PlanError::new("XX000", "text coercion")),
            Some(ty) if ty.is_string() => coerce(t, &ScalarType::Text, CastContext::Implicit)?
                .ok_or_else(|| PlanError::new("XX000", "text coercion")),
            Some(_) => Err(fail(other, &t)),
        }
    };
    let (func, l, r, ty) = match op {
        BinaryOperator::Arrow | BinaryOperator::LongArrow => {
            let as_text = *op == BinaryOperator::LongArrow;
            let l = jsonb(l, &r, true)?;
            let r = match r.ty {
                Some(ScalarType::Int16 | ScalarType::Int32 | ScalarType::Int64) => {
                    coerce(r, &ScalarType::Int64, CastContext::Implicit)?
                        .ok_or_else(|| PlanError::new("XX000", "int coercion"))?
                }
                _ => text(r, &l)?,
            };
            let ty = if as_text {
                ScalarType::Text
            } else {
                ScalarType::Jsonb
            };
            (BinaryFunc::JsonbGet { as_text }, l, r, ty)
        }
        BinaryOperator::HashArrow | BinaryOperator::HashLongArrow => {
            let as_text = *op == BinaryOperator::HashLongArrow;
            let l = jsonb(l, &r, true)?;
            // A text[] path is evaluated in its text form, as a path literal is.
            let r = match r.ty.and_then(|t| t.element()) {
                Some(e) if e.is_string() => coerce(r, &ScalarType::Text, CastContext::Explicit)?
                    .ok_or_else(|| PlanError::new("XX000", "text coercion"))?,
                _ => text(r, &l)?,
            };
            let ty = if as_text {
                ScalarType::Text
            } else {
                ScalarType::Jsonb
            };
            (BinaryFunc::JsonbPath { as_text }, l, r, ty)
        }
        BinaryOperator::AtArrow | BinaryOperator::ArrowAt => {
            let (a, b) = if *op == BinaryOperator::AtArrow {
                (l, r)
            } else {
                (r, l)
            };
            let a = jsonb(a, &b, true)?;
            let b = jsonb(b, &a, false)?;
            (BinaryFunc::JsonbContains, a, b, ScalarType::Bool)
        }
        BinaryOperator::Question => {
            let l = jsonb(l, &r, true)?;
            let r = text(r, &l)?;
            (BinaryFunc::JsonbExists, l, r, ScalarType::Bool)
        }
        other => return Err(PlanError::unsupported(format!("operator {other}"))),
    };
    // `->` and friends find nothing (NULL) for a missing key; the containment tests do not.
    let nullable = l.nullable || r.nullable || ty != ScalarType::Bool;
    Ok(Typed::new(
        fold::node(l.expr.call_binary(func, r.expr))?,
        ty,
        nullable,
    ))
}

/// `l || r` of jsonb values (both jsonb, or one jsonb and an unknown literal, read as jsonb),
/// or `None` for other operands (`jsonb || text` is text concatenation, as in PostgreSQL).
pub fn concat(l: &Typed, r: &Typed) -> Result<Option<Typed>, PlanError> {
    let jsonb = |t: &Typed| t.ty == Some(ScalarType::Jsonb);
    if !(jsonb(l) && (r.ty.is_none() || jsonb(r)) || jsonb(r) && l.ty.is_none()) {
        return Ok(None);
    }
    let as_jsonb = |t: &Typed| {
        coerce(t.clone(), &ScalarType::Jsonb, CastContext::Implicit)?
            .ok_or_else(|| PlanError::new("XX000", "jsonb coercion"))
    };
    built(BinaryFunc::JsonbConcat, as_jsonb(l)?, as_jsonb(r)?).map(Some)
}

/// `l - r` with a jsonb `l`: a key (text, or an unknown literal) or an array index (an
/// integer); `None` when `l` is not jsonb. Deleting several keys (`- text[]`) is refused.
pub fn delete(l: &Typed, r: &Typed) -> Result<Option<Typed>, PlanError> {
    if l.ty != Some(ScalarType::Jsonb) {
        return Ok(None);
    }
    let r = match r.ty {
        None => coerce(r.clone(), &ScalarType::Text, CastContext::Implicit)?,
        Some(t) if t.is_string() => coerce(r.clone(), &ScalarType::Text, CastContext::Implicit)?,
        Some(ScalarType::Int16 | ScalarType::Int32) => {
            coerce(r.clone(), &ScalarType::Int32, CastContext::Implicit)?
        }
        Some(t) if t.element().is_some_and(|e| e.is_string()) => {
            return Err(PlanError::unsupported("jsonb - text[]"))
        }
        Some(_) => return Err(no_operator("-", &names(l, r))),
    }
    .ok_or_else(|| PlanError::new("XX000", "jsonb - operand coercion"))?;
    built(BinaryFunc::JsonbDelete, l.clone(), r).map(Some)
}

fn built(func: BinaryFunc, l: Typed, r: Typed) -> Result<Typed, PlanError> {
    let nullable = l.nullable || r.nullable;
    Ok(Typed::new(
        fold::node(l.expr.call_binary(func, r.expr))?,
        ScalarType::Jsonb,
        nullable,
    ))
}
