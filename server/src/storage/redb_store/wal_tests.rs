//! The write-ahead log under the store: a crash between checkpoints loses no logged commit, a
//! torn last record loses only itself, and a log that misses records is refused.
//!
//! A crash is modelled by the files a crash can leave: redb as of its last durable commit (a
//! copy taken right after a checkpoint; later commits were applied without an fsync and may be
//! lost) beside the log as it was written.

use std::path::Path;

use super::tests::{append, row, with_table};
use super::*;
use crate::storage::wal;

fn table(store: &mut RedbStore) -> Vec<(Row, i64)> {
    store
        .load()
        .unwrap()
        .tables
        .get(&1)
        .cloned()
        .unwrap_or_default()
}

fn rows(n: i64) -> Vec<(Row, i64)> {
    (0..n).map(|i| (row(i), 1)).collect()
}

/// A directory holding `redb` and `log` as the store's two files.
fn crashed(redb: &[u8], log: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(FILE_NAME), redb).unwrap();
    std::fs::write(dir.path().join(wal::FILE_NAME), log).unwrap();
    dir
}

/// Table 1 after a restart on `redb` and `log`.
fn restarted_table(redb: &[u8], log: &[u8]) -> Vec<(Row, i64)> {
    let dir = crashed(redb, log);
    let mut store = RedbStore::open(dir.path()).unwrap();
    table(&mut store)
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap()
}

/// The store after a table's record and a checkpoint, with redb's file at that point, then
/// `writes` single-row commits logged after it; returns the store and redb's durable file.
fn logged_after_checkpoint(dir: &Path, writes: u64) -> (RedbStore, Vec<u8>) {
    let mut store = with_table(dir, 0);
    store.checkpoint().unwrap();
    let durable = read(dir, FILE_NAME);
    for i in 0..writes {
        store
            .commit(&append(1, 10 + i, vec![(row(i as i64), 1)]))
            .unwrap();
    }
    (store, durable)
}

#[test]
fn logged_commits_survive_losing_what_redb_did_not_sync() {
    let dir = tempfile::tempdir().unwrap();
    let (store, durable) = logged_after_checkpoint(dir.path(), 20);
    assert!(store.wal.pending(), "the commits wait for a checkpoint");
    let log = read(dir.path(), wal::FILE_NAME);
    let restarted = crashed(&durable, &log);
    let mut again = RedbStore::open(restarted.path()).unwrap();
    assert_eq!(table(&mut again), rows(20));
    assert!(!again.wal.pending(), "applied again and checkpointed");
    // Restarted once more (its own log now empty), and written to: numbers go on.
    again.commit(&append(1, 100, vec![(row(20), 1)])).unwrap();
    drop(again);
    let mut third = RedbStore::open(restarted.path()).unwrap();
    assert_eq!(table(&mut third), rows(21));
    drop(store);
}

#[test]
fn a_torn_last_record_loses_only_that_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (store, durable) = logged_after_checkpoint(dir.path(), 20);
    let end = store.wal.end() as usize;
    let log = read(dir.path(), wal::FILE_NAME);
    // Each single-row record is a few dozen bytes: cuts inside the last one, and deeper.
    for cut in [1usize, 5, 17, 30, 200, 400] {
        let mut torn = log.clone();
        torn[end - cut..end].fill(0);
        if torn == log {
            continue; // the record ends in zeros
        }
        let got = restarted_table(&durable, &torn);
        assert!(got.len() < 20, "cut {cut}: the torn record is not applied");
        assert_eq!(
            got,
            rows(got.len() as i64),
            "cut {cut}: a prefix of the commits"
        );
        if cut <= 17 {
            assert_eq!(got.len(), 19, "cut {cut}: only the last commit is lost");
        }
    }
    // Damage inside a record (not zeros): its CRC refuses it, and what follows it.
    let mut flipped = log.clone();
    flipped[end - 3] ^= 0x40;
    assert_eq!(restarted_table(&durable, &flipped), rows(19));
    drop(store);
}

/// A record damaged in place, with whole records after it, is refused, not taken as the end.
#[test]
fn a_damaged_record_before_the_last_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (store, durable) = logged_after_checkpoint(dir.path(), 20);
    let log = read(dir.path(), wal::FILE_NAME);
    // The first record after the checkpoint starts the file; its body starts after 16 bytes
    // of length, CRC and number.
    let mut damaged = log.clone();
    damaged[21] ^= 0x01;
    let restarted = crashed(&durable, &damaged);
    let err = RedbStore::open(restarted.path())
        .err()
        .expect("damage refused");
    assert!(
        err.0.contains(wal::FILE_NAME) && err.0.contains("damaged"),
        "{err}"
    );
    drop(store);
}

#[test]
fn a_log_missing_records_or_missing_altogether_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = logged_after_checkpoint(dir.path(), 5);
    let log = read(dir.path(), wal::FILE_NAME);
    // redb as it was before its first commit: the log starts after records redb never held.
    let empty = tempfile::tempdir().unwrap();
    drop(RedbStore::open(empty.path()).unwrap());
    let restarted = crashed(&read(empty.path(), FILE_NAME), &log);
    let err = RedbStore::open(restarted.path())
        .err()
        .expect("a gap is refused");
    assert!(
        err.0.contains(wal::FILE_NAME) && err.0.contains("missing"),
        "{err}"
    );
    drop(store);
    // A store that has used its log, without the log.
    let lost = tempfile::tempdir().unwrap();
    std::fs::write(lost.path().join(FILE_NAME), read(dir.path(), FILE_NAME)).unwrap();
    let err = RedbStore::open(lost.path())
        .err()
        .expect("a missing log is refused");
    assert!(
        err.0.contains(wal::FILE_NAME) && err.0.contains("missing"),
        "{err}"
    );
}

/// A commit too large for the log goes to redb durably (a checkpoint), and a checkpoint is
/// due once records wait long enough; either way nothing is lost.
#[test]
fn large_commits_and_checkpoints_keep_everything() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = logged_after_checkpoint(dir.path(), 3);
    assert!(store.wal.pending());
    let big: Vec<(Row, i64)> = (1000..200_000).map(|i| (row(i), 1)).collect();
    store.commit(&append(1, 50, big.clone())).unwrap();
    assert!(!store.wal.pending(), "the large commit skipped the log");
    let durable = read(dir.path(), FILE_NAME);
    store.commit(&append(1, 51, vec![(row(3), 1)])).unwrap();
    let log = read(dir.path(), wal::FILE_NAME);
    let mut expected = rows(4);
    expected.extend(big);
    assert_eq!(restarted_table(&durable, &log), consolidate(expected));
    drop(store);
}
