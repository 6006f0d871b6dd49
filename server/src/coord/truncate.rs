//! TRUNCATE: retracts every stored row of the named tables, all at one timestamp, so that a
//! view over several of them never sees one emptied and another not.
//!
//! The rows are read with their positions (as DELETE reads them) under the write lock the
//! caller holds, so nothing is written in between. Emptying a table breaks no constraint.

use std::sync::Arc;

use kpg_types::GlobalId;

use super::sequence::ExecuteResult;
use super::Coordinator;
use crate::error::ExecError;

impl Coordinator {
    /// Empties `tables`.
    pub(super) async fn truncate(
        self: &Arc<Self>,
        tables: Vec<GlobalId>,
    ) -> Result<ExecuteResult, ExecError> {
        let mut writes = Vec::with_capacity(tables.len());
        for table in tables {
            let rows = self.stored_rows(table, Vec::new()).await?;
            writes.push((table, rows.into_iter().map(|(r, n)| (r, -n)).collect()));
        }
        self.append(writes);
        Ok(ExecuteResult::Command("TRUNCATE TABLE".into()))
    }
}
