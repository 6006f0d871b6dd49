//! The single-machine store: one redb file, `kpg.redb`, in the data directory.
//!
//! redb gives atomic, checksummed, crash-consistent transactions and a lock that keeps a second
//! process out of the file. A commit is made durable by the write-ahead log beside it
//! (`kpg.wal`, `wal.rs`) and applied to redb after it is acknowledged, without an fsync; a
//! checkpoint (one durable redb commit) every few seconds lets the log start again. Five tables:
//! `catalog` (record key -> record), `meta` (the counters, and the number of the last log record
//! applied), `updates` ((table, time, part) -> a chunk of that time's updates of the table, at
//! most about 60 KiB each, in the compact encoding of `codec.rs`), `source_offsets` and
//! `source_errors`.
//!
//! A table's stored updates form *runs*: each write is a run of its own (its key range), and
//! `compact` merges adjacent runs into one (consolidated, at the first run's time) in a
//! transaction of its own, never inside a commit: the committer calls it after acknowledging,
//! with a budget of rows while writers are waiting and without one when idle. Merges are
//! size-tiered (the last [`FAN_IN`] runs when all are of one tier, [`SMALL_FAN_IN`] of the
//! smallest, so each update is rewritten about log_8 of the table's size times), and a table
//! whose retractions could make up half of what it stores is merged whole, so the file grows
//! with the data, not with the history of writes.
//! Runs without retractions (an append-only source's) hold nothing that can cancel: their
//! values are joined as bytes (`codec::Concat`) instead of decoded, consolidated and encoded.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kpg_types::{GlobalId, Row};
use redb::{Database, DatabaseError, ReadableDatabase, ReadableTable, TableDefinition};

use super::codec::{self, decode, decode_updates, encode, encode_updates};
use super::wal::{Encoded, EncodedAppend, Wal};
use super::{consolidate, CatalogOp, CatalogRecord, Commit, Meta, Snapshot, Store, StoreError};
use merge::Background;

mod merge;
#[cfg(test)]
mod wal_tests;

const CATALOG: TableDefinition<u64, &[u8]> = TableDefinition::new("catalog");
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// The key in `meta` of the number of the last write-ahead log record applied (8 bytes, little
/// endian); written with every commit applied, absent until the log is first used.
const WAL_APPLIED: &str = "wal";
/// Updates keyed by (table, time, part).
pub(super) type UpdateKey = (u64, u64, u32);
pub(super) const UPDATES: TableDefinition<UpdateKey, &[u8]> = TableDefinition::new("updates");
/// (source, partition) -> the next offset to read.
const OFFSETS: TableDefinition<(u64, u32), i64> = TableDefinition::new("source_offsets");
/// (source, partition, offset) -> why the record could not be decoded.
const ERRORS: TableDefinition<(u64, u32, u64), &str> = TableDefinition::new("source_errors");

/// The file name inside the data directory.
pub const FILE_NAME: &str = "kpg.redb";

/// redb's page cache, in MiB (`KPG_STORE_CACHE_MIB` overrides it); at most half of it buffers
/// a transaction's writes. redb's default is 1 GiB, and it keeps the pages of everything
/// written: after a COPY of TPC-H SF 0.1 it held about 115 MiB, as much as the tables'
/// arrangements (issue 17). kpg reads the file only at start and when merging runs, which read
/// each run once, sequentially; the operating system's page cache serves what this one does
/// not. 4 MiB measured the same COPY, INSERT and Kafka ingest rates as 16 MiB, and 12-17 MiB
/// less RSS after a load.
const CACHE_MIB: usize = 4;

/// Logged commits are applied to redb (`settle`) once this many have gathered, or this many
/// bytes of updates, or when the committer is idle: a redb transaction costs a few dozen
/// microseconds however small, and each adds one run per table it writes (which merges read
/// again). Until then they are in memory and in the log, which a restart replays.
const SETTLE_COMMITS: usize = 256;
const SETTLE_BYTES: usize = 1 << 20;

/// Retractions below this many are never worth merging a whole table for.
const MIN_COMPACTION: usize = 1024;
/// How many runs of one tier are merged together; a tier is a power of this in rows.
const FAN_IN: usize = 8;
/// How many runs of the smallest tier (fewer than `FAN_IN` rows: single-row INSERTs) are
/// merged together. Each merge is a redb transaction of its own; merging every eight one-row
/// commits cost the committer a sixth of its time under a stream of INSERTs.
const SMALL_FAN_IN: usize = 32;
/// Merges of at most this many updates are done at once, in one transaction without an fsync
/// of its own; larger ones are computed on a thread of their own (`redb_merge.rs`).
const LAZY_MERGE_ROWS: usize = 20_000;
/// Chunks of a large merge written per step (about 2 MiB).
const STAGE_CHUNKS: usize = 32;
/// More runs than this in one table (tiers out of order) are merged pairwise, smallest first
/// (in order, a table has fewer than `SMALL_FAN_IN` + `FAN_IN` runs per tier above the first).
const MAX_RUNS: usize = SMALL_FAN_IN + 8 * FAN_IN;

/// Stored updates of one table that are merged together: the keys from `(first, 0)` to
/// `(last, u32::MAX)`.
#[derive(Clone, Copy, Debug)]
struct Run {
    first: u64,
    last: u64,
    rows: usize,
    /// Updates with a negative diff (each may cancel a stored row).
    negative: usize,
}

fn tier(rows: usize) -> u32 {
    let mut t = 0;
    let mut r = rows / FAN_IN;
    while r > 0 {
        t += 1;
        r /= FAN_IN;
    }
    t
}

