//! Casts between `timestamptz` and the types whose values are local times (`timestamp`,
//! `date`, `time`, text), which PostgreSQL computes in the session's `TimeZone`: each is
//! planned as a `ZonedFunc` over the session's zone (`session_zone.rs`), then the zone-free
//! cast to the exact target (a precision, a length). Constant arguments fold here, so
//! `'2024-03-10 12:00'::timestamptz` is a literal instant in the plan.

use std::cell::Cell;

use crate::error::PlanError;
use crate::fold;
use crate::session_zone::zone_literal;
use crate::types::{coerce, CastContext, Typed};
use kpg_types::{ScalarExpr, ScalarType, UnaryFunc, VariadicFunc, ZonedFunc};

fn zoned(func: ZonedFunc, arg: ScalarExpr) -> Result<ScalarExpr, PlanError> {
    fold::node(ScalarExpr::Variadic {
        func: VariadicFunc::Zoned(func),
        exprs: vec![arg, zone_literal()],
    })
}

fn then_cast(e: ScalarExpr, to: &ScalarType, unless: ScalarType) -> Result<ScalarExpr, PlanError> {
    if *to == unless {
        return Ok(e);
    }
    fold::node(e.call_unary(UnaryFunc::Cast(*to)))
}

fn is_tstz(t: &ScalarType) -> bool {
    t.base() == ScalarType::TimestampTz
}

/// Whether values of `t` hold timestamptz values (itself, or an array of them).
pub fn holds_tstz(t: &ScalarType) -> bool {
    t.element().map_or_else(|| is_tstz(t), |e| holds_tstz(&e))
}

/// The refusal of an array of timestamptz values written as text by `what`: kpg writes the
/// elements in UTC, PostgreSQL in the session's zone.
pub fn array_text_refusal(what: &str, ty: &ScalarType) -> PlanError {
    PlanError::unsupported(format!(
        "{what} of {ty} (the text of arrays of timestamp with time zone in the session's \
         time zone)"
    ))
}

/// The plan of a cast from `from` to `to` that reads the session's zone, or `None` when the
/// cast does not (the caller plans a plain cast). Casts between arrays that would read the
/// zone per element are not implemented (0A000).
pub fn cast(
    from: &ScalarType,
    to: &ScalarType,
    expr: ScalarExpr,
) -> Result<Option<ScalarExpr>, PlanError> {
    if let (Some(a), Some(b)) = (from.element(), to.element()) {
        if is_tstz(&a) != is_tstz(&b) {
            return Err(PlanError::unsupported(format!(
                "casts from {from} to {to} (arrays of timestamp with time zone read in the \
                 session's time zone)"
            )));
        }
        return Ok(None);
    }
    if from.element().is_some() && holds_tstz(from) && to.element().is_none() {
        return Err(array_text_refusal("casts to text", from));
    }
    let (f, t) = (from.base(), to.base());
    if let Some(input) = styled_input(from, to, &expr)? {
        return Ok(Some(input));
    }
    Ok(Some(match (f, t) {
        (ScalarType::TimestampTz, ScalarType::TimestampTz) => return Ok(None),
        (ScalarType::Text, ScalarType::TimestampTz) if to.element().is_none() => then_cast(
            zoned(ZonedFunc::FromText, expr)?,
            to,
            ScalarType::TimestampTz,
        )?,
        (ScalarType::Text, ScalarType::Array(_)) if to.element().is_some_and(|e| is_tstz(&e)) => {
            return Err(PlanError::unsupported(
                "text input of arrays of timestamp with time zone",
            ))
        }
        (ScalarType::TimestampTz, ScalarType::Text | ScalarType::Char { .. }) => {
            then_cast(zoned(ZonedFunc::ToText, expr)?, to, ScalarType::Text)?
        }
        (ScalarType::Timestamp, ScalarType::TimestampTz) => then_cast(
            zoned(ZonedFunc::FromLocal, expr)?,
            to,
            ScalarType::TimestampTz,
        )?,
        (ScalarType::Date, ScalarType::TimestampTz) => {
            let ts = fold::node(expr.call_unary(UnaryFunc::Cast(ScalarType::Timestamp)))?;
            then_cast(
                zoned(ZonedFunc::FromLocal, ts)?,
                to,
                ScalarType::TimestampTz,
            )?
        }
        (ScalarType::TimestampTz, ScalarType::Timestamp | ScalarType::Date | ScalarType::Time) => {
            then_cast(zoned(ZonedFunc::ToLocal, expr)?, to, ScalarType::Timestamp)?
        }
        _ => return Ok(None),
    }))
}

