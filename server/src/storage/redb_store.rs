//! The single-machine store: one redb file, `kpg.redb`, in the data directory.
//!
//! redb gives atomic, checksummed, crash-consistent transactions with one fsync per commit and
//! a lock that keeps a second process out of the file. Three tables: `catalog` (record key ->
//! record), `meta` (the counters) and `updates` ((table, time) -> that time's updates of the
//! table). A table's history is merged into one batch at time 0 by `compact` once the updates
//! written since its last merge are as many as the rows it holds, so each row is rewritten a
//! bounded number of times on average and a restart reads little more than the data.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use kpg_types::{GlobalId, Row};
use redb::{Database, DatabaseError, ReadableDatabase, ReadableTable, TableDefinition};

use super::codec::{decode, encode};
use super::{consolidate, CatalogOp, CatalogRecord, Commit, Meta, Snapshot, Store, StoreError};

const CATALOG: TableDefinition<u64, &[u8]> = TableDefinition::new("catalog");
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const UPDATES: TableDefinition<(u64, u64), &[u8]> = TableDefinition::new("updates");
/// (source, partition) -> the next offset to read.
const OFFSETS: TableDefinition<(u64, u32), i64> = TableDefinition::new("source_offsets");
/// (source, partition, offset) -> why the record could not be decoded.
const ERRORS: TableDefinition<(u64, u32, u64), &str> = TableDefinition::new("source_errors");

/// The file name inside the data directory.
pub const FILE_NAME: &str = "kpg.redb";

/// History below this many updates is never worth a merge.
const MIN_COMPACTION: usize = 1024;

/// What the store knows about a table's stored updates, to decide when to merge them.
#[derive(Clone, Copy, Default)]
struct History {
    /// Rows in the merged batch.
    base: usize,
    /// Updates written since.
    tail: usize,
}

