//! Temporary tables (`CREATE TEMPORARY TABLE`, `CREATE TEMP TABLE ... AS`, `SELECT ... INTO
//! TEMP`): tables of one session, entered in the catalog under the session's schema
//! (`catalog/temp.rs`), so that only it resolves them, before shared objects of the same name.
//! They are dropped, with their indexes, when the session ends (`main.rs` calls
//! `drop_temporary`). Views cannot read them: PostgreSQL refuses materialized views over them
//! (0A000) and makes plain views over them temporary, which kpg does not do yet (0A000 too).

use kpg_types::command::Command;
use kpg_types::GlobalId;

use super::{Coordinator, State};
use crate::catalog::{temp, Kind};
use crate::error::ExecError;

/// The session a table being created belongs to: `None` for a shared table.
pub(super) fn owner(temporary: bool) -> Result<Option<u64>, ExecError> {
    if !temporary {
        return Ok(None);
    }
    temp::current()
        .map(Some)
        .ok_or_else(|| ExecError::unsupported("temporary tables outside a client session"))
}

/// Whether `name` is taken where a table of `session` (`None`: shared) would be entered.
pub(super) fn taken(state: &State, name: &str, session: Option<u64>) -> bool {
    match session {
        Some(s) => state.catalog.temp_name_taken(s, name),
        None => state.catalog.name_taken(name),
    }
}

/// Refuses a view (materialized or not) over a temporary table.
pub(super) fn check_view_inputs(
    state: &State,
    inputs: &[GlobalId],
    materialized: bool,
) -> Result<(), ExecError> {
    if inputs.iter().any(|id| state.catalog.temp_of(*id).is_some()) {
        return Err(ExecError::unsupported(if materialized {
            "materialized views must not use temporary tables or views"
        } else {
            "views over temporary tables (PostgreSQL makes them temporary views)"
        }));
    }
    Ok(())
}

impl Coordinator {
    /// Drops the temporary tables of `session`, which has ended, with their indexes.
    pub fn drop_temporary(&self, session: u64) {
        let mut state = self.lock();
        let ids = state.catalog.temp_objects(session);
        if ids.is_empty() {
            return;
        }
        for id in state.catalog.with_dependents(&ids) {
            let has_collection = state.catalog.kind(id) != Some(Kind::View);
            state.catalog.remove(id);
            state.dataflows.remove(&id);
            if has_collection {
                self.compute.send(Command::DropCollection { id });
            }
        }
    }
}