/// The value of `key` in `meta`, if it is there (in a read transaction of its own).
fn read_meta(db: &Database, path: &Path, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        StoreError(format!("{what} in {}: {e}", path.display()))
    };
    let txn = db.begin_read().map_err(|e| fail("starting to read", &e))?;
    let meta = match txn.open_table(META) {
        Ok(meta) => meta,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(e) => return Err(fail("opening meta", &e)),
    };
    let value = meta.get(key).map_err(|e| fail("reading meta", &e))?;
    Ok(value.map(|v| v.value().to_vec()))
}

/// The runs to merge next in `runs` (a range of indexes), if any merge is due.
fn due(runs: &[Run]) -> Option<std::ops::Range<usize>> {
    let n = runs.len();
    if n < 2 {
        return None;
    }
    let rows: usize = runs.iter().map(|r| r.rows).sum();
    let negative: usize = runs.iter().map(|r| r.negative).sum();
    // Each retraction may cancel a stored row: merge everything once they could be half of it.
    if negative >= MIN_COMPACTION && 4 * negative >= rows {
        return Some(0..n);
    }
    // FAN_IN runs of one tier at the end (SMALL_FAN_IN of the first) are merged into a run of
    // a higher tier, so each update is rewritten about once per tier (log base FAN_IN of the
    // table's size). A window that starts with a larger run waits: merging it with small newer
    // ones would rewrite the large run every few commits (the whole table, again and again,
    // under small writes).
    for window in [FAN_IN, SMALL_FAN_IN] {
        if n < window {
            continue;
        }
        let oldest = tier(runs[n - window].rows);
        let fan_in = if oldest == 0 { SMALL_FAN_IN } else { FAN_IN };
        if window == fan_in && runs[n - window..].iter().all(|r| tier(r.rows) == oldest) {
            return Some(n - window..n);
        }
    }
    if n > MAX_RUNS {
        let i = (0..n - 1)
            .min_by_key(|&i| runs[i].rows + runs[i + 1].rows)
            .expect("two runs");
        return Some(i..i + 2);
    }
    None
}

pub struct RedbStore {
    db: Arc<Database>,
    path: PathBuf,
    runs: HashMap<GlobalId, Vec<Run>>,
    /// Each table's last written time and the next part number at it.
    next_part: HashMap<GlobalId, (u64, u32)>,
    /// The stored counters, once read.
    meta: Option<Meta>,
    /// Tables that may have a merge due (their runs changed since they were last found
    /// without one).
    unchecked: std::collections::BTreeSet<GlobalId>,
    /// The large merge in progress, if any (one at a time).
    background: Option<Background>,
    /// Merges given up (their table dropped or written into), until their threads end.
    retired: Vec<Background>,
    /// Stored updates read by the merges started so far (their write amplification).
    merged_updates: u64,
    /// Where small commits are made durable first (`wal.rs`).
    wal: Wal,
    /// Commits durable in the log, not yet applied to redb (`settle`), and their updates'
    /// bytes.
    unapplied: Vec<Encoded>,
    unapplied_bytes: usize,
}

