//! Temporary tables (`CREATE TEMPORARY TABLE`, `CREATE TEMP TABLE ... AS`, `SELECT ... INTO
//! TEMP`): tables of one session, entered in the catalog under the session's schema
//! (`catalog/temp.rs`), so that only it resolves them, before shared objects of the same name.
//! They are dropped, with their indexes, when the session ends (`main.rs` calls
//! `drop_temporary`). A plain view over one is a temporary view of the session, as in
//! PostgreSQL, which refuses materialized views over them (0A000), as kpg does.

use kpg_types::command::Command;
use kpg_types::GlobalId;

use super::{Coordinator, State};
use crate::catalog::{temp, Kind, Op};
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

/// The session a view over `inputs` belongs to: a plain view over a temporary object is a
/// temporary view of its session, as in PostgreSQL; a materialized one is refused (0A000).
pub(super) fn view_owner(
    state: &State,
    inputs: &[GlobalId],
    materialized: bool,
) -> Result<Option<u64>, ExecError> {
    let Some(session) = inputs.iter().find_map(|id| state.catalog.temp_of(*id)) else {
        return Ok(None);
    };
    if materialized {
        return Err(ExecError::new(
            "0A000",
            "materialized views must not use temporary tables or views",
        ));
    }
    Ok(Some(session))
}

impl Coordinator {
    /// Drops the temporary tables of `session`, which has ended, with their indexes.
    pub fn drop_temporary(&self, session: u64) {
        let mut state = self.lock();
        let ids = state.catalog.temp_objects(session);
        if ids.is_empty() {
            return;
        }
        let all = state.catalog.with_dependents(&ids);
        let collections: Vec<GlobalId> = all
            .iter()
            .copied()
            .filter(|id| state.catalog.kind(*id) != Some(Kind::View))
            .collect();
        if let Err(e) = state
            .catalog
            .transact(all.iter().map(|id| Op::Drop(*id)).collect())
        {
            tracing::error!(
                session,
                "dropping the temporary objects of an ended session: {e:?}"
            );
            return;
        }
        for id in all {
            state.dataflows.remove(&id);
            if collections.contains(&id) {
                self.compute.send(Command::DropCollection { id });
            }
        }
    }
}
