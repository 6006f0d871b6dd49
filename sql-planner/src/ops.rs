//! Operator typing: which PostgreSQL operator a binary or unary expression means, given its
//! operand types, and the casts that make the operands match.
//!
//! The rules follow PostgreSQL's operator resolution for the types kpg has: an unknown operand
//! takes the other operand's type; numeric operands are promoted int4 → int8 → numeric →
//! float8; `date ± integer` and `date - date` are date arithmetic, and dates, timestamps and
//! intervals combine as PostgreSQL's datetime operators (a date next to a timestamp or an
//! interval becomes a timestamp; a date compared with a timestamp too), a time takes an
//! interval and a date (`date + time` is a timestamp); `||` joins two byteas, and makes text of
//! any non-string operand. An operator PostgreSQL does not have is 42883 `operator does not exist:
//! integer = boolean`, named with PostgreSQL's operator symbol.

use crate::error::PlanError;
use crate::fold;
use crate::types::{coerce, numeric_promotion, CastContext, Typed};
use kpg_types::{BinaryFunc, Datum, ScalarExpr, ScalarType, UnaryFunc, VariadicFunc};

/// 42883 for an operator PostgreSQL lacks, named with the operands' types as written.
pub(crate) fn no_operator(sym: &str, (l, r): &(String, String)) -> PlanError {
    PlanError::undefined_function(format!("operator does not exist: {l} {sym} {r}"))
}

pub(crate) fn names(l: &Typed, r: &Typed) -> (String, String) {
    (l.type_name(), r.type_name())
}

fn not_unique(sym: &str, l: &Typed, r: &Typed) -> PlanError {
    PlanError::new(
        "42725",
        format!(
            "operator is not unique: {} {sym} {}",
            l.type_name(),
            r.type_name()
        ),
    )
}

fn implicit(t: Typed, ty: &ScalarType) -> Result<Typed, PlanError> {
    let name = t.type_name();
    coerce(t, ty, CastContext::Implicit)?.ok_or_else(|| {
        PlanError::datatype_mismatch(format!("cannot convert type {name} to {ty} implicitly"))
    })
}

/// Gives an unknown operand the other operand's type (without modifiers).
fn resolve_unknown_operand(l: Typed, r: Typed) -> Result<(Typed, Typed), PlanError> {
    match (l.ty, r.ty) {
        (None, Some(t)) => Ok((implicit(l, &t.base())?, r)),
        (Some(t), None) => {
            let r = implicit(r, &t.base())?;
            Ok((l, r))
        }
        _ => Ok((l, r)),
    }
}

fn build(func: BinaryFunc, l: Typed, r: Typed, ty: ScalarType) -> Result<Typed, PlanError> {
    let nullable = l.nullable || r.nullable;
    Ok(Typed::new(
        fold::node(l.expr.call_binary(func, r.expr))?,
        ty,
        nullable,
    ))
}

use ScalarType::{Char, Date, Float64, Int32, Interval, Text, Timestamp};

fn is_char(t: ScalarType) -> bool {
    matches!(t, Char { .. })
}

