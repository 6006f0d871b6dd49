//! Window frames: the `ROWS`/`RANGE` clause of a window specification checked as PostgreSQL
//! checks it, and for `RANGE` bounds with an offset the per-row values the frame is found by
//! (the window's ORDER BY value in a comparable form, and each bound's value).

use kpg_types::window::{FrameBound, RangeKey, WindowFrame};
use kpg_types::{ScalarExpr, ScalarType};
use sqlparser::ast::{Expr, WindowFrameBound, WindowFrameUnits, WindowSpec};

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::types::{coerce, CastContext, Typed};

/// A RANGE bound's offset: whether it is the frame's start, whether PRECEDING, and the offset.
pub(super) type Offset<'e> = (bool, bool, &'e Expr);

/// The frame of a window specification, with PostgreSQL's checks. RANGE bounds with an offset
/// come back as `FrameBound::Value` (0: the start's value, 1: the end's, after the key at 0 —
/// see `range_offsets`) with their offsets; ROWS bounds whose count is not written as a
/// number as `FrameBound::PrecedingBy`/`FollowingBy` of its position (`rows_offsets`).
pub(super) fn frame(spec: &WindowSpec) -> Result<(WindowFrame, Vec<Offset<'_>>), PlanError> {
    let Some(f) = &spec.window_frame else {
        return Ok((WindowFrame::DEFAULT, Vec::new()));
    };
    let mut offsets: Vec<Offset<'_>> = Vec::new();
    let rows = match f.units {
        WindowFrameUnits::Rows => true,
        WindowFrameUnits::Range => false,
        WindowFrameUnits::Groups => return Err(PlanError::unsupported("GROUPS frames")),
    };
    let start = frame_bound(&f.start_bound, true, rows, &mut offsets)?;
    let end = match &f.end_bound {
        Some(b) => frame_bound(b, false, rows, &mut offsets)?,
        None => FrameBound::CurrentRow,
    };
    let error = |m: &str| Err(PlanError::new("42P20", m.to_string()));
    // Offsets (rows or values) by the side they are on: -1 preceding, 1 following.
    let side = |b: &WindowFrameBound| match b {
        WindowFrameBound::Preceding(Some(_)) => Some(-1),
        WindowFrameBound::Following(Some(_)) => Some(1),
        _ => None,
    };
    let end_bound = f
        .end_bound
        .as_ref()
        .unwrap_or(&WindowFrameBound::CurrentRow);
    match (start, end) {
        (FrameBound::UnboundedFollowing, _) => {
            return error("frame start cannot be UNBOUNDED FOLLOWING")
        }
        (_, FrameBound::UnboundedPreceding) => {
            return error("frame end cannot be UNBOUNDED PRECEDING")
        }
        (FrameBound::CurrentRow, _) if side(end_bound) == Some(-1) => {
            return error("frame starting from current row cannot have preceding rows")
        }
        _ if side(&f.start_bound) == Some(1)
            && (side(end_bound) == Some(-1) || end == FrameBound::CurrentRow) =>
        {
            return error("frame starting from following row cannot have preceding rows")
        }
        _ => {}
    }
    let range_key = (!rows && !offsets.is_empty()).then_some(RangeKey {
        column: 0,
        desc: false,
        nulls_last: true,
    });
    Ok((
        WindowFrame {
            rows,
            start,
            end,
            range_key,
        },
        offsets,
    ))
}

/// One frame bound: a row count for ROWS; for RANGE an offset is recorded in `offsets` and the
/// bound reads its value (`FrameBound::Value`, numbered after the key).
fn frame_bound<'e>(
    b: &'e WindowFrameBound,
    start: bool,
    rows: bool,
    offsets: &mut Vec<Offset<'e>>,
) -> Result<FrameBound, PlanError> {
    if let WindowFrameBound::Preceding(Some(e)) | WindowFrameBound::Following(Some(e)) = b {
        if !rows {
            let preceding = matches!(b, WindowFrameBound::Preceding(_));
            offsets.push((start, preceding, e));
            return Ok(FrameBound::Value(offsets.len()));
        }
    }
    // A row count written as a number; any other (a parameter, an expression) is computed
    // with the window's arguments (`rows_offsets`).
    let number = |e: &Expr| match e {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Number(n, _) => n.parse::<u64>().ok(),
            _ => None,
        },
        _ => None,
    };
    let mut computed = |e| {
        offsets.push((start, true, e));
        offsets.len() - 1
    };
    Ok(match b {
        WindowFrameBound::CurrentRow => FrameBound::CurrentRow,
        WindowFrameBound::Preceding(None) => FrameBound::UnboundedPreceding,
        WindowFrameBound::Following(None) => FrameBound::UnboundedFollowing,
        WindowFrameBound::Preceding(Some(e)) => match number(e) {
            Some(n) => FrameBound::Preceding(n),
            None => FrameBound::PrecedingBy(computed(e)),
        },
        WindowFrameBound::Following(Some(e)) => match number(e) {
            Some(n) => FrameBound::Following(n),
            None => FrameBound::FollowingBy(computed(e)),
        },
    })
}

