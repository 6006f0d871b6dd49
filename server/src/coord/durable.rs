//! The coordinator's side of durability: handing writes and catalog changes to the committer,
//! making them readable once durable, keeping the durable catalog, and replaying it on start.
//!
//! The durable catalog is one record per DDL statement that created objects which outlive
//! their session: the statement's SQL (for `CREATE TABLE AS`, the `CREATE TABLE` of the table it
//! made, since its rows are stored anyway) and the ids it gave them. What a statement changed is
//! read off the catalog, before and after it runs under the write lock, so every path that
//! creates or drops objects is covered without each having to remember to persist. A restart
//! runs the records again in creation order, each allocating from its first id, so every object
//! gets its old id; then each table's stored rows are loaded before anything that reads them is
//! rebuilt. The timestamp upper is covered by a lease kept a few seconds ahead in the store, so
//! a restart never hands out a time at or before one handed out earlier.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use kpg_sql::PlannedStatement;
use kpg_types::command::Command;
use kpg_types::{GlobalId, Row};

use super::{now_ms, Coordinator, State};
use crate::error::ExecError;
use crate::storage::{CatalogOp, CatalogRecord, Commit, Meta, Snapshot, TableAppend};

/// How far ahead of the clock the durable lease on timestamps reaches, and how close the
/// clock may come to it before it is renewed: two small commits a second when idle, and a
/// restart (which starts at the lease) waits at most a second for the clock.
const LEASE_MS: u64 = 1_000;
const LEASE_MARGIN_MS: u64 = 500;

tokio::task_local! {
    /// Set while a statement holds the write lock: its reads see the writes in flight.
    static IN_WRITE: ();
    /// Set while `execute_within` runs a DDL statement outside a transaction block, whose
    /// catalog change `persist_ddl` stores right after it: the SQL it would store, if it is
    /// the statement's own text. The statement may store its record earlier
    /// (`persist_created`).
    static STORED_AFTER: Option<String>;
}

/// Runs `body`, a DDL statement outside a transaction block stored as `text` (see
/// `STORED_AFTER`).
pub(super) async fn stored_after<T>(text: &DurableText, body: impl Future<Output = T>) -> T {
    let sql = match text {
        DurableText::Sql(sql) => sql.clone(),
        DurableText::TableItCreates => None,
    };
    STORED_AFTER.scope(sql, body).await
}

/// The time a new write gets: after every time already given to a write or readable, and
/// not before the clock. Not before a readable time still on its way to the workers either
/// (a clock that stepped back would otherwise give a write a time they have moved past).
pub(super) fn write_time(state: &State) -> u64 {
    now_ms()
        .max(state.upper)
        .max(state.write_frontier)
        .max(state.readable_requested)
}

/// The time a read uses: the latest readable time, or, inside a write, the time after every
/// write in flight (the read waits until they are durable and readable).
pub(super) fn read_time(state: &State) -> u64 {
    if IN_WRITE.try_with(|_| ()).is_ok() {
        state.write_frontier.max(state.upper) - 1
    } else {
        state.upper - 1
    }
}

/// What a statement that changes the catalog will be stored as.
pub(super) enum DurableText {
    /// This SQL (or, if there is none, the statement cannot be stored).
    Sql(Option<String>),
    /// The `CREATE TABLE` of the table the statement creates.
    TableItCreates,
}

impl DurableText {
    /// The text a statement planned as `planned` is kept as; `None` if it changes no catalog.
    pub(super) fn of(planned: &PlannedStatement) -> Option<DurableText> {
        Some(match planned {
            PlannedStatement::CreateSink(sink) => DurableText::Sql(Some(sink.sql.clone())),
            PlannedStatement::CreateSource { sql, .. }
            | PlannedStatement::CreateConnection { sql, .. }
            | PlannedStatement::CreateExternalSource { sql, .. } => {
                DurableText::Sql(Some(sql.clone()))
            }
            PlannedStatement::CreateTableAs { .. } => DurableText::TableItCreates,
            PlannedStatement::CreateIndex { create_sql, .. }
            | PlannedStatement::CreateTable { create_sql, .. }
            | PlannedStatement::CreateView { create_sql, .. }
            | PlannedStatement::Drop {
                sql: create_sql, ..
            } => DurableText::Sql(create_sql.clone()),
            _ => return None,
        })
    }
}