/// Makes two operands comparable: the same type family, casting numerics to the wider type.
pub fn unify_comparable(sym: &str, l: Typed, r: Typed) -> Result<(Typed, Typed), PlanError> {
    let written = names(&l, &r);
    if l.ty.is_none() && r.ty.is_none() {
        return Ok((
            implicit(l, &ScalarType::Text)?,
            implicit(r, &ScalarType::Text)?,
        ));
    }
    let (l, r) = resolve_unknown_operand(l, r)?;
    let (a, b) = (l.ty.expect("resolved"), r.ty.expect("resolved"));
    if let Some(wide) = numeric_promotion(&a, &b) {
        return Ok((implicit(l, &wide)?, implicit(r, &wide)?));
    }
    // Arrays compare only with arrays of the same element type (PostgreSQL's anyarray).
    if let (Some(x), Some(y)) = (a.element(), b.element()) {
        if x.without_modifiers() != y.without_modifiers() {
            return Err(no_operator(sym, &written));
        }
    }
    if a.is_string() && b.is_string() && (is_char(a) || is_char(b)) {
        // char(n) compares without trailing blanks. Against varchar PostgreSQL compares as
        // char (both sides lose them); against text, as text (only the char side does).
        let strip_both = !matches!(a, Text) && !matches!(b, Text);
        let strip = |t: Typed| -> Result<Typed, PlanError> {
            match t.ty {
                Some(Char { .. }) => implicit(t, &Text),
                _ if strip_both => {
                    let nullable = t.nullable;
                    let e = fold::node(t.expr.call_unary(UnaryFunc::BpcharToText))?;
                    Ok(Typed::new(e, Text, nullable))
                }
                _ => Ok(t),
            }
        };
        return Ok((strip(l)?, strip(r)?));
    }
    if a.same_family(&b) || (a.is_string() && b.is_string()) {
        return Ok((l, r));
    }
    // date or timestamp against timestamptz: read in the session's zone.
    let tz = ScalarType::TimestampTz;
    if matches!(
        (a, b),
        (Date | Timestamp, ScalarType::TimestampTz) | (ScalarType::TimestampTz, Date | Timestamp)
    ) {
        return Ok((implicit(l, &tz)?, implicit(r, &tz)?));
    }
    // date against timestamp: the date becomes midnight of its day.
    if matches!((a, b), (Date, Timestamp) | (Timestamp, Date)) {
        return Ok((implicit(l, &Timestamp)?, implicit(r, &Timestamp)?));
    }
    // time against interval: the time becomes the interval since midnight.
    if matches!(
        (a, b),
        (ScalarType::Time, Interval) | (Interval, ScalarType::Time)
    ) {
        return Ok((implicit(l, &Interval)?, implicit(r, &Interval)?));
    }
    Err(no_operator(sym, &written))
}

/// `l op r` for the comparison operators.
pub fn comparison(func: BinaryFunc, l: Typed, r: Typed) -> Result<Typed, PlanError> {
    let sym = match func {
        BinaryFunc::Eq => "=",
        BinaryFunc::NotEq => "<>",
        BinaryFunc::Lt => "<",
        BinaryFunc::Lte => "<=",
        BinaryFunc::Gt => ">",
        BinaryFunc::Gte => ">=",
        other => unreachable!("{other:?} is not a comparison"),
    };
    if let Some(t) = crate::temporal::comparison(func, &l, &r)? {
        return Ok(t);
    }
    let (l, r) = unify_comparable(sym, l, r)?;
    build(func, l, r, ScalarType::Bool)
}

/// `l & r` and `l | r` of integers (smallint, integer or bigint, the wider of the two).
pub fn bitwise(
    op: &sqlparser::ast::BinaryOperator,
    l: Typed,
    r: Typed,
) -> Result<Typed, PlanError> {
    let (func, sym) = match op {
        sqlparser::ast::BinaryOperator::BitwiseAnd => (BinaryFunc::BitAnd, "&"),
        _ => (BinaryFunc::BitOr, "|"),
    };
    let integer = |t: &Option<ScalarType>| {
        t.is_none_or(|t| matches!(t, ScalarType::Int16 | ScalarType::Int32 | ScalarType::Int64))
    };
    if !integer(&l.ty) || !integer(&r.ty) {
        return Err(no_operator(sym, &names(&l, &r)));
    }
    let ty = match (l.ty, r.ty) {
        (Some(a), Some(b)) => numeric_promotion(&a, &b).expect("integers"),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => Int32,
    };
    build(func, implicit(l, &ty)?, implicit(r, &ty)?, ty)
}

