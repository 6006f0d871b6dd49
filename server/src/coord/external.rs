//! External sources: `CREATE SOURCE ... FROM KAFKA | FILE` and the reader threads each one runs.
//!
//! An external source is stored and arranged like a table: its readers decode batches of records
//! and appends the rows through the committer together with the offsets they advance to, in one
//! durable commit. That commit is the binding of offsets to a timestamp (the append's): every
//! worker sees the batch at that one time, a read never sees half of it, and a restart resumes
//! from the stored offsets with exactly the stored rows — nothing read twice or lost. A Kafka
//! source's partitions are spread over as many readers as the cluster has workers (reader `i`
//! of `n` reads the partitions numbered `i` modulo `n`, also those added later), so records are
//! decoded in parallel; each reader commits its own partitions' batches and offsets, each
//! commit at a timestamp of its own. Reader `i` runs in the process of worker `i`: in a cluster,
//! the readers of the other processes decode there and send each batch here
//! (`Response::SourceBatch`), where a thread of this process commits it as a local reader does
//! and lets the next come (`Command::ShareTaken`). With `ENVELOPE UPSERT` one reader reads
//! every partition (a key's current row is the source's, whatever partition its records come
//! from), and a file is one partition. A record that cannot be decoded is committed as an
//! error (`kpg_source_errors`) with its partition, offset and reason, and the source goes on.
//! With `ENVELOPE UPSERT` the reader keeps each
//! key's current row (read back from the source's own contents when it starts; keys are
//! identified by their decoded columns) and turns a record into the retraction of that row and
//! the insertion of the new one (none for a record without a value: a delete); with
//! `VALUE DECODING ERRORS = INLINE` an undecodable value is such a new row too, its value
//! columns NULL and the reason in the error column.
//!
//! The broker being unreachable (or the file missing) stalls the source (its status says why)
//! and the reader retries with backoff; it never stops the server, also not at a restart. A file
//! source may only read files under `--file-source-dir` (none without it).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Weak};
use std::time::Duration;

use kpg_sql::{CatalogItem, ItemKind};
use kpg_storage::assemble::RowMaker;
use kpg_storage::reading::{decode_appends, record_bytes, Ingest, Poller};
use kpg_storage::records::{self, Record, Share};
use kpg_types::command::Command;
use kpg_types::external::{Envelope, ExternalSourceDesc, Transport};
use kpg_types::reading::{ReaderState, ReaderStatus, ShareBatch};
use kpg_types::{Datum, GlobalId, RelationDesc, Row};

use super::ddl::exists_result;
use super::introspection::{introspection_row, DataflowMeta};
use super::sequence::ExecuteResult;
use super::source_progress::{progress_desc, progress_name, Progress};
use super::Coordinator;
use crate::catalog::{Entry, Op};
use crate::error::ExecError;
use crate::storage::SourceError;

/// What a reader in another process sends: a batch (or none) and its status.
pub(super) type ShareMessage = (Option<ShareBatch>, ReaderStatus);

impl Coordinator {
    /// The absolute path of a file a source may read: under `--file-source-dir` (a relative
    /// path is taken from there), after resolving links and `..`.
    fn allowed_file(&self, path: &str) -> Result<String, ExecError> {
        let refuse = |why: String| ExecError::new("42501", why);
        let Some(dir) = self.file_source_dir.get() else {
            return Err(refuse(format!(
                "file sources are not allowed: kpg was started without --file-source-dir \
                 (the directory whose files sources may read), so '{path}' cannot be read"
            )));
        };
        let dir = dir
            .canonicalize()
            .map_err(|e| refuse(format!("--file-source-dir {}: {e}", dir.display())))?;
        let wanted = dir.join(path);
        let resolved = match wanted.canonicalize() {
            Ok(resolved) => resolved,
            // Restoring: a file gone missing stalls the source instead of stopping kpg.
            Err(_) if self.restoring.load(Ordering::SeqCst) && !path.contains("..") => wanted,
            Err(e) => {
                return Err(ExecError::new(
                    "42704",
                    format!("cannot read the source: {}: {e}", wanted.display()),
                ))
            }
        };
        if !resolved.starts_with(&dir) {
            return Err(refuse(format!(
                "'{path}' is outside --file-source-dir ({}); file sources may only read files \
                 under it",
                dir.display()
            )));
        }
        Ok(resolved.to_string_lossy().into_owned())
    }