/// Date/time and interval input of text while the session's input style is not the default
/// (`DateStyle` DMY or YMD, `IntervalStyle` sql_standard): the plan carries the style
/// (`ZonedFunc::Input`), so a dataflow reads the text as the planning session did; `None`
/// under the default, which every dataflow reads by itself. A timestamptz without a zone is
/// read in the session's zone. Arrays of such values read from non-constant text are refused
/// (their elements would be read in the default style).
///
/// In a plain view's definition (`with_late_style`) the input is planned so under the default
/// style too: `catalog::read_plan` binds it to the style of the session reading the view, as
/// PostgreSQL evaluates a view's casts when it is read.
fn styled_input(
    from: &ScalarType,
    to: &ScalarType,
    expr: &ScalarExpr,
) -> Result<Option<ScalarExpr>, PlanError> {
    let style = kpg_types::datetime::input_style();
    let text = matches!(from.base(), ScalarType::Text | ScalarType::VarChar { .. });
    let default = style == Default::default();
    let late = LATE_STYLE.with(Cell::get);
    if !text || (default && !late) {
        return Ok(None);
    }
    let steered = |t: &ScalarType| match t.base() {
        ScalarType::Date | ScalarType::Timestamp | ScalarType::TimestampTz => true,
        ScalarType::Interval => style.sql_standard_intervals || late,
        _ => false,
    };
    if let Some(e) = to.element() {
        // (In a plain view under the default style too: its reader's style would be ignored.)
        if steered(&e) && !matches!(expr, ScalarExpr::Literal(_)) {
            return Err(PlanError::unsupported(format!(
                "casts from text to {to} while DateStyle's order is not MDY or IntervalStyle \
                 is sql_standard, or in a plain view (read in its reader's styles)"
            )));
        }
        return Ok(None);
    }
    if !steered(to) {
        return Ok(None);
    }
    let zone = match to.base() {
        ScalarType::TimestampTz => zone_literal(),
        _ => ScalarExpr::Literal(kpg_types::Datum::String("UTC".into())),
    };
    fold::node(ScalarExpr::Variadic {
        func: VariadicFunc::Zoned(ZonedFunc::Input(style, *to)),
        exprs: vec![expr.clone(), zone],
    })
    .map(Some)
}

thread_local! {
    /// Whether a plain view's definition is being planned (`styled_input`).
    static LATE_STYLE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (the planning of a plain view's definition when `late`) with text input of
/// dates, times and intervals planned to be bound to the reading session's style.
pub fn with_late_style<R>(late: bool, f: impl FnOnce() -> R) -> R {
    let previous = LATE_STYLE.with(|l| l.replace(late));
    let result = f();
    LATE_STYLE.with(|l| l.set(previous));
    result
}

/// Binds the text input of dates, times and intervals in a plain view's stored plan to the
/// input style of the session planning a read of it (`DateStyle`'s order, `IntervalStyle`).
pub fn bind_input_style(plan: &mut kpg_types::Plan) {
    let style = kpg_types::datetime::input_style();
    plan.visit_exprs_mut(&mut |e| {
        e.visit_mut(&mut |e| {
            if let ScalarExpr::Variadic {
                func: VariadicFunc::Zoned(ZonedFunc::Input(s, _)),
                ..
            } = e
            {
                *s = style;
            }
        })
    });
}

/// An argument of concat(): a timestamptz is written in the session's zone (as its cast to
/// text), an array of them is refused; other values are concat()'s to write.
pub fn concat_arg(ty: ScalarType, a: Typed) -> Result<Typed, PlanError> {
    if !holds_tstz(&ty) {
        return Ok(a);
    }
    if ty.element().is_some() {
        return Err(array_text_refusal("concat()", &ty));
    }
    Ok(coerce(a, &ScalarType::Text, CastContext::Explicit)?.expect("timestamptz to text"))
}

/// Whether a constant `ZonedFunc` call stays unfolded: one over the session's zone (the
/// marked argument, bound when the plan runs) writes or reads local times of the zone of the
/// session that runs the plan, as PostgreSQL's stable functions evaluate when a view is
/// read, not when it is created. So is text input of a text-typed value
/// (`'...'::text::timestamptz`); a literal (`timestamptz '...'`) is read when the statement is
/// parsed, as PostgreSQL does, by `types::coerce`.
pub fn stays_zoned(func: &VariadicFunc, exprs: &[ScalarExpr]) -> bool {
    matches!(func, VariadicFunc::Zoned(_))
        && matches!(exprs.last(), Some(ScalarExpr::Literal(kpg_types::Datum::String(z)))
            if z.starts_with(kpg_types::datetime::SESSION_ZONE))
}

/// Whether `e` holds a call that `stays_zoned`, so a plan of constants over it is evaluated
/// when it runs, not when it is planned.
pub fn has_late_zone(e: &ScalarExpr) -> bool {
    let mut late = false;
    e.visit(&mut |n| {
        if let ScalarExpr::Variadic { func, exprs } = n {
            late |= stays_zoned(func, exprs);
        }
    });
    late
}