/// `l op r` for + - * / %, including date arithmetic.
pub fn arithmetic(func: BinaryFunc, l: Typed, r: Typed) -> Result<Typed, PlanError> {
    let sym = match func {
        BinaryFunc::Add => "+",
        BinaryFunc::Sub => "-",
        BinaryFunc::Mul => "*",
        BinaryFunc::Div => "/",
        BinaryFunc::Mod => "%",
        other => unreachable!("{other:?} is not arithmetic"),
    };
    if func == BinaryFunc::Sub {
        if let Some(t) = crate::jsonb_ops::delete(&l, &r)? {
            return Ok(t);
        }
    }
    let written = names(&l, &r);
    if l.ty.is_none() && r.ty.is_none() {
        return Err(not_unique(sym, &l, &r));
    }
    // date + unknown could be date + integer or date + time, which PostgreSQL does not
    // choose between; time + time could be time + interval or date + time.
    let time = |t: &Typed| matches!(t.ty, Some(ScalarType::Time));
    if func == BinaryFunc::Add
        && ((matches!(l.ty, Some(ScalarType::Date)) && r.ty.is_none()) || (time(&l) && time(&r)))
    {
        return Err(not_unique(sym, &l, &r));
    }
    // timestamp + 'text' and time + 'text' read the text as an interval (PostgreSQL's
    // choice among their + operators).
    let (l, r) = match (l.ty, r.ty, func) {
        (Some(Timestamp | ScalarType::Time | ScalarType::TimestampTz), None, BinaryFunc::Add) => {
            (l, implicit(r, &Interval)?)
        }
        (None, Some(Timestamp | ScalarType::Time | ScalarType::TimestampTz), BinaryFunc::Add) => {
            (implicit(l, &Interval)?, r)
        }
        // An interval times or over an unknown (`$1 * interval '1 day'`): the unknown is the
        // double precision of PostgreSQL's only such operators.
        (Some(Interval), None, BinaryFunc::Mul | BinaryFunc::Div) => (l, implicit(r, &Float64)?),
        (None, Some(Interval), BinaryFunc::Mul) => (implicit(l, &Float64)?, r),
        _ => (l, r),
    };
    let (l, r) = resolve_unknown_operand(l, r)?;
    let (a, b) = (l.ty.expect("resolved"), r.ty.expect("resolved"));
    if let Some(t) = datetime_arithmetic(func, l.clone(), r.clone(), a, b)? {
        return Ok(t);
    }
    match numeric_promotion(&a, &b) {
        Some(ScalarType::Float32 | ScalarType::Float64) if func == BinaryFunc::Mod => {
            Err(no_operator(sym, &written))
        }
        Some(wide) => {
            let (l, r) = (implicit(l, &wide)?, implicit(r, &wide)?);
            build(func, l, r, wide)
        }
        None => Err(no_operator(sym, &written)),
    }
}

