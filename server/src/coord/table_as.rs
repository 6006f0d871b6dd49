//! CREATE TABLE AS and SELECT INTO: the query is read once, under the write lock, and its rows
//! are appended to the new table in the order the query returns them (so a plain scan of the
//! table returns them in that order, as in PostgreSQL). The tag is `SELECT n`, or
//! `CREATE TABLE AS` with `WITH NO DATA`.

use std::sync::Arc;

use kpg_sql::RowSetFinishing;
use kpg_types::{Plan, RelationDesc};

use super::ddl::exists_result;
use super::sequence::{finish, ExecuteResult};
use super::{temporary, Coordinator};
use crate::error::ExecError;

impl Coordinator {
    /// Creates the table `name` of `desc` (a temporary one of `session`, if given), filled
    /// with the rows of `fill`'s query unless it is `None` (WITH NO DATA).
    pub(super) async fn create_table_as(
        self: &Arc<Self>,
        name: String,
        desc: RelationDesc,
        fill: Option<(Plan, RowSetFinishing)>,
        if_not_exists: bool,
        session: Option<u64>,
    ) -> Result<ExecuteResult, ExecError> {
        const NO_DATA: &str = "CREATE TABLE AS";
        if temporary::taken(&self.lock(), &name, session) {
            return exists_result(&name, if_not_exists, NO_DATA);
        }
        let with_data = fill.is_some();
        let rows = match fill {
            Some((plan, finishing)) => finish(self.peek(plan).await?, &finishing)?,
            None => Vec::new(),
        };
        let id = {
            let mut state = self.lock();
            if temporary::taken(&state, &name, session) {
                return exists_result(&name, if_not_exists, NO_DATA);
            }
            self.create_table(
                &mut state,
                name,
                desc,
                Vec::new(),
                Vec::new(),
                session,
                None,
            )?
        };
        if !with_data {
            return Ok(ExecuteResult::Command(NO_DATA.into()));
        }
        let count = rows.len();
        self.append(vec![(id, rows.into_iter().map(|r| (r, 1)).collect())]);
        Ok(ExecuteResult::Command(format!("SELECT {count}")))
    }
}