pub struct RedbStore {
    db: Database,
    path: PathBuf,
    history: HashMap<GlobalId, History>,
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
        let db = Database::builder().create(&path).map_err(|e| match e {
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
        Ok(RedbStore {
            db,
            path,
            history: HashMap::new(),
        })
    }

    fn fail(&self, what: &str, e: impl std::fmt::Display) -> StoreError {
        StoreError(format!("{what} in {}: {e}", self.path.display()))
    }

    /// Merges the stored updates of `table` into one batch at time 0.
    fn merge(&mut self, table: GlobalId) -> Result<(), StoreError> {
        let txn = self
            .db
            .begin_write()
            .map_err(|e| self.fail("starting a merge", e))?;
        let merged = {
            let mut updates = txn
                .open_table(UPDATES)
                .map_err(|e| self.fail("opening updates", e))?;
            let mut rows = Vec::new();
            for entry in updates
                .range((table, 0)..=(table, u64::MAX))
                .map_err(|e| self.fail("reading updates", e))?
            {
                let (_, value) = entry.map_err(|e| self.fail("reading updates", e))?;
                rows.extend(decode::<Vec<(Row, i64)>>(
                    value.value(),
                    &format!("updates of table u{table} in {}", self.path.display()),
                )?);
            }
            let merged = consolidate(rows);
            updates
                .retain_in((table, 0)..=(table, u64::MAX), |_, _| false)
                .map_err(|e| self.fail("merging updates", e))?;
            if !merged.is_empty() {
                updates
                    .insert((table, 0), encode(&merged).as_slice())
                    .map_err(|e| self.fail("merging updates", e))?;
            }
            merged.len()
        };
        txn.commit()
            .map_err(|e| self.fail("committing a merge", e))?;
        self.history.insert(
            table,
            History {
                base: merged,
                tail: 0,
            },
        );
        Ok(())
    }
}

impl Store for RedbStore {
    fn load(&mut self) -> Result<Snapshot, StoreError> {
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
        let known: std::collections::BTreeSet<GlobalId> = snapshot
            .records
            .iter()
            .flat_map(|r| r.ids.iter().copied())
            .collect();
        let mut tables: BTreeMap<GlobalId, (Vec<(Row, i64)>, usize)> = BTreeMap::new();
        let mut orphans = Vec::new();
        match txn.open_table(UPDATES) {
            Ok(updates) => {
                for entry in updates
                    .iter()
                    .map_err(|e| self.fail("reading updates", e))?
                {
                    let (key, value) = entry.map_err(|e| self.fail("reading updates", e))?;
                    let (table, _time) = key.value();
                    if !known.contains(&table) {
                        orphans.push(table);
                        continue;
                    }
                    let rows: Vec<(Row, i64)> = decode(
                        value.value(),
                        &damaged(&format!("updates of table u{table}")),
                    )?;
                    let slot = tables.entry(table).or_default();
                    slot.0.extend(rows);
                    slot.1 += 1;
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(self.fail("opening updates", e)),
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
        orphans.dedup();
        let mut to_merge = Vec::new();
        for (table, (rows, batches)) in tables {
            let rows = consolidate(rows);
            self.history.insert(
                table,
                History {
                    base: rows.len(),
                    tail: 0,
                },
            );
            if batches > 1 {
                to_merge.push(table);
            }
            snapshot.tables.insert(table, rows);
        }
        // Rows of tables whose record never committed, and history a crash left unmerged.
        if !orphans.is_empty() {
            self.commit(&Commit {
                catalog: orphans.into_iter().map(CatalogOp::DropTableData).collect(),
                meta: snapshot.meta,
                ..Commit::default()
            })?;
        }
        for table in to_merge {
            self.merge(table)?;
        }
        Ok(snapshot)
    }

    fn commit(&mut self, commit: &Commit) -> Result<(), StoreError> {
        let txn = self
            .db
            .begin_write()
            .map_err(|e| self.fail("starting a commit", e))?;
        {
            let mut catalog = txn
                .open_table(CATALOG)
                .map_err(|e| self.fail("opening the catalog", e))?;
            let mut updates = txn
                .open_table(UPDATES)
                .map_err(|e| self.fail("opening updates", e))?;
            let mut offsets = txn
                .open_table(OFFSETS)
                .map_err(|e| self.fail("opening offsets", e))?;
            let mut errors = txn
                .open_table(ERRORS)
                .map_err(|e| self.fail("opening source errors", e))?;
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
                        updates
                            .retain_in((*table, 0)..=(*table, u64::MAX), |_, _| false)
                            .map_err(|e| self.fail("dropping a table's rows", e))?;
                        self.history.remove(table);
                        offsets
                            .retain_in((*table, 0)..=(*table, u32::MAX), |_, _| false)
                            .map_err(|e| self.fail("dropping a source's offsets", e))?;
                        errors
                            .retain_in((*table, 0, 0)..=(*table, u32::MAX, u64::MAX), |_, _| false)
                            .map_err(|e| self.fail("dropping a source's errors", e))?;
                    }
                }
            }
            for append in &commit.appends {
                let key = (append.table, append.time);
                // Two writes of one table at one time (a transaction's statements) share a key.
                let mut rows = match updates
                    .get(key)
                    .map_err(|e| self.fail("reading updates", e))?
                {
                    Some(old) => decode::<Vec<(Row, i64)>>(old.value(), "updates")?,
                    None => Vec::new(),
                };
                rows.extend(append.updates.iter().cloned());
                updates
                    .insert(key, encode(&rows).as_slice())
                    .map_err(|e| self.fail("writing updates", e))?;
                self.history.entry(append.table).or_default().tail += append.updates.len();
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
            let mut meta = txn
                .open_table(META)
                .map_err(|e| self.fail("opening meta", e))?;
            let stored = match meta.get("meta").map_err(|e| self.fail("reading meta", e))? {
                Some(v) => decode::<Meta>(v.value(), "the counters")?,
                None => Meta::default(),
            };
            meta.insert("meta", encode(&stored.join(commit.meta)).as_slice())
                .map_err(|e| self.fail("writing meta", e))?;
        }
        txn.commit().map_err(|e| self.fail("committing", e))
    }

    fn compact(&mut self) -> Result<(), StoreError> {
        let due: Vec<GlobalId> = self
            .history
            .iter()
            .filter(|(_, h)| h.tail >= h.base.max(MIN_COMPACTION))
            .map(|(t, _)| *t)
            .collect();
        for table in due {
            self.merge(table)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::TableAppend;
    use kpg_types::Datum;

    fn row(i: i64) -> Row {
        Row::new(vec![Datum::Int64(i), Datum::String(format!("r{i}"))])
    }

    fn put(ids: &[u64], sql: &str) -> CatalogOp {
        CatalogOp::Put(CatalogRecord {
            key: ids[0],
            ids: ids.to_vec(),
            sql: sql.into(),
            source: None,
        })
    }

    fn append(table: u64, time: u64, updates: Vec<(Row, i64)>) -> Commit {
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
            for i in 0..3000 {
                store
                    .commit(&append(1, 10 + i, vec![(row(i as i64), 1)]))
                    .unwrap();
                if i % 2 == 1 {
                    store
                        .commit(&append(1, 10_000 + i, vec![(row(i as i64), -1)]))
                        .unwrap();
                }
                store.compact().unwrap();
            }
        }
        let mut store = RedbStore::open(dir.path()).unwrap();
        let snapshot = store.load().unwrap();
        assert_eq!(snapshot.records.len(), 1);
        assert_eq!(snapshot.meta.next_id, 10);
        assert_eq!(snapshot.meta.upper, 10_000 + 2999 + 1);
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
        let mut outcomes = (0, 0);
        for cut in [1usize, 7, 64, 512, 4096, full.len() / 3, full.len() / 2] {
            if cut >= full.len() {
                continue;
            }
            let torn = tempfile::tempdir().unwrap();
            std::fs::write(torn.path().join(FILE_NAME), &full[..full.len() - cut]).unwrap();
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
}