/// The date, timestamp and interval operators, or `None` if `a op b` is none of them.
fn datetime_arithmetic(
    func: BinaryFunc,
    l: Typed,
    r: Typed,
    a: ScalarType,
    b: ScalarType,
) -> Result<Option<Typed>, PlanError> {
    use BinaryFunc::{Add, Div, Mul, Sub};
    // date ± smallint is date ± integer.
    match (a, b) {
        (Date, ScalarType::Int16) => {
            return datetime_arithmetic(func, l, implicit(r, &Int32)?, a, Int32)
        }
        (ScalarType::Int16, Date) => {
            return datetime_arithmetic(func, implicit(l, &Int32)?, r, Int32, b)
        }
        _ => {}
    }
    let ts = |t: Typed| implicit(t, &Timestamp);
    let f8 = |t: Typed| implicit(t, &Float64);
    if let Some(t) = crate::zoned_ops::arithmetic(func, &l, &r, a, b)? {
        return Ok(Some(t));
    }
    Ok(Some(match (a, b, func) {
        (Date, Int32, Add) => build(BinaryFunc::AddDateDays, l, r, Date)?,
        (Int32, Date, Add) => build(BinaryFunc::AddDateDays, r, l, Date)?,
        (Date, Int32, Sub) => build(BinaryFunc::SubDateDays, l, r, Date)?,
        (Date, Date, Sub) => build(BinaryFunc::SubDates, l, r, Int32)?,
        (Date | Timestamp, Interval, Add) => {
            build(BinaryFunc::AddTimestampInterval, ts(l)?, r, Timestamp)?
        }
        (Interval, Date | Timestamp, Add) => {
            build(BinaryFunc::AddTimestampInterval, ts(r)?, l, Timestamp)?
        }
        (Date | Timestamp, Interval, Sub) => {
            build(BinaryFunc::SubTimestampInterval, ts(l)?, r, Timestamp)?
        }
        (Date | Timestamp, Date | Timestamp, Sub) => {
            build(BinaryFunc::SubTimestamps, ts(l)?, ts(r)?, Interval)?
        }
        (ScalarType::Time, Interval, Add) => build(BinaryFunc::AddTimeInterval, l, r, a)?,
        (Interval, ScalarType::Time, Add) => build(BinaryFunc::AddTimeInterval, r, l, b)?,
        (ScalarType::Time, Interval, Sub) => build(BinaryFunc::SubTimeInterval, l, r, a)?,
        (ScalarType::Time, ScalarType::Time, Sub) => build(BinaryFunc::SubTimes, l, r, Interval)?,
        (Date, ScalarType::Time, Add) => build(BinaryFunc::AddDateTime, l, r, Timestamp)?,
        (ScalarType::Time, Date, Add) => build(BinaryFunc::AddDateTime, r, l, Timestamp)?,
        (Interval, Interval, Add) => build(BinaryFunc::AddIntervals, l, r, Interval)?,
        (Interval, Interval, Sub) => build(BinaryFunc::SubIntervals, l, r, Interval)?,
        (Interval, n, Mul) if n.is_numeric_family() => {
            build(BinaryFunc::MulInterval, l, f8(r)?, Interval)?
        }
        (n, Interval, Mul) if n.is_numeric_family() => {
            build(BinaryFunc::MulInterval, r, f8(l)?, Interval)?
        }
        (Interval, n, Div) if n.is_numeric_family() => {
            build(BinaryFunc::DivInterval, l, f8(r)?, Interval)?
        }
        // Otherwise a time takes part as the interval it converts to implicitly
        // (`timestamp + time`, `time * 2`), as PostgreSQL resolves it.
        (ScalarType::Time, _, _) => {
            return datetime_arithmetic(func, implicit(l, &Interval)?, r, Interval, b)
        }
        (_, ScalarType::Time, _) => {
            return datetime_arithmetic(func, l, implicit(r, &Interval)?, a, Interval)
        }
        _ => return Ok(None),
    }))
}

/// `l || r`: text concatenation; a non-string operand is converted to its text form.
pub fn concat(l: Typed, r: Typed) -> Result<Typed, PlanError> {
    if let Some(t) = crate::arrays::concat(l.clone(), r.clone())? {
        return Ok(t);
    }
    if let Some(t) = crate::jsonb_ops::concat(&l, &r)? {
        return Ok(t);
    }
    let bytea = |t: &Typed| t.ty == Some(ScalarType::Bytea);
    if bytea(&l) || bytea(&r) {
        // bytea || bytea (an unknown operand is a bytea); PostgreSQL's anynonarray || text
        // turns a bytea next to text into its text.
        let other = if bytea(&l) { &r } else { &l };
        if other.ty.is_none() || bytea(other) {
            let (l, r) = resolve_unknown_operand(l, r)?;
            return build(BinaryFunc::Concat, l, r, ScalarType::Bytea);
        }
    }
    let is_text = |t: &Typed| t.ty.is_none_or(|ty| ty.is_string());
    if !is_text(&l) && !is_text(&r) {
        return Err(no_operator("||", &names(&l, &r)));
    }
    let to_text = |t: Typed| -> Result<Typed, PlanError> {
        match t.ty {
            Some(ty) if ty.is_string() && !is_char(ty) => Ok(t),
            _ => Ok(coerce(t, &ScalarType::Text, CastContext::Explicit)?
                .expect("anything casts to text")),
        }
    };
    let (l, r) = (to_text(l)?, to_text(r)?);
    build(BinaryFunc::Concat, l, r, ScalarType::Text)
}

