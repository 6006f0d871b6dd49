//! The progress relation of a Kafka source (`<source>_progress`, as Materialize's progress
//! subsource): one row per partition, `(partition, "offset")`, the next offset to read — the
//! binding of offsets to kpg timestamps. It is a collection of its own, written in the same
//! commit as the batch it describes, so at every timestamp it holds exactly the offsets the
//! source's contents at that timestamp were read up to; it is durable with them and dropped
//! with the source.

use std::collections::BTreeMap;

use kpg_types::{Datum, GlobalId, RelationDesc, Row, ScalarType};

use super::introspection::column;

/// The progress relation's columns.
pub(super) fn progress_desc() -> RelationDesc {
    RelationDesc::new(vec![
        column("partition", ScalarType::Int32, false),
        column("offset", ScalarType::Int64, false),
    ])
}

/// The name of a source's progress relation.
pub(super) fn progress_name(source: &str) -> String {
    format!("{source}_progress")
}

/// A reader's view of its progress relation: each partition's row, as stored (with its
/// position), so that the next binding can retract it.
pub(super) struct Progress {
    pub id: GlobalId,
    rows: BTreeMap<i32, Row>,
}

impl Progress {
    pub fn new(id: GlobalId) -> Progress {
        Progress {
            id,
            rows: BTreeMap::new(),
        }
    }

    /// Takes the rows read back from the stored relation (after a restart).
    pub fn load(&mut self, rows: Vec<(Row, i64)>) {
        for (row, _) in rows {
            if let Datum::Int32(p) = row.datums()[0] {
                self.rows.insert(p, row);
            }
        }
    }

    /// The updates that move the partitions in `offsets` to their new next offsets.
    pub fn updates(&self, offsets: &[(GlobalId, i32, i64)]) -> Vec<(Row, i64)> {
        let mut out = Vec::new();
        for (_, p, o) in offsets {
            if let Some(old) = self.rows.get(p) {
                out.push((old.clone(), -1));
            }
            out.push((Row::new(vec![Datum::Int32(*p), Datum::Int64(*o)]), 1));
        }
        out
    }

    /// Keeps the rows as stored: `added` are the inserted rows of `updates`, in order.
    pub fn committed(&mut self, added: &[Row]) {
        for row in added {
            if let Datum::Int32(p) = row.datums()[0] {
                self.rows.insert(p, row.clone());
            }
        }
    }
}
