//! Large merges of stored updates, off the commit path.
//!
//! Merging a table's runs reads, consolidates and rewrites every update in them; for a table of
//! hundreds of thousands of rows that is a second of work, and redb runs one write transaction
//! at a time, so a merge done in one transaction on the committer thread made every commit
//! behind it wait (statements stalled 1-1.5 s under a stream of large writes). A large merge is
//! therefore done in three parts:
//!
//! 1. *Compute*, on a thread of its own: a read transaction (redb's reads see a snapshot and run
//!    beside writes) reads the runs' keys as they were when the merge was planned, and the
//!    thread consolidates and encodes them. Commits go on meanwhile.
//! 2. *Stage*, on the committer thread, a few chunks per step between commits, in transactions
//!    without an fsync of their own: the merged chunks are written at `(table, first, base..)`,
//!    part numbers after every part the first run had, and a marker (`merge` in `meta`) says
//!    that parts from `base` on at that key are not contents yet. `load` deletes them.
//! 3. *Swap*, one durable transaction: delete the input keys (those the compute read; a write
//!    that landed meanwhile at the last run's time has later part numbers and stays) and the
//!    marker. Contents never change: before the swap the inputs are the contents, after it the
//!    merged parts are.
//!
//! Runs without retractions are joined as bytes in the compute (`codec::Concat`): nothing in
//! them can cancel, so nothing is decoded, sorted or encoded again.
//!
//! A write into the merged runs at any time other than the last run's (time moving backward)
//! or a drop of the table cancels the merge in that write's own transaction.

use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;

use kpg_types::GlobalId;
use redb::{Database, ReadableDatabase};

use super::{RedbStore, Run, UpdateKey, META, STAGE_CHUNKS, UPDATES};
use crate::storage::codec::{decode_updates, encode_updates, Concat};
use crate::storage::{consolidate, StoreError};

/// The key under which `meta` holds the marker of staged parts.
pub const MARKER: &str = "merge";

/// What a finished compute hands back.
pub struct Merged {
    pub chunks: Vec<Vec<u8>>,
    pub rows: usize,
    pub negative: usize,
}

/// A large merge in progress.
pub struct Background {
    pub table: GlobalId,
    pub first: u64,
    pub last: u64,
    /// The indexes of the merged runs in the table's run list (stable while the merge runs:
    /// no other merge touches the table, and writes only add runs after them).
    pub range: std::ops::Range<usize>,
    /// The runs' rows and retractions when planned (a write at the last run's time adds to
    /// them, and those updates stay beside the merged ones).
    pub planned_rows: usize,
    pub planned_negative: usize,
    /// The highest part at `last` the compute reads (none: the last run holds nothing at
    /// `last` itself, e.g. a merged run).
    pub last_part: Option<u32>,
    /// The first part number of the staged chunks at `first`.
    pub base: u32,
    result: mpsc::Receiver<Result<Merged, StoreError>>,
    thread: Option<JoinHandle<()>>,
    merged: Option<Merged>,
    /// Chunks staged so far.
    pub staged: usize,
    started: std::time::Instant,
}

/// The last input key of a merge whose last run ends at `last` (`last > first`, so the key
/// at `last - 1` is still inside the merged runs).
fn read_end(table: GlobalId, last: u64, last_part: Option<u32>) -> UpdateKey {
    match last_part {
        Some(p) => (table, last, p),
        None => (table, last - 1, u32::MAX),
    }
}

/// The marker's bytes: table, first time, base part.
pub fn marker(table: GlobalId, first: u64, base: u32) -> Vec<u8> {
    let mut b = Vec::with_capacity(20);
    b.extend(table.to_le_bytes());
    b.extend(first.to_le_bytes());
    b.extend(base.to_le_bytes());
    b
}

/// Reads a marker written by [`marker`].
pub fn read_marker(bytes: &[u8]) -> Option<(GlobalId, u64, u32)> {
    if bytes.len() != 20 {
        return None;
    }
    let u = |r: std::ops::Range<usize>| u64::from_le_bytes(bytes[r].try_into().unwrap());
    Some((
        u(0..8),
        u(8..16),
        u32::from_le_bytes(bytes[16..20].try_into().unwrap()),
    ))
}

