//! Binding of array expressions: `ARRAY[...]`, subscripts and slices, `x op ANY|ALL (array)`,
//! the array operators (`@>`, `<@`, `&&`, `||`) and functions (array_length, array_position,
//! array_append, array_to_string, string_to_array, ...), typed by PostgreSQL's rules for
//! `anyarray`/`anyelement`: an element meets the array's element type (an unknown literal
//! takes it, numbers promote to the wider type and the array is cast element by element).
//!
//! kpg's arrays have one dimension; whatever would make a second (`ARRAY[ARRAY[1]]`,
//! `a[1][2]`, an array of an array column) is refused with 0A000.

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::fold;
use crate::ops;
use crate::types::{coerce, common_type, numeric_promotion, CastContext, Typed};
use kpg_types::array::funcs::{CmpOp, Dimension};
use kpg_types::{BinaryFunc, Datum, ScalarExpr, ScalarType, UnaryFunc, VariadicFunc};
use sqlparser::ast::{AccessExpr, BinaryOperator, Expr, Subscript};

mod expandarray;
mod subquery;

pub use expandarray::rewrite as rewrite_expandarray;
pub use subquery::bind as subquery;

fn multidimensional() -> PlanError {
    PlanError::unsupported("multidimensional arrays")
}

/// `ARRAY[e, ...]`: the elements' common type (text when all are unknown); `cast_to`, the
/// array type of an enclosing cast, types an empty `ARRAY[]`.
pub fn construct(
    cx: &ExprContext<'_>,
    elems: &[Expr],
    cast_to: Option<ScalarType>,
) -> Result<Typed, PlanError> {
    if elems.is_empty() {
        return match cast_to {
            Some(ty @ ScalarType::Array(_)) => Ok(Typed::literal(Datum::Array(Vec::new()), ty)),
            _ => Err(PlanError::new(
                "42P18",
                "cannot determine type of empty array",
            )),
        };
    }
    if elems.iter().any(|e| matches!(e, Expr::Array(_))) {
        return Err(multidimensional());
    }
    let items: Vec<Typed> = elems.iter().map(|e| cx.bind(e)).collect::<Result<_, _>>()?;
    let types: Vec<_> = items.iter().map(|t| t.ty).collect();
    let elem = match cast_to.and_then(|t| t.element()) {
        Some(e) if types.iter().all(Option::is_none) => e,
        _ => common_type(&types, "ARRAY")?,
    };
    if matches!(elem, ScalarType::Array(_)) {
        return Err(multidimensional());
    }
    let items = crate::types::coerce_all(items, &elem, "ARRAY")?;
    let expr = fold::node(ScalarExpr::Variadic {
        func: VariadicFunc::ArrayBuild,
        exprs: items.into_iter().map(|t| t.expr).collect(),
    })?;
    Ok(Typed::new(expr, ScalarType::array_of(elem), false))
}

/// The element type of an array operand, or PostgreSQL's error for another type.
fn element_of(t: &Typed, what: &str) -> Result<ScalarType, PlanError> {
    match t.ty.and_then(|ty| ty.element()) {
        Some(e) => Ok(e),
        None => Err(PlanError::undefined_function(format!(
            "{what} does not exist for type {}",
            t.type_name()
        ))),
    }
}

/// An integer argument (subscript, dimension) as int4 or int8.
fn integer(t: Typed, what: &str) -> Result<Typed, PlanError> {
    match t.ty {
        None => Ok(coerce(t, &ScalarType::Int32, CastContext::Implicit)?.expect("unknown")),
        Some(ScalarType::Int16) => {
            Ok(coerce(t, &ScalarType::Int32, CastContext::Implicit)?.expect("int2 widens"))
        }
        Some(ScalarType::Int32 | ScalarType::Int64) => Ok(t),
        Some(other) => Err(PlanError::new(
            "42804",
            format!("{what} must have type integer, not {other}"),
        )),
    }
}

