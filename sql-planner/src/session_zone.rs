//! The session's `TimeZone` while a statement is planned.
//!
//! PostgreSQL reads a `timestamptz` in the session's zone wherever it meets a local time: a
//! cast to or from `timestamp`, `date` or text, `+ interval`, `date_trunc`, EXTRACT. kpg plans
//! each of these as a `ZonedFunc` whose last argument is the zone as text, so a dataflow needs
//! no session to evaluate it; this module hands the zone to the places that build them
//! (casts are built deep in `types::coerce`, far from the catalog). `plan` sets it from
//! `Catalog::time_zone` for the duration of one statement's planning, which runs on one
//! thread; the text is the setting's, marked as the session's (`datetime::SESSION_ZONE`), so
//! the coordinator can bind a stored plan to the zone of the session that runs it.

use std::cell::RefCell;

use kpg_types::{datetime, Datum, ScalarExpr};

/// The start of the transaction and of the statement, for `now()` and its friends in what
/// the planner evaluates itself (VALUES rows, defaults, RETURNING).
pub type Clock = (chrono::NaiveDateTime, chrono::NaiveDateTime);

thread_local! {
    static ZONE: RefCell<Option<(String, Option<Clock>)>> = const { RefCell::new(None) };
}

/// Runs `f` with `zone` (a `TimeZone` value, as SHOW prints it) as the session's zone and
/// `clock` as its transaction's and statement's start (the wall clock if `None`).
pub fn with_zone<R>(zone: String, clock: Option<Clock>, f: impl FnOnce() -> R) -> R {
    let previous = ZONE.with(|z| z.replace(Some((zone, clock))));
    let result = f();
    ZONE.with(|z| *z.borrow_mut() = previous);
    result
}

/// Evaluates an expression that runs once, now, in the planner: as `ScalarExpr::eval_now`,
/// with the session's transaction start for `now()`.
pub fn eval_now(e: &ScalarExpr, row: &[Datum]) -> Result<Datum, kpg_types::EvalError> {
    let clock = ZONE.with(|z| z.borrow().as_ref().and_then(|(_, c)| *c));
    match clock {
        Some((txn, stmt)) if e.is_volatile() => {
            let mut bound = e.clone();
            bound.bind_clock(txn, stmt);
            bound.eval(row)
        }
        _ => e.eval_now(row),
    }
}

/// The session zone argument of a `ZonedFunc`: the marked `TimeZone` value (UTC outside
/// `with_zone`).
pub fn zone_literal() -> ScalarExpr {
    let zone = ZONE
        .with(|z| z.borrow().as_ref().map(|(z, _)| z.clone()))
        .unwrap_or_else(|| "UTC".into());
    ScalarExpr::Literal(Datum::String(format!("{}{zone}", datetime::SESSION_ZONE)))
}

/// The clock date/time input reads (`'today'`, `'now'`) while `stmt` is planned: the
/// transaction's start in the session's zone for a query or a write (a prepared one keeps
/// what it read when it was prepared, as in PostgreSQL), none for one that stores a
/// definition (a view, an index, a default, a subscription), where those words are refused
/// with 0A000, as `now()` is, rather than frozen into it as PostgreSQL does.
pub fn input_clock(
    stmt: &crate::ParsedStatement,
    catalog: &dyn crate::Catalog,
) -> Option<datetime::InputClock> {
    use sqlparser::ast::Statement;
    let once = match stmt {
        crate::ParsedStatement::Sql(s) => matches!(
            s,
            Statement::Query(_)
                | Statement::Insert(_)
                | Statement::Update { .. }
                | Statement::Delete(_)
        ),
        _ => false,
    };
    if !once {
        return None;
    }
    let now = catalog
        .clock()
        .map_or_else(|| chrono::Utc::now().naive_utc(), |(txn, _)| txn);
    let zone = datetime::Zone::parse_setting(&catalog.time_zone()).ok()?.0;
    Some(datetime::InputClock { now, zone })
}