/// For ROWS bounds whose row count is not written as a number: each count, a bigint computed
/// once (it may not read the row) and checked as it runs (`UnaryFunc::FrameOffset`), in the
/// order of `offsets` (`FrameBound::PrecedingBy` / `FollowingBy` name them by position).
pub(super) fn rows_offsets(
    cx: &ExprContext<'_>,
    offsets: &[Offset<'_>],
) -> Result<Vec<ScalarExpr>, PlanError> {
    offsets
        .iter()
        .map(|(start, _, e)| {
            let k = cx.ungrouped().bind(e)?;
            computed_once(&k.expr, "ROWS")?;
            let k =
                coerce(k.clone(), &ScalarType::Int64, CastContext::Implicit)?.ok_or_else(|| {
                    PlanError::datatype_mismatch(format!(
                        "argument of ROWS must be type bigint, not type {}",
                        k.type_name()
                    ))
                })?;
            let check = kpg_types::UnaryFunc::FrameOffset {
                start: *start,
                rows: true,
            };
            crate::fold::node(k.expr.call_unary(check))
        })
        .collect()
}

/// For RANGE bounds with offsets: the window's one ORDER BY value in a form rows compare in
/// (numeric for exact numbers, double precision for floats, timestamp for dates), then each
/// bound's value (the row's value minus the offset for PRECEDING, plus for FOLLOWING, the other
/// way round under DESC). The offset must be a constant, not negative, not NULL.
pub(super) fn range_offsets(
    cx: &ExprContext<'_>,
    order: &[(Typed, bool, bool)],
    offsets: &[Offset<'_>],
) -> Result<Vec<ScalarExpr>, PlanError> {
    if offsets.is_empty() {
        return Ok(Vec::new());
    }
    let [(v, desc, _)] = order else {
        return Err(PlanError::new(
            "42P20",
            "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column",
        ));
    };
    let vt = v.ty.expect("resolved");
    let (key_ty, offset_ty) = match vt {
        ScalarType::Int16 | ScalarType::Int32 | ScalarType::Int64 => (ScalarType::NUMERIC, None),
        ScalarType::Numeric { .. } => (ScalarType::NUMERIC, Some(ScalarType::NUMERIC)),
        ScalarType::Float32 | ScalarType::Float64 => {
            (ScalarType::Float64, Some(ScalarType::Float64))
        }
        ScalarType::Date | ScalarType::Timestamp => {
            (ScalarType::Timestamp, Some(ScalarType::Interval))
        }
        other => {
            return Err(PlanError::unsupported(format!(
                "RANGE with offset PRECEDING/FOLLOWING for column type {other}"
            )))
        }
    };
    let key = coerce(v.clone(), &key_ty, CastContext::Explicit)?.expect("converts");
    let mut out = vec![key.expr.clone()];
    for (start, preceding, e) in offsets {
        let k = cx.ungrouped().bind(e)?;
        let param = crate::plan_params::has_param(&k.expr);
        computed_once(&k.expr, "RANGE")?;
        // A parameter of unknown type takes the offset's type (an integer column's own type),
        // as in PostgreSQL.
        let k = match (&k.expr, k.ty) {
            (ScalarExpr::Param(_), None) => {
                let ty = offset_ty.unwrap_or(vt);
                coerce(k, &ty, CastContext::Implicit)?.expect("a parameter converts")
            }
            _ => k,
        };
        // Integer columns take integer offsets; the others their own type's.
        let k = match (offset_ty, k.ty) {
            (None, Some(ScalarType::Int16 | ScalarType::Int32 | ScalarType::Int64))
            | (None, None) => {
                coerce(k, &ScalarType::NUMERIC, CastContext::Implicit)?.expect("integers convert")
            }
            (Some(t), _) => match coerce(k.clone(), &t, CastContext::Implicit)? {
                Some(k) => k,
                None => return Err(range_types(vt, &k)),
            },
            (None, _) => return Err(range_types(vt, &k)),
        };
        // A constant offset is checked now, as the query would check it when it runs.
        if let ScalarExpr::Literal(d) = crate::fold::node(k.expr.clone())? {
            kpg_types::window::check_offset(d, *start, false)?;
        }
        // A parameter's value is checked as the query runs.
        let k = match param {
            true => {
                let check = kpg_types::UnaryFunc::FrameOffset {
                    start: *start,
                    rows: false,
                };
                Typed {
                    expr: k.expr.call_unary(check),
                    ..k
                }
            }
            false => k,
        };
        // PRECEDING goes toward the rows before: smaller values, or larger under DESC.
        let func = if *preceding != *desc {
            kpg_types::BinaryFunc::Sub
        } else {
            kpg_types::BinaryFunc::Add
        };
        let bound = crate::ops::arithmetic(func, key.clone(), k)?;
        out.push(bound.expr);
    }
    Ok(out)
}

/// A frame offset must be computed once for the query, as PostgreSQL computes it: a constant,
/// or an expression of parameters. One that reads the row is 42P10; a volatile one kpg would
/// draw per row, so it is refused (0A000).
fn computed_once(e: &ScalarExpr, units: &str) -> Result<(), PlanError> {
    if !e.support().is_empty() {
        return Err(PlanError::new(
            "42P10",
            format!("argument of {units} must not contain variables"),
        ));
    }
    if e.is_constant() || (crate::plan_params::has_param(e) && !e.is_volatile()) {
        return Ok(());
    }
    Err(PlanError::unsupported(format!(
        "a {units} offset that is not a constant"
    )))
}

fn range_types(column: ScalarType, offset: &Typed) -> PlanError {
    PlanError::undefined_function(format!(
        "RANGE with offset PRECEDING/FOLLOWING is not supported for column type {column} and \
         offset type {}",
        offset.type_name()
    ))
}