impl Coordinator {
    /// Runs `body` as a write: under the write lock, its reads seeing the writes in flight;
    /// then releases the lock (so other writers can join the same commit) and waits until
    /// everything handed to the committer so far is durable and readable.
    pub(super) async fn write<T>(
        self: &Arc<Self>,
        body: impl Future<Output = Result<T, ExecError>>,
    ) -> Result<T, ExecError> {
        let guard = self.write_lock.lock().await;
        let result = IN_WRITE.scope((), body).await;
        let seq = self.lock().next_seq;
        drop(guard);
        if result.is_ok() {
            self.committer.wait(seq).await;
        }
        result
    }

    /// Waits until every commit handed to the committer so far is durable and readable.
    pub(super) async fn flush(&self) {
        let seq = self.lock().next_seq;
        self.committer.wait(seq).await;
    }

    /// Blocks until every commit handed to the committer is durable and closes the store
    /// (before a clean exit).
    pub fn shutdown(&self) {
        self.committer.close();
    }

    /// Hands a commit to the committer; returns its number.
    /// `upper` bounds the times handed out; `readable` is the time before which everything
    /// is readable once this commit is durable (0: no change).
    pub(super) fn submit(
        &self,
        state: &mut State,
        catalog: Vec<CatalogOp>,
        appends: Vec<TableAppend>,
        upper: u64,
        readable: u64,
    ) -> u64 {
        self.submit_commit(
            state,
            Commit {
                catalog,
                appends,
                meta: Meta {
                    upper,
                    readable,
                    ..Meta::default()
                },
                ..Commit::default()
            },
        )
    }

    /// Hands `commit` to the committer, with the current counters; returns its number.
    pub(super) fn submit_commit(&self, state: &mut State, mut commit: Commit) -> u64 {
        state.next_seq += 1;
        let seq = state.next_seq;
        commit.meta.next_id = state.catalog.next_id();
        commit.meta.next_position = state.next_position;
        self.committer.submit(seq, commit);
        seq
    }

    /// Called by the committer once the commits up to `seq` are durable: sends their rows to
    /// the workers and advances the tables past them, so that they become readable.
    pub(super) fn durable(&self, seq: u64, commit: Commit) {
        let mut state = self.lock();
        let mut readable = Some(commit.meta.readable);
        // The group's commands go to the workers together: one wakeup, not one per write.
        let mut commands = Vec::with_capacity(commit.appends.len() + 1);
        for TableAppend {
            table,
            time,
            updates,
        } in commit.appends
        {
            readable = readable.max(Some(time + 1));
            if !state.catalog.contains(table) {
                // A source dropped while its last batch was being written.
                continue;
            }
            commands.push(Command::Append {
                id: table,
                time,
                updates,
            });
        }
        while state.pending.front().is_some_and(|&(s, _)| s <= seq) {
            state.pending.pop_front();
        }
        state.lease = state.lease.max(commit.meta.upper);
        if let Some(time) = readable.filter(|t| *t > state.upper) {
            state.upper = time;
            commands.push(Command::AdvanceTables { time });
        }
        if !commands.is_empty() {
            // Worker 0 is woken by `acknowledged`, once the writers are told: on a small
            // machine the workers' stepping would otherwise take the core the answers need.
            self.compute.queue_all(commands);
        }
    }

    /// Called by the committer right after the writers waiting for a commit were told, with
    /// whether it already holds the next commit: worker 0 is woken for the commit's commands,
    /// or (`more`, and woken less than a millisecond ago) after the next one.
    pub(super) fn acknowledged(&self, more: bool) {
        self.compute.wake_coalesced(more);
    }

    /// Asks for a longer lease on timestamps when the clock comes near the current one.
    pub(super) fn renew_lease(&self, state: &mut State, now: u64) {
        if state.lease < now + LEASE_MARGIN_MS && state.lease_requested < now + LEASE_MARGIN_MS {
            state.lease_requested = now + LEASE_MS;
            self.submit(state, Vec::new(), Vec::new(), now + LEASE_MS, 0);
        }
    }

    /// Lets reads see every time before `time` (nothing is in flight before it). While a load
    /// generator runs, the readable time is made durable first, so that a restart knows
    /// exactly which ticks were seen and resumes after them.
    pub(super) fn advance_readable(&self, state: &mut State, time: u64) {
        let sources = state
            .source_progress
            .keys()
            .any(|id| state.catalog.contains(*id));
        if !sources {
            state.upper = time;
            self.compute.send(Command::AdvanceTables { time });
        } else if time > state.readable_requested {
            state.readable_requested = time;
            let lease = state.lease.max(time);
            self.submit(state, Vec::new(), Vec::new(), lease, time);
        }
    }

