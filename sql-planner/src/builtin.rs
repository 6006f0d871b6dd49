//! Binding of the built-in scalar functions kpg evaluates beyond the operators: string
//! functions (substring, position/strpos, trim/btrim/ltrim/rtrim), rounding (round, floor,
//! ceil) and date/time functions (EXTRACT, date_part, date_trunc), whether written as calls
//! or in SQL's special syntax (`SUBSTRING(s FROM a FOR b)`, `TRIM(LEADING x FROM s)`,
//! `POSITION(a IN b)`, `EXTRACT(f FROM x)`), and `INTERVAL '...' field` literals.
//!
//! Argument types follow PostgreSQL's function resolution for these signatures: an integer
//! argument of round/floor/ceil becomes double precision (PostgreSQL's preferred numeric
//! type), substring's positions must be integers, unknown literals take the parameter's type.
//! A unit name is resolved at plan time, so an unknown unit is 22023 and a unit the type lacks
//! is 0A000, with PostgreSQL's messages.

use crate::error::PlanError;
use crate::fold;
use crate::func::no_function;
use crate::types::{coerce, CastContext, Typed};
use kpg_types::{
    BinaryFunc, DateKind, DateUnit, Datum, Interval, IntervalField, IntervalFields, IntervalTypmod,
    ScalarExpr, ScalarType, UnaryFunc, VariadicFunc, ZonedFunc,
};
use sqlparser::ast::{DateTimeField, Expr, TrimWhereField, Value};

pub fn implicit(t: Typed, ty: &ScalarType, name: &str, all: &[Typed]) -> Result<Typed, PlanError> {
    coerce(t, ty, CastContext::Implicit)?.ok_or_else(|| no_function(name, all))
}

pub fn unary(a: Typed, func: UnaryFunc, ty: ScalarType) -> Result<Typed, PlanError> {
    let nullable = a.nullable;
    Ok(Typed::new(
        fold::node(a.expr.call_unary(func))?,
        ty,
        nullable,
    ))
}

pub fn binary(a: Typed, func: BinaryFunc, b: Typed, ty: ScalarType) -> Result<Typed, PlanError> {
    let nullable = a.nullable || b.nullable;
    Ok(Typed::new(
        fold::node(a.expr.call_binary(func, b.expr))?,
        ty,
        nullable,
    ))
}

fn is_stringish(t: &Typed) -> bool {
    t.ty.is_none_or(|ty| ty.is_string())
}

/// An `INTERVAL '...' [qualifier]` literal: the qualifier steers how the text is read and
/// cuts the value (`kpg_types::IntervalTypmod`); `SECOND(p)` and `... TO SECOND(p)` round
/// the seconds. What PostgreSQL's grammar refuses (`DAY(2)`, `YEAR TO DAY`, `SECOND(2, 1)`)
/// is a syntax error; plural or other unit words, which PostgreSQL reads as a column alias
/// after `INTERVAL '...'`, are refused as not supported. The literal's type is `interval`:
/// expressions carry no interval modifier (`ScalarType::value_type`).
pub fn interval_literal(iv: &sqlparser::ast::Interval) -> Result<Typed, PlanError> {
    let syntax = |near: &str| PlanError::syntax(format!("syntax error at or near \"{near}\""));
    let field = |f: &DateTimeField| -> Result<IntervalField, PlanError> {
        Ok(match f {
            DateTimeField::Year => IntervalField::Year,
            DateTimeField::Month => IntervalField::Month,
            DateTimeField::Day => IntervalField::Day,
            DateTimeField::Hour => IntervalField::Hour,
            DateTimeField::Minute => IntervalField::Minute,
            DateTimeField::Second => IntervalField::Second,
            other => {
                return Err(PlanError::unsupported(format!(
                    "INTERVAL '...' {other} (PostgreSQL reads {other} as a column alias there)"
                )))
            }
        })
    };
    let text = match iv.value.as_ref() {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) => s.clone(),
            Value::Number(n, _) => n.clone(),
            other => return Err(PlanError::unsupported(format!("interval literal {other}"))),
        },
        other => return Err(PlanError::unsupported(format!("INTERVAL {other}"))),
    };
    let Some(leading) = iv.leading_field.as_ref() else {
        let value = Interval::parse(&text, None)?;
        return Ok(Typed::literal(Datum::Interval(value), ScalarType::Interval));
    };
    let first = field(leading)?;
    let last = iv.last_field.as_ref().map(field).transpose()?;
    // sqlparser reads `SECOND(p)` as a leading precision, SQL's `SECOND(p, q)` as both.
    let precision = match (
        first,
        last,
        iv.leading_precision,
        iv.fractional_seconds_precision,
    ) {
        (_, _, None, p) => p,
        (IntervalField::Second, None, Some(p), None) => Some(p),
        (IntervalField::Second, None, Some(_), Some(_)) => return Err(syntax(",")),
        (_, _, Some(_), _) => return Err(syntax("(")),
    };
    let fields = IntervalFields::range(first, last).ok_or_else(|| {
        syntax(
            &iv.last_field
                .as_ref()
                .map_or("TO".into(), |f| f.to_string().to_lowercase()),
        )
    })?;
    let typmod = IntervalTypmod::new(Some(fields), precision).map_err(|_| syntax("("))?;
    let value = typmod.parse(&text)?;
    Ok(Typed::literal(Datum::Interval(value), ScalarType::Interval))
}

