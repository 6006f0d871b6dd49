//! SQL types as the planner sees them: the mapping from sqlparser's `DataType` to kpg's
//! `ScalarType`, the typed expressions the binder produces, and PostgreSQL's coercion rules.
//!
//! A bound expression is `Typed`: a `ScalarExpr` with its type and nullability. The type is
//! `None` for PostgreSQL's "unknown" pseudo-type, which only string literals and NULL have: an
//! unknown literal takes the type its context needs (it is parsed at plan time, so a bad value
//! is a 22P02 error at plan time, as in PostgreSQL), and resolves to `text` where nothing
//! constrains it.
//!
//! Coercions come in PostgreSQL's three strengths: implicit (operators: numeric promotion
//! int4 → int8 → numeric → float8), assignment (INSERT/UPDATE: also narrowing numeric casts and
//! anything to a string type) and explicit (CAST: also text to anything, int4 ⇄ bool).

use crate::error::PlanError;
use crate::fold;
use kpg_types::{Datum, IntervalFields, IntervalTypmod, ScalarExpr, ScalarType, UnaryFunc};
use sqlparser::ast::{CharacterLength, DataType, ExactNumberInfo, TimezoneInfo};

/// A bound expression with its type (`None` = unknown) and whether it may be NULL.
#[derive(Clone, Debug, PartialEq)]
pub struct Typed {
    pub expr: ScalarExpr,
    pub ty: Option<ScalarType>,
    pub nullable: bool,
}

impl Typed {
    pub fn new(expr: ScalarExpr, ty: ScalarType, nullable: bool) -> Self {
        Typed {
            expr,
            ty: Some(ty),
            nullable,
        }
    }

    pub fn literal(d: Datum, ty: ScalarType) -> Self {
        let nullable = d.is_null();
        Typed::new(ScalarExpr::Literal(d), ty, nullable)
    }

    /// The type's name for messages: PostgreSQL says "unknown" for untyped literals.
    pub fn type_name(&self) -> String {
        type_name(self.ty)
    }
}

pub fn type_name(ty: Option<ScalarType>) -> String {
    ty.map_or_else(|| "unknown".to_string(), |t| t.to_string())
}

/// How strong a coercion is allowed to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastContext {
    Implicit,
    Assignment,
    Explicit,
}

/// Position in PostgreSQL's numeric promotion order.
fn numeric_rank(t: &ScalarType) -> Option<u8> {
    match t {
        ScalarType::Int16 => Some(0),
        ScalarType::Int32 => Some(1),
        ScalarType::Int64 => Some(2),
        ScalarType::Numeric { .. } => Some(3),
        ScalarType::Float32 => Some(4),
        ScalarType::Float64 => Some(5),
        _ => None,
    }
}

/// Whether a value of type `from` may become a `to` in the given context.
pub fn cast_allowed(from: &ScalarType, to: &ScalarType, ctx: CastContext) -> bool {
    use ScalarType::*;
    if from.same_family(to) {
        return true;
    }
    if let (Some(a), Some(b)) = (numeric_rank(from), numeric_rank(to)) {
        return a < b || ctx != CastContext::Implicit;
    }
    // An array converts as its elements do.
    if let (Some(a), Some(b)) = (from.element(), to.element()) {
        return cast_allowed(&a, &b, ctx);
    }
    match (from.base(), to.base()) {
        // char(n) becomes text implicitly (losing its trailing blanks); text becomes char(n)
        // on assignment.
        (Char { .. }, Text | VarChar { .. }) => true,
        (_, Text | VarChar { .. } | Char { .. }) => ctx != CastContext::Implicit,
        (Text | VarChar { .. } | Char { .. }, _) => ctx == CastContext::Explicit,
        (Int32, Bool) | (Bool, Int32) => ctx == CastContext::Explicit,
        (Jsonb, Bool | Int16 | Int32 | Int64 | Numeric { .. } | Float32 | Float64) => {
            ctx == CastContext::Explicit
        }
        (Date, Timestamp) | (Time, Interval) => true,
        (Date | Timestamp, TimestampTz) => true,
        (Timestamp, Date) | (Timestamp, Time) | (Interval, Time) => ctx != CastContext::Implicit,
        (TimestampTz, Date | Timestamp | Time) => ctx != CastContext::Implicit,
        _ => false,
    }
}