/// `root[i]` or `root[lo:hi]`.
pub fn subscript(
    cx: &ExprContext<'_>,
    root: &Expr,
    chain: &[AccessExpr],
) -> Result<Typed, PlanError> {
    // `t.c[i]` reads as `t` with the accesses `.c` and `[i]`: the names form the column.
    let names = chain
        .iter()
        .take_while(|a| matches!(a, AccessExpr::Dot(Expr::Identifier(_))))
        .count();
    let mut parts = match root {
        Expr::Identifier(i) if names > 0 => vec![i.clone()],
        Expr::CompoundIdentifier(p) if names > 0 => p.clone(),
        _ => Vec::new(),
    };
    if !parts.is_empty() {
        for a in &chain[..names] {
            if let AccessExpr::Dot(Expr::Identifier(i)) = a {
                parts.push(i.clone());
            }
        }
        let column = Expr::CompoundIdentifier(parts);
        return match &chain[names..] {
            [] => cx.bind(&column),
            rest => subscript(cx, &column, rest),
        };
    }
    let a = cx.bind(root)?;
    if let [AccessExpr::Dot(field)] = chain {
        return field_of(a, field);
    }
    let Some(elem) = a.ty.and_then(|t| t.element()) else {
        if a.ty.is_some_and(|t| t.is_string()) {
            return Err(PlanError::unsupported(
                "subscripts of text (kpg's system catalogs hold arrays as text)",
            ));
        }
        return Err(PlanError::new(
            "42804",
            format!(
                "cannot subscript type {} because it does not support subscripting",
                a.type_name()
            ),
        ));
    };
    let [AccessExpr::Subscript(sub)] = chain else {
        return Err(multidimensional());
    };
    if a.ty == Some(ScalarType::Int2Vector) && matches!(sub, Subscript::Slice { .. }) {
        return Err(PlanError::unsupported("slices of int2vector"));
    }
    match sub {
        Subscript::Index { index } => {
            let i = integer(cx.bind(index)?, "array subscript")?;
            let e = fold::node(a.expr.call_binary(BinaryFunc::ArrayIndex, i.expr))?;
            Ok(Typed::new(e, elem.value_type(), true))
        }
        Subscript::Slice {
            lower_bound,
            upper_bound,
            stride: None,
        } => {
            let bound = |b: &Option<Expr>, default: i32| -> Result<Typed, PlanError> {
                match b {
                    Some(e) => integer(cx.bind(e)?, "array subscript"),
                    None => Ok(Typed::literal(Datum::Int32(default), ScalarType::Int32)),
                }
            };
            let (lo, hi) = (bound(lower_bound, 1)?, bound(upper_bound, i32::MAX)?);
            let nullable = a.nullable || lo.nullable || hi.nullable;
            let e = fold::node(ScalarExpr::Variadic {
                func: VariadicFunc::ArraySlice,
                exprs: vec![a.expr, lo.expr, hi.expr],
            })?;
            Ok(Typed::new(e, a.ty.expect("an array"), nullable))
        }
        Subscript::Slice { .. } => Err(PlanError::unsupported("array slices with a stride")),
    }
}

/// `(record).field` of `_pg_expandarray`'s record (the only composite values kpg has).
fn field_of(r: Typed, field: &Expr) -> Result<Typed, PlanError> {
    let Some(ScalarType::ExpandedElement(elem)) = r.ty else {
        return Err(PlanError::unsupported(format!(
            "field selection .{field} from a value of type {}",
            r.type_name()
        )));
    };
    let name = match field {
        Expr::Identifier(i) => crate::names::fold(i),
        other => return Err(PlanError::unsupported(format!("field selection .{other}"))),
    };
    let Some(i) = kpg_types::array::record::FIELDS
        .iter()
        .position(|f| *f == name)
    else {
        return Err(PlanError::new(
            "42703",
            format!("could not identify column \"{name}\" in record data type"),
        ));
    };
    let ty = if i == 0 {
        elem.get()
    } else {
        ScalarType::Int32
    };
    let index = ScalarExpr::Literal(Datum::Int32(i as i32 + 1));
    let e = fold::node(r.expr.call_binary(BinaryFunc::ArrayIndex, index))?;
    Ok(Typed::new(e, ty, true))
}

