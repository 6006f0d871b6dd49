//! The coordinator: the one place that owns the catalog, the timestamp oracle and the reads in
//! flight, and the only sender of commands to the compute workers.
//!
//! Sessions plan a statement (`sequence.rs`) and hand the coordinator its plan. Everything that must be ordered — choosing a timestamp
//! and sending the commands that use it — happens under the `state` lock, so the command stream
//! the workers see is consistent with the timestamps chosen (an append is never sent for a time
//! the tables were already advanced past; a read's dataflow is sent before any compaction that
//! would collapse its time). Statements that read and then write (INSERT ... SELECT, UPDATE,
//! DELETE) and DDL hold `write_lock` across their await points, so they are serializable.
//!
//! Timestamps are milliseconds since the epoch. `upper` is the time every table input has been
//! advanced to: all times before it are complete. A write gets a time at or after `upper` and
//! after every write still in flight, goes to the committer (`durable.rs`), and becomes readable
//! — the tables advance past its time — once the store has made it durable; only then is it
//! acknowledged. A read uses `upper - 1`, which is at or after every acknowledged write — so
//! every read sees every write acknowledged before it began. Reads made by a write (UPDATE's
//! rows, a constraint check) use the time after the writes in flight instead, so they wait for
//! those writes and see them.

mod block_ddl;
mod constraints;
mod ddl;
mod direct_peek;
mod dispatch;
mod durable;
mod external;
mod fast_count;
mod fast_path;
mod info_schema;
mod introspection;
mod on_conflict;
mod pg_catalog;
mod pg_rows;
mod read;
mod returning;
mod sequence;
mod show;
mod sink;
mod source_progress;
mod sources;
mod subscribe;
mod table_as;
mod temporary;
mod truncate;
mod write;
mod zoned_index;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use kpg_compute::ComputeHandle;
use kpg_types::command::Command;
use kpg_types::{
    DataflowDescription, DataflowSink, Datum, EvalError, GlobalId, Plan, Row, ScalarExpr,
};
use tokio::sync::{mpsc, oneshot};

use crate::catalog::Catalog;
use crate::error::ExecError;
use crate::storage::committer::Committer;
use crate::storage::{CatalogRecord, Snapshot, SourceProgress, Store, StoreError, TableAppend};
pub use block_ddl::{is_block_create, refused_in_block, Provisional};
pub use sequence::{
    changed_result, planned_desc, same_columns, within, Bound, BoundPlan, ConstantInsert,
    ExecuteResult, Planned,
};
pub use write::constant_insert;

/// How much history (in milliseconds) arrangements keep behind the read frontier.
const COMPACTION_WINDOW_MS: u64 = 1_000;
/// How often table frontiers advance when nothing is written.
const TICK: Duration = Duration::from_millis(100);

/// A change streamed to a subscriber: `(timestamp, diff, row)`, or the error the view holds.
#[derive(Debug)]
pub enum SubscribeEvent {
    Updates(Vec<(u64, i64, Row)>),
    /// (With PROGRESS) every later change has a timestamp at or after this one.
    Progress(u64),
    Error(EvalError),
}

pub struct Coordinator {
    compute: ComputeHandle,
    state: Mutex<State>,
    write_lock: tokio::sync::Mutex<()>,
    /// Makes commits durable, in order, several at a time.
    committer: Committer,
    /// Set while the stored catalog is replayed: what is replayed is not stored again.
    restoring: AtomicBool,
    /// The directory whose files file sources may read (`--file-source-dir`).
    pub file_source_dir: std::sync::OnceLock<std::path::PathBuf>,
}