/// The name of an EXTRACT field as written.
fn field_name(f: &DateTimeField) -> String {
    match f {
        DateTimeField::Custom(ident) => ident.value.clone(),
        other => other.to_string().trim_matches('\'').to_string(),
    }
}

fn date_kind(ty: Option<ScalarType>) -> Option<DateKind> {
    match ty {
        Some(ScalarType::Date) => Some(DateKind::Date),
        Some(ScalarType::Timestamp) => Some(DateKind::Timestamp),
        Some(ScalarType::Interval) => Some(DateKind::Interval),
        Some(ScalarType::Time) => Some(DateKind::Time),
        Some(ScalarType::TimestampTz) => Some(DateKind::TimestampTz),
        _ => None,
    }
}

/// `EXTRACT(field FROM x)`: numeric.
pub fn extract(field: &DateTimeField, x: Typed) -> Result<Typed, PlanError> {
    let Some(kind) = date_kind(x.ty) else {
        let what = if x.ty.is_none() {
            return Err(PlanError::new(
                "42725",
                "function pg_catalog.extract(unknown, unknown) is not unique",
            ));
        } else {
            x.type_name()
        };
        return Err(PlanError::undefined_function(format!(
            "function pg_catalog.extract(unknown, {what}) does not exist"
        )));
    };
    let u = DateUnit::for_extract(&field_name(field), kind)?;
    if kind == DateKind::TimestampTz {
        return crate::zoned_funcs::session_zoned(ZonedFunc::Extract(u), x, ScalarType::NUMERIC);
    }
    unary(x, UnaryFunc::Extract(u), ScalarType::NUMERIC)
}

/// A unit given as a function's first argument.
pub(crate) enum UnitArgument {
    /// A constant: looked up as the function is planned.
    Named(String),
    /// Another text (a prepared statement's parameter, a column): read as the function runs.
    Read(Typed),
}

/// The unit argument `a` of function `name` (called with `all`).
pub(crate) fn unit_argument(
    name: &str,
    a: &Typed,
    all: &[Typed],
) -> Result<UnitArgument, PlanError> {
    match &a.expr {
        ScalarExpr::Literal(Datum::String(s)) if is_stringish(a) => {
            Ok(UnitArgument::Named(s.clone()))
        }
        _ if is_stringish(a) => Ok(UnitArgument::Read(
            coerce(a.clone(), &ScalarType::Text, CastContext::Implicit)?
                .expect("strings coerce to text"),
        )),
        _ => Err(no_function(name, all)),
    }
}

/// `date_part(text, x)`: double precision. PostgreSQL reads a date as a timestamp here.
fn date_part(args: Vec<Typed>) -> Result<Typed, PlanError> {
    let [u, x] = <[Typed; 2]>::try_from(args.clone()).expect("two arguments");
    let unit = unit_argument("date_part", &u, &args)?;
    let x = match x.ty {
        Some(ScalarType::Date) => implicit(x, &ScalarType::Timestamp, "date_part", &args)?,
        None => {
            return Err(PlanError::new(
                "42725",
                "function date_part(unknown, unknown) is not unique",
            ))
        }
        _ => x,
    };
    let Some(kind) = date_kind(x.ty) else {
        return Err(no_function("date_part", &args));
    };
    let name = match unit {
        UnitArgument::Named(name) => name,
        UnitArgument::Read(u) => {
            let zoned = (kind == DateKind::TimestampTz).then_some(ZonedFunc::DatePartBy);
            return by_unit(
                u,
                x,
                zoned,
                VariadicFunc::DatePartBy(kind),
                ScalarType::Float64,
            );
        }
    };
    let u = DateUnit::for_extract(&name, kind)?;
    if kind == DateKind::TimestampTz {
        return crate::zoned_funcs::session_zoned(ZonedFunc::DatePart(u), x, ScalarType::Float64);
    }
    unary(x, UnaryFunc::DatePart(u), ScalarType::Float64)
}