    /// `CREATE SOURCE ... FROM KAFKA`: checks that the topic can be read (not when restoring:
    /// a broker that is down then stalls the source instead of stopping kpg), enters the
    /// source, creates its collection and starts its readers (the first one reads through the
    /// connection the check opened: a consumer is slow to open and to close).
    pub(super) async fn create_external_source(
        self: &Arc<Self>,
        name: String,
        if_not_exists: bool,
        desc: RelationDesc,
        mut kafka: ExternalSourceDesc,
        depends_on: Vec<GlobalId>,
        sql: String,
    ) -> Result<ExecuteResult, ExecError> {
        let tag = "CREATE SOURCE";
        if self.lock().catalog.name_taken(&name) {
            return exists_result(&name, if_not_exists, tag);
        }
        if let Transport::File { path, .. } = &mut kafka.transport {
            *path = self.allowed_file(path)?;
        }
        let count = match (&kafka.transport, kafka.envelope) {
            (Transport::Kafka { .. }, Envelope::None) => self.compute.workers().max(1) as u32,
            _ => 1,
        };
        let mut checked = None;
        if !self.restoring.load(Ordering::SeqCst) {
            let transport = kafka.transport.clone();
            let header = records::HeaderLine::of(&kafka);
            let share = Share { index: 0, count };
            let opened = tokio::task::spawn_blocking(move || {
                records::connect(&transport, &BTreeMap::new(), share, header)
            })
            .await
            .map_err(|e| ExecError::internal(format!("checking the source: {e}")))?
            .map_err(|e| {
                let code = if e.contains("does not exist") || e.contains("No such file") {
                    "42704"
                } else if matches!(kafka.transport, Transport::File { .. }) {
                    "58030"
                } else {
                    "08001"
                };
                ExecError::new(code, format!("cannot read the source: {e}"))
            })?;
            checked = Some(opened);
        }
        let mut state = self.lock();
        if state.catalog.name_taken(&name) {
            return exists_result(&name, if_not_exists, tag);
        }
        let kafka_source = matches!(kafka.transport, Transport::Kafka { .. });
        let progress_name = progress_name(&name);
        if kafka_source && state.catalog.name_taken(&progress_name) {
            return exists_result(&progress_name, false, tag);
        }
        if let Some(gone) = depends_on.iter().find(|c| !state.catalog.contains(**c)) {
            return Err(ExecError::new(
                "42704",
                format!("connection u{gone} was dropped while the source was planned"),
            ));
        }
        let id = Self::allocate_id(&mut state);
        let mut entry = Entry::new(CatalogItem {
            id,
            name: name.clone(),
            kind: ItemKind::Source,
            desc: desc.clone(),
        });
        entry.depends_on = depends_on;
        entry.sql = Some(sql.clone());
        entry.create_sql = Some(sql.clone());
        let mut ops = vec![Op::Create { entry, temp: None }];
        // A Kafka source's progress relation: a subsource, dropped with it.
        let progress = kafka_source.then(|| {
            let progress = Self::allocate_id(&mut state);
            let mut entry = Entry::new(CatalogItem {
                id: progress,
                name: progress_name,
                kind: ItemKind::Source,
                desc: progress_desc(),
            });
            entry.owner = Some(id);
            entry.create_sql = Some(sql);
            ops.push(Op::Create { entry, temp: None });
            progress
        });
        state.catalog.transact(ops)?;
        state.dataflows.insert(id, DataflowMeta::source(&name, id));
        let since = state.upper;
        self.compute.send(Command::CreateTable { id, since });
        if let Some(progress) = progress {
            self.compute.send(Command::CreateTable {
                id: progress,
                since,
            });
        }
        let start = state.restored_offsets.remove(&id).unwrap_or_default();
        let first = Ingest::default();
        let ingests: Vec<Ingest> = (0..count)
            .map(|i| match i {
                0 => first.clone(),
                _ => first.sibling(),
            })
            .collect();
        // Reader `i` runs beside worker `i`: here for the workers of this process; for the
        // others, their process decodes and this one commits what it sends.
        let local = self.compute.local_workers() as u32;
        let not_null = not_null(&desc);
        let mut feeds = Vec::new();
        for index in 0..count {
            let share = Share { index, count };
            feeds.push(if index < local {
                let connected = if index == 0 { checked.take() } else { None };
                let name = format!("u{id}");
                Feed::Local(Box::new(Poller::new(
                    name,
                    &kafka,
                    share,
                    start.clone(),
                    connected,
                )))
            } else {
                let (tx, rx) = std::sync::mpsc::channel();
                state.shares.insert((id, index), tx);
                self.compute.send(Command::ReadShare {
                    id,
                    share: index,
                    count,
                    desc: kafka.clone(),
                    not_null: not_null.clone(),
                    start: start.clone(),
                });
                Feed::Remote {
                    share: index,
                    batches: rx,
                }
            });
        }
        state.ingests.insert(id, ingests.clone());
        drop(state);
        for ((index, ingest), feed) in ingests.into_iter().enumerate().zip(feeds) {
            let coord = Arc::downgrade(self);
            let runtime = tokio::runtime::Handle::current();
            let (kafka, start) = (kafka.clone(), start.clone());
            let not_null = not_null.clone();
            // A thread reading here is `kpg-src-...` (as in the other processes); one that
            // commits what another process reads is `kpg-share-...`.
            let name = match feed {
                Feed::Local(_) => format!("kpg-src-u{id}-{index}"),
                Feed::Remote { .. } => format!("kpg-share-u{id}-{index}"),
            };
            std::thread::Builder::new()
                .name(name)
                .spawn(move || {
                    let mut reader =
                        Reader::new(coord, runtime, id, kafka, not_null, start, ingest);
                    reader.progress = progress.map(Progress::new);
                    reader.run(feed)
                })
                .map_err(|e| ExecError::internal(format!("starting the source's reader: {e}")))?;
        }
        Ok(ExecuteResult::Command(tag.into()))
    }