struct State {
    catalog: Catalog,
    /// Every table input has been advanced to `upper`.
    upper: u64,
    /// The position the next row written to any table gets (see `append`).
    next_position: i64,
    /// Every arrangement may have compacted history before `since` (the last compaction sent).
    since: u64,
    /// The time each table, materialized view and index became readable from.
    object_since: HashMap<GlobalId, u64>,
    /// Ids of peeks, subscriptions and introspection requests.
    transient: crate::catalog::ids::TransientIds,
    /// The number of the last commit handed to the committer.
    next_seq: u64,
    /// The writes handed to the committer and not yet durable: (commit number, time).
    pending: VecDeque<(u64, u64)>,
    /// The next write's time is at or after this (after every write in flight).
    write_frontier: u64,
    /// Every time below this is durably covered: a restart starts at or after it. `upper`
    /// does not pass it.
    lease: u64,
    /// The longest lease asked of the committer.
    lease_requested: u64,
    /// The durable catalog: each record by its key, and the record of each durable id.
    records: BTreeMap<GlobalId, CatalogRecord>,
    record_of: BTreeMap<GlobalId, GlobalId>,
    /// Where each load generator's ticks stand (see `SourceProgress`).
    source_progress: BTreeMap<GlobalId, SourceProgress>,
    /// While restoring: the progress each stored source resumes from, and the last durable
    /// readable time before the restart.
    resume: BTreeMap<GlobalId, SourceProgress>,
    restored_readable: u64,
    /// The latest readable time asked of the committer (while sources exist).
    readable_requested: u64,
    /// While restoring: each external source's next offsets.
    restored_offsets: BTreeMap<GlobalId, BTreeMap<i32, i64>>,
    /// Every record of an external source that could not be decoded.
    source_errors: Vec<crate::storage::SourceError>,
    /// What each external source's readers report, and the flag that stops them.
    ingests: BTreeMap<GlobalId, Vec<kpg_storage::reading::Ingest>>,
    /// Where the batches of sources' readers in the other processes go, by source and share.
    shares: HashMap<(GlobalId, u32), std::sync::mpsc::Sender<external::ShareMessage>>,
    /// The flag that stops each sink's writer.
    sinks: BTreeMap<GlobalId, Arc<std::sync::atomic::AtomicBool>>,
    peeks: HashMap<u64, PendingPeek>,
    subscribes: HashMap<u64, dispatch::SubscribeState>,
    /// Every installed dataflow (tables', views', indexes', transient reads'), for
    /// `kpg_dataflows`.
    dataflows: BTreeMap<u64, introspection::DataflowMeta>,
    introspections: HashMap<u64, PendingIntrospection>,
    /// Objects created inside a transaction block that has not committed: the block's number
    /// (see `block_ddl`).
    provisional: BTreeMap<GlobalId, u64>,
}

/// An introspection request waiting for every worker's report.
struct PendingIntrospection {
    remaining: usize,
    figures: introspection::Figures,
    tx: Option<oneshot::Sender<introspection::Figures>>,
}

/// What a peek answers: the rows read with their multiplicities, or the error computing them.
type PeekResult = Result<Vec<(Row, i64)>, EvalError>;

struct PendingPeek {
    /// The read time: arrangements must not compact past it while the peek waits.
    timestamp: u64,
    remaining: usize,
    rows: Vec<(Row, i64)>,
    error: Option<EvalError>,
    tx: Option<oneshot::Sender<PeekResult>>,
}

/// Drops a transient dataflow when its reader goes away, however it goes away (and forgets
/// a read of an arrangement, which has none).
struct DataflowGuard {
    coord: Arc<Coordinator>,
    id: u64,
}

impl Drop for DataflowGuard {
    fn drop(&mut self) {
        let mut state = self.coord.state.lock().expect("coordinator state");
        state.peeks.remove(&self.id);
        state.subscribes.remove(&self.id);
        // A read straight from an arrangement installed no dataflow: nothing to tear down,
        // and no command to wake the workers with.
        if state.dataflows.remove(&self.id).is_some() {
            self.coord
                .compute
                .send(Command::DropDataflow { id: self.id });
        }
    }
}

