//! The write-ahead log in front of redb: what makes a small commit durable with one write.
//!
//! A durable redb commit rewrites the B-tree pages on the path to every key it changes, the
//! allocator's state and the header — seven or eight pages and an fdatasync for a one-row
//! INSERT, a third of a millisecond here, twice PostgreSQL's whole commit. So a commit is first
//! appended to this log as one record and made durable by one fdatasync of the pages it
//! touched; redb then applies it without an fsync of its own (`Durability::None`), and every
//! few seconds, or once the log is half full, one durable redb commit covers everything applied
//! so far and the log starts again from its beginning (a checkpoint). A large commit (a COPY)
//! skips the log and is committed to redb durably, which is a checkpoint too: its rows are
//! written once, not twice.
//!
//! The file, `kpg.wal`, is written full of zeros when it is created and never changes size
//! afterwards, so an fdatasync flushes data pages only, not the file's size. Records are
//! numbered consecutively across checkpoints and restarts; redb stores the number of the last
//! record it holds in the same transaction that applies it. A record is its body's length,
//! a CRC-32 of its number and body, its number, and the body (bincode: the catalog changes,
//! each table write's updates in the stored chunk encoding of `codec.rs`, source offsets and
//! errors, the counters). Reading stops at the first record that is not the next one (zeros,
//! a torn write, a record left from before the last checkpoint): a torn record was never
//! acknowledged, since a commit is acknowledged only after its fdatasync. A record that fails
//! its CRC while the one after it is whole was damaged after it was written, and is refused.
//!
//! On start the records after the one redb holds are applied again (`RedbStore::open`); a log
//! that starts after a gap, or is missing while redb says it was used, is refused as damage.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kpg_types::GlobalId;
use serde::{Deserialize, Serialize};

use super::codec::encode_updates;
use super::{CatalogOp, Commit, Meta, SourceError, StoreError};

/// The log's file name inside the data directory.
pub const FILE_NAME: &str = "kpg.wal";
/// The log's size: records overwrite zeros written once.
const CAPACITY: u64 = 16 << 20;
/// A commit whose record would be larger than this skips the log (it is committed to redb
/// durably: its rows are written once).
const MAX_RECORD: usize = 1 << 20;
/// Length, CRC and number.
const HEADER: usize = 16;
/// A checkpoint is due once the log is this full...
const CHECKPOINT_BYTES: u64 = CAPACITY / 2;
/// ... or this long after the last one (bounding what a restart replays, and the redb pages
/// that commits without an fsync keep from being reused).
const CHECKPOINT_AFTER: Duration = Duration::from_secs(5);

/// A commit as the log holds it and redb applies it: its table updates encoded as stored.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Encoded {
    pub catalog: Vec<CatalogOp>,
    pub appends: Vec<EncodedAppend>,
    pub offsets: Vec<(GlobalId, i32, i64)>,
    pub errors: Vec<SourceError>,
    pub meta: Meta,
}

/// One table's updates at one time, as the stored chunks of `codec.rs`.
#[derive(Debug, Serialize, Deserialize)]
pub struct EncodedAppend {
    pub table: GlobalId,
    pub time: u64,
    pub chunks: Vec<Vec<u8>>,
    /// How many updates, and how many of them retractions.
    pub rows: usize,
    pub negative: usize,
}

impl Encoded {
    /// `commit`, its updates encoded (an empty append has no chunks).
    pub fn new(commit: &Commit) -> Encoded {
        Encoded {
            catalog: commit.catalog.clone(),
            appends: commit
                .appends
                .iter()
                .map(|a| EncodedAppend {
                    table: a.table,
                    time: a.time,
                    chunks: if a.updates.is_empty() {
                        Vec::new()
                    } else {
                        encode_updates(&a.updates)
                    },
                    rows: a.updates.len(),
                    negative: a.updates.iter().filter(|(_, d)| *d < 0).count(),
                })
                .collect(),
            offsets: commit.offsets.clone(),
            errors: commit.errors.clone(),
            meta: commit.meta,
        }
    }