    /// A reader's batch: appended (if the source still exists) with its offsets and errors;
    /// the commit's number and the rows added, with their positions: the source's (only if
    /// `keep_source`: UPSERT keeps each key's row), then its progress relation's.
    /// `progress`: the updates of the source's progress relation, appended in the same
    /// commit (if it exists: a source kept before there were progress relations has none).
    fn ingest(
        &self,
        id: GlobalId,
        updates: Vec<(Row, i64)>,
        progress: Option<(GlobalId, Vec<(Row, i64)>)>,
        offsets: Vec<(GlobalId, i32, i64)>,
        errors: Vec<SourceError>,
        keep_source: bool,
    ) -> Option<(u64, Vec<Row>)> {
        let mut keep: Vec<GlobalId> = progress.iter().map(|(p, _)| *p).collect();
        if keep_source {
            keep.push(id);
        }
        let mut appends = vec![(id, updates)];
        {
            let mut state = self.lock();
            if !state.catalog.contains(id) {
                return None;
            }
            state.source_errors.extend(errors.iter().cloned());
            appends.extend(progress.filter(|(p, _)| state.catalog.contains(*p)));
        }
        Some(self.append_with(appends, offsets, errors, &keep))
    }
}

/// What a batch of records makes: its updates, the records that could not be decoded, and
/// (with UPSERT) the key of each row added, in the order the rows are added.
struct Decoded {
    updates: Vec<(Row, i64)>,
    errors: Vec<SourceError>,
    keys: Vec<Row>,
    /// With UPSERT: the keys deleted.
    deleted: Vec<Row>,
}

/// Where a reader's batches come from.
enum Feed {
    /// Read and decoded by the reader itself.
    Local(Box<Poller>),
    /// Read and decoded by share `share`'s reader in another process of the cluster.
    Remote {
        share: u32,
        batches: Receiver<ShareMessage>,
    },
}

/// The columns of `desc` that may not be NULL, with their names (what a record's row is
/// checked against).
fn not_null(desc: &RelationDesc) -> Vec<(usize, String)> {
    desc.columns
        .iter()
        .enumerate()
        .filter(|(_, (_, t))| !t.nullable)
        .map(|(i, (n, _))| (i, n.clone()))
        .collect()
}

impl Decoded {
    /// A batch of `ENVELOPE NONE` of source `source`: rows added, and the `(partition, offset,
    /// reason)` of the records that could not be decoded.
    fn appends(source: GlobalId, rows: Vec<Row>, failed: Vec<(i32, i64, String)>) -> Decoded {
        Decoded {
            updates: rows.into_iter().map(|row| (row, 1)).collect(),
            errors: (failed.into_iter())
                .map(|(partition, offset, reason)| SourceError {
                    source,
                    partition,
                    offset,
                    reason,
                })
                .collect(),
            keys: Vec::new(),
            deleted: Vec::new(),
        }
    }
}