/// A live subscription: events arrive on `rx`; dropping it tears the dataflow down.
pub struct Subscription {
    pub rx: mpsc::UnboundedReceiver<SubscribeEvent>,
    /// Whether rows carry `mz_progressed` and progress rows are sent.
    pub progress: bool,
    _guard: DataflowGuard,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Coordinator {
    /// Starts the coordinator around running compute workers and the store, with its
    /// background tasks; returns it with what the store holds, for `restore` to replay.
    pub fn start(
        compute: ComputeHandle,
        mut store: Box<dyn Store>,
    ) -> Result<(Arc<Coordinator>, Snapshot), StoreError> {
        let snapshot = store.load()?;
        // Never a time at or before one handed out before a restart.
        let upper = now_ms().max(snapshot.meta.upper);
        compute.send(Command::AdvanceTables { time: upper });
        let coord = Arc::new_cyclic(|weak: &std::sync::Weak<Coordinator>| {
            let weak = weak.clone();
            let after = weak.clone();
            let committer = Committer::start(
                store,
                move |seq, commit| {
                    if let Some(coord) = weak.upgrade() {
                        coord.durable(seq, commit);
                    }
                },
                move |more| {
                    if let Some(coord) = after.upgrade() {
                        coord.acknowledged(more);
                    }
                },
            );
            Coordinator {
                compute,
                state: Mutex::new(State {
                    catalog: Catalog::starting_at(snapshot.meta.next_id.max(1)),
                    upper,
                    next_position: snapshot.meta.next_position,
                    since: 0,
                    object_since: HashMap::new(),
                    transient: Default::default(),
                    next_seq: 0,
                    pending: VecDeque::new(),
                    write_frontier: upper,
                    lease: snapshot.meta.upper,
                    lease_requested: snapshot.meta.upper,
                    records: BTreeMap::new(),
                    record_of: BTreeMap::new(),
                    source_progress: BTreeMap::new(),
                    resume: BTreeMap::new(),
                    restored_readable: snapshot.meta.readable,
                    readable_requested: 0,
                    restored_offsets: BTreeMap::new(),
                    source_errors: Vec::new(),
                    ingests: BTreeMap::new(),
                    shares: HashMap::new(),
                    sinks: BTreeMap::new(),
                    peeks: HashMap::new(),
                    subscribes: HashMap::new(),
                    dataflows: BTreeMap::new(),
                    introspections: HashMap::new(),
                    provisional: BTreeMap::new(),
                }),
                write_lock: tokio::sync::Mutex::new(()),
                committer,
                restoring: AtomicBool::new(false),
                file_source_dir: std::sync::OnceLock::new(),
            }
        });
        dispatch::spawn_dispatcher(Arc::clone(&coord));
        let ticker = Arc::clone(&coord);
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(TICK);
            loop {
                interval.tick().await;
                ticker.tick();
            }
        });
        Ok((coord, snapshot))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("coordinator state")
    }

    /// Advances table frontiers to the current time and lets arrangements compact.
    fn tick(&self) {
        let mut state = self.lock();
        let now = now_ms();
        // Not past a write in flight (it becomes readable when durable), nor past the lease.
        let mut target = now.min(state.lease);
        if let Some(&(_, first)) = state.pending.front() {
            target = target.min(first);
        }
        if target > state.upper {
            self.advance_readable(&mut state, target);
        }
        self.renew_lease(&mut state, now);
        // History is kept for the window (so AS OF can look a little back) and, beyond it, only
        // as far back as the oldest read still waiting for its answer.
        let mut since = state.upper.saturating_sub(1 + COMPACTION_WINDOW_MS);
        if let Some(oldest) = state.peeks.values().map(|p| p.timestamp).min() {
            since = since.min(oldest);
        }
        let since = since.max(state.since);
        state.since = since;
        let ids: Vec<GlobalId> = state.catalog.ids().collect();
        for id in ids {
            self.compute.send(Command::AllowCompaction { id, since });
        }
    }

    /// Appends updates to tables at one new timestamp: hands them to the committer, which
    /// sends them to the workers and makes them readable once they are durable. The caller
    /// acknowledges the write after `finish_write`.
    ///
    /// A table's stored rows end with their position (`Plan::GetWithPosition`). Rows added
    /// (diff > 0) are new: each gets the next position, in the order given. Rows retracted
    /// were read with their positions (UPDATE and DELETE read through `GetWithPosition`).
    fn append(&self, updates: Vec<(GlobalId, Vec<(Row, i64)>)>) {
        self.append_with(updates, Vec::new(), Vec::new(), &[]);
    }

    /// `append`, storing the catalog changes `catalog` in the same durable commit.
    fn append_commit(
        &self,
        updates: Vec<(GlobalId, Vec<(Row, i64)>)>,
        catalog: Vec<crate::storage::CatalogOp>,
    ) {
        self.append_full(updates, Vec::new(), Vec::new(), catalog, &[]);
    }

    /// `append`, committing an external source's offsets and undecodable records with the rows
    /// read before them; returns the commit's number and the rows added to the tables in `keep`,
    /// with their positions (in the order given).
    fn append_with(
        &self,
        updates: Vec<(GlobalId, Vec<(Row, i64)>)>,
        offsets: Vec<(GlobalId, i32, i64)>,
        errors: Vec<crate::storage::SourceError>,
        keep: &[GlobalId],
    ) -> (u64, Vec<Row>) {
        self.append_full(updates, offsets, errors, Vec::new(), keep)
    }

    fn append_full(
        &self,
        updates: Vec<(GlobalId, Vec<(Row, i64)>)>,
        offsets: Vec<(GlobalId, i32, i64)>,
        errors: Vec<crate::storage::SourceError>,
        catalog: Vec<crate::storage::CatalogOp>,
        keep: &[GlobalId],
    ) -> (u64, Vec<Row>) {
        let mut state = self.lock();
        let mut added = Vec::new();
        let time = durable::write_time(&state);
        let mut appends = Vec::with_capacity(updates.len());
        for (table, mut updates) in updates {
            let keep_added = keep.contains(&table);
            for (row, diff) in &mut updates {
                if *diff > 0 {
                    row.push(Datum::Int64(state.next_position));
                    state.next_position += 1;
                    if keep_added {
                        added.push(row.clone());
                    }
                }
            }
            let written: i64 = updates.iter().map(|(_, diff)| diff).sum();
            state.catalog.note_rows(table, written);
            if !updates.is_empty() {
                appends.push(TableAppend {
                    table,
                    time,
                    updates,
                });
            }
        }
        state.write_frontier = time + 1;
        let seq = self.submit_commit(
            &mut state,
            crate::storage::Commit {
                catalog,
                appends,
                offsets,
                errors,
                meta: crate::storage::Meta {
                    upper: time + 1,
                    readable: time + 1,
                    ..Default::default()
                },
            },
        );
        state.pending.push_back((seq, time));
        (seq, added)
    }

    /// Sends a dataflow to the workers, recording it for `kpg_dataflows`.
    fn install(&self, state: &mut State, id: u64, desc: DataflowDescription) {
        if let DataflowSink::Materialize { id } | DataflowSink::Index { id, .. } = &desc.sink {
            state.object_since.insert(*id, desc.as_of);
        }
        state
            .dataflows
            .insert(id, introspection::DataflowMeta::new(&desc));
        self.compute.send(Command::CreateDataflow { id, desc });
    }

    /// Every worker's figures about its arrangements and dataflows, merged.
    async fn introspect(&self) -> Result<introspection::Figures, ExecError> {
        let (tx, rx) = oneshot::channel();
        {
            let mut state = self.lock();
            let request_id = state.transient.allocate();
            let remaining = self.compute.workers();
            state.introspections.insert(
                request_id,
                PendingIntrospection {
                    remaining,
                    figures: introspection::Figures::default(),
                    tx: Some(tx),
                },
            );
            self.compute.send(Command::Introspect { request_id });
        }
        rx.await
            .map_err(|_| ExecError::internal("introspection was abandoned by the workers"))
    }

    /// A new id for a user's object (see `catalog/ids.rs`).
    fn allocate_id(state: &mut State) -> u64 {
        state.catalog.allocate_id()
    }

    /// The plan the runtime renders: optimized, its joins ordered so that as many inputs as
    /// possible read the indexes the catalog has, and reading them.
    fn optimize(state: &State, plan: Plan) -> Result<Plan, ExecError> {
        Ok(kpg_sql::physical_plan(plan, &state.catalog)?)
    }

    /// A plan may only be sent to the workers while everything it reads exists: a concurrent
    /// DROP between planning and sending is caught here, under the lock that orders commands.
    /// A dataflow that maintains its result (a materialized view, an index, a subscription)
    /// cannot compute volatile functions: a row's retraction would not cancel its insertion.
    fn check_maintainable(plan: &Plan) -> Result<(), ExecError> {
        kpg_sql::check_temporal(plan)?;
        let mut names = false;
        plan.visit(&mut |p| {
            for e in p.own_exprs() {
                e.visit(&mut |e| {
                    names |= matches!(
                        e,
                        ScalarExpr::Variadic {
                            func: kpg_types::VariadicFunc::OidByName { .. },
                            ..
                        }
                    )
                });
            }
        });
        if names {
            return Err(ExecError::unsupported(
                "an OID type read from a value that is not a constant (`x::regclass`, \
                 `to_regclass(x)`) in a materialized view, an index or a subscription (a \
                 maintained result would keep the names of the catalog it was made with)",
            ));
        }
        if plan.is_volatile() {
            return Err(ExecError::unsupported(
                "random(), now(), current_date and the other current-time functions in a \
                 materialized view, an index or a subscription (a maintained result cannot \
                 follow a value that changes between evaluations or over time; use them in a \
                 SELECT)",
            ));
        }
        Ok(())
    }

    /// A materialized view or an index outlives the session that creates it and is rebuilt
    /// at restart without one, so it computes what reads a session's zone in UTC; PostgreSQL
    /// would use the creating (refreshing) session's zone, so a session in another zone may
    /// not create one (0A000), rather than get other values than PostgreSQL.
    fn bind_durable_zone(plan: &mut Plan) -> Result<(), ExecError> {
        Self::check_durable_zone(plan.reads_session_zone())?;
        plan.bind_session_zone("UTC");
        Ok(())
    }

    /// `bind_durable_zone` for the key expressions of an index.
    fn bind_durable_key_zone(key: &mut [ScalarExpr]) -> Result<(), ExecError> {
        Self::check_durable_zone(key.iter().any(ScalarExpr::reads_session_zone))?;
        key.iter_mut().for_each(|e| e.bind_session_zone("UTC"));
        Ok(())
    }

    fn check_durable_zone(reads_zone: bool) -> Result<(), ExecError> {
        if reads_zone && !crate::statement_context::zone_is_utc() {
            return Err(ExecError::unsupported(
                "a materialized view or an index that reads the session's TimeZone (casts of \
                 timestamp with time zone to or from local times, date_trunc, EXTRACT, \
                 + interval on it) while TimeZone is not UTC: kpg maintains them in UTC; SET \
                 TimeZone = 'UTC' to create it",
            ));
        }
        Ok(())
    }

    fn check_imports(state: &State, plan: &Plan) -> Result<(), ExecError> {
        let mut reads = plan.imports();
        reads.extend(plan.index_imports());
        match reads.into_iter().find(|id| !state.catalog.contains(*id)) {
            Some(_) => Err(ExecError::new(
                "42P01",
                "a relation the query reads was dropped",
            )),
            None => Ok(()),
        }
    }
}
