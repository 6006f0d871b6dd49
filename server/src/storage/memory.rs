//! A store that keeps everything in memory: what `Store` means, in the fewest lines. The unit
//! tests of the committer run on it, and it is the model a shared store (an object store for
//! the updates, a consensus service for the catalog and the counters) must behave like.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use kpg_types::{GlobalId, Row};

use super::{consolidate, CatalogOp, CatalogRecord, Commit, Meta, Snapshot, Store, StoreError};

#[derive(Default)]
struct Contents {
    catalog: BTreeMap<GlobalId, CatalogRecord>,
    updates: BTreeMap<GlobalId, Vec<(Row, i64)>>,
    offsets: BTreeMap<GlobalId, BTreeMap<i32, i64>>,
    meta: Meta,
    commits: usize,
}

/// Cloning shares the contents, so a test can look at what a committer wrote.
#[derive(Clone, Default)]
pub struct MemoryStore(Arc<Mutex<Contents>>);

impl MemoryStore {
    /// How many commits (transactions) were applied.
    pub fn commits(&self) -> usize {
        self.0.lock().expect("memory store").commits
    }
}

impl Store for MemoryStore {
    fn load(&mut self) -> Result<Snapshot, StoreError> {
        let c = self.0.lock().expect("memory store");
        Ok(Snapshot {
            records: c.catalog.values().cloned().collect(),
            tables: c
                .updates
                .iter()
                .filter(|(t, _)| c.catalog.values().any(|r| r.ids.contains(t)))
                .map(|(t, rows)| (*t, consolidate(rows.clone())))
                .collect(),
            offsets: c.offsets.clone(),
            errors: Vec::new(),
            meta: c.meta,
        })
    }

    fn commit(&mut self, commit: &Commit) -> Result<(), StoreError> {
        let mut c = self.0.lock().expect("memory store");
        for op in &commit.catalog {
            match op {
                CatalogOp::Put(record) => {
                    c.catalog.insert(record.key, record.clone());
                }
                CatalogOp::Delete(key) => {
                    c.catalog.remove(key);
                }
                CatalogOp::DropTableData(table) => {
                    c.updates.remove(table);
                    c.offsets.remove(table);
                }
            }
        }
        for (source, partition, next) in &commit.offsets {
            c.offsets
                .entry(*source)
                .or_default()
                .insert(*partition, *next);
        }
        for append in &commit.appends {
            c.updates
                .entry(append.table)
                .or_default()
                .extend(append.updates.iter().cloned());
        }
        c.meta = c.meta.join(commit.meta);
        c.commits += 1;
        Ok(())
    }

    fn compact(&mut self, _max_rows: usize) -> Result<bool, StoreError> {
        let mut c = self.0.lock().expect("memory store");
        for rows in c.updates.values_mut() {
            *rows = consolidate(std::mem::take(rows));
        }
        Ok(false)
    }
}