/// A function of unit `u` (read as it runs) and `x`: `zoned` in the session's zone if it is
/// one, else `func`.
fn by_unit(
    u: Typed,
    x: Typed,
    zoned: Option<ZonedFunc>,
    func: VariadicFunc,
    ty: ScalarType,
) -> Result<Typed, PlanError> {
    let nullable = u.nullable || x.nullable;
    let e = match zoned {
        Some(z) => crate::zoned_funcs::zoned_session(z, vec![u.expr, x.expr])?,
        None => ScalarExpr::Variadic {
            func,
            exprs: vec![u.expr, x.expr],
        },
    };
    Ok(Typed::new(e, ty, nullable))
}

/// `date_trunc(text, timestamp | interval)`.
fn date_trunc(args: Vec<Typed>) -> Result<Typed, PlanError> {
    let [u, x] = <[Typed; 2]>::try_from(args.clone()).expect("two arguments");
    let unit = unit_argument("date_trunc", &u, &args)?;
    // A time is truncated as the interval it converts to implicitly, as in PostgreSQL.
    let x = match x.ty {
        Some(ScalarType::Time) => implicit(x, &ScalarType::Interval, "date_trunc", &args)?,
        _ => x,
    };
    let (kind, x, ty) = match x.ty {
        Some(ScalarType::Timestamp) => (DateKind::Timestamp, x, ScalarType::Timestamp),
        Some(ScalarType::Interval) => (DateKind::Interval, x, ScalarType::Interval),
        // PostgreSQL truncates a date (or an unknown literal) as a timestamp with time zone.
        Some(ScalarType::Date | ScalarType::TimestampTz) | None => {
            let x = implicit(x, &ScalarType::TimestampTz, "date_trunc", &args)?;
            (DateKind::TimestampTz, x, ScalarType::TimestampTz)
        }
        _ => return Err(no_function("date_trunc", &args)),
    };
    let name = match unit {
        UnitArgument::Named(name) => name,
        UnitArgument::Read(u) => {
            let zoned = (kind == DateKind::TimestampTz).then_some(ZonedFunc::TruncBy);
            return by_unit(u, x, zoned, VariadicFunc::TruncBy(kind), ty);
        }
    };
    let u = DateUnit::for_trunc(&name, kind)?;
    if kind == DateKind::TimestampTz {
        return crate::zoned_funcs::session_zoned(ZonedFunc::Trunc(u), x, ty);
    }
    unary(x, UnaryFunc::DateTrunc(u), ty)
}

/// `substring(s FROM start [FOR count])`, `substring(s, start[, count])`, `substr`.
pub fn substring(
    name: &str,
    s: Typed,
    start: Option<Typed>,
    count: Option<Typed>,
) -> Result<Typed, PlanError> {
    crate::types::refuse_bytea(name, &[&s])?;
    let start = start.unwrap_or_else(|| Typed::literal(Datum::Int32(1), ScalarType::Int32));
    let mut all = vec![s.clone(), start.clone()];
    all.extend(count.clone());
    if start.ty.is_some_and(|t| t.is_string()) {
        return Err(PlanError::unsupported(
            "substring with a regular expression",
        ));
    }
    if !is_stringish(&s) {
        return Err(no_function(name, &all));
    }
    let int = |t: Typed| -> Result<Typed, PlanError> {
        match t.ty {
            None | Some(ScalarType::Int32) => implicit(t, &ScalarType::Int32, name, &all),
            Some(_) => Err(no_function(name, &all)),
        }
    };
    let s = implicit(s, &ScalarType::Text, name, &all)?;
    let mut exprs = vec![s, int(start)?];
    if let Some(c) = count {
        exprs.push(int(c)?);
    }
    let nullable = exprs.iter().any(|e| e.nullable);
    let expr = fold::node(ScalarExpr::Variadic {
        func: VariadicFunc::Substring,
        exprs: exprs.into_iter().map(|e| e.expr).collect(),
    })?;
    Ok(Typed::new(expr, ScalarType::Text, nullable))
}

/// `strpos(s, sub)` = `position(sub IN s)`.
pub fn strpos(name: &str, s: Typed, sub: Typed) -> Result<Typed, PlanError> {
    crate::types::refuse_bytea(name, &[&s, &sub])?;
    let all = [s.clone(), sub.clone()];
    if !is_stringish(&s) || !is_stringish(&sub) {
        return Err(no_function(name, &all));
    }
    let s = implicit(s, &ScalarType::Text, name, &all)?;
    let sub = implicit(sub, &ScalarType::Text, name, &all)?;
    binary(s, BinaryFunc::Position, sub, ScalarType::Int32)
}