impl RedbStore {
    /// Opens (or creates) the store in `dir`, creating the directory if it is missing.
    pub fn open(dir: &Path) -> Result<RedbStore, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError(format!(
                "cannot create data directory {}: {e}",
                dir.display()
            ))
        })?;
        let path = dir.join(FILE_NAME);
        let cache_mib = std::env::var("KPG_STORE_CACHE_MIB")
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .unwrap_or(CACHE_MIB);
        let mut builder = Database::builder();
        builder.set_cache_size(cache_mib << 20);
        let db = builder.create(&path).map_err(|e| match e {
            DatabaseError::DatabaseAlreadyOpen => StoreError(format!(
                "data directory {} is in use by another kpg process (the lock on {} is held)",
                dir.display(),
                path.display()
            )),
            e => StoreError(format!(
                "cannot open {}: {e} (the file is damaged or is not a kpg data file)",
                path.display()
            )),
        })?;
        let applied = match read_meta(&db, &path, WAL_APPLIED)? {
            Some(v) => Some(u64::from_le_bytes(v.try_into().map_err(|_| {
                StoreError(format!("the log position in {} is damaged", path.display()))
            })?)),
            None => None,
        };
        let (wal, replay) = Wal::open(dir, applied.unwrap_or(0), applied.is_none())?;
        let mut store = RedbStore {
            db: Arc::new(db),
            path,
            runs: HashMap::new(),
            next_part: HashMap::new(),
            meta: None,
            unchecked: Default::default(),
            merged_updates: 0,
            background: None,
            retired: Vec::new(),
            wal,
            unapplied: Vec::new(),
            unapplied_bytes: 0,
        };
        if !replay.is_empty() {
            let started = std::time::Instant::now();
            let commits = replay.len();
            store.unapplied = replay.into_iter().map(|(_, c)| c).collect();
            store.checkpoint()?;
            tracing::info!(
                commits,
                ms = started.elapsed().as_millis() as u64,
                "applied the write-ahead log's commits that the store did not hold"
            );
        }
        Ok(store)
    }

    /// Makes every logged commit durable in redb, and starts the log again.
    fn checkpoint(&mut self) -> Result<(), StoreError> {
        self.settle(true)?;
        let txn = self
            .db
            .begin_write()
            .map_err(|e| self.fail("starting a checkpoint", e))?;
        {
            let mut meta = txn
                .open_table(META)
                .map_err(|e| self.fail("opening meta", e))?;
            meta.insert(WAL_APPLIED, self.wal.last().to_le_bytes().as_slice())
                .map_err(|e| self.fail("writing meta", e))?;
        }
        txn.commit()
            .map_err(|e| self.fail("committing a checkpoint", e))?;
        self.wal.checkpointed();
        Ok(())
    }

    fn fail(&self, what: &str, e: impl std::fmt::Display) -> StoreError {
        StoreError(format!("{what} in {}: {e}", self.path.display()))
    }

    /// Opening the updates table, where a kpg of another storage format is told apart.
    fn open_updates<'t>(
        &self,
        txn: &'t redb::WriteTransaction,
    ) -> Result<redb::Table<'t, UpdateKey, &'static [u8]>, StoreError> {
        txn.open_table(UPDATES).map_err(|e| self.other_format(e))
    }

    fn other_format(&self, e: redb::TableError) -> StoreError {
        match e {
            redb::TableError::TableTypeMismatch { .. } => StoreError(format!(
                "the updates in {} are in another storage format than this kpg's (written by \
                 another version of kpg): {e}",
                self.path.display()
            )),
            e => self.fail("opening updates", e),
        }
    }

    /// Merges runs `range` of `table` into one, in a transaction of its own: a small merge
    /// without an fsync of its own (the next checkpoint makes it durable; a crash before that
    /// leaves the runs unmerged, which hold the same contents), a large one with its own.
    fn merge(&mut self, table: GlobalId, range: std::ops::Range<usize>) -> Result<(), StoreError> {
        let runs = self.runs.get(&table).cloned().unwrap_or_default();
        let (first, last) = (runs[range.start].first, runs[range.end - 1].last);
        let keys = (table, first, 0)..=(table, last, u32::MAX);
        let rows: usize = runs[range.clone()].iter().map(|r| r.rows).sum();
        self.merged_updates += rows as u64;
        let mut txn = self
            .db
            .begin_write()
            .map_err(|e| self.fail("starting a merge", e))?;
        if rows <= LAZY_MERGE_ROWS {
            txn.set_durability(redb::Durability::None)
                .map_err(|e| self.fail("starting a merge", e))?;
        }
        // Runs without retractions hold nothing that can cancel: their values are joined as
        // bytes (loading consolidates), not decoded, consolidated and encoded again.
        let append_only = runs[range.clone()].iter().all(|r| r.negative == 0);
        let what = format!("updates of table u{table} in {}", self.path.display());
        let (parts, run_rows, negative) = {
            let mut updates = self.open_updates(&txn)?;
            let (chunks, run_rows, negative) = if append_only {
                let mut concat = codec::Concat::default();
                for entry in updates
                    .range(keys.clone())
                    .map_err(|e| self.fail("reading updates", e))?
                {
                    let (_, value) = entry.map_err(|e| self.fail("reading updates", e))?;
                    concat.push(value.value(), &what)?;
                }
                let (chunks, rows) = concat.finish();
                (chunks, rows, 0)
            } else {
                let mut rows = Vec::new();
                for entry in updates
                    .range(keys.clone())
                    .map_err(|e| self.fail("reading updates", e))?
                {
                    let (_, value) = entry.map_err(|e| self.fail("reading updates", e))?;
                    decode_updates(value.value(), &what, &mut rows)?;
                }
                let merged = consolidate(rows);
                let negative = merged.iter().filter(|(_, d)| *d < 0).count();
                let chunks = if merged.is_empty() {
                    Vec::new()
                } else {
                    encode_updates(&merged)
                };
                (chunks, merged.len(), negative)
            };
            updates
                .retain_in(keys, |_, _| false)
                .map_err(|e| self.fail("merging updates", e))?;
            for (part, chunk) in chunks.iter().enumerate() {
                updates
                    .insert((table, first, part as u32), chunk.as_slice())
                    .map_err(|e| self.fail("merging updates", e))?;
            }
            (chunks.len(), run_rows, negative)
        };
        txn.commit()
            .map_err(|e| self.fail("committing a merge", e))?;
        let run = Run {
            first,
            last,
            rows: run_rows,
            negative,
        };
        let runs = self.runs.entry(table).or_default();
        if parts == 0 {
            runs.drain(range);
        } else {
            runs.splice(range, [run]);
        }
        // The parts at `first` were renumbered: the next write there looks them up.
        self.next_part.remove(&table);
        Ok(())
    }
}

