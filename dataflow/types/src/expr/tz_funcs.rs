//! Evaluation of the functions of `timestamp with time zone` that read a time zone
//! (`VariadicFunc::Zoned`): the zone is always the last argument, as text, either the
//! session's (marked `SESSION_ZONE`, which the planner writes in and the coordinator binds
//! to the zone of the session that runs the plan) or a user's
//! (`AT TIME ZONE 'EST'`); `datetime/tstz.rs` says how each reads it. They are strict.

use serde::{Deserialize, Serialize};

use crate::datetime::{self, DateSettings, DateUnit};
use crate::datum::Datum;
use crate::error::EvalError;
use ordered_float::OrderedFloat;
use rust_decimal::prelude::ToPrimitive;

/// A function of a timestamptz (or into one) that depends on a zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ZonedFunc {
    /// (timestamptz, zone) → timestamp: the local time (a cast, `AT TIME ZONE`, timezone()).
    ToLocal,
    /// (timestamp, zone) → timestamptz: the instant of a local time.
    FromLocal,
    /// (text, zone) → timestamptz: input, the zone for text without one.
    FromText,
    /// (timestamptz, zone) → text: output in ISO style.
    ToText,
    /// (timestamptz, interval, zone) → timestamptz: `+` and `-`.
    AddInterval,
    SubInterval,
    /// (timestamptz, zone) → timestamptz: date_trunc.
    Trunc(DateUnit),
    /// (timestamptz, zone) → numeric / double precision: EXTRACT and date_part.
    Extract(DateUnit),
    DatePart(DateUnit),
    /// (text, timestamptz, zone): date_trunc and date_part with a unit that is not a constant
    /// (a prepared statement's parameter, a column), read as they run.
    TruncBy,
    DatePartBy,
    /// (timestamptz, picture, zone) → text: to_char (`to_char.rs`); NULL for an empty picture.
    ToChar,
    /// (text, picture, zone) → timestamptz: to_timestamp(text, text) (`to_char.rs`), the zone
    /// for a text that writes none.
    ToTimestamp,
    /// (timestamptz, timestamptz, zone) → interval: age(), field by field on the local times.
    Age,
    /// (text, zone) → the type: date/time or interval input of a non-constant text with an
    /// input style other than the default (`DateStyle` DMY or YMD, `IntervalStyle`
    /// sql_standard), which the plan carries (`datetime/input.rs`); the zone reads a
    /// timestamptz without one.
    Input(datetime::InputStyle, crate::ScalarType),
}

