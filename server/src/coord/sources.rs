//! Executing `CREATE SOURCE`: the catalog entries of the source and its subsources, and the
//! command that starts the generator on every worker.
//!
//! The snapshot is the source's first write: it is at the time the source starts, and the
//! tables' time moves past that time before the statement returns, so every later read sees the
//! whole snapshot (it waits for the workers to finish loading it) — a source is never read
//! half-loaded or empty.

use kpg_sql::{ItemKind, PlannedExport};
use kpg_types::command::Command;
use kpg_types::{LoadGenerator, SourceDesc, SourceExport};

use super::execute::{exists_result, ExecuteResult};
use super::introspection::DataflowMeta;
use super::Coordinator;
use crate::error::ExecError;
use crate::storage::SourceProgress;

impl Coordinator {
    pub(super) fn create_source(
        &self,
        name: String,
        if_not_exists: bool,
        generator: LoadGenerator,
        exports: Vec<PlannedExport>,
        sql: String,
    ) -> Result<ExecuteResult, ExecError> {
        let tag = "CREATE SOURCE";
        let mut state = self.lock();
        if let Some(taken) = exports.iter().find(|e| state.catalog.name_taken(&e.name)) {
            // IF NOT EXISTS is about the source's own name; a taken subsource name is an error.
            return exists_result(&taken.name, if_not_exists && taken.name == name, tag);
        }
        let since = state.upper;
        let mut desc = SourceDesc {
            generator,
            exports: Vec::with_capacity(exports.len()),
        };
        let mut source_id = None;
        for export in exports {
            let id = Self::allocate_id(&mut state);
            state.catalog.insert(
                id,
                export.name,
                ItemKind::Source,
                export.desc.clone(),
                Vec::new(),
                None,
            );
            match source_id {
                None => {
                    source_id = Some(id);
                    state.catalog.set_sql(id, sql.clone());
                }
                Some(owner) => state.catalog.set_owner(id, owner),
            }
            state.object_since.insert(id, since);
            desc.exports.push(SourceExport {
                id,
                output: export.output,
                desc: export.desc,
            });
        }
        let id = source_id.ok_or_else(|| ExecError::internal("a source without exports"))?;
        state.dataflows.insert(id, DataflowMeta::source(&name, id));
        // Restored after a restart: it goes on after the ticks seen before it.
        let resume_after = match state.resume.remove(&id) {
            Some(before) => before.ticks_at(state.restored_readable, desc.generator.tick_ms()),
            None => 0,
        };
        state.source_progress.insert(
            id,
            SourceProgress {
                since,
                ticks_before: resume_after,
            },
        );
        self.compute.send(Command::CreateSource {
            id,
            since,
            desc,
            resume_after,
        });
        state.upper = since + 1;
        self.compute
            .send(Command::AdvanceTables { time: since + 1 });
        Ok(ExecuteResult::Command(tag.into()))
    }
}