/// One reader thread of a source: the partitions of its share, read here or in another process.
struct Reader {
    coord: Weak<Coordinator>,
    /// To run the coordinator's reads from this thread.
    runtime: tokio::runtime::Handle,
    id: GlobalId,
    kafka: ExternalSourceDesc,
    rows: RowMaker,
    /// The next offset of each partition, as committed.
    positions: BTreeMap<i32, i64>,
    ingest: Ingest,
    /// With UPSERT: each key's current row, as stored (with its position), by the key's
    /// decoded columns.
    current: HashMap<Row, Row>,
    /// A Kafka source's progress relation.
    progress: Option<Progress>,
    /// The commit of the batch handed over last, until it is known to be durable.
    in_flight: Option<u64>,
}

impl Reader {
    fn new(
        coord: Weak<Coordinator>,
        runtime: tokio::runtime::Handle,
        id: GlobalId,
        kafka: ExternalSourceDesc,
        not_null: Vec<(usize, String)>,
        positions: BTreeMap<i32, i64>,
        ingest: Ingest,
    ) -> Reader {
        Reader {
            coord,
            runtime,
            id,
            rows: RowMaker::new(kafka.clone(), not_null),
            kafka,
            positions,
            ingest,
            current: HashMap::new(),
            progress: None,
            in_flight: None,
        }
    }

    fn run(mut self, feed: Feed) {
        // Nothing is committed while a restart restores the data directory: the restored rows
        // are sent to the workers at a time picked when they are loaded, which a batch
        // committed before them (at an earlier time, still on its way) would then precede.
        if !self.wait_restored() {
            return;
        }
        let ready = match self.kafka.envelope == Envelope::Upsert {
            true => self.load_current(),
            false => true,
        };
        if !ready || (self.progress.is_some() && !self.load_progress()) {
            // The readers in other processes stop too: nothing here takes their batches.
            if let (Feed::Remote { .. }, Some(coord)) = (&feed, self.coord.upgrade()) {
                coord.compute.send(Command::StopShares { id: self.id });
            }
            return;
        }
        match feed {
            Feed::Local(poller) => self.read(*poller),
            Feed::Remote { share, batches } => self.take(share, batches),
        }
    }

    /// Reads and decodes its partitions' records and commits them, batch by batch.
    fn read(&mut self, mut poller: Poller) {
        while let Some(records) = poller.poll(&self.ingest) {
            // A poll that only skipped records (a CSV header line) still commits the positions
            // it moved past: the lag shows them read, and a restart starts after them.
            if records.is_empty() && !poller.moved() {
                continue;
            }
            let Some(coord) = self.coord.upgrade() else {
                return;
            };
            let (count, bytes) = (records.len() as u64, record_bytes(&records));
            let decoded = self.decode_batch(&records);
            let errors = decoded.errors.len() as u64;
            if !self.commit(&coord, decoded, poller.positions()) {
                return;
            }
            poller.handed_over();
            self.ingest
                .handed_over(count, bytes, errors, &self.positions);
        }
    }

    /// Commits the batches share `share`'s reader in another process decodes, one by one,
    /// and shows its status as it reports it.
    fn take(&mut self, share: u32, batches: Receiver<ShareMessage>) {
        while !self.ingest.stopped() {
            let (batch, status) = match batches.recv_timeout(Duration::from_millis(100)) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            // Its status as of before the batch (every batch before it committed here).
            self.ingest.report(|s| *s = status);
            let Some(batch) = batch else {
                continue;
            };
            let Some(coord) = self.coord.upgrade() else {
                return;
            };
            let (count, bytes, errors) = (batch.records, batch.bytes, batch.errors.len() as u64);
            let decoded = Decoded::appends(self.id, batch.rows, batch.errors);
            if !self.commit(&coord, decoded, &batch.positions) {
                return;
            }
            self.ingest
                .handed_over(count, bytes, errors, &self.positions);
            coord
                .compute
                .send(Command::ShareTaken { id: self.id, share });
        }
    }