    /// The bytes of its updates.
    pub fn update_bytes(&self) -> usize {
        self.appends
            .iter()
            .flat_map(|a| &a.chunks)
            .map(Vec::len)
            .sum()
    }
}

/// The open log: its file and where the next record goes.
pub struct Wal {
    file: File,
    path: PathBuf,
    /// Where the next record goes.
    offset: u64,
    /// The number of the last record written (or applied by redb when the log was opened).
    last: u64,
    since_checkpoint: Instant,
}

impl Wal {
    /// Opens the log in `dir`, creating it (full of zeros) if `create`; otherwise a missing
    /// log is damage. `applied` is the number of the last record redb holds. Returns the log,
    /// positioned at its start, and the records after `applied`, in order.
    pub fn open(
        dir: &Path,
        applied: u64,
        create: bool,
    ) -> Result<(Wal, Vec<(u64, Encoded)>), StoreError> {
        let path = dir.join(FILE_NAME);
        let fail =
            |what: &str, e: std::io::Error| StoreError(format!("{what} {}: {e}", path.display()));
        let exists = path.exists();
        if !exists && !create {
            return Err(StoreError(format!(
                "the write-ahead log {} is missing, but the data directory's store says it \
                 was in use: acknowledged writes may be lost (the data directory is damaged)",
                path.display()
            )));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| fail("cannot open", e))?;
        let len = file.metadata().map_err(|e| fail("cannot read", e))?.len();
        if len < CAPACITY {
            // Zeros up to the capacity, made durable with the file's size, once.
            let zeros = vec![0u8; 1 << 20];
            let mut at = len;
            while at < CAPACITY {
                let n = (CAPACITY - at).min(zeros.len() as u64) as usize;
                file.write_all_at(&zeros[..n], at)
                    .map_err(|e| fail("cannot write", e))?;
                at += n as u64;
            }
            file.sync_all().map_err(|e| fail("cannot sync", e))?;
            if !exists {
                File::open(dir)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| fail("cannot sync the directory of", e))?;
            }
        }
        let mut wal = Wal {
            file,
            path,
            offset: 0,
            last: applied,
            since_checkpoint: Instant::now(),
        };
        let records = wal.read(applied)?;
        if let Some((n, _)) = records.last() {
            wal.last = *n;
        }
        Ok((wal, records))
    }

    /// The records after `applied`: the chain of consecutive records from the file's start,
    /// skipping those redb holds already.
    fn read(&self, applied: u64) -> Result<Vec<(u64, Encoded)>, StoreError> {
        let mut bytes = Vec::new();
        let mut file = &self.file;
        std::io::Read::read_to_end(&mut file, &mut bytes)
            .map_err(|e| StoreError(format!("cannot read {}: {e}", self.path.display())))?;
        let mut records = Vec::new();
        let mut at = 0usize;
        let mut previous: Option<u64> = None;
        loop {
            let Some((number, body)) = record_at(&bytes, at) else {
                // The end, or a torn last write; but if the record after this one is there
                // whole and is the one after next, this one was damaged in place.
                let expected = previous.map_or(applied + 1, |p| p + 1);
                if let Some(after) = skip(&bytes, at) {
                    if record_at(&bytes, after).is_some_and(|(n, _)| n == expected + 1) {
                        return Err(StoreError(format!(
                            "record {expected} of the write-ahead log {} (at byte {at}) is                              damaged, and records after it are whole: acknowledged writes                              would be lost (the data directory is damaged)",
                            self.path.display()
                        )));
                    }
                }
                break;
            };
            if previous.is_some_and(|p| number != p + 1) {
                break;
            }
            if previous.is_none() && number > applied + 1 {
                return Err(StoreError(format!(
                    "the write-ahead log {} starts at record {number}, but the store holds \
                     records only up to {applied}: records are missing (the data directory is \
                     damaged)",
                    self.path.display()
                )));
            }
            previous = Some(number);
            at += HEADER + body.len();
            if number > applied {
                records.push((number, self.decode(number, body)?));
            }
        }
        Ok(records)
    }

    /// A record's body. Its updates are checked when the store loads them, as all stored ones.
    fn decode(&self, number: u64, body: &[u8]) -> Result<Encoded, StoreError> {
        bincode::deserialize(body).map_err(|e| {
            StoreError(format!(
                "record {number} of {} is damaged (cannot be decoded: {e})",
                self.path.display()
            ))
        })
    }

    /// Appends `commit` and makes it durable; returns its number, or `None` if it is too
    /// large for the log or does not fit in what is left (the caller then commits it to redb
    /// durably and calls `checkpointed`).
    pub fn append(&mut self, commit: &Encoded) -> Result<Option<u64>, StoreError> {
        if commit.update_bytes() > MAX_RECORD {
            return Ok(None);
        }
        let number = self.last + 1;
        let mut record = vec![0u8; HEADER];
        bincode::serialize_into(&mut record, commit).expect("serializing into memory");
        let body_len = record.len() - HEADER;
        if body_len > MAX_RECORD || self.offset + record.len() as u64 > CAPACITY {
            return Ok(None);
        }
        record[8..16].copy_from_slice(&number.to_le_bytes());
        let crc = crc32fast::hash(&record[8..]);
        record[0..4].copy_from_slice(&(body_len as u32).to_le_bytes());
        record[4..8].copy_from_slice(&crc.to_le_bytes());
        let fail =
            |e: std::io::Error| StoreError(format!("cannot write {}: {e}", self.path.display()));
        self.file.write_all_at(&record, self.offset).map_err(fail)?;
        self.file.sync_data().map_err(fail)?;
        self.offset += record.len() as u64;
        self.last = number;
        Ok(Some(number))
    }

    /// The number of the last record written.
    pub fn last(&self) -> u64 {
        self.last
    }

    /// Whether records are waiting for a checkpoint, and enough of them (or for long enough)
    /// that one is due.
    pub fn checkpoint_due(&self) -> bool {
        self.offset > 0
            && (self.offset >= CHECKPOINT_BYTES
                || self.since_checkpoint.elapsed() >= CHECKPOINT_AFTER)
    }

    /// Where the records written since the last checkpoint end.
    #[cfg(test)]
    pub fn end(&self) -> u64 {
        self.offset
    }

    /// Whether any record waits for a checkpoint.
    pub fn pending(&self) -> bool {
        self.offset > 0
    }

    /// Called once redb durably holds every record up to `last()`: the next record is
    /// written at the start of the file again.
    pub fn checkpointed(&mut self) {
        self.offset = 0;
        self.since_checkpoint = Instant::now();
    }
}

/// Where the record at `at` would end, by its length alone (its CRC unchecked).
fn skip(bytes: &[u8], at: usize) -> Option<usize> {
    let len = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().unwrap()) as usize;
    (len > 0 && len <= MAX_RECORD).then_some(at + HEADER + len)
}

/// The record at `at` in `bytes`, if one is there whole with a matching CRC: its number and body.
fn record_at(bytes: &[u8], at: usize) -> Option<(u64, &[u8])> {
    let header = bytes.get(at..at + HEADER)?;
    let len = u32::from_le_bytes(header[0..4].try_into().unwrap()) as usize;
    let crc = u32::from_le_bytes(header[4..8].try_into().unwrap());
    if len == 0 || len > MAX_RECORD {
        return None;
    }
    let checked = bytes.get(at + 8..at + HEADER + len)?;
    if crc32fast::hash(checked) != crc {
        return None;
    }
    let number = u64::from_le_bytes(header[8..16].try_into().unwrap());
    Some((number, &checked[8..]))
}