/// Makes an element and an array agree: the element takes the array's element type, or both
/// widen to the larger number type. Returns (element, array, element type).
fn unify_element(x: Typed, a: Typed, sym: &str) -> Result<(Typed, Typed, ScalarType), PlanError> {
    let a = match a.ty {
        Some(_) => a,
        None => {
            let Some(xt) = x.ty else {
                return Err(PlanError::undefined_function(format!(
                    "operator does not exist: unknown {sym} unknown"
                )));
            };
            coerce(a, &ScalarType::array_of(xt.base()), CastContext::Implicit)?
                .expect("unknown coerces")
        }
    };
    let elem = element_of(&a, &format!("operator {sym}"))?;
    let mismatch = |x: &Typed| {
        PlanError::undefined_function(format!(
            "operator does not exist: {} {sym} {}",
            x.type_name(),
            a.type_name()
        ))
    };
    let Some(xt) = x.ty else {
        let x = coerce(x, &elem, CastContext::Implicit)?.expect("unknown coerces");
        return Ok((x, a, elem));
    };
    if xt.same_family(&elem) || (xt.is_string() && elem.is_string()) {
        return Ok((x, a, elem));
    }
    let Some(wide) = numeric_promotion(&xt, &elem) else {
        return Err(mismatch(&x));
    };
    let x = coerce(x, &wide, CastContext::Implicit)?.ok_or_else(|| mismatch(&a))?;
    let a = coerce(a, &ScalarType::array_of(wide), CastContext::Implicit)?.expect("numbers widen");
    Ok((x, a, wide))
}

/// `x op ANY (array)` (`all` false) or `x op ALL (array)`.
pub fn quantified(
    cx: &ExprContext<'_>,
    left: &Expr,
    op: &BinaryOperator,
    right: &Expr,
    all: bool,
) -> Result<Typed, PlanError> {
    let (op, sym) = match op {
        BinaryOperator::Eq => (CmpOp::Eq, "="),
        BinaryOperator::NotEq => (CmpOp::NotEq, "<>"),
        BinaryOperator::Lt => (CmpOp::Lt, "<"),
        BinaryOperator::LtEq => (CmpOp::Lte, "<="),
        BinaryOperator::Gt => (CmpOp::Gt, ">"),
        BinaryOperator::GtEq => (CmpOp::Gte, ">="),
        other => {
            return Err(PlanError::unsupported(format!(
                "operator {other} with ANY/ALL"
            )))
        }
    };
    let (x, a) = (cx.bind(left)?, cx.bind(right)?);
    if a.ty.is_some_and(|t| t.is_string()) {
        // The array columns of kpg's system catalogs hold PostgreSQL's text form of arrays.
        return Err(PlanError::unsupported(
            "ANY/ALL over text (kpg's system catalogs hold arrays as text)",
        ));
    }
    if a.ty.is_some_and(|t| t.element().is_none()) {
        return Err(PlanError::new(
            "42809",
            format!(
                "op ANY/ALL (array) requires array on right side, not {}",
                a.type_name()
            ),
        ));
    }
    let (x, a, _) = unify_element(x, a, sym)?;
    let e = x.expr.call_binary(BinaryFunc::ArrayAny { op, all }, a.expr);
    Ok(Typed::new(fold::node(e)?, ScalarType::Bool, true))
}

/// `x IN (list)` as `x = ANY (ARRAY[list])`, which evaluates `x` once: the list's elements
/// take x's type where they are unknown literals.
pub fn in_array(cx: &ExprContext<'_>, x: Typed, list: &[Expr]) -> Result<Typed, PlanError> {
    let a = construct(cx, list, x.ty.map(|t| ScalarType::array_of(t.base())))?;
    let (x, a, _) = unify_element(x, a, "=")?;
    let any = BinaryFunc::ArrayAny {
        op: CmpOp::Eq,
        all: false,
    };
    let e = x.expr.call_binary(any, a.expr);
    Ok(Typed::new(fold::node(e)?, ScalarType::Bool, true))
}

/// Whether `op` is an array operator when an operand is an array (`@>`, `<@`, `&&`).
pub fn is_array_operator(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::AtArrow | BinaryOperator::ArrowAt | BinaryOperator::PGOverlap
    )
}