/// Converts `t` to type `to`, or `Ok(None)` if the context does not allow it. Unknown
/// literals are parsed (errors are PostgreSQL's input errors); constants are folded.
pub fn coerce(t: Typed, to: &ScalarType, ctx: CastContext) -> Result<Option<Typed>, PlanError> {
    let Some(from) = t.ty else {
        if let ScalarExpr::Param(n) = t.expr {
            // A parameter of unknown type takes the first type its context asks for.
            let fixed = crate::plan_params::fix(n, to);
            return coerce(fixed, to, ctx);
        }
        // An unknown literal: a string is input for the target type, NULL is NULL of it.
        let expr = match t.expr {
            ScalarExpr::Literal(Datum::String(s)) if zoned_input(to) => {
                // Input of a literal is read once, at parse time, in the planning session's
                // zone (PostgreSQL stores the instant in a view); a text-typed value cast to
                // timestamptz is read in the zone of each run (`zoned_casts::stays_zoned`).
                let typed = Typed::new(
                    ScalarExpr::Literal(Datum::String(s)),
                    ScalarType::Text,
                    false,
                );
                let cast = coerce(typed, to, CastContext::Explicit)?.expect("text casts to all");
                let instant = ScalarExpr::Literal(cast.expr.eval(&[])?);
                return Ok(Some(Typed {
                    expr: instant,
                    ..cast
                }));
            }
            ScalarExpr::Literal(Datum::String(s)) => {
                ScalarExpr::Literal(Datum::parse_text(&s, to)?)
            }
            other => fold::node(other.call_unary(UnaryFunc::Cast(*to)))?,
        };
        return Ok(Some(Typed {
            expr,
            ty: Some(*to),
            nullable: t.nullable,
        }));
    };
    if !cast_allowed(&from, to, ctx) {
        return Ok(None);
    }
    if matches!(from, ScalarType::Char { .. }) && !matches!(to, ScalarType::Char { .. }) {
        // Leaving char(n): the trailing blanks go first, then the value is converted as text.
        let expr = fold::node(t.expr.call_unary(UnaryFunc::BpcharToText))?;
        let text = Typed {
            expr,
            ty: Some(ScalarType::Text),
            nullable: t.nullable,
        };
        return coerce(text, to, ctx);
    }
    if !needs_cast(&from, to) {
        return Ok(Some(Typed { ty: Some(*to), ..t }));
    }
    if let Some(expr) = crate::zoned_casts::cast(&from, to, t.expr.clone())? {
        return Ok(Some(Typed {
            expr,
            ty: Some(*to),
            nullable: t.nullable,
        }));
    }
    let expr = fold::node(t.expr.call_unary(UnaryFunc::Cast(*to)))?;
    Ok(Some(Typed {
        expr,
        ty: Some(*to),
        nullable: t.nullable,
    }))
}

fn to_is_unconstrained(to: &ScalarType) -> bool {
    matches!(
        to,
        ScalarType::Numeric {
            precision: None,
            ..
        } | ScalarType::VarChar { max_length: None }
            | ScalarType::Interval
            | ScalarType::Timestamp
            | ScalarType::TimestampTz
            | ScalarType::Time
            | ScalarType::Text
            | ScalarType::Char { length: None }
    )
}

/// Whether text input of `to` depends on the session's zone (read by a `ZonedFunc`).
fn zoned_input(to: &ScalarType) -> bool {
    matches!(to, ScalarType::TimestampTz | ScalarType::TimestampTzOf(_))
}

/// Whether converting `from` to `to` changes values (or may fail).
fn needs_cast(from: &ScalarType, to: &ScalarType) -> bool {
    if from == to {
        return false;
    }
    if from.same_family(to) {
        // Dropping a modifier never changes a value; adding or changing one may.
        return !to_is_unconstrained(to);
    }
    true
}

/// 0A000 when an argument of `what` is a bytea: PostgreSQL has bytea forms of these string
/// functions and operators (substring, position, trim, md5, LIKE, string_agg) that kpg does not.
pub fn refuse_bytea(what: &str, args: &[&Typed]) -> Result<(), PlanError> {
    if args.iter().any(|a| a.ty == Some(ScalarType::Bytea)) {
        return Err(PlanError::unsupported(format!("{what} of bytea")));
    }
    Ok(())
}

/// Resolves unknown to text, as PostgreSQL does for query outputs.
pub fn resolve_unknown(t: Typed) -> Result<Typed, PlanError> {
    match t.ty {
        Some(_) => Ok(t),
        None => Ok(coerce(t, &ScalarType::Text, CastContext::Implicit)?.expect("unknown coerces")),
    }
}