impl Background {
    /// Starts computing the merge of the keys `(table, first, 0)..=(table, last, last_part)`.
    pub fn start(
        db: Arc<Database>,
        what: String,
        table: GlobalId,
        (first, last, last_part, base): (u64, u64, Option<u32>, u32),
        range: std::ops::Range<usize>,
        (planned_rows, planned_negative): (usize, usize),
    ) -> Background {
        let (tx, result) = mpsc::channel();
        let end = read_end(table, last, last_part);
        let keys = (table, first, 0)..=end;
        // The updates it reads are the planned ones (parts up to `last_part`).
        let append_only = planned_negative == 0;
        let thread = std::thread::Builder::new()
            .name("kpg-merge".into())
            .spawn(move || {
                let _ = tx.send(compute(&db, keys, &what, append_only));
            })
            .expect("spawn merge thread");
        Background {
            table,
            first,
            last,
            range,
            planned_rows,
            planned_negative,
            last_part,
            base,
            result,
            thread: Some(thread),
            merged: None,
            staged: 0,
            started: std::time::Instant::now(),
        }
    }

    /// The merged chunks, once computed (`None` while the compute runs).
    pub fn merged(&mut self) -> Result<Option<&Merged>, StoreError> {
        if self.merged.is_none() {
            match self.result.try_recv() {
                Ok(merged) => {
                    self.join();
                    self.merged = Some(merged?);
                }
                Err(mpsc::TryRecvError::Empty) => return Ok(None),
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.join();
                    return Err(StoreError("a merge thread stopped without a result".into()));
                }
            }
        }
        Ok(self.merged.as_ref())
    }

    /// The last key the merge reads (and the swap deletes).
    pub fn read_end(&self) -> UpdateKey {
        read_end(self.table, self.last, self.last_part)
    }

    /// Whether the compute thread has ended.
    pub fn finished(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }

    /// Waits for the compute thread (it holds the database open).
    pub fn join(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.join();
    }
}

/// Reads the updates of `keys` and merges them: consolidated, or with `append_only` (no
/// retractions among them, so nothing can cancel) joined as bytes.
fn compute(
    db: &Database,
    keys: std::ops::RangeInclusive<UpdateKey>,
    what: &str,
    append_only: bool,
) -> Result<Merged, StoreError> {
    let fail = |e: &dyn std::fmt::Display| StoreError(format!("merging {what}: {e}"));
    let txn = db.begin_read().map_err(|e| fail(&e))?;
    let table = txn.open_table(UPDATES).map_err(|e| fail(&e))?;
    if append_only {
        let mut concat = Concat::default();
        for entry in table.range(keys).map_err(|e| fail(&e))? {
            let (_, value) = entry.map_err(|e| fail(&e))?;
            concat.push(value.value(), what)?;
        }
        let (chunks, rows) = concat.finish();
        return Ok(Merged {
            chunks,
            rows,
            negative: 0,
        });
    }
    let mut rows = Vec::new();
    for entry in table.range(keys).map_err(|e| fail(&e))? {
        let (_, value) = entry.map_err(|e| fail(&e))?;
        decode_updates(value.value(), what, &mut rows)?;
    }
    drop(table);
    drop(txn);
    let merged = consolidate(rows);
    Ok(Merged {
        chunks: if merged.is_empty() {
            Vec::new()
        } else {
            encode_updates(&merged)
        },
        rows: merged.len(),
        negative: merged.iter().filter(|(_, d)| *d < 0).count(),
    })
}

impl RedbStore {
    /// Plans the merge of runs `range` of `table` and starts computing it.
    pub(super) fn start_background(
        &mut self,
        table: GlobalId,
        range: std::ops::Range<usize>,
    ) -> Result<(), StoreError> {
        let runs = &self.runs[&table][range.clone()];
        let (first, last) = (runs[0].first, runs[runs.len() - 1].last);
        let planned: (usize, usize) = (
            runs.iter().map(|r| r.rows).sum(),
            runs.iter().map(|r| r.negative).sum(),
        );
        self.merged_updates += planned.0 as u64;
        let (base, last_part) = {
            let txn = self
                .db
                .begin_read()
                .map_err(|e| self.fail("planning a merge", e))?;
            let updates = txn
                .open_table(UPDATES)
                .map_err(|e| self.fail("planning a merge", e))?;
            let top = |time: u64| -> Result<Option<u32>, StoreError> {
                match updates
                    .range((table, time, 0)..=(table, time, u32::MAX))
                    .map_err(|e| self.fail("planning a merge", e))?
                    .next_back()
                {
                    Some(entry) => Ok(Some(
                        entry
                            .map_err(|e| self.fail("planning a merge", e))?
                            .0
                            .value()
                            .2,
                    )),
                    None => Ok(None),
                }
            };
            (top(first)?.map_or(0, |p| p + 1), top(last)?)
        };
        let what = format!("updates of table u{table} in {}", self.path.display());
        tracing::info!(
            table,
            inputs = planned.0,
            "merging stored updates on the merge thread"
        );
        self.background = Some(Background::start(
            Arc::clone(&self.db),
            what,
            table,
            (first, last, last_part, base),
            range,
            planned,
        ));
        Ok(())
    }