/// Evaluates `func` over non-NULL arguments.
pub(crate) fn eval(func: ZonedFunc, args: &[Datum]) -> Result<Datum, EvalError> {
    let (Some(Datum::String(zone)), values) = (args.last(), &args[..args.len() - 1]) else {
        return Err(EvalError::Internal(format!("{func:?} without a zone")));
    };
    let zone = datetime::zone_arg(zone)?;
    Ok(match (func, values) {
        (ZonedFunc::ToLocal, [Datum::TimestampTz(t)]) => {
            Datum::Timestamp(datetime::to_local(t, &zone)?)
        }
        (ZonedFunc::FromLocal, [Datum::Timestamp(t)]) => {
            Datum::TimestampTz(datetime::from_local(t, &zone)?)
        }
        (ZonedFunc::FromText, [Datum::String(s)]) => {
            Datum::TimestampTz(datetime::parse_timestamptz(s, &zone)?)
        }
        (ZonedFunc::ToText, [Datum::TimestampTz(t)]) => {
            let settings = DateSettings {
                zone,
                ..DateSettings::default()
            };
            let mut out = String::new();
            datetime::write_timestamptz_styled(t, &settings, &mut out);
            Datum::String(out)
        }
        (ZonedFunc::AddInterval, [Datum::TimestampTz(t), Datum::Interval(iv)]) => {
            Datum::TimestampTz(datetime::add_interval_tz(*t, iv, &zone)?)
        }
        (ZonedFunc::SubInterval, [Datum::TimestampTz(t), Datum::Interval(iv)]) => {
            Datum::TimestampTz(datetime::add_interval_tz(*t, &iv.checked_neg()?, &zone)?)
        }
        (ZonedFunc::Trunc(u), [Datum::TimestampTz(t)]) => {
            Datum::TimestampTz(datetime::trunc_timestamptz(u, t, &zone)?)
        }
        (ZonedFunc::Extract(u), [Datum::TimestampTz(t)]) => {
            Datum::Numeric(datetime::extract_timestamptz(u, t, &zone)?.into())
        }
        (ZonedFunc::DatePart(u), [Datum::TimestampTz(t)]) => {
            let v = datetime::extract_timestamptz(u, t, &zone)?;
            Datum::Float64(OrderedFloat(v.to_f64().unwrap_or(f64::NAN)))
        }
        (ZonedFunc::TruncBy, [Datum::String(u), Datum::TimestampTz(t)]) => {
            let u = DateUnit::for_trunc(u, crate::DateKind::TimestampTz)?;
            Datum::TimestampTz(datetime::trunc_timestamptz(u, t, &zone)?)
        }
        (ZonedFunc::DatePartBy, [Datum::String(u), Datum::TimestampTz(t)]) => {
            let u = DateUnit::for_extract(u, crate::DateKind::TimestampTz)?;
            let v = datetime::extract_timestamptz(u, t, &zone)?;
            Datum::Float64(OrderedFloat(v.to_f64().unwrap_or(f64::NAN)))
        }
        (ZonedFunc::ToChar, [Datum::TimestampTz(t), Datum::String(p)]) => {
            crate::to_char::timestamptz_to_char(t, p, &zone)?.map_or(Datum::Null, Datum::String)
        }
        (ZonedFunc::ToTimestamp, [Datum::String(t), Datum::String(p)]) => {
            Datum::TimestampTz(crate::to_char::to_timestamp(t, p, &zone)?)
        }
        (ZonedFunc::Age, [Datum::TimestampTz(a), Datum::TimestampTz(b)]) => {
            let (la, lb) = (datetime::to_local(a, &zone)?, datetime::to_local(b, &zone)?);
            Datum::Interval(super::date_funcs::age_of_fields(&la, &lb, a < b)?)
        }
        (ZonedFunc::Input(style, ty), [Datum::String(s)]) => {
            datetime::with_input_style(style, || match ty.base() {
                crate::ScalarType::TimestampTz => datetime::parse_text_in_zone(s, &ty, &zone),
                _ => crate::cast::cast(Datum::String(s.clone()), &ty),
            })?
        }
        (func, args) => unreachable!("planner typed {func:?} over {args:?}"),
    })
}

/// Whether `e` is the session's zone as a zone argument (`datetime::zone_arg`).
fn is_session_zone(e: &crate::ScalarExpr) -> bool {
    matches!(e, crate::ScalarExpr::Literal(Datum::String(z)) if z.starts_with(datetime::SESSION_ZONE))
}

impl crate::ScalarExpr {
    /// Whether the expression reads the session's zone (a `ZonedFunc` given it).
    pub fn reads_session_zone(&self) -> bool {
        let mut reads = false;
        self.visit(&mut |e| {
            if let crate::ScalarExpr::Variadic {
                func: crate::VariadicFunc::Zoned(_),
                exprs,
            } = e
            {
                reads |= exprs.last().is_some_and(is_session_zone);
            }
        });
        reads
    }
}

impl crate::plan::Plan {
    /// Whether some expression of the plan reads the session's zone, also a
    /// `generate_series` over timestamptz values (which steps in it).
    pub fn reads_session_zone(&self) -> bool {
        let mut reads = false;
        self.visit(&mut |p| {
            let own = p.own_exprs();
            let series_zone = matches!(p, crate::plan::Plan::FlatMap { .. })
                && own.iter().any(|e| is_session_zone(e));
            reads |= series_zone || own.iter().any(|e| e.reads_session_zone());
        });
        reads
    }
}

/// Rewrites the session-zone arguments under `e` to `zone` (a `TimeZone` value).
fn bind_zone(e: &mut crate::ScalarExpr, zone: &str) {
    e.visit_mut(&mut |e| {
        if let crate::ScalarExpr::Literal(Datum::String(z)) = e {
            if z.starts_with(datetime::SESSION_ZONE) {
                *z = format!("{}{zone}", datetime::SESSION_ZONE);
            }
        }
    });
}

impl crate::ScalarExpr {
    /// Makes every session-zone argument under the expression `zone`.
    pub fn bind_session_zone(&mut self, zone: &str) {
        bind_zone(self, zone)
    }
}

impl crate::plan::Plan {
    /// Makes every session-zone argument `zone`: a plan runs in the zone of the session that
    /// runs it (a plain view's stored plan too, as PostgreSQL evaluates a view in the
    /// reader's zone), a maintained one in UTC.
    pub fn bind_session_zone(&mut self, zone: &str) {
        self.visit_exprs_mut(&mut |e| bind_zone(e, zone));
    }
}