/// PostgreSQL's `select_common_type`: the type CASE branches, COALESCE arguments, UNION
/// columns and VALUES columns are converted to. `what` names the construct for the error.
pub fn common_type(types: &[Option<ScalarType>], what: &str) -> Result<ScalarType, PlanError> {
    let mut acc: Option<ScalarType> = None;
    for t in types.iter().flatten() {
        acc = Some(match acc {
            None => *t,
            Some(a) if a == *t => a,
            Some(a) => match (numeric_rank(&a), numeric_rank(t)) {
                (Some(x), Some(y)) => {
                    let wider = if x >= y { a } else { *t };
                    if matches!(wider, ScalarType::Numeric { .. }) {
                        ScalarType::NUMERIC
                    } else {
                        wider
                    }
                }
                _ if a.is_string() && t.is_string() => match (a, t) {
                    (ScalarType::Char { .. }, ScalarType::Char { .. }) => {
                        ScalarType::Char { length: None }
                    }
                    (
                        ScalarType::VarChar { .. } | ScalarType::Char { .. },
                        ScalarType::VarChar { .. } | ScalarType::Char { .. },
                    ) => ScalarType::VarChar { max_length: None },
                    _ => ScalarType::Text,
                },
                _ if a.same_family(t) => a.base(),
                // date and timestamp meet timestamptz at it, PostgreSQL's preferred datetime
                // type.
                _ if matches!(
                    (a, *t),
                    (
                        ScalarType::Date | ScalarType::Timestamp,
                        ScalarType::TimestampTz
                    ) | (
                        ScalarType::TimestampTz,
                        ScalarType::Date | ScalarType::Timestamp
                    )
                ) =>
                {
                    ScalarType::TimestampTz
                }
                _ if matches!(
                    (a, *t),
                    (ScalarType::Date, ScalarType::Timestamp)
                        | (ScalarType::Timestamp, ScalarType::Date)
                ) =>
                {
                    ScalarType::Timestamp
                }
                _ => {
                    return Err(PlanError::datatype_mismatch(format!(
                        "{what} types {} and {} cannot be matched",
                        a.without_modifiers(),
                        t.without_modifiers()
                    )))
                }
            },
        });
    }
    // A length or precision survives only if every input has it (an unknown literal has
    // none): `coalesce(c, 'zz')` over a char(4) is bpchar, so 'zz' is not padded.
    Ok(match acc {
        None => ScalarType::Text,
        Some(t) if types.iter().all(|u| *u == Some(t)) => t,
        Some(t) => t.without_modifiers(),
    })
}

/// Converts every expression to `ty` (implicitly), for constructs with a common type.
pub fn coerce_all(items: Vec<Typed>, ty: &ScalarType, what: &str) -> Result<Vec<Typed>, PlanError> {
    items
        .into_iter()
        .map(|t| {
            let name = t.type_name();
            coerce(t, ty, CastContext::Implicit)?.ok_or_else(|| {
                PlanError::datatype_mismatch(format!(
                    "{what} could not convert type {name} to {ty}"
                ))
            })
        })
        .collect()
}

/// The wider of two numeric types under implicit promotion, or None if either is not numeric.
pub fn numeric_promotion(a: &ScalarType, b: &ScalarType) -> Option<ScalarType> {
    let (x, y) = (numeric_rank(a)?, numeric_rank(b)?);
    // PostgreSQL's real operators take reals only; a real meets any other number in double
    // precision (`1 + 1.5::real` is double precision).
    if (*a == ScalarType::Float32) != (*b == ScalarType::Float32) {
        return Some(ScalarType::Float64);
    }
    let wider = if x >= y { a } else { b };
    Some(wider.base())
}