/// `l [I]LIKE r`; `negated` for NOT [I]LIKE.
/// A LIKE pattern written with `ESCAPE escape`, rewritten to the backslash escape LIKE
/// evaluates (`ESCAPE ''` means no escape; `BinaryFunc::LikeEscape`).
pub fn like_escape(pattern: Typed, escape: Typed) -> Result<Typed, PlanError> {
    // Folded into the pattern when both are constants; else rewritten as each row is
    // matched (a parameter, a column).
    let text = |t: Typed| -> Result<Typed, PlanError> {
        match t.ty {
            None => Ok(coerce(t, &ScalarType::Text, CastContext::Implicit)?.expect("unknown")),
            Some(_) => Ok(t),
        }
    };
    let (pattern, escape) = (text(pattern)?, text(escape)?);
    let nullable = pattern.nullable || escape.nullable;
    let e = pattern
        .expr
        .call_binary(BinaryFunc::LikeEscape, escape.expr);
    Ok(Typed {
        expr: fold::node(e)?,
        nullable,
        ..pattern
    })
}

pub fn like(case_insensitive: bool, negated: bool, l: Typed, r: Typed) -> Result<Typed, PlanError> {
    let sym = match (case_insensitive, negated) {
        (false, false) => "~~",
        (false, true) => "!~~",
        (true, false) => "~~*",
        (true, true) => "!~~*",
    };
    if !case_insensitive {
        crate::types::refuse_bytea("LIKE", &[&l, &r])?;
    }
    let is_text = |t: &Typed| t.ty.is_none_or(|ty| ty.is_string());
    if !is_text(&l) || !is_text(&r) {
        return Err(no_operator(sym, &names(&l, &r)));
    }
    // A char(n) operand is matched with its padding, as PostgreSQL's bpcharlike does.
    let keep_padding = |t: Typed| -> Result<Typed, PlanError> {
        match t.ty {
            Some(Char { .. }) => Ok(Typed {
                ty: Some(Text),
                ..t
            }),
            _ => implicit(t, &ScalarType::Text),
        }
    };
    let l = keep_padding(l)?;
    let r = implicit(r, &ScalarType::Text)?;
    let func = if case_insensitive {
        BinaryFunc::ILike
    } else {
        BinaryFunc::Like
    };
    let t = build(func, l, r, ScalarType::Bool)?;
    if negated {
        not(t)
    } else {
        Ok(t)
    }
}

/// Checks that an operand of a boolean construct is boolean (an unknown literal is parsed).
pub fn boolean(t: Typed, what: &str) -> Result<Typed, PlanError> {
    match t.ty {
        None => implicit(t, &ScalarType::Bool),
        Some(ScalarType::Bool) => Ok(t),
        Some(other) => Err(PlanError::datatype_mismatch(format!(
            "argument of {what} must be type boolean, not type {other}"
        ))),
    }
}

pub fn and_or(func: BinaryFunc, l: Typed, r: Typed) -> Result<Typed, PlanError> {
    let what = if func == BinaryFunc::And { "AND" } else { "OR" };
    let (l, r) = (boolean(l, what)?, boolean(r, what)?);
    build(func, l, r, ScalarType::Bool)
}

/// NOT of an already boolean expression.
pub fn not(t: Typed) -> Result<Typed, PlanError> {
    let nullable = t.nullable;
    Ok(Typed::new(
        fold::node(t.expr.call_unary(UnaryFunc::Not))?,
        ScalarType::Bool,
        nullable,
    ))
}