    /// Moves the large merge on by one step once it is computed: stages a few chunks, or
    /// swaps them in. Returns whether it did anything.
    pub(super) fn background_step(&mut self) -> Result<bool, StoreError> {
        let Some(mut bg) = self.background.take() else {
            return Ok(false);
        };
        match self.stage_or_swap(&mut bg) {
            Ok(Step::Swapped) => Ok(true),
            Ok(step) => {
                self.background = Some(bg);
                Ok(step == Step::Staged)
            }
            Err(e) => {
                self.background = Some(bg);
                Err(e)
            }
        }
    }

    fn stage_or_swap(&mut self, bg: &mut Background) -> Result<Step, StoreError> {
        let (table, first, base) = (bg.table, bg.first, bg.base);
        let (total, rows, negative) = match bg.merged()? {
            None => return Ok(Step::Computing),
            Some(m) => (m.chunks.len(), m.rows, m.negative),
        };
        if bg.staged < total {
            let (from, to) = (bg.staged, (bg.staged + STAGE_CHUNKS).min(total));
            let mut txn = self
                .db
                .begin_write()
                .map_err(|e| self.fail("staging a merge", e))?;
            txn.set_durability(redb::Durability::None)
                .map_err(|e| self.fail("staging a merge", e))?;
            {
                let mut updates = self.open_updates(&txn)?;
                let chunks = &bg.merged()?.expect("computed").chunks[from..to];
                for (i, chunk) in chunks.iter().enumerate() {
                    updates
                        .insert((table, first, base + (from + i) as u32), chunk.as_slice())
                        .map_err(|e| self.fail("staging a merge", e))?;
                }
                if from == 0 {
                    let mut meta = txn
                        .open_table(META)
                        .map_err(|e| self.fail("staging a merge", e))?;
                    meta.insert(MARKER, marker(table, first, base).as_slice())
                        .map_err(|e| self.fail("staging a merge", e))?;
                }
            }
            txn.commit().map_err(|e| self.fail("staging a merge", e))?;
            bg.staged = to;
            return Ok(Step::Staged);
        }
        // The swap: the inputs go, the staged parts become the run (durably).
        let txn = self
            .db
            .begin_write()
            .map_err(|e| self.fail("finishing a merge", e))?;
        {
            let mut updates = self.open_updates(&txn)?;
            let mut delete = |keys: std::ops::RangeInclusive<UpdateKey>| {
                updates
                    .retain_in(keys, |_, _| false)
                    .map_err(|e| self.fail("finishing a merge", e))
            };
            if base > 0 {
                delete((table, first, 0)..=(table, first, base - 1))?;
            }
            let end = bg.read_end();
            if (table, first + 1, 0) <= end {
                delete((table, first + 1, 0)..=end)?;
            }
            if total > 0 {
                let mut meta = txn
                    .open_table(META)
                    .map_err(|e| self.fail("finishing a merge", e))?;
                meta.remove(MARKER)
                    .map_err(|e| self.fail("finishing a merge", e))?;
            }
        }
        txn.commit()
            .map_err(|e| self.fail("finishing a merge", e))?;
        let runs = self.runs.entry(table).or_default();
        let range = bg.range.clone();
        let now: (usize, usize) = (
            runs[range.clone()].iter().map(|r| r.rows).sum(),
            runs[range.clone()].iter().map(|r| r.negative).sum(),
        );
        // Updates written at the last run's time meanwhile stay beside the merged ones.
        let rows = rows + now.0 - bg.planned_rows;
        let negative = negative + now.1 - bg.planned_negative;
        if rows == 0 {
            runs.drain(range);
        } else {
            runs.splice(
                range,
                [Run {
                    first,
                    last: bg.last,
                    rows,
                    negative,
                }],
            );
        }
        self.next_part.remove(&table);
        self.unchecked.insert(table);
        tracing::info!(
            table,
            inputs = bg.planned_rows,
            rows,
            ms = bg.started.elapsed().as_millis() as u64,
            "merge of stored updates finished"
        );
        Ok(Step::Swapped)
    }

