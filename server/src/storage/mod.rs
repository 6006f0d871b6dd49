//! Durable state: what survives a restart, behind one small trait.
//!
//! The coordinator hands the store *commits*: catalog operations (one record per DDL statement
//! that created durable objects, keyed by the first id it allocated), table updates at their
//! timestamps, and the counters (next id, next row position, the timestamp upper). A commit is
//! atomic and durable when `Store::commit` returns. `committer.rs` runs the store on its own
//! thread and folds every commit queued while the previous one was being written into one
//! transaction (group commit: many writers, one fsync). On start, `Store::load` returns the
//! catalog records in creation order and each table's rows, consolidated.
//!
//! `redb_store.rs` is the single-machine store, a redb file in the data directory; `memory.rs`
//! keeps everything in memory (tests, and the shape a shared store would follow).
//!
//! # Design note
//!
//! - **Why redb.** An embedded, pure-Rust, transactional B-tree store: atomic commits with one
//!   fsync each, checksummed pages, a file lock that keeps a second process out, and its own
//!   crash-consistency tests. kpg writes no page format of its own. (RocksDB would bring a C++
//!   build; sled is unmaintained.)
//! - **What is stored.** The catalog as one record per DDL statement (its SQL and the ids it gave
//!   its objects), table and source updates keyed by (collection, time, part) in chunks of at
//!   most about 60 KiB, external sources' offsets and undecodable records, and the counters
//!   (next id, next row position, a lease on timestamps, the last readable time). Every value
//!   starts with a format byte (`codec.rs`, format 3): catalog records and counters are bincode,
//!   updates a compact encoding of their own (varints, a tag byte per datum). A data directory of
//!   another format is refused with a message saying so, never misread.
//! - **Order and durability.** Every commit goes through the committer in the order the
//!   coordinator numbered it; writes become readable only once durable, and concurrent writers
//!   share an fsync. A commit only appends: merging is never on the acknowledgement path.
//! - **A write-ahead log in front of redb.** A durable redb commit rewrites every B-tree page
//!   on the path to what it changes plus the allocator state and header (seven or eight pages
//!   and an fdatasync for a one-row INSERT: a single client managed 0.43x PostgreSQL's
//!   commits). So a commit is first appended to `kpg.wal` as one record, made durable by one
//!   fdatasync of a file that never changes size, acknowledged, and later applied to redb
//!   without an fsync, a few hundred commits per transaction, each table's as one run
//!   (`Store::settle`); a checkpoint (one durable redb commit) every few
//!   seconds or half a log lets the log start again, and a restart applies the records redb
//!   does not hold (`wal.rs`). Large commits (a COPY) skip the log: written once, durably.
//!   This is the one thing RocksDB's log would have given; it is 300 lines, not a storage
//!   engine.
//! - **Merging.** After acknowledging a group, the committer merges stored updates in
//!   transactions of their own, size-tiered (eight runs of a tier into one, 32 of the smallest,
//!   so an update is rewritten about log8(table size) times), and a table whose retractions
//!   could be half its stored updates is merged whole (consolidated), so the file stays
//!   proportional to the data. Small merges (up to 20k
//!   updates) are done at once and commit without an fsync of their own; the next checkpoint
//!   covers them. A larger one is read and consolidated on a thread of its own from a
//!   read snapshot, written a few chunks at a time between commits beside its inputs, and
//!   swapped in by one small durable transaction (`redb_store/merge.rs`), so a commit never
//!   waits for more than one such step. A crash between a commit and its merge, or in the
//!   middle of a merge, loses nothing: a merge changes how updates are stored, not what they
//!   sum to, and parts staged by an unfinished merge are deleted at the next start.
//! - **Restart.** Replay the records in key order (each allocating from its first id), load
//!   each collection's rows (consolidated in memory; merging the stored runs is left to the
//!   committer) right after the statement that created it, rebuild every dataflow, then serve.
//!   History before the restart is not kept: reads as of earlier times are refused.
//! - **Clusters (later).** For several machines, the same trait over shared storage, as
//!   Materialize's persist: batches of updates written as immutable blobs to an object store
//!   (S3-like), and a consensus service (a compare-and-set log, e.g. on PostgreSQL or etcd)
//!   holding the catalog records, each collection's list of blobs with its upper and since, and
//!   the counters. A commit writes its blobs first, then compare-and-sets the new state; group
//!   commit and the coordinator's ordering stay as they are. Only `Store` changes: the
//!   sequencer and the committer do not.

mod codec;
pub mod committer;
#[cfg(test)]
pub mod memory;
pub mod redb_store;
mod wal;

use std::collections::BTreeMap;

use kpg_types::{GlobalId, Row};
use serde::{Deserialize, Serialize};

/// One durable DDL statement: the SQL that creates its objects again, the first id it
/// allocated (the record's key: replay starts allocating there, so the objects get the same
/// ids) and the ids of its objects that still exist.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogRecord {
    pub key: GlobalId,
    pub ids: Vec<GlobalId>,
    pub sql: String,
    /// For a load generator: where its ticks stand.
    pub source: Option<SourceProgress>,
}

/// A load generator's progress: it started (or resumed) at time `since`, with `ticks_before`
/// ticks made before that; tick `ticks_before + n` is at `since + n * tick`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceProgress {
    pub since: u64,
    pub ticks_before: u64,
}