    /// Hands a decoded batch, which takes the partitions to `positions`, to a commit with its
    /// offsets (and its progress relation's rows). False if the source is gone.
    fn commit(
        &mut self,
        coord: &Coordinator,
        decoded: Decoded,
        positions: &BTreeMap<i32, i64>,
    ) -> bool {
        let Decoded {
            updates,
            errors,
            keys: upserted,
            deleted,
        } = decoded;
        let offsets: Vec<(GlobalId, i32, i64)> = positions
            .iter()
            .filter(|(p, o)| self.positions.get(p) != Some(o))
            .map(|(p, o)| (self.id, *p, *o))
            .collect();
        // At most one batch in flight: the reader never runs ahead of the disk. It decodes the
        // next batch while the previous one is being made durable (what decoding reads, the
        // positions and UPSERT's current rows, were updated when that batch was handed over).
        if let Some(seq) = self.in_flight.take() {
            futures::executor::block_on(coord.committer.wait(seq));
        }
        // The rows added: the source's (kept with UPSERT only), then its progress relation's.
        let upsert = self.kafka.envelope == Envelope::Upsert;
        let source_added = match upsert {
            true => updates.iter().filter(|(_, d)| *d > 0).count(),
            false => 0,
        };
        let progress = self.progress.as_ref().map(|p| (p.id, p.updates(&offsets)));
        let Some((seq, added)) = coord.ingest(self.id, updates, progress, offsets, errors, upsert)
        else {
            return false;
        };
        self.in_flight = Some(seq);
        if let Some(progress) = &mut self.progress {
            progress.committed(added.get(source_added..).unwrap_or_default());
        }
        for key in deleted {
            self.current.remove(&key);
        }
        for (key, row) in upserted.into_iter().zip(added) {
            self.current.insert(key, row);
        }
        self.positions = positions.clone();
        true
    }