    /// Gives up the merge in progress if `table` is dropped or written at a time inside the
    /// merged runs other than the last run's, in the write's transaction `txn`: its staged
    /// parts and marker go.
    pub(super) fn cancel_merge_for(
        &mut self,
        txn: &redb::WriteTransaction,
        updates: &mut redb::Table<UpdateKey, &'static [u8]>,
        table: GlobalId,
        time: Option<u64>,
    ) -> Result<(), StoreError> {
        let Some(bg) = self.background.as_ref() else {
            return Ok(());
        };
        let hit = bg.table == table && time.is_none_or(|t| bg.first <= t && t < bg.last);
        if !hit {
            return Ok(());
        }
        if bg.staged > 0 {
            updates
                .retain_in(
                    (table, bg.first, bg.base)..=(table, bg.first, u32::MAX),
                    |_, _| false,
                )
                .map_err(|e| self.fail("giving up a merge", e))?;
            let mut meta = txn
                .open_table(META)
                .map_err(|e| self.fail("giving up a merge", e))?;
            meta.remove(MARKER)
                .map_err(|e| self.fail("giving up a merge", e))?;
        }
        let bg = self.background.take().expect("checked");
        self.retired.push(bg);
        self.unchecked.insert(table);
        Ok(())
    }

    /// Deletes the parts a merge staged and never swapped in (a crash or a reload before
    /// its end); they hold no contents of their own.
    pub(super) fn drop_staged(&mut self) -> Result<(), StoreError> {
        if let Some(bg) = self.background.take() {
            self.retired.push(bg);
        }
        let staged = match super::read_meta(&self.db, &self.path, MARKER)? {
            None => return Ok(()),
            Some(v) => read_marker(&v).ok_or_else(|| {
                StoreError(format!(
                    "the merge marker in {} is damaged",
                    self.path.display()
                ))
            })?,
        };
        let (table, first, base) = staged;
        let txn = self
            .db
            .begin_write()
            .map_err(|e| self.fail("dropping a merge's parts", e))?;
        {
            let mut updates = self.open_updates(&txn)?;
            updates
                .retain_in((table, first, base)..=(table, first, u32::MAX), |_, _| {
                    false
                })
                .map_err(|e| self.fail("dropping a merge's parts", e))?;
            let mut meta = txn
                .open_table(META)
                .map_err(|e| self.fail("dropping a merge's parts", e))?;
            meta.remove(MARKER)
                .map_err(|e| self.fail("dropping a merge's parts", e))?;
        }
        txn.commit()
            .map_err(|e| self.fail("dropping a merge's parts", e))?;
        tracing::info!(table, "dropped the parts of an unfinished merge");
        Ok(())
    }
}

#[derive(PartialEq, Eq)]
enum Step {
    Computing,
    Staged,
    Swapped,
}

#[cfg(test)]
mod tests {
    use super::super::tests::{append, put};
    use super::*;
    use crate::storage::{Commit, Store};
    use kpg_types::{Datum, Row};
    use redb::ReadableTable;

    /// Rows large enough that a merge of a few thousand takes several staging steps.
    fn wide(i: i64) -> Row {
        Row::new(vec![Datum::Int64(i), Datum::String(format!("{i:0>120}"))])
    }

    fn table(store: &mut RedbStore) {
        store
            .commit(&Commit {
                catalog: vec![put(&[1], "CREATE TABLE a (x int, s text)")],
                ..Commit::default()
            })
            .unwrap();
    }

    /// 60,000 rows, then 40,000 of them retracted: a merge of the whole table (100,000
    /// updates), large enough to run on the merge thread.
    fn retractions_due(store: &mut RedbStore) {
        store
            .commit(&append(1, 5, (0..60_000).map(|i| (wide(i), 1)).collect()))
            .unwrap();
        store
            .commit(&append(1, 6, (0..40_000).map(|i| (wide(i), -1)).collect()))
            .unwrap();
    }

    fn stored_keys(store: &RedbStore) -> Vec<UpdateKey> {
        let txn = store.db.begin_read().unwrap();
        let updates = txn.open_table(UPDATES).unwrap();
        updates
            .iter()
            .unwrap()
            .map(|e| e.unwrap().0.value())
            .collect()
    }

    fn marker_present(store: &RedbStore) -> bool {
        let txn = store.db.begin_read().unwrap();
        let meta = txn.open_table(META).unwrap();
        meta.get(MARKER).unwrap().is_some()
    }