    /// Stores the catalog record of `id`, just created by the DDL statement that runs, at once, before its dataflow is sent to the workers (the caller holds the lock across
    /// both): the commit's fsync then starts while the workers are still idle and overlaps
    /// their building and hydrating the dataflow, instead of waiting behind them for a core
    /// (on a two-core machine that wait cost up to a few ms of a view's install). The statement
    /// is still acknowledged only once the commit is durable (`write` waits for every commit
    /// submitted under its lock), and `persist_ddl` skips what is stored already. Returns
    /// false, storing nothing, when `persist_ddl` must store the record (or refuse the
    /// statement) as usual: while restoring, inside a transaction block (the record is the
    /// block's), for a temporary object, while another block's provisional object exists
    /// (the statement may yet be refused) or when the SQL cannot be stored.
    pub(super) fn persist_created(&self, state: &mut State, id: GlobalId) -> bool {
        let Ok(Some(sql)) = STORED_AFTER.try_with(|sql| sql.clone()) else {
            return false;
        };
        if self.restoring.load(Ordering::SeqCst)
            || !state.provisional.is_empty()
            || !state.catalog.durable_ids().contains(&id)
        {
            return false;
        }
        let record = CatalogRecord {
            key: id,
            ids: vec![id],
            sql: with_input_style(sql),
            source: None,
        };
        state.record_of.insert(id, id);
        state.records.insert(id, record.clone());
        let upper = state.upper;
        self.submit(
            state,
            vec![CatalogOp::Put(record)],
            Vec::new(),
            upper,
            upper,
        );
        true
    }

    /// Stores what a DDL statement changed in the catalog (`before` is the durable ids before
    /// it ran; objects `persist_created` stored already are skipped). A statement whose
    /// objects cannot be stored is undone and refused.
    pub(super) fn persist_ddl(
        &self,
        before: &BTreeSet<GlobalId>,
        text: DurableText,
    ) -> Result<(), ExecError> {
        if self.restoring.load(Ordering::SeqCst) {
            return Ok(());
        }
        let mut state = self.lock();
        let after = state.catalog.durable_ids();
        let created: Vec<GlobalId> = after
            .difference(before)
            .filter(|id| !state.record_of.contains_key(id))
            .copied()
            .collect();
        let dropped: Vec<GlobalId> = before.difference(&after).copied().collect();
        let mut ops = Vec::new();
        let mut touched = BTreeSet::new();
        for id in &dropped {
            if let Some(key) = state.record_of.remove(id) {
                if let Some(record) = state.records.get_mut(&key) {
                    record.ids.retain(|i| i != id);
                }
                touched.insert(key);
            }
            ops.push(CatalogOp::DropTableData(*id));
        }
        for key in touched {
            match state.records.get(&key) {
                Some(record) if record.ids.is_empty() => {
                    state.records.remove(&key);
                    ops.push(CatalogOp::Delete(key));
                }
                Some(record) => ops.push(CatalogOp::Put(record.clone())),
                None => {}
            }
        }
        if let Some(&key) = created.first() {
            let sql = match text {
                DurableText::Sql(sql) => sql,
                DurableText::TableItCreates => {
                    state.catalog.get(key).and_then(|e| e.create_sql.clone())
                }
            };
            let Some(sql) = sql else {
                drop(state);
                self.drop_objects(&created, true)?;
                return Err(ExecError::unsupported(
                    "this statement cannot be kept in the data directory (its SQL text does not \
                     read back as the same statement); it was not applied",
                ));
            };
            let record = CatalogRecord {
                key,
                ids: created.clone(),
                sql: with_input_style(sql),
                source: state.source_progress.get(&key).copied(),
            };
            for id in &created {
                state.record_of.insert(*id, key);
            }
            state.records.insert(key, record.clone());
            ops.push(CatalogOp::Put(record));
        }
        if !ops.is_empty() {
            let upper = state.upper;
            self.submit(&mut state, ops, Vec::new(), upper, upper);
        }
        Ok(())
    }