/// `a @> b`, `a <@ b`, `a && b` over two arrays; `None` when neither operand is an array
/// (jsonb's `@>` then applies).
pub fn operator(l: Typed, op: &BinaryOperator, r: Typed) -> Result<Option<Typed>, PlanError> {
    let is_array = |t: &Typed| t.ty.is_some_and(|t| t.element().is_some());
    if !is_array(&l) && !is_array(&r) {
        return Ok(None);
    }
    let sym = op.to_string();
    let (l, r) = two_arrays(l, r, &sym, false)?;
    let (func, l, r) = match op {
        BinaryOperator::AtArrow => (BinaryFunc::ArrayContains, l, r),
        BinaryOperator::ArrowAt => (BinaryFunc::ArrayContains, r, l),
        _ => (BinaryFunc::ArrayOverlap, l, r),
    };
    let nullable = l.nullable || r.nullable;
    let e = fold::node(l.expr.call_binary(func, r.expr))?;
    Ok(Some(Typed::new(e, ScalarType::Bool, nullable)))
}

/// Two operands as arrays of one element type (an unknown one takes the other's type); with
/// `promote`, arrays of two number types meet at the wider (PostgreSQL's anycompatiblearray,
/// as `||` takes), else the element types must be the same (anyarray, as `@>` takes).
fn two_arrays(l: Typed, r: Typed, sym: &str, promote: bool) -> Result<(Typed, Typed), PlanError> {
    let mismatch =
        |l: &Typed, r: &Typed| crate::ops::no_operator(sym, &(l.type_name(), r.type_name()));
    let (l, r) = match (l.ty, r.ty) {
        (None, Some(t)) => (coerce(l, &t, CastContext::Implicit)?.expect("unknown"), r),
        (Some(t), None) => {
            let r = coerce(r, &t, CastContext::Implicit)?.expect("unknown");
            (l, r)
        }
        _ => (l, r),
    };
    let (Some(a), Some(b)) = (
        l.ty.and_then(|t| t.element()),
        r.ty.and_then(|t| t.element()),
    ) else {
        return Err(mismatch(&l, &r));
    };
    if a.without_modifiers() == b.without_modifiers() {
        return Ok((l, r));
    }
    let wide = match numeric_promotion(&a, &b) {
        Some(wide) if promote => wide,
        _ if promote && a.is_string() && b.is_string() => ScalarType::Text,
        _ => return Err(mismatch(&l, &r)),
    };
    let to = ScalarType::array_of(wide);
    let l = coerce(l, &to, CastContext::Implicit)?.expect("numbers widen");
    let r = coerce(r, &to, CastContext::Implicit)?.expect("numbers widen");
    Ok((l, r))
}

/// `l || r` where an operand is an array: array_cat, array_append or array_prepend; `None`
/// when neither is.
pub fn concat(l: Typed, r: Typed) -> Result<Option<Typed>, PlanError> {
    let is_array = |t: &Typed| t.ty.is_some_and(|t| t.element().is_some());
    Ok(match (is_array(&l), is_array(&r)) {
        (false, false) => None,
        (true, true) => Some(cat(l, r)?),
        (true, false) if r.ty.is_none() => {
            // PostgreSQL reads an unknown literal next to an array as an array.
            Some(cat(l, r)?)
        }
        (true, false) => Some(append(l, r, false)?),
        (false, true) if l.ty.is_none() => Some(cat(l, r)?),
        (false, true) => Some(append(r, l, true)?),
    })
}

fn cat(l: Typed, r: Typed) -> Result<Typed, PlanError> {
    let (l, r) = two_arrays(l, r, "||", true)?;
    let ty = l.ty.expect("an array");
    let nullable = l.nullable && r.nullable;
    let e = fold::node(l.expr.call_binary(BinaryFunc::ArrayCat, r.expr))?;
    Ok(Typed::new(e, ty, nullable))
}

/// array_append(a, x) or, with `front`, array_prepend(x, a).
fn append(a: Typed, x: Typed, front: bool) -> Result<Typed, PlanError> {
    let (x, a, _) = unify_element(x, a, "||")?;
    let ty = a.ty.expect("an array");
    let e = if front {
        x.expr.call_binary(BinaryFunc::ArrayPrepend, a.expr)
    } else {
        a.expr.call_binary(BinaryFunc::ArrayAppend, x.expr)
    };
    Ok(Typed::new(fold::node(e)?, ty, false))
}

