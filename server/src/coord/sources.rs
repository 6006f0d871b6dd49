//! Executing `CREATE SOURCE`: the catalog entries of the source and its subsources, and the
//! command that starts the generator on every worker.
//!
//! The snapshot is the source's first write: it is at the time the source starts, and the
//! tables' time moves past that time before the statement returns, so every later read sees the
//! whole snapshot (it waits for the workers to finish loading it) — a source is never read
//! half-loaded or empty.

use kpg_sql::{CatalogItem, ItemKind, PlannedExport};
use kpg_types::command::Command;
use kpg_types::{LoadGenerator, SourceDesc, SourceExport};

use super::ddl::exists_result;
use super::introspection::DataflowMeta;
use super::sequence::ExecuteResult;
use super::Coordinator;
use crate::catalog::{Entry, Op};
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
        let mut ops = Vec::with_capacity(exports.len());
        let mut statistics = Vec::with_capacity(exports.len());
        for export in exports {
            statistics.push(export.statistics);
            let id = Self::allocate_id(&mut state);
            let mut entry = Entry::new(CatalogItem {
                id,
                name: export.name,
                kind: ItemKind::Source,
                desc: export.desc.clone(),
            });
            // The source keeps its statement; its subsources belong to it.
            entry.create_sql = Some(sql.clone());
            match source_id {
                None => {
                    source_id = Some(id);
                    entry.sql = Some(sql.clone());
                }
                Some(owner) => entry.owner = Some(owner),
            }
            ops.push(Op::Create { entry, temp: None });
            desc.exports.push(SourceExport {
                id,
                output: export.output,
                desc: export.desc,
            });
        }
        let id = source_id.ok_or_else(|| ExecError::internal("a source without exports"))?;
        state.catalog.transact(ops)?;
        for (export, stats) in desc.exports.iter().zip(statistics) {
            if let Some(stats) = stats {
                state.catalog.set_statistics(export.id, stats);
            }
        }
        for export in &desc.exports {
            state.object_since.insert(export.id, since);
        }
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