    /// Replays the stored catalog and loads the tables' rows, before any session connects.
    pub async fn restore(self: &Arc<Self>, snapshot: Snapshot) -> Result<(), String> {
        let started = Instant::now();
        let Snapshot {
            records,
            mut tables,
            offsets,
            errors,
            meta,
        } = snapshot;
        {
            let mut state = self.lock();
            state.restored_offsets = offsets;
            state.source_errors = errors;
        }
        self.restoring.store(true, Ordering::SeqCst);
        let (mut objects, mut rows) = (0usize, 0usize);
        for record in records {
            let fail = |what: String| {
                format!("restoring `{}` from the data directory: {what}", record.sql)
            };
            let (style, sql) = stored_input_style(&record.sql);
            let stmt = match kpg_sql::parse(sql) {
                Ok(mut stmts) if stmts.len() == 1 => stmts.remove(0),
                Ok(_) => return Err(fail("not one statement".into())),
                Err(e) => return Err(fail(e.to_string())),
            };
            let before = {
                let mut state = self.lock();
                state.catalog.set_next_id(record.key, false);
                if let Some(progress) = record.source {
                    state.resume.insert(record.key, progress);
                }
                state.catalog.durable_ids()
            };
            // Planned in the input style of the session that created it (DateStyle's order
            // for its date literals and casts of text), as it was then.
            let context =
                crate::session_dates::statement_context("UTC", "ISO, MDY", "postgres", None);
            let context = crate::statement_context::StatementContext {
                input_style: style,
                ..context
            };
            crate::statement_context::scope(context, self.execute(&stmt))
                .await
                .map_err(|e| fail(e.to_string()))?;
            let after = self.lock().catalog.durable_ids();
            let created: Vec<GlobalId> = after.difference(&before).copied().collect();
            if !record.ids.iter().all(|id| created.contains(id)) {
                return Err(fail(format!(
                    "it created objects {created:?}, not the stored {:?}",
                    record.ids
                )));
            }
            // Objects of the statement dropped since (none today: a statement's objects are
            // dropped together).
            let extra: Vec<GlobalId> = created
                .into_iter()
                .filter(|id| !record.ids.contains(id))
                .collect();
            if !extra.is_empty() {
                self.drop_objects(&extra, true)
                    .map_err(|e| fail(e.to_string()))?;
            }
            for id in &record.ids {
                if let Some(stored) = tables.remove(id) {
                    rows += stored.len();
                    self.load_rows(*id, stored);
                }
            }
            objects += record.ids.len();
            let mut state = self.lock();
            for id in &record.ids {
                state.record_of.insert(*id, record.key);
            }
            // A resumed source starts from a new time: its record says so for the next restart.
            let mut record = record;
            let progress = state.source_progress.get(&record.key).copied();
            if record.source.is_some() && progress != record.source {
                record.source = progress;
                let upper = state.upper;
                self.submit(
                    &mut state,
                    vec![CatalogOp::Put(record.clone())],
                    Vec::new(),
                    upper,
                    0,
                );
            }
            state.records.insert(record.key, record);
        }
        {
            let mut state = self.lock();
            state.catalog.set_next_id(meta.next_id, true);
            state.next_position = state.next_position.max(meta.next_position);
            // History before the restart is gone: nothing may be read as of a time before
            // the restored contents (such a read is refused, not answered from empty inputs).
            state.since = state.since.max(state.upper - 1);
            let now = now_ms();
            self.renew_lease(&mut state, now);
        }
        self.restoring.store(false, Ordering::SeqCst);
        self.flush().await;
        tracing::info!(
            objects,
            rows,
            seconds = started.elapsed().as_secs_f64(),
            "restored the catalog and tables from the data directory"
        );
        Ok(())
    }

    /// Loads a restored table's rows (as stored, with their positions) at a new time.
    fn load_rows(&self, table: GlobalId, rows: Vec<(Row, i64)>) {
        let mut state = self.lock();
        let time = write_time(&state);
        state
            .catalog
            .note_rows(table, rows.iter().map(|(_, diff)| diff).sum());
        self.compute.send(Command::Append {
            id: table,
            time,
            updates: rows,
        });
        state.upper = time + 1;
        state.write_frontier = time + 1;
        self.compute.send(Command::AdvanceTables { time: time + 1 });
    }
}

/// The mark before a stored statement planned under a non-default input style (`DateStyle`'s
/// order, `IntervalStyle = sql_standard`): the style as JSON, then `*/`. A comment, so the
/// text still parses as the statement.
const INPUT_STYLE_MARK: &str = "/*kpg input style ";

/// `sql` as stored: marked with the session's input style when it is not the default, so a
/// restart plans it as its creator's session did (its date literals, casts of text).
pub(super) fn with_input_style(sql: String) -> String {
    let style = crate::statement_context::input_style();
    if style == kpg_types::datetime::InputStyle::default() {
        return sql;
    }
    let json = serde_json::to_string(&style).expect("an input style serializes");
    format!("{INPUT_STYLE_MARK}{json}*/ {sql}")
}

/// The input style a stored statement was planned in, and its text.
fn stored_input_style(sql: &str) -> (kpg_types::datetime::InputStyle, &str) {
    let marked = sql.strip_prefix(INPUT_STYLE_MARK).and_then(|rest| {
        let (json, sql) = rest.split_once("*/")?;
        Some((serde_json::from_str(json).ok()?, sql.trim_start()))
    });
    marked.unwrap_or((Default::default(), sql))
}