    /// Commits go through while a large merge is computed and staged, including writes at
    /// the merged runs' last time, and the contents after the swap are every write's.
    #[test]
    fn commits_go_on_during_a_large_merge() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = RedbStore::open(dir.path()).unwrap();
        table(&mut store);
        retractions_due(&mut store);
        assert!(store.compact(usize::MAX).unwrap());
        assert!(
            store.merging(),
            "a merge of 100,000 updates runs on its own thread"
        );
        // Written (and applied to redb, as by an idle committer) while the merge runs: at the
        // last merged time, then later.
        store.commit(&append(1, 6, vec![(wide(-1), 1)])).unwrap();
        store.settle(true).unwrap();
        let mut time = 7;
        let mut staged_steps = 0;
        while store.merging() {
            if store.compact(usize::MAX).unwrap() && store.merging() {
                staged_steps += 1;
            }
            store
                .commit(&append(1, time, vec![(wide(-(time as i64)), 1)]))
                .unwrap();
            store.settle(true).unwrap();
            time += 1;
        }
        assert!(staged_steps >= 2, "{staged_steps} staging steps");
        assert!(!marker_present(&store));
        let mut expected: Vec<(Row, i64)> = (40_000..60_000).map(|i| (wide(i), 1)).collect();
        expected.extend((7..time).map(|t| (wide(-(t as i64)), 1)));
        expected.push((wide(-1), 1));
        let expected = consolidate(expected);
        assert_eq!(store.load().unwrap().tables[&1], expected);
        // The runs left are the merged one (with the write at its last time) and the later
        // single writes; no key of the inputs is left at time 6 but the late one.
        let keys = stored_keys(&store);
        assert_eq!(keys.iter().filter(|k| k.1 == 6).count(), 1, "{keys:?}");
        drop(store);
        let mut store = RedbStore::open(dir.path()).unwrap();
        assert_eq!(store.load().unwrap().tables[&1], expected);
    }

    /// A merge that stops between staging and its swap (the process killed, or the store
    /// reloaded) leaves the contents as they were; the staged parts are deleted at load.
    #[test]
    fn a_merge_stopped_before_its_swap_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = RedbStore::open(dir.path()).unwrap();
        table(&mut store);
        retractions_due(&mut store);
        let expected = consolidate(
            (0..60_000)
                .map(|i| (wide(i), 1))
                .chain((0..40_000).map(|i| (wide(i), -1)))
                .collect(),
        );
        let keys_before = stored_keys(&store);
        assert!(store.compact(usize::MAX).unwrap());
        while !marker_present(&store) {
            store.compact(usize::MAX).unwrap();
        }
        assert!(store.merging(), "staged, not swapped yet");
        assert!(stored_keys(&store).len() > keys_before.len());
        drop(store);
        let mut store = RedbStore::open(dir.path()).unwrap();
        assert_eq!(store.load().unwrap().tables[&1], expected);
        assert!(!marker_present(&store));
        assert_eq!(stored_keys(&store), keys_before);
        // Reloading in the same process while a merge is staged: the same.
        assert!(store.compact(usize::MAX).unwrap());
        while !marker_present(&store) {
            store.compact(usize::MAX).unwrap();
        }
        assert_eq!(store.load().unwrap().tables[&1], expected);
        assert_eq!(stored_keys(&store), keys_before);
        // And the merge is planned again and finishes.
        while store.compact(usize::MAX).unwrap() || store.merging() {}
        assert_eq!(store.load().unwrap().tables[&1], expected);
        assert_eq!(store.runs[&1].len(), 1);
    }

    /// Dropping the table, or writing into the merged runs at an earlier time, gives the merge
    /// up in that commit; nothing staged is left behind.
    #[test]
    fn a_drop_or_an_earlier_write_gives_the_merge_up() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = RedbStore::open(dir.path()).unwrap();
        table(&mut store);
        retractions_due(&mut store);
        assert!(store.compact(usize::MAX).unwrap());
        while !marker_present(&store) {
            store.compact(usize::MAX).unwrap();
        }
        // Time 5 is inside the merged runs and before their last time.
        store.commit(&append(1, 5, vec![(wide(-7), 1)])).unwrap();
        store.settle(true).unwrap();
        assert!(!store.merging());
        assert!(!marker_present(&store));
        let expected = consolidate(
            (40_000..60_000)
                .map(|i| (wide(i), 1))
                .chain([(wide(-7), 1)])
                .collect(),
        );
        assert_eq!(store.load().unwrap().tables[&1], expected);
        assert!(store.compact(usize::MAX).unwrap());
        while !marker_present(&store) {
            store.compact(usize::MAX).unwrap();
        }
        store
            .commit(&Commit {
                catalog: vec![crate::storage::CatalogOp::DropTableData(1)],
                ..Commit::default()
            })
            .unwrap();
        store.settle(true).unwrap();
        assert!(!store.merging());
        assert!(!marker_present(&store));
        assert!(stored_keys(&store).is_empty());
    }
}
