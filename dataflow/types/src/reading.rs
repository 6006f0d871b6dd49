//! What a reader of an external source reports and hands over, as data: its state for
//! `kpg_sources` and a batch of decoded rows with the offsets they advance to. Serializable
//! because a source's partitions are spread over readers in every process of a cluster, and the
//! readers outside process 0 send both to process 0, which makes each batch durable (the
//! binding of its offsets to a timestamp) before any worker sees it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::datum::Row;

/// A reader's state, from the most urgent (`Failed`) to the least (`Finished`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ReaderState {
    /// Records it needs are gone for good; it keeps what it read and reads the other
    /// partitions on.
    Failed,
    /// The transport is unreachable; it retries.
    Stalled,
    #[default]
    Starting,
    Running,
    /// Everything there will ever be has been read (a file without TAIL).
    Finished,
}

impl ReaderState {
    pub fn as_str(self) -> &'static str {
        match self {
            ReaderState::Failed => "failed",
            ReaderState::Stalled => "stalled",
            ReaderState::Starting => "starting",
            ReaderState::Running => "running",
            ReaderState::Finished => "finished",
        }
    }
}

/// What `kpg_sources` shows about one reader of an external source.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReaderStatus {
    pub state: ReaderState,
    pub last_error: Option<String>,
    pub records: u64,
    pub bytes: u64,
    pub errors: u64,
    /// Per partition: the next offset to read and the high watermark (when known).
    pub partitions: BTreeMap<i32, (i64, Option<i64>)>,
}

/// A batch of records decoded by a reader with `ENVELOPE NONE`: each record's row, or why it
/// could not be decoded, and each partition's next offset after them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareBatch {
    pub rows: Vec<Row>,
    /// `(partition, offset, reason)` of each record that could not be decoded.
    pub errors: Vec<(i32, i64, String)>,
    /// The next offset of every partition the reader reads, after this batch.
    pub positions: BTreeMap<i32, i64>,
    /// Records and bytes (keys and values) the batch was decoded from.
    pub records: u64,
    pub bytes: u64,
}