/// Unary minus.
pub fn negate(t: Typed) -> Result<Typed, PlanError> {
    match t.ty {
        // A time is negated as the interval it converts to implicitly.
        Some(ScalarType::Time) => negate(implicit(t, &Interval)?),
        Some(ty) if ty.is_numeric_family() || ty == Interval => {
            let ty = ty.base();
            let nullable = t.nullable;
            Ok(Typed::new(
                fold::node(t.expr.call_unary(UnaryFunc::Neg))?,
                ty,
                nullable,
            ))
        }
        None => Err(PlanError::new("42725", "operator is not unique: - unknown")),
        Some(ty) => Err(PlanError::undefined_function(format!(
            "operator does not exist: - {ty}"
        ))),
    }
}

/// `x IS [NOT] NULL`.
pub fn is_null(t: Typed, negated: bool) -> Result<Typed, PlanError> {
    let func = if negated {
        UnaryFunc::IsNotNull
    } else {
        UnaryFunc::IsNull
    };
    Ok(Typed::new(
        fold::node(t.expr.call_unary(func))?,
        ScalarType::Bool,
        false,
    ))
}

/// `x IS [NOT] TRUE|FALSE`: never NULL.
pub fn is_bool(t: Typed, value: bool, negated: bool) -> Result<Typed, PlanError> {
    let what = format!(
        "IS {}{}",
        if negated { "NOT " } else { "" },
        if value { "TRUE" } else { "FALSE" }
    );
    let t = boolean(t, &what)?;
    // x IS TRUE = coalesce(x, false); x IS FALSE = coalesce(NOT x, false); negations flip.
    let operand = if value { t } else { not(t)? };
    let coalesced = fold::node(ScalarExpr::Variadic {
        func: VariadicFunc::Coalesce,
        exprs: vec![operand.expr, ScalarExpr::Literal(Datum::Bool(false))],
    })?;
    let t = Typed::new(coalesced, ScalarType::Bool, false);
    if negated {
        not(t)
    } else {
        Ok(t)
    }
}

/// `l IS [NOT] DISTINCT FROM r`: equality where NULL equals NULL, never NULL itself.
pub fn is_distinct(l: Typed, r: Typed, negated: bool) -> Result<Typed, PlanError> {
    let (l, r) = unify_comparable("=", l, r)?;
    let eq = l.expr.clone().call_binary(BinaryFunc::Eq, r.expr.clone());
    let r_null = r.expr.clone().call_unary(UnaryFunc::IsNull);
    // not distinct = if l IS NULL then r IS NULL else if r IS NULL then false else l = r
    let not_distinct = ScalarExpr::If {
        cond: Box::new(l.expr.call_unary(UnaryFunc::IsNull)),
        then: Box::new(r_null.clone()),
        els: Box::new(ScalarExpr::If {
            cond: Box::new(r_null),
            then: Box::new(ScalarExpr::Literal(Datum::Bool(false))),
            els: Box::new(eq),
        }),
    };
    let t = Typed::new(fold_deep(not_distinct)?, ScalarType::Bool, false);
    if negated {
        Ok(t)
    } else {
        not(t)
    }
}

/// Folds a freshly built tree bottom-up.
pub fn fold_deep(e: ScalarExpr) -> Result<ScalarExpr, PlanError> {
    let e = match e {
        ScalarExpr::Unary { func, expr } => ScalarExpr::Unary {
            func,
            expr: Box::new(fold_deep(*expr)?),
        },
        ScalarExpr::Binary { func, left, right } => ScalarExpr::Binary {
            func,
            left: Box::new(fold_deep(*left)?),
            right: Box::new(fold_deep(*right)?),
        },
        ScalarExpr::Variadic { func, exprs } => ScalarExpr::Variadic {
            func,
            exprs: exprs.into_iter().map(fold_deep).collect::<Result<_, _>>()?,
        },
        ScalarExpr::If { cond, then, els } => ScalarExpr::If {
            cond: Box::new(fold_deep(*cond)?),
            then: Box::new(fold_deep(*then)?),
            els: Box::new(fold_deep(*els)?),
        },
        leaf => leaf,
    };
    fold::node(e)
}