    /// Waits until a restart has restored the data directory (at once otherwise). False if
    /// the server went away.
    fn wait_restored(&self) -> bool {
        loop {
            match self.coord.upgrade() {
                None => return false,
                Some(coord) if !coord.restoring.load(Ordering::SeqCst) => return true,
                Some(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    /// Reads the progress relation's stored rows (after a restart has loaded them). False if
    /// the server went away.
    fn load_progress(&mut self) -> bool {
        let Some(coord) = self.coord.upgrade() else {
            return false;
        };
        let Some(progress) = &mut self.progress else {
            return true;
        };
        match self
            .runtime
            .block_on(coord.stored_rows(progress.id, Vec::new()))
        {
            Ok(rows) => {
                progress.load(rows);
                true
            }
            // A progress relation dropped at the restart (kept before they existed): none.
            Err(_) if !coord.lock().catalog.contains(progress.id) => {
                self.progress = None;
                true
            }
            Err(e) => {
                self.ingest.report(|s| {
                    s.state = ReaderState::Stalled;
                    s.last_error = Some(format!("reading the progress relation: {e}"));
                });
                false
            }
        }
    }

    /// With UPSERT: reads the source's stored rows (after a restart has loaded them) into
    /// `current`. False if the server went away.
    fn load_current(&mut self) -> bool {
        let Some(coord) = self.coord.upgrade() else {
            return false;
        };
        match self
            .runtime
            .block_on(coord.stored_rows(self.id, Vec::new()))
        {
            Ok(rows) => {
                for (row, _) in rows {
                    self.current.insert(self.rows.stored_identity(&row), row);
                }
                true
            }
            Err(e) => {
                self.ingest.report(|s| {
                    s.state = ReaderState::Stalled;
                    s.last_error = Some(format!("reading the current rows: {e}"));
                });
                false
            }
        }
    }

    /// The updates a batch makes, the records it could not decode, and (with UPSERT) the key
    /// of each row it adds, in the order the rows are added.
    fn decode_batch(&self, records: &[Record]) -> Decoded {
        let mut updates = Vec::with_capacity(records.len());
        let mut errors = Vec::new();
        let error = |r: &Record, reason: String| SourceError {
            source: self.id,
            partition: r.partition,
            offset: r.offset,
            reason,
        };
        if self.kafka.envelope == Envelope::None {
            let (rows, failed) = decode_appends(&self.rows, records);
            return Decoded::appends(self.id, rows, failed);
        }
        // UPSERT: the last record of each key in the batch decides its row.
        let mut latest: Vec<(Row, Option<Row>)> = Vec::new();
        let mut at: HashMap<Row, usize> = HashMap::new();
        for r in records {
            let key = match self.rows.key(r) {
                Ok(Some(key)) => key,
                Ok(None) => {
                    errors.push(error(r, "a record without a key (ENVELOPE UPSERT)".into()));
                    continue;
                }
                Err(reason) => {
                    errors.push(error(r, reason));
                    continue;
                }
            };
            let row = match self.rows.row(r, Some(&key)) {
                Ok(row) => row,
                Err(reason) if self.kafka.inline_errors => {
                    // The key's row says why (and the error is kept as well).
                    let row = self.rows.error_row(r, &key, &reason);
                    errors.push(error(r, reason));
                    Some(row)
                }
                Err(reason) => {
                    // The key keeps its last value.
                    errors.push(error(r, reason));
                    continue;
                }
            };
            let identity = RowMaker::identity(&key);
            match at.get(&identity) {
                Some(&i) => latest[i].1 = row,
                None => {
                    at.insert(identity.clone(), latest.len());
                    latest.push((identity, row));
                }
            }
        }
        let (mut keys, mut deleted) = (Vec::new(), Vec::new());
        for (key, row) in latest {
            let old = self.current.get(&key);
            if let Some(old) = old {
                updates.push((old.clone(), -1));
            }
            match row {
                Some(row) => {
                    updates.push((row, 1));
                    keys.push(key);
                }
                None if old.is_some() => deleted.push(key),
                None => {}
            }
        }
        Decoded {
            updates,
            errors,
            keys,
            deleted,
        }
    }
}

/// A source's state from its readers': the most urgent state any reader is in (a source one of
/// whose partitions lost records has failed, one whose broker is down has stalled), with the
/// first error reported.
fn combined(statuses: &[ReaderStatus]) -> ReaderStatus {
    ReaderStatus {
        state: statuses.iter().map(|s| s.state).min().unwrap_or_default(),
        last_error: statuses.iter().find_map(|s| s.last_error.clone()),
        ..ReaderStatus::default()
    }
}

introspection_row! {
    /// A row of `kpg_sources`: a source's state and counts, one row per partition of each
    /// Kafka source (one with a NULL partition before the first is known).
    SourceRow {
        source: Text,
        partition: Int32 (nullable),
        state: Text,
        offset: Int64 (nullable),
        high_watermark: Int64 (nullable),
        lag: Int64 (nullable),
        records: Int64,
        bytes: Int64,
        errors: Int64,
        last_error: Text (nullable),
    }
}

introspection_row! {
    /// A row of `kpg_source_errors`: a record a source could not decode.
    SourceErrorRow {
        source: Text,
        partition: Int32,
        offset: Int64,
        reason: Text,
    }
}

/// The rows of `kpg_sources` and `kpg_source_errors`. The counts are this run's; the errors
/// are all that were ever recorded (they are durable).
pub(super) fn source_rows(state: &super::State) -> (Vec<Row>, Vec<Row>) {
    let name = |id: GlobalId| Datum::String(state.catalog.name(id).unwrap_or("?").to_string());
    let mut sources = Vec::new();
    for (id, readers) in &state.ingests {
        let statuses: Vec<ReaderStatus> = readers.iter().map(Ingest::status).collect();
        let errors = state
            .source_errors
            .iter()
            .filter(|e| e.source == *id)
            .count();
        let records: u64 = statuses.iter().map(|s| s.records).sum();
        let bytes: u64 = statuses.iter().map(|s| s.bytes).sum();
        // The source's state, whichever reader reads which partition.
        let s = combined(&statuses);
        let row = |partition: Datum, offset: Option<i64>, high: Option<i64>| {
            let n = |v: u64| Datum::Int64(v as i64);
            let opt = |v: Option<i64>| v.map_or(Datum::Null, Datum::Int64);
            SourceRow {
                source: name(*id),
                partition,
                state: Datum::String(s.state.as_str().to_string()),
                offset: opt(offset),
                high_watermark: opt(high),
                lag: opt(offset.zip(high).map(|(o, h)| (h - o).max(0))),
                records: n(records),
                bytes: n(bytes),
                errors: n(errors as u64),
                last_error: s.last_error.clone().map_or(Datum::Null, Datum::String),
            }
            .into_row()
        };
        let partitions: BTreeMap<i32, (i64, Option<i64>)> = statuses
            .iter()
            .flat_map(|s| s.partitions.iter().map(|(p, o)| (*p, *o)))
            .collect();
        if partitions.is_empty() {
            sources.push(row(Datum::Null, None, None));
        }
        for (p, (offset, high)) in partitions {
            // A watermark fetched before the latest reads is at least what was read.
            let high = high.map(|h| h.max(offset));
            sources.push(row(Datum::Int32(p), Some(offset), high));
        }
    }
    let errors = state
        .source_errors
        .iter()
        .filter(|e| state.catalog.contains(e.source))
        .map(|e| {
            SourceErrorRow {
                source: name(e.source),
                partition: Datum::Int32(e.partition),
                offset: Datum::Int64(e.offset),
                reason: Datum::String(e.reason.clone()),
            }
            .into_row()
        })
        .collect();
    (sources, errors)
}
