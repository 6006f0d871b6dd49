//! What planning and running a statement read of its session besides the statement: its
//! user, the session's `TimeZone` (the planner reads timestamptz values in it, `kpg_sql::Catalog::
//! time_zone`) and the start of its transaction (`now()`, bound when the statement runs).
//!
//! The pgwire session sets them for the statement it runs (`scope`); the coordinator's
//! catalog and its clock binding read them here, so the many paths from a session to the
//! planner need not each carry them. Outside a session's statement (a restart replaying the
//! catalog, a test), the zone is UTC and `now()` the wall clock.

use std::future::Future;

use chrono::NaiveDateTime;
use kpg_types::datetime::{self, InputStyle};

/// The session's part of a statement's context.
#[derive(Clone, Debug)]
pub struct StatementContext {
    /// The session's user.
    pub user: std::sync::Arc<str>,
    /// The `TimeZone` setting as SHOW prints it.
    pub time_zone: String,
    /// Whether that zone is UTC at every instant.
    pub zone_is_utc: bool,
    /// When the transaction block began, if the statement runs in one.
    pub transaction_start: Option<NaiveDateTime>,
    /// What steers date/time and interval input: `DateStyle`'s field order, `IntervalStyle`
    /// sql_standard.
    pub input_style: InputStyle,
    /// When the statement began: one instant for everything that reads the clock while it is
    /// planned and run (`now()`, `'now'`, `'today'` in its text).
    pub statement_start: NaiveDateTime,
}

tokio::task_local! {
    static CONTEXT: StatementContext;
}

/// Runs `f` (a statement's handling) with `context`.
pub async fn scope<F: Future>(context: StatementContext, f: F) -> F::Output {
    CONTEXT.scope(context, f).await
}

/// Runs `f` (synchronous work of a statement, such as binding a prepared one) with
/// `context`.
pub fn sync_scope<R>(context: StatementContext, f: impl FnOnce() -> R) -> R {
    CONTEXT.sync_scope(context, f)
}

/// The session's user (`kpg` outside a session's statement).
pub fn user() -> String {
    CONTEXT
        .try_with(|c| c.user.to_string())
        .unwrap_or_else(|_| kpg_sql::OWNER.to_string())
}

/// The session's zone for the planner (UTC outside a session's statement).
pub fn time_zone() -> String {
    CONTEXT
        .try_with(|c| c.time_zone.clone())
        .unwrap_or_else(|_| "UTC".into())
}

/// Whether the session's zone is UTC-equivalent (true outside a session's statement).
pub fn zone_is_utc() -> bool {
    CONTEXT.try_with(|c| c.zone_is_utc).unwrap_or(true)
}

/// The session's input style (PostgreSQL's defaults outside a session's statement).
pub fn input_style() -> InputStyle {
    CONTEXT.try_with(|c| c.input_style).unwrap_or_default()
}

/// Runs `f` (input of values outside the planner: parameters, COPY FROM) with the session's
/// input style, and the transaction's start in its zone as the time `'now'` and `'today'`
/// read (`datetime/input.rs`).
pub fn with_date_input<R>(f: impl FnOnce() -> R) -> R {
    date_input().run(f)
}

/// The session's input style and clock (`with_date_input`), taken along to other threads.
#[derive(Clone, Debug)]
pub struct DateInput {
    style: InputStyle,
    clock: Option<datetime::InputClock>,
}

impl DateInput {
    /// Runs `f` with these settings, on this thread.
    pub fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        datetime::with_date_input(self.style, self.clock.clone(), f)
    }
}

/// The input settings `with_date_input` runs with.
pub fn date_input() -> DateInput {
    let clock = datetime::Zone::parse_setting(&time_zone())
        .ok()
        .map(|(zone, _)| datetime::InputClock {
            now: clock().0,
            zone,
        });
    DateInput {
        style: input_style(),
        clock,
    }
}

/// The transaction's start and the statement's (now), for `bind_clock`.
/// Both in whole microseconds, as PostgreSQL's timestamps hold them (so `now()` equals
/// `'now'` and its own text read back).
pub fn clock() -> (NaiveDateTime, NaiveDateTime) {
    use chrono::SubsecRound;
    let (txn, now) = CONTEXT
        .try_with(|c| {
            let now = c.statement_start;
            (c.transaction_start.unwrap_or(now), now)
        })
        .unwrap_or_else(|_| {
            let now = chrono::Utc::now().naive_utc();
            (now, now)
        });
    (txn.trunc_subsecs(6), now.trunc_subsecs(6))
}