/// Maps a SQL type name to a kpg type; what kpg lacks is refused (0A000), what PostgreSQL
/// lacks does not exist (42704).
pub fn scalar_type(dt: &DataType) -> Result<ScalarType, PlanError> {
    use DataType as D;
    let unsupported = |what: &str| Err(PlanError::unsupported(format!("type {what}")));
    Ok(match dt {
        D::SmallInt(None) | D::Int2(None) => ScalarType::Int16,
        D::Int(None) | D::Int4(None) | D::Integer(None) => ScalarType::Int32,
        D::BigInt(None) | D::Int8(None) => ScalarType::Int64,
        D::Text => ScalarType::Text,
        D::Varchar(len) | D::CharacterVarying(len) | D::CharVarying(len) => ScalarType::VarChar {
            max_length: match len {
                None => None,
                Some(CharacterLength::IntegerLength { length, unit: None }) => {
                    if *length == 0 || *length > 10_485_760 {
                        return Err(PlanError::new(
                            "22023",
                            "length for type varchar must be at least 1 and at most 10485760",
                        ));
                    }
                    Some(*length as u32)
                }
                Some(_) => return unsupported(&dt.to_string()),
            },
        },
        D::Char(len) | D::Character(len) => ScalarType::Char {
            length: Some(match len {
                None => 1,
                Some(CharacterLength::IntegerLength { length, unit: None }) => {
                    if *length == 0 || *length > 10_485_760 {
                        return Err(PlanError::new(
                            "22023",
                            "length for type char must be at least 1 and at most 10485760",
                        ));
                    }
                    *length as u32
                }
                Some(_) => return unsupported(&dt.to_string()),
            }),
        },
        D::Bool | D::Boolean => ScalarType::Bool,
        D::Numeric(info) | D::Decimal(info) => match info {
            ExactNumberInfo::None => ScalarType::NUMERIC,
            ExactNumberInfo::Precision(p) => numeric(*p, 0)?,
            ExactNumberInfo::PrecisionAndScale(p, s) => numeric(*p, *s)?,
        },
        D::DoublePrecision | D::Float8 | D::Float64 | D::Double(ExactNumberInfo::None) => {
            ScalarType::Float64
        }
        D::Float(ExactNumberInfo::None) => ScalarType::Float64,
        D::Float(ExactNumberInfo::Precision(p)) if (25..=53).contains(p) => ScalarType::Float64,
        D::Float(ExactNumberInfo::Precision(p)) if (1..=24).contains(p) => ScalarType::Float32,
        D::Float(ExactNumberInfo::Precision(_)) => {
            return Err(PlanError::new(
                "22023",
                "precision for type float must be between 1 and 53",
            ))
        }
        D::Real | D::Float4 => ScalarType::Float32,
        D::Date => ScalarType::Date,
        D::Timestamp(None, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            ScalarType::Timestamp
        }
        D::Timestamp(Some(p), TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            ScalarType::TimestampOf(precision(*p))
        }
        D::Timestamp(None, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => {
            ScalarType::TimestampTz
        }
        D::Timestamp(Some(p), TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => {
            ScalarType::TimestampTzOf(precision(*p))
        }
        D::Time(None, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => ScalarType::Time,
        D::Time(Some(p), TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            ScalarType::TimeOf(precision(*p))
        }
        D::Uuid => ScalarType::Uuid,
        D::Bytea => ScalarType::Bytea,
        D::JSONB => ScalarType::Jsonb,
        D::Array(sqlparser::ast::ArrayElemTypeDef::SquareBracket(inner, _)) => {
            // `int[][]` and `int[3]` are `int[]` in PostgreSQL.
            match scalar_type(inner)? {
                ScalarType::Array(e) => ScalarType::Array(e),
                elem => ScalarType::array_of(elem),
            }
        }
        D::Interval { fields, precision } => {
            interval_type(fields.as_ref().map(interval_fields), *precision)?
        }
        D::Custom(name, mods) if mods.is_empty() => {
            let name = name.to_string().to_lowercase();
            match name.strip_prefix("pg_catalog.").unwrap_or(&name) {
                "int2" | "smallint" => ScalarType::Int16,
                "int4" | "integer" | "int" => ScalarType::Int32,
                "int8" | "bigint" => ScalarType::Int64,
                "float8" => ScalarType::Float64,
                "float4" => ScalarType::Float32,
                "bool" | "boolean" => ScalarType::Bool,
                // PostgreSQL's `name` (identifiers in the system catalogs) is text to kpg.
                "text" | "name" => ScalarType::Text,
                "varchar" => ScalarType::VarChar { max_length: None },
                "bpchar" => ScalarType::Char { length: None },
                "numeric" | "decimal" => ScalarType::NUMERIC,
                "date" => ScalarType::Date,
                "timestamp" => ScalarType::Timestamp,
                "interval" => ScalarType::Interval,
                "real" => ScalarType::Float32,
                "time" => ScalarType::Time,
                "uuid" => ScalarType::Uuid,
                "bytea" => ScalarType::Bytea,
                "jsonb" => ScalarType::Jsonb,
                "int2vector" => ScalarType::Int2Vector,
                "timestamptz" => ScalarType::TimestampTz,
                "timetz" | "json" | "char" => return unsupported(&name.to_string()),
                // An array type's internal name: `_int4` is `int4[]`.
                other if other.len() > 1 && other.starts_with('_') => {
                    let elem = sqlparser::ast::ObjectName::from(vec![sqlparser::ast::Ident::new(
                        &other[1..],
                    )]);
                    match scalar_type(&D::Custom(elem, vec![])) {
                        Ok(e) if e.element().is_none() => ScalarType::array_of(e),
                        _ => {
                            return Err(PlanError::new(
                                "42704",
                                format!("type \"{other}\" does not exist"),
                            ))
                        }
                    }
                }
                other => {
                    return Err(PlanError::new(
                        "42704",
                        format!("type \"{other}\" does not exist"),
                    ))
                }
            }
        }
        other => return unsupported(&other.to_string()),
    })
}

/// The precision of `time(p)` or `timestamp(p)`: above 6 is 6, as PostgreSQL reduces it
/// (with a warning kpg does not send).
fn precision(p: u64) -> u8 {
    p.min(6) as u8
}

/// sqlparser's interval qualifier as kpg's.
fn interval_fields(f: &sqlparser::ast::IntervalFields) -> IntervalFields {
    use sqlparser::ast::IntervalFields as P;
    match f {
        P::Year => IntervalFields::Year,
        P::Month => IntervalFields::Month,
        P::Day => IntervalFields::Day,
        P::Hour => IntervalFields::Hour,
        P::Minute => IntervalFields::Minute,
        P::Second => IntervalFields::Second,
        P::YearToMonth => IntervalFields::YearToMonth,
        P::DayToHour => IntervalFields::DayToHour,
        P::DayToMinute => IntervalFields::DayToMinute,
        P::DayToSecond => IntervalFields::DayToSecond,
        P::HourToMinute => IntervalFields::HourToMinute,
        P::HourToSecond => IntervalFields::HourToSecond,
        P::MinuteToSecond => IntervalFields::MinuteToSecond,
    }
}

/// `interval [fields] [(precision)]`: plain `Interval` without either; a precision after
/// fields not ending in SECOND is PostgreSQL's syntax error.
pub fn interval_type(
    fields: Option<IntervalFields>,
    precision: Option<u64>,
) -> Result<ScalarType, PlanError> {
    if fields.is_none() && precision.is_none() {
        return Ok(ScalarType::Interval);
    }
    let typmod = IntervalTypmod::new(fields, precision)
        .map_err(|_| PlanError::syntax("syntax error at or near \"(\""))?;
    Ok(ScalarType::IntervalOf(typmod))
}

fn numeric(p: u64, s: i64) -> Result<ScalarType, PlanError> {
    if !(1..=1000).contains(&p) {
        return Err(PlanError::new(
            "22023",
            format!("NUMERIC precision {p} must be between 1 and 1000"),
        ));
    }
    if !(-1000..=1000).contains(&s) {
        return Err(PlanError::new(
            "22023",
            format!("NUMERIC scale {s} must be between -1000 and 1000"),
        ));
    }
    Ok(ScalarType::Numeric {
        precision: Some(p as u16),
        scale: Some(s as i16),
    })
}

/// PostgreSQL's internal type name, which it uses as the column name of a bare cast.
pub fn internal_name(ty: &ScalarType) -> &'static str {
    match ty {
        ScalarType::Bool => "bool",
        ScalarType::Int16 => "int2",
        ScalarType::Int32 => "int4",
        ScalarType::Int64 => "int8",
        ScalarType::Float32 => "float4",
        ScalarType::Float64 => "float8",
        ScalarType::Numeric { .. } => "numeric",
        ScalarType::Text => "text",
        ScalarType::VarChar { .. } => "varchar",
        ScalarType::Char { .. } => "bpchar",
        ScalarType::Date => "date",
        ScalarType::Timestamp => "timestamp",
        ScalarType::Interval | ScalarType::IntervalOf(_) => "interval",
        ScalarType::TimestampOf(_) => "timestamp",
        ScalarType::TimestampTz | ScalarType::TimestampTzOf(_) => "timestamptz",
        ScalarType::Time | ScalarType::TimeOf(_) => "time",
        ScalarType::Uuid => "uuid",
        ScalarType::Bytea => "bytea",
        ScalarType::Jsonb => "jsonb",
        // A cast to an array type names its column after the element type.
        ScalarType::Array(e) => internal_name(&e.get()),
        ScalarType::Int2Vector => "int2vector",
        ScalarType::ExpandedElement(_) => "record",
    }
}