impl RedbStore {
    fn load_all(&mut self) -> Result<Snapshot, StoreError> {
        self.settle(true)?;
        self.drop_staged()?;
        let txn = self
            .db
            .begin_read()
            .map_err(|e| self.fail("starting to read", e))?;
        let mut snapshot = Snapshot::default();
        let damaged = |what: &str| format!("{what} in {}", self.path.display());
        match txn.open_table(CATALOG) {
            Ok(catalog) => {
                for entry in catalog
                    .iter()
                    .map_err(|e| self.fail("reading the catalog", e))?
                {
                    let (key, value) = entry.map_err(|e| self.fail("reading the catalog", e))?;
                    let record: CatalogRecord = decode(
                        value.value(),
                        &damaged(&format!("catalog record {}", key.value())),
                    )?;
                    snapshot.records.push(record);
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(self.fail("opening the catalog", e)),
        }
        match txn.open_table(META) {
            Ok(meta) => {
                if let Some(value) = meta.get("meta").map_err(|e| self.fail("reading meta", e))? {
                    snapshot.meta = decode(value.value(), &damaged("the counters"))?;
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(self.fail("opening meta", e)),
        }
        self.meta = Some(snapshot.meta);
        let known: std::collections::BTreeSet<GlobalId> = snapshot
            .records
            .iter()
            .flat_map(|r| r.ids.iter().copied())
            .collect();
        let mut tables: BTreeMap<GlobalId, Vec<(Row, i64)>> = BTreeMap::new();
        let mut orphans = Vec::new();
        self.runs.clear();
        self.next_part.clear();
        match txn.open_table(UPDATES) {
            Ok(updates) => {
                for entry in updates
                    .iter()
                    .map_err(|e| self.fail("reading updates", e))?
                {
                    let (key, value) = entry.map_err(|e| self.fail("reading updates", e))?;
                    let (table, time, _part) = key.value();
                    if !known.contains(&table) {
                        orphans.push(table);
                        continue;
                    }
                    let rows = tables.entry(table).or_default();
                    let before = rows.len();
                    decode_updates(
                        value.value(),
                        &damaged(&format!("updates of table u{table}")),
                        rows,
                    )?;
                    let negative = rows[before..].iter().filter(|(_, d)| *d < 0).count();
                    // Each stored time is a run (merged runs are stored at one time).
                    let runs = self.runs.entry(table).or_default();
                    match runs.last_mut() {
                        Some(run) if run.first == time => {
                            run.rows += rows.len() - before;
                            run.negative += negative;
                        }
                        _ => runs.push(Run {
                            first: time,
                            last: time,
                            rows: rows.len() - before,
                            negative,
                        }),
                    }
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(self.other_format(e)),
        }
        match txn.open_table(OFFSETS) {
            Ok(offsets) => {
                for entry in offsets
                    .iter()
                    .map_err(|e| self.fail("reading offsets", e))?
                {
                    let (key, value) = entry.map_err(|e| self.fail("reading offsets", e))?;
                    let (source, partition) = key.value();
                    snapshot
                        .offsets
                        .entry(source)
                        .or_default()
                        .insert(partition as i32, value.value());
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(self.fail("opening offsets", e)),
        }
        match txn.open_table(ERRORS) {
            Ok(errors) => {
                for entry in errors
                    .iter()
                    .map_err(|e| self.fail("reading source errors", e))?
                {
                    let (key, value) = entry.map_err(|e| self.fail("reading source errors", e))?;
                    let (source, partition, offset) = key.value();
                    snapshot.errors.push(super::SourceError {
                        source,
                        partition: partition as i32,
                        offset: offset as i64,
                        reason: value.value().to_string(),
                    });
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(self.fail("opening source errors", e)),
        }
        drop(txn);
        self.unchecked = self.runs.keys().copied().collect();
        orphans.dedup();
        for (table, rows) in tables {
            snapshot.tables.insert(table, consolidate(rows));
        }
        // Rows of tables whose record never committed. (History is merged later, by
        // `compact`, not before the server starts.)
        if !orphans.is_empty() {
            self.commit(&Commit {
                catalog: orphans.into_iter().map(CatalogOp::DropTableData).collect(),
                meta: snapshot.meta,
                ..Commit::default()
            })?;
        }
        Ok(snapshot)
    }

    /// Applies `commits`, in order, in one redb transaction, with an fsync unless they are
    /// `logged` (durable in the write-ahead log already).
    fn apply(&mut self, commits: Vec<Encoded>, logged: bool) -> Result<(), StoreError> {
        let stored = match self.meta {
            Some(meta) => meta,
            None => match read_meta(&self.db, &self.path, "meta")? {
                Some(v) => decode::<Meta>(&v, "the counters")?,
                None => Meta::default(),
            },
        };
        let meta = commits.iter().fold(stored, |m, c| m.join(c.meta));
        let mut txn = self
            .db
            .begin_write()
            .map_err(|e| self.fail("starting a commit", e))?;
        if logged {
            txn.set_durability(redb::Durability::None)
                .map_err(|e| self.fail("starting a commit", e))?;
        }
        {
            let mut catalog = txn
                .open_table(CATALOG)
                .map_err(|e| self.fail("opening the catalog", e))?;
            let mut updates = self.open_updates(&txn)?;
            let mut offsets = txn
                .open_table(OFFSETS)
                .map_err(|e| self.fail("opening offsets", e))?;
            let mut errors = txn
                .open_table(ERRORS)
                .map_err(|e| self.fail("opening source errors", e))?;
            // Each table's appends are stored as one (at the latest of their times), so a
            // settle of many commits adds one run per table, not one per commit: stored
            // updates keep no history (a restart loads them consolidated).
            let mut folded: BTreeMap<GlobalId, EncodedAppend> = BTreeMap::new();
            for commit in commits {
                for op in &commit.catalog {
                    match op {
                        CatalogOp::Put(record) => {
                            catalog
                                .insert(record.key, encode(record).as_slice())
                                .map_err(|e| self.fail("writing the catalog", e))?;
                        }
                        CatalogOp::Delete(key) => {
                            catalog
                                .remove(*key)
                                .map_err(|e| self.fail("writing the catalog", e))?;
                        }
                        CatalogOp::DropTableData(table) => {
                            folded.remove(table);
                            self.cancel_merge_for(&txn, &mut updates, *table, None)?;
                            updates
                                .retain_in((*table, 0, 0)..=(*table, u64::MAX, u32::MAX), |_, _| {
                                    false
                                })
                                .map_err(|e| self.fail("dropping a table's rows", e))?;
                            self.runs.remove(table);
                            self.next_part.remove(table);
                            offsets
                                .retain_in((*table, 0)..=(*table, u32::MAX), |_, _| false)
                                .map_err(|e| self.fail("dropping a source's offsets", e))?;
                            errors
                                .retain_in((*table, 0, 0)..=(*table, u32::MAX, u64::MAX), |_, _| {
                                    false
                                })
                                .map_err(|e| self.fail("dropping a source's errors", e))?;
                        }
                    }
                }
                for append in commit.appends {
                    if append.rows == 0 {
                        continue;
                    }
                    let into = folded.entry(append.table).or_insert_with(|| EncodedAppend {
                        table: append.table,
                        time: append.time,
                        chunks: Vec::new(),
                        rows: 0,
                        negative: 0,
                    });
                    into.time = into.time.max(append.time);
                    into.chunks.extend(append.chunks);
                    into.rows += append.rows;
                    into.negative += append.negative;
                }
                for (source, partition, next) in &commit.offsets {
                    offsets
                        .insert((*source, *partition as u32), *next)
                        .map_err(|e| self.fail("writing offsets", e))?;
                }
                for e in &commit.errors {
                    errors
                        .insert(
                            (e.source, e.partition as u32, e.offset as u64),
                            e.reason.as_str(),
                        )
                        .map_err(|err| self.fail("writing source errors", err))?;
                }
            }
            for append in folded.into_values() {
                let (table, time) = (append.table, append.time);
                self.cancel_merge_for(&txn, &mut updates, table, Some(time))?;
                // Two writes of one table at one time (a transaction's statements) are parts
                // of one key range.
                let part = match self.next_part.get(&table) {
                    Some(&(t, next)) if t == time => next,
                    Some(&(t, _)) if t < time => 0,
                    _ => match updates
                        .range((table, time, 0)..=(table, time, u32::MAX))
                        .map_err(|e| self.fail("reading updates", e))?
                        .next_back()
                    {
                        Some(entry) => {
                            entry
                                .map_err(|e| self.fail("reading updates", e))?
                                .0
                                .value()
                                .2
                                + 1
                        }
                        None => 0,
                    },
                };
                let next = part + append.chunks.len() as u32;
                for (i, chunk) in append.chunks.iter().enumerate() {
                    updates
                        .insert((table, time, part + i as u32), chunk.as_slice())
                        .map_err(|e| self.fail("writing updates", e))?;
                }
                self.next_part.insert(table, (time, next));
                self.unchecked.insert(table);
                let runs = self.runs.entry(table).or_default();
                match runs.last_mut() {
                    Some(run) if run.first <= time && time <= run.last => {
                        run.rows += append.rows;
                        run.negative += append.negative;
                    }
                    _ => runs.push(Run {
                        first: time,
                        last: time,
                        rows: append.rows,
                        negative: append.negative,
                    }),
                }
            }
            let mut table = txn
                .open_table(META)
                .map_err(|e| self.fail("opening meta", e))?;
            if self.meta != Some(meta) {
                table
                    .insert("meta", encode(&meta).as_slice())
                    .map_err(|e| self.fail("writing meta", e))?;
            }
            table
                .insert(WAL_APPLIED, self.wal.last().to_le_bytes().as_slice())
                .map_err(|e| self.fail("writing meta", e))?;
        }
        let result = txn.commit().map_err(|e| self.fail("committing", e));
        if result.is_ok() {
            self.meta = Some(meta);
        } else {
            // What is stored is unknown now: read it again next time.
            self.meta = None;
        }
        result
    }
}

impl Drop for RedbStore {
    /// A clean close leaves the log empty (a restart has nothing to apply again); if this
    /// fails, the log still holds every record.
    fn drop(&mut self) {
        if self.wal.pending() || !self.unapplied.is_empty() {
            if let Err(e) = self.checkpoint() {
                tracing::warn!(error = %e, "checkpoint at close failed; the log is kept");
            }
        }
    }
}

impl Store for RedbStore {
    fn load(&mut self) -> Result<Snapshot, StoreError> {
        self.load_all()
    }

    /// Logs `commit` (one write and fdatasync), to be applied to redb by `settle`; a commit
    /// too large for the log is committed to redb durably instead (a checkpoint).
    fn commit(&mut self, commit: &Commit) -> Result<(), StoreError> {
        let encoded = Encoded::new(commit);
        if self.wal.append(&encoded)?.is_some() {
            self.unapplied_bytes += encoded.update_bytes();
            self.unapplied.push(encoded);
        } else {
            self.settle(true)?;
            self.apply(vec![encoded], false)?;
            self.wal.checkpointed();
        }
        Ok(())
    }

    /// Applies the logged commits to redb, in one transaction without an fsync: all of them,
    /// or (`all` false) only once enough have gathered that the transaction's fixed cost (a
    /// few dozen microseconds) is spread over many.
    fn settle(&mut self, all: bool) -> Result<(), StoreError> {
        let due = self.unapplied.len() >= SETTLE_COMMITS || self.unapplied_bytes >= SETTLE_BYTES;
        if self.unapplied.is_empty() || !(all || due) {
            return Ok(());
        }
        let commits = std::mem::take(&mut self.unapplied);
        self.unapplied_bytes = 0;
        self.apply(commits, true)
    }

    fn unsettled(&self) -> bool {
        !self.unapplied.is_empty()
    }

    fn compact(&mut self, max_rows: usize) -> Result<bool, StoreError> {
        self.settle(false)?;
        if self.wal.checkpoint_due() {
            self.checkpoint()?;
            return Ok(true);
        }
        self.retired.retain(|b| !b.finished());
        if self.background_step()? {
            return Ok(true);
        }
        let busy = self.background.as_ref().map(|b| b.table);
        type Due = Option<(usize, GlobalId, std::ops::Range<usize>)>;
        let (mut small, mut large): (Due, Due) = (None, None);
        let runs = &self.runs;
        self.unchecked.retain(|table| {
            let Some(range) = runs.get(table).and_then(|r| due(r)) else {
                return false;
            };
            if busy == Some(*table) {
                return true;
            }
            let rows: usize = runs[table][range.clone()].iter().map(|r| r.rows).sum();
            let slot = if rows <= LAZY_MERGE_ROWS {
                &mut small
            } else {
                &mut large
            };
            if slot.as_ref().is_none_or(|n| (rows, *table) < (n.0, n.1)) {
                *slot = Some((rows, *table, range));
            }
            true
        });
        if let Some((rows, table, range)) = small {
            if rows <= max_rows {
                self.merge(table, range)?;
                return Ok(true);
            }
        }
        if let (None, Some((_, table, range))) = (busy, large) {
            self.start_background(table, range)?;
            return Ok(true);
        }
        Ok(false)
    }

    fn merging(&self) -> bool {
        self.background.is_some()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::storage::TableAppend;
    use kpg_types::Datum;

    pub(in crate::storage::redb_store) fn row(i: i64) -> Row {
        Row::new(vec![Datum::Int64(i), Datum::String(format!("r{i}"))])
    }

    /// A store in `dir` with table 1 and, if `rows > 0`, rows `0..rows` written at time 5.
    pub(in crate::storage::redb_store) fn with_table(
        dir: &std::path::Path,
        rows: i64,
    ) -> RedbStore {
        let mut store = RedbStore::open(dir).unwrap();
        store
            .commit(&Commit {
                catalog: vec![put(&[1], "CREATE TABLE a (x int)")],
                ..Commit::default()
            })
            .unwrap();
        if rows > 0 {
            let big: Vec<(Row, i64)> = (0..rows).map(|i| (row(i), 1)).collect();
            store.commit(&append(1, 5, big)).unwrap();
        }
        store
    }

    pub(in crate::storage::redb_store) fn put(ids: &[u64], sql: &str) -> CatalogOp {
        CatalogOp::Put(CatalogRecord {
            key: ids[0],
            ids: ids.to_vec(),
            sql: sql.into(),
            source: None,
        })
    }

    pub(in crate::storage::redb_store) fn append(
        table: u64,
        time: u64,
        updates: Vec<(Row, i64)>,
    ) -> Commit {
        Commit {
            catalog: Vec::new(),
            appends: vec![TableAppend {
                table,
                time,
                updates,
            }],
            meta: Meta {
                next_id: 10,
                next_position: 0,
                upper: time + 1,
                readable: time + 1,
            },
            ..Commit::default()
        }
    }

    #[test]
    fn commits_survive_reopen_consolidated_and_compacted() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut store = RedbStore::open(dir.path()).unwrap();
            assert_eq!(store.load().unwrap(), Snapshot::default());
            store
                .commit(&Commit {
                    catalog: vec![put(&[1, 2], "CREATE TABLE t (a int PRIMARY KEY)")],
                    appends: Vec::new(),
                    meta: Meta {
                        next_id: 3,
                        next_position: 0,
                        upper: 5,
                        readable: 5,
                    },
                    ..Commit::default()
                })
                .unwrap();
            // Times only grow, as the timestamp oracle hands them out.
            for i in 0..3000 {
                store
                    .commit(&append(1, 10 + 2 * i, vec![(row(i as i64), 1)]))
                    .unwrap();
                if i % 2 == 1 {
                    store
                        .commit(&append(1, 11 + 2 * i, vec![(row(i as i64), -1)]))
                        .unwrap();
                }
                while store.compact(usize::MAX).unwrap() {}
            }
        }
        let mut store = RedbStore::open(dir.path()).unwrap();
        let snapshot = store.load().unwrap();
        assert_eq!(snapshot.records.len(), 1);
        assert_eq!(snapshot.meta.next_id, 10);
        assert_eq!(snapshot.meta.upper, 11 + 2 * 2999 + 1);
        let expected: Vec<(Row, i64)> = (0..3000).step_by(2).map(|i| (row(i), 1)).collect();
        assert_eq!(snapshot.tables[&1], expected);
        // Merged history: far fewer stored batches than the 4500 writes.
        let txn = store.db.begin_read().unwrap();
        let batches = txn.open_table(UPDATES).unwrap().iter().unwrap().count();
        assert!(batches < 2000, "{batches} batches stored");
    }

    #[test]
    fn dropped_records_and_orphan_rows_are_gone() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = RedbStore::open(dir.path()).unwrap();
        store
            .commit(&Commit {
                catalog: vec![
                    put(&[1], "CREATE TABLE a (x int)"),
                    put(&[2], "CREATE TABLE b (x int)"),
                ],
                ..Commit::default()
            })
            .unwrap();
        store.commit(&append(1, 7, vec![(row(1), 1)])).unwrap();
        store.commit(&append(2, 8, vec![(row(2), 1)])).unwrap();
        // A table whose record never committed.
        store.commit(&append(9, 9, vec![(row(3), 1)])).unwrap();
        store
            .commit(&Commit {
                catalog: vec![CatalogOp::Delete(1), CatalogOp::DropTableData(1)],
                ..Commit::default()
            })
            .unwrap();
        drop(store);
        let mut store = RedbStore::open(dir.path()).unwrap();
        let snapshot = store.load().unwrap();
        assert_eq!(snapshot.records.len(), 1);
        assert_eq!(snapshot.records[0].ids, vec![2]);
        assert_eq!(snapshot.tables.keys().copied().collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn source_offsets_and_errors_are_kept_until_the_source_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = RedbStore::open(dir.path()).unwrap();
        let error = |offset| crate::storage::SourceError {
            source: 5,
            partition: 1,
            offset,
            reason: format!("bad record {offset}"),
        };
        store
            .commit(&Commit {
                catalog: vec![put(&[5], "CREATE SOURCE s ...")],
                offsets: vec![(5, 0, 10), (5, 1, 3)],
                errors: vec![error(2)],
                ..Commit::default()
            })
            .unwrap();
        store
            .commit(&Commit {
                offsets: vec![(5, 1, 7)],
                errors: vec![error(5)],
                ..Commit::default()
            })
            .unwrap();
        drop(store);
        let mut store = RedbStore::open(dir.path()).unwrap();
        let snapshot = store.load().unwrap();
        assert_eq!(
            snapshot.offsets[&5].clone().into_iter().collect::<Vec<_>>(),
            vec![(0, 10), (1, 7)]
        );
        assert_eq!(snapshot.errors, vec![error(2), error(5)]);
        store
            .commit(&Commit {
                catalog: vec![CatalogOp::Delete(5), CatalogOp::DropTableData(5)],
                ..Commit::default()
            })
            .unwrap();
        let snapshot = store.load().unwrap();
        assert!(snapshot.offsets.is_empty() && snapshot.errors.is_empty());
    }

    #[test]
    fn a_second_process_and_a_damaged_file_are_refused_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let store = RedbStore::open(dir.path()).unwrap();
        let err = RedbStore::open(dir.path())
            .err()
            .expect("second open refused");
        assert!(err.0.contains("in use by another kpg"), "{err}");
        drop(store);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE_NAME),
            b"not a database at all, just text",
        )
        .unwrap();
        let err = RedbStore::open(dir.path()).err().expect("garbage refused");
        assert!(
            err.0.contains(FILE_NAME) && err.0.contains("damaged"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_directory_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b/c");
        let mut store = RedbStore::open(&nested).unwrap();
        assert_eq!(store.load().unwrap(), Snapshot::default());
        assert!(nested.join(FILE_NAME).exists());
    }

    /// A write torn at any length (the file cut short, as a crash during the last write can
    /// leave it) opens to a state that has every commit but possibly the last, or is refused
    /// with an error naming the file; it never panics or returns made-up rows.
    #[test]
    fn a_torn_final_write_loses_at_most_that_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        {
            let mut store = RedbStore::open(dir.path()).unwrap();
            store
                .commit(&Commit {
                    catalog: vec![put(&[1], "CREATE TABLE a (x int)")],
                    ..Commit::default()
                })
                .unwrap();
            for i in 0..20 {
                store
                    .commit(&append(1, 10 + i, vec![(row(i as i64), 1)]))
                    .unwrap();
            }
        }
        let full = std::fs::read(&path).unwrap();
        let log = std::fs::read(dir.path().join(super::super::wal::FILE_NAME)).unwrap();
        let mut outcomes = (0, 0);
        for cut in [1usize, 7, 64, 512, 4096, full.len() / 3, full.len() / 2] {
            if cut >= full.len() {
                continue;
            }
            let torn = tempfile::tempdir().unwrap();
            std::fs::write(torn.path().join(FILE_NAME), &full[..full.len() - cut]).unwrap();
            std::fs::write(torn.path().join(super::super::wal::FILE_NAME), &log).unwrap();
            match RedbStore::open(torn.path()).and_then(|mut s| s.load()) {
                Ok(snapshot) => {
                    outcomes.0 += 1;
                    let rows = snapshot.tables.get(&1).cloned().unwrap_or_default();
                    let expected: Vec<(Row, i64)> =
                        (0..rows.len() as i64).map(|i| (row(i), 1)).collect();
                    assert_eq!(rows, expected, "cut {cut}: a prefix of the writes");
                }
                Err(e) => {
                    outcomes.1 += 1;
                    assert!(e.0.contains(FILE_NAME), "cut {cut}: {e}");
                }
            }
        }
        assert!(outcomes.0 + outcomes.1 > 0);
    }

    /// Runs are merged size-tiered after the fact, a large write is stored in chunks, two
    /// writes at one time keep both, and every stored state loads the same contents.
    #[test]
    fn merges_keep_contents_and_bound_the_runs() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = with_table(dir.path(), 50_000);
        assert!(
            !store.compact(usize::MAX).unwrap(),
            "one run: nothing to merge"
        );
        // Two writes at one time (a transaction's statements).
        store.commit(&append(1, 6, vec![(row(-1), 1)])).unwrap();
        store.commit(&append(1, 6, vec![(row(-2), 1)])).unwrap();
        // A row inserted twice: merged without retractions, both stay; loaded, they add up.
        store.commit(&append(1, 7, vec![(row(-1), 1)])).unwrap();
        for i in 0..200 {
            store
                .commit(&append(1, 10 + i, vec![(row(100_000 + i as i64), 1)]))
                .unwrap();
            // Each commit its own run, as when the committer is idle between them.
            store.settle(true).unwrap();
            while store.compact(1000).unwrap() || store.merging() {}
        }
        let runs = store.runs[&1].len();
        assert!(runs < SMALL_FAN_IN + 2 * FAN_IN, "{runs} runs");
        let expected: Vec<(Row, i64)> = consolidate(
            (0..50_000)
                .chain([-1, -2, -1])
                .chain(100_000..100_200)
                .map(|i| (row(i), 1))
                .collect(),
        );
        assert_eq!(store.load().unwrap().tables[&1], expected);
        // Retracting most rows merges the table whole.
        let gone: Vec<(Row, i64)> = (0..45_000).map(|i| (row(i), -1)).collect();
        store.commit(&append(1, 1000, gone)).unwrap();
        store.settle(true).unwrap();
        while store.compact(usize::MAX).unwrap() || store.merging() {}
        assert_eq!(store.runs[&1].len(), 1);
        let expected: Vec<(Row, i64)> = consolidate(
            (45_000..50_000)
                .chain([-1, -2, -1])
                .chain(100_000..100_200)
                .map(|i| (row(i), 1))
                .collect(),
        );
        drop(store);
        let mut store = RedbStore::open(dir.path()).unwrap();
        assert_eq!(store.load().unwrap().tables[&1], expected);
        let txn = store.db.begin_read().unwrap();
        let updates = txn.open_table(UPDATES).unwrap();
        let stored: usize = updates
            .iter()
            .unwrap()
            .map(|e| e.unwrap().1.value().len())
            .sum();
        assert!(stored < 200_000, "{stored} bytes stored for 5202 rows");
    }

    /// Under a stream of small commits (no idle moment), logged commits are applied to redb
    /// a few hundred at a time, each table's as one run; what is not applied yet is still
    /// loaded, and a restart without a clean close (no checkpoint) replays it from the log.
    #[test]
    fn busy_commits_are_applied_in_batches() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = with_table(dir.path(), 10);
        let commits = 1000u64;
        for i in 0..commits {
            store
                .commit(&append(1, 100 + i, vec![(row(1000 + i as i64), 1)]))
                .unwrap();
            store.settle(false).unwrap();
            while store.compact(usize::MAX).unwrap() || store.merging() {}
        }
        let expected: Vec<(Row, i64)> = consolidate(
            (0..10)
                .chain(1000..1000 + commits as i64)
                .map(|i| (row(i), 1))
                .collect(),
        );
        // The table's creation and its first 10 rows are two more logged commits.
        let logged = commits as usize + 2;
        let unapplied = logged % SETTLE_COMMITS;
        assert_eq!(store.unapplied.len(), unapplied);
        // One run per settle (or fewer: merged), never one per commit.
        let stored = store.runs[&1].iter().map(|r| r.rows).sum::<usize>();
        assert_eq!(stored, 10 + commits as usize - unapplied);
        let runs = store.runs[&1].len();
        assert!(runs <= logged / SETTLE_COMMITS, "{runs} runs");
        // A crash: the store is never closed (no checkpoint), its files are copied as they are.
        let image = tempfile::tempdir().unwrap();
        for name in [FILE_NAME, crate::storage::wal::FILE_NAME] {
            std::fs::copy(dir.path().join(name), image.path().join(name)).unwrap();
        }
        assert_eq!(store.load().unwrap().tables[&1], expected);
        std::mem::forget(store);
        let mut store = RedbStore::open(image.path()).unwrap();
        assert_eq!(store.load().unwrap().tables[&1], expected);
    }

    /// Many small commits after a large one: each update is rewritten about once per tier,
    /// never the large run again and again for a few new rows.
    #[test]
    fn small_commits_do_not_rewrite_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = with_table(dir.path(), 20_000);
        let commits = 3_000u64;
        for i in 0..commits {
            store
                .commit(&append(1, 10 + i, vec![(row(100_000 + i as i64), 1)]))
                .unwrap();
            store.settle(true).unwrap();
            while store.compact(usize::MAX).unwrap() || store.merging() {}
        }
        // Tiers of 1, 8, 64 and 512 rows: a small row is rewritten at most 4 times; the
        // pairwise merges that bound the run count add a little. (Merging whenever the newest
        // FAN_IN runs follow a larger one rewrote the 20,000-row run every 8 commits: 7.5M.)
        assert!(
            store.merged_updates <= 6 * commits,
            "{} updates rewritten for {commits} single-row commits",
            store.merged_updates
        );
        let runs = store.runs[&1].len();
        assert!(runs <= MAX_RUNS + 1, "{runs} runs");
        let expected: Vec<(Row, i64)> = consolidate(
            (0..20_000)
                .chain(100_000..100_000 + commits as i64)
                .map(|i| (row(i), 1))
                .collect(),
        );
        drop(store);
        let mut store = RedbStore::open(dir.path()).unwrap();
        assert_eq!(store.load().unwrap().tables[&1], expected);
    }

    /// A data directory of the previous storage format is refused with a message saying so.
    #[test]
    fn an_older_format_is_refused_clearly() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Database::create(dir.path().join(FILE_NAME)).unwrap();
            let txn = db.begin_write().unwrap();
            {
                const OLD: TableDefinition<(u64, u64), &[u8]> = TableDefinition::new("updates");
                let mut old = txn.open_table(OLD).unwrap();
                old.insert((1, 1), [1u8, 0, 0].as_slice()).unwrap();
                let mut meta = txn.open_table(META).unwrap();
                let mut value = vec![1u8];
                value.extend(bincode::serialize(&Meta::default()).unwrap());
                meta.insert("meta", value.as_slice()).unwrap();
            }
            txn.commit().unwrap();
        }
        let err = RedbStore::open(dir.path())
            .and_then(|mut s| s.load())
            .unwrap_err();
        assert!(err.0.contains("storage format 1"), "{err}");
    }
}