/// The array functions by name; `None` for another name (or array_to_string of the text
/// form the system catalogs' array columns hold, which `pg_compat.rs` answers).
pub fn call(name: &str, args: Vec<Typed>) -> Result<Option<Typed>, PlanError> {
    let missing = crate::func::no_function(name, &args);
    let no_function = || missing.clone();
    let is_array = |t: &Typed| t.ty.is_some_and(|t| t.element().is_some());
    let unknown_or_array = |t: &Typed| t.ty.is_none() || is_array(t);
    Ok(Some(match (name, args.as_slice()) {
        ("array_length" | "array_lower" | "array_upper", [a, _]) if is_array(a) => {
            let what = match name {
                "array_length" => Dimension::Length,
                "array_lower" => Dimension::Lower,
                _ => Dimension::Upper,
            };
            let [a, dim] = <[Typed; 2]>::try_from(args).expect("two");
            let dim = integer(dim, "dimension")?;
            let e = a.expr.call_binary(BinaryFunc::ArrayDim(what), dim.expr);
            Typed::new(fold::node(e)?, ScalarType::Int32, true)
        }
        ("cardinality" | "array_ndims", [a]) if is_array(a) => {
            let a = args.into_iter().next().expect("one");
            if name == "array_ndims" {
                // 1, or NULL for the empty array (which has no dimensions).
                let n = a.expr.call_unary(UnaryFunc::Cardinality);
                let empty = n.call_binary(BinaryFunc::Eq, ScalarExpr::Literal(Datum::Int32(0)));
                let e = ScalarExpr::If {
                    cond: Box::new(empty),
                    then: Box::new(ScalarExpr::Literal(Datum::Null)),
                    els: Box::new(ScalarExpr::Literal(Datum::Int32(1))),
                };
                return Ok(Some(Typed::new(
                    ops::fold_deep(e)?,
                    ScalarType::Int32,
                    true,
                )));
            }
            let nullable = a.nullable;
            let e = a.expr.call_unary(UnaryFunc::Cardinality);
            Typed::new(fold::node(e)?, ScalarType::Int32, nullable)
        }
        ("array_position", [a, _]) if unknown_or_array(a) => {
            let [a, x] = <[Typed; 2]>::try_from(args).expect("two");
            let (x, a, _) = unify_element(x, a, "array_position")?;
            let e = a.expr.call_binary(BinaryFunc::ArrayPosition, x.expr);
            Typed::new(fold::node(e)?, ScalarType::Int32, true)
        }
        ("array_remove", [a, _]) if unknown_or_array(a) => {
            let [a, x] = <[Typed; 2]>::try_from(args).expect("two");
            let (x, a, _) = unify_element(x, a, "array_remove")?;
            let ty = a.ty.expect("an array");
            let e = a.expr.call_binary(BinaryFunc::ArrayRemove, x.expr);
            Typed::new(fold::node(e)?, ty, true)
        }
        ("array_replace", [a, _, _]) if unknown_or_array(a) => {
            let [a, x, y] = <[Typed; 3]>::try_from(args).expect("three");
            let (x, a, elem) = unify_element(x, a, "array_replace")?;
            let y = coerce(y, &elem, CastContext::Implicit)?.ok_or_else(no_function)?;
            let ty = a.ty.expect("an array");
            let e = ScalarExpr::Variadic {
                func: VariadicFunc::ArrayReplace,
                exprs: vec![a.expr, x.expr, y.expr],
            };
            Typed::new(fold::node(e)?, ty, true)
        }
        ("array_dims", [a]) if is_array(a) => {
            // `[lower:upper]`, NULL for an empty array.
            let a = args.into_iter().next().expect("one");
            let dim = |what| {
                let e = a.expr.clone().call_binary(
                    BinaryFunc::ArrayDim(what),
                    ScalarExpr::Literal(Datum::Int32(1)),
                );
                e.call_unary(UnaryFunc::Cast(ScalarType::Text))
            };
            let text = |s: &str| ScalarExpr::Literal(Datum::String(s.into()));
            let e = text("[")
                .call_binary(BinaryFunc::Concat, dim(Dimension::Lower))
                .call_binary(BinaryFunc::Concat, text(":"))
                .call_binary(BinaryFunc::Concat, dim(Dimension::Upper))
                .call_binary(BinaryFunc::Concat, text("]"));
            Typed::new(ops::fold_deep(e)?, ScalarType::Text, true)
        }
        ("array_position", [_, _, _]) => {
            return Err(PlanError::unsupported("array_position with a start"))
        }
        ("array_append", [a, _]) if unknown_or_array(a) => {
            let [a, x] = <[Typed; 2]>::try_from(args).expect("two");
            append(a, x, false)?
        }
        ("array_prepend", [_, a]) if unknown_or_array(a) => {
            let [x, a] = <[Typed; 2]>::try_from(args).expect("two");
            append(a, x, true)?
        }
        ("array_cat", [l, r]) if is_array(l) || is_array(r) => {
            let [l, r] = <[Typed; 2]>::try_from(args).expect("two");
            cat(l, r)?
        }
        ("array_to_string", [a, ..]) if is_array(a) && args.len() <= 3 => {
            let mut args = args.into_iter();
            let a = args.next().expect("array");
            if a.ty.as_ref().is_some_and(crate::zoned_casts::holds_tstz) {
                let ty = a.ty.expect("typed");
                return Err(crate::zoned_casts::array_text_refusal(
                    "array_to_string()",
                    &ty,
                ));
            }
            let mut exprs = vec![a.expr];
            for t in args {
                let t = text(t).ok_or_else(no_function)??;
                exprs.push(t.expr);
            }
            if exprs.len() < 2 {
                return Err(no_function());
            }
            let e = ScalarExpr::Variadic {
                func: VariadicFunc::ArrayJoin,
                exprs,
            };
            Typed::new(fold::node(e)?, ScalarType::Text, true)
        }
        ("string_to_array", [_, _] | [_, _, _]) => {
            let mut exprs = Vec::new();
            for t in args.iter().cloned() {
                exprs.push(text(t).ok_or_else(no_function)??.expr);
            }
            let e = ScalarExpr::Variadic {
                func: VariadicFunc::StringToArray,
                exprs,
            };
            let ty = ScalarType::array_of(ScalarType::Text);
            Typed::new(fold::node(e)?, ty, true)
        }
        (expandarray::ROW_FUNCTION, [x, _]) => {
            let elem = x.ty.unwrap_or(ScalarType::Text);
            let exprs = args.into_iter().map(|a| a.expr).collect();
            let e = ScalarExpr::Variadic {
                func: VariadicFunc::RecordBuild,
                exprs,
            };
            let ty = ScalarType::ExpandedElement(kpg_types::array::ArrayElem::new(elem));
            Typed::new(fold::node(e)?, ty, false)
        }
        ("current_schemas", [flag]) => {
            if !flag.ty.is_none_or(|t| t == ScalarType::Bool) {
                return Err(no_function());
            }
            // kpg's search path is public; the implicit schemas add pg_catalog in front.
            let names = |names: &[&str]| {
                let names = names.iter().map(|s| Datum::String(s.to_string())).collect();
                ScalarExpr::Literal(Datum::Array(names))
            };
            let flag = coerce(flag.clone(), &ScalarType::Bool, CastContext::Implicit)?
                .expect("a boolean or unknown");
            let nullable = flag.nullable;
            // NULL for NULL (strict); a parameter's value is read as it runs.
            let e = ScalarExpr::If {
                cond: Box::new(flag.expr.clone().call_unary(kpg_types::UnaryFunc::IsNull)),
                then: Box::new(ScalarExpr::Literal(Datum::Null)),
                els: Box::new(ScalarExpr::If {
                    cond: Box::new(flag.expr),
                    then: Box::new(names(&["pg_catalog", "public"])),
                    els: Box::new(names(&["public"])),
                }),
            };
            let ty = ScalarType::array_of(ScalarType::Text);
            Typed::new(crate::ops::fold_deep(e)?, ty, nullable)
        }
        ("unnest" | "generate_subscripts", _) if args.iter().any(is_array) => {
            return Err(PlanError::unsupported(format!(
                "{name} outside FROM (set-returning functions in the select list)"
            )))
        }
        _ => return Ok(None),
    }))
}

/// A string argument as text, `None` for another type.
fn text(t: Typed) -> Option<Result<Typed, PlanError>> {
    if !t.ty.is_none_or(|ty| ty.is_string()) {
        return None;
    }
    Some(coerce(t, &ScalarType::Text, CastContext::Implicit).map(|t| t.expect("string")))
}