/// `btrim` / `ltrim` / `rtrim` of the characters in `chars` (default a blank).
pub fn trim(
    name: &str,
    side: Option<&TrimWhereField>,
    s: Typed,
    chars: Option<Typed>,
) -> Result<Typed, PlanError> {
    let chars =
        chars.unwrap_or_else(|| Typed::literal(Datum::String(" ".into()), ScalarType::Text));
    crate::types::refuse_bytea(name, &[&s, &chars])?;
    let all = [s.clone(), chars.clone()];
    if !is_stringish(&s) || !is_stringish(&chars) {
        return Err(no_function(name, &all));
    }
    let s = implicit(s, &ScalarType::Text, name, &all)?;
    let chars = implicit(chars, &ScalarType::Text, name, &all)?;
    let func = match side {
        Some(TrimWhereField::Leading) => BinaryFunc::LTrim,
        Some(TrimWhereField::Trailing) => BinaryFunc::RTrim,
        Some(TrimWhereField::Both) | None => BinaryFunc::Trim,
    };
    binary(s, func, chars, ScalarType::Text)
}

/// round / floor / ceil of one argument: numeric stays numeric, anything else numeric-like
/// becomes double precision.
pub fn rounding(name: &str, func: UnaryFunc, x: Typed) -> Result<Typed, PlanError> {
    let (x, ty) = float_or_numeric(name, x)?;
    unary(x, func, ty)
}

/// The argument of a function PostgreSQL defines for `numeric` and `double precision`
/// (round, sqrt, ln, ...), converted as its function resolution does: numeric stays numeric,
/// anything else numeric-like (and an unknown literal) becomes double precision, the
/// preferred type; with the type it has.
pub fn float_or_numeric(name: &str, x: Typed) -> Result<(Typed, ScalarType), PlanError> {
    let ty = match x.ty {
        Some(ScalarType::Numeric { .. }) => ScalarType::NUMERIC,
        None => ScalarType::Float64,
        Some(t) if t.is_numeric_family() => ScalarType::Float64,
        Some(_) => return Err(no_function(name, &[x])),
    };
    Ok((
        implicit(x.clone(), &ty, name, std::slice::from_ref(&x))?,
        ty,
    ))
}

/// `round(numeric, integer)` and `trunc(numeric, integer)`.
fn round_scale(name: &str, func: BinaryFunc, args: Vec<Typed>) -> Result<Typed, PlanError> {
    let [x, n] = <[Typed; 2]>::try_from(args.clone()).expect("two arguments");
    let x = match x.ty {
        None
        | Some(
            ScalarType::Int16 | ScalarType::Int32 | ScalarType::Int64 | ScalarType::Numeric { .. },
        ) => implicit(x, &ScalarType::NUMERIC, name, &args)?,
        _ => return Err(no_function(name, &args)),
    };
    let n = match n.ty {
        None | Some(ScalarType::Int16 | ScalarType::Int32) => {
            implicit(n, &ScalarType::Int32, name, &args)?
        }
        _ => return Err(no_function(name, &args)),
    };
    binary(x, func, n, ScalarType::NUMERIC)
}

/// Binds a call of one of this module's functions by name, or `None` if the name and
/// argument count are not one of them.
pub fn call(name: &str, args: Vec<Typed>) -> Result<Option<Typed>, PlanError> {
    let mut it = args.clone().into_iter();
    let mut next = || it.next().expect("argument count checked");
    Ok(Some(match (name, args.len()) {
        ("date_part", 2) => date_part(args)?,
        ("date_trunc", 2) => date_trunc(args)?,
        ("substr", 2) => substring(name, next(), Some(next()), None)?,
        ("substr", 3) => substring(name, next(), Some(next()), Some(next()))?,
        ("strpos", 2) => strpos(name, next(), next())?,
        ("btrim", 1 | 2) => trim(name, None, next(), args.get(1).cloned())?,
        ("ltrim", 1 | 2) => trim(
            name,
            Some(&TrimWhereField::Leading),
            next(),
            args.get(1).cloned(),
        )?,
        ("rtrim", 1 | 2) => trim(
            name,
            Some(&TrimWhereField::Trailing),
            next(),
            args.get(1).cloned(),
        )?,
        ("round", 1) => rounding(name, UnaryFunc::Round, next())?,
        ("round", 2) => round_scale(name, BinaryFunc::RoundScale, args)?,
        ("trunc", 1) => rounding(name, UnaryFunc::Trunc, next())?,
        ("trunc", 2) => round_scale(name, BinaryFunc::TruncScale, args)?,
        ("floor", 1) => rounding(name, UnaryFunc::Floor, next())?,
        ("ceil" | "ceiling", 1) => rounding(name, UnaryFunc::Ceil, next())?,
        ("mod", 2) => crate::ops::arithmetic(BinaryFunc::Mod, next(), next())?,
        _ => return Ok(None),
    }))
}
