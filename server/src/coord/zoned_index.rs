//! CREATE INDEX over what reads the session's `TimeZone`. PostgreSQL refuses an index
//! expression that calls a function less than IMMUTABLE (42P17), and a timestamptz's local
//! time, text, date_trunc, EXTRACT and `+ interval` depend on the zone (STABLE). An index on
//! a plain view makes kpg maintain the view and serve its readers from the index, computed
//! in one zone, while PostgreSQL evaluates the view in each reader's zone: refused (0A000).

use kpg_types::{Plan, ScalarExpr};

use crate::error::ExecError;

/// Refuses index key expressions that read the session's zone, as PostgreSQL does.
pub(super) fn check_key(key: &[ScalarExpr]) -> Result<(), ExecError> {
    if key.iter().any(ScalarExpr::reads_session_zone) {
        return Err(ExecError::new(
            "42P17",
            "functions in index expression must be marked IMMUTABLE",
        ));
    }
    Ok(())
}

/// Refuses an index on a view whose definition reads the session's zone.
pub(super) fn check_view(plan: &Plan) -> Result<(), ExecError> {
    if plan.reads_session_zone() {
        return Err(ExecError::unsupported(
            "an index on a view that reads the session's TimeZone (casts of timestamp with \
             time zone to or from local times or text, date_trunc, EXTRACT, + interval on it, \
             generate_series over it): PostgreSQL evaluates the view in each reader's zone, \
             an index would serve one zone",
        ));
    }
    Ok(())
}