impl SourceProgress {
    /// The ticks made once every time before `readable` is complete.
    pub fn ticks_at(&self, readable: u64, tick_ms: u64) -> u64 {
        let tick_ms = tick_ms.max(1);
        self.ticks_before + readable.saturating_sub(self.since + 1) / tick_ms
    }
}

/// A change to the durable catalog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CatalogOp {
    Put(CatalogRecord),
    /// Removes the record of that key.
    Delete(GlobalId),
    /// Forgets a dropped table's (or source's) rows, offsets and errors.
    DropTableData(GlobalId),
}

/// The counters that must never go backwards across a restart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    /// The next catalog (and transient) id.
    pub next_id: u64,
    /// The next position a table row gets.
    pub next_position: i64,
    /// Every timestamp handed out is below this; a restart starts at or after it.
    pub upper: u64,
    /// Every time before this has been readable (only kept exact while sources exist: then
    /// the tables advance only once this is durable, so a source's reached tick is known).
    pub readable: u64,
}

impl Meta {
    /// The larger of each counter.
    pub fn join(self, other: Meta) -> Meta {
        Meta {
            next_id: self.next_id.max(other.next_id),
            next_position: self.next_position.max(other.next_position),
            upper: self.upper.max(other.upper),
            readable: self.readable.max(other.readable),
        }
    }
}

/// Updates to one table at one time (rows as stored: with their positions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableAppend {
    pub table: GlobalId,
    pub time: u64,
    pub updates: Vec<(Row, i64)>,
}

/// A record of an external source that could not be decoded: kept, so it never vanishes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceError {
    pub source: GlobalId,
    pub partition: i32,
    pub offset: i64,
    pub reason: String,
}

/// One atomic, durable change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Commit {
    pub catalog: Vec<CatalogOp>,
    pub appends: Vec<TableAppend>,
    /// External sources' next offsets per partition, committed with the rows read before them.
    pub offsets: Vec<(GlobalId, i32, i64)>,
    pub errors: Vec<SourceError>,
    pub meta: Meta,
}

impl Commit {
    /// Appends `other` after `self` (group commit): applied in order, in one transaction.
    pub fn absorb(&mut self, other: Commit) {
        self.catalog.extend(other.catalog);
        self.appends.extend(other.appends);
        self.offsets.extend(other.offsets);
        self.errors.extend(other.errors);
        self.meta = self.meta.join(other.meta);
    }
}

/// What a store holds, as a restart needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// In key order, which is creation order.
    pub records: Vec<CatalogRecord>,
    /// Each table's rows, consolidated (no zero and no repeated row).
    pub tables: BTreeMap<GlobalId, Vec<(Row, i64)>>,
    /// Each external source's next offset per partition.
    pub offsets: BTreeMap<GlobalId, BTreeMap<i32, i64>>,
    pub errors: Vec<SourceError>,
    pub meta: Meta,
}

/// A failure of the store: the operation, and the file it concerns.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

/// Durable storage for the catalog and the tables.
pub trait Store: Send {
    /// Everything stored. Rows of tables that no record creates (a crash between a table's
    /// rows and its record) are left out.
    fn load(&mut self) -> Result<Snapshot, StoreError>;
    /// Applies `commit` atomically; it is durable when this returns.
    fn commit(&mut self, commit: &Commit) -> Result<(), StoreError>;
    /// Finishes what `commit` left for after the acknowledgement (a store that makes commits
    /// durable in a log applies them to its tables here): everything if `all`, else only once
    /// enough has gathered to be worth doing. `load` and `compact` settle what they need.
    fn settle(&mut self, _all: bool) -> Result<(), StoreError> {
        Ok(())
    }
    /// Whether `settle(true)` has anything to do (the committer calls it when idle).
    fn unsettled(&self) -> bool {
        false
    }
    /// Does one step of merging stored updates (consolidating them), if one is due and reads
    /// at most `max_rows` updates; returns whether it did one (more may be due). Merging keeps
    /// storage growing with the data, not with the history of writes. A step is atomic, and
    /// changes no table's contents, only how they are stored.
    fn compact(&mut self, max_rows: usize) -> Result<bool, StoreError>;
    /// Whether a merge is being computed away from the caller's thread (`compact` has more
    /// to do once it is ready, although it returned false).
    fn merging(&self) -> bool {
        false
    }
}

/// Sums the multiplicities of equal rows and drops those that cancel.
pub fn consolidate(mut rows: Vec<(Row, i64)>) -> Vec<(Row, i64)> {
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(Row, i64)> = Vec::with_capacity(rows.len());
    for (row, diff) in rows {
        match out.last_mut() {
            Some((r, d)) if *r == row => *d += diff,
            _ => out.push((row, diff)),
        }
    }
    out.retain(|(_, d)| *d != 0);
    out
}

#[cfg(test)]
mod tests {
    use super::SourceProgress;

    #[test]
    fn ticks_reached_count_the_ticks_before_the_readable_time() {
        let p = SourceProgress {
            since: 1000,
            ticks_before: 7,
        };
        // Tick 7 + n is at 1000 + 100 n; it is made once every time up to it is complete.
        assert_eq!(p.ticks_at(900, 100), 7);
        assert_eq!(p.ticks_at(1100, 100), 7);
        assert_eq!(p.ticks_at(1101, 100), 8);
        assert_eq!(p.ticks_at(1301, 100), 10);
    }
}
