//! The command and response protocol between the coordinator and the compute workers.
//!
//! The coordinator is the only writer: it sends `Command`s, which reach every worker in the same
//! order (the runtime sequences them through timely), and it receives `Response`s from each
//! worker. Commands are data (serializable) so that the same protocol works when workers live in
//! several processes.

use crate::datum::Row;
use crate::error::EvalError;
use crate::expr::ScalarExpr;
use crate::external::ExternalSourceDesc;
use crate::plan::{DataflowDescription, GlobalId};
use crate::reading::{ReaderStatus, ShareBatch};
use crate::source::SourceDesc;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Identifies an installed dataflow.
pub type DataflowId = u64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// Create the input and the arrangement of a table, empty, readable from `since` on.
    CreateTable { id: GlobalId, since: u64 },
    /// Start the source `id`: generate its snapshot at `since`, then follow the tables' time
    /// (its changes at each tick become readable as `AdvanceTables` passes the tick's time).
    /// A source resumed after a restart has already made `resume_after` ticks: their changes
    /// are part of its snapshot, and its next tick is the one after them.
    CreateSource {
        id: GlobalId,
        since: u64,
        desc: SourceDesc,
        resume_after: u64,
    },
    /// Add updates to a table at `time` (which no earlier `AdvanceTables` has passed).
    Append {
        id: GlobalId,
        time: u64,
        updates: Vec<(Row, i64)>,
    },
    /// Close every table's input for times before `time`: their contents up to it are final.
    AdvanceTables { time: u64 },
    /// Build a dataflow.
    CreateDataflow {
        id: DataflowId,
        desc: DataflowDescription,
    },
    /// Tear down a dataflow (transient reads, subscriptions, dropped views).
    DropDataflow { id: DataflowId },
    /// Forget the arrangement exported under `id` (a dropped table or view); dataflows still
    /// reading it keep their own handles.
    DropCollection { id: GlobalId },
    /// Answer a read straight from an existing arrangement, with no dataflow: each worker waits
    /// until its shard is complete at `timestamp`, then answers with the rows that pass
    /// `predicates`, projected to `projection`.
    PeekTrace {
        peek_id: u64,
        target: PeekTarget,
        timestamp: u64,
        predicates: Vec<ScalarExpr>,
        projection: Option<Vec<usize>>,
    },
    /// Allow the arrangement of `id` to compact history before `since`.
    AllowCompaction { id: GlobalId, since: u64 },
    /// Report this worker's arrangements and dataflows (for `kpg_arrangements` and
    /// `kpg_dataflows`).
    Introspect { request_id: u64 },
    /// Worker `share` (in a process other than 0) starts reading share `share` of `count` of
    /// external source `id`'s partitions (those numbered `share` modulo `count`) from `start`:
    /// a reader thread in its process decodes the records with `ENVELOPE NONE` into rows
    /// (`not_null`: the columns that may not be NULL, with their names) and sends each batch to
    /// the coordinator (`Response::SourceBatch`), one at a time.
    ReadShare {
        id: GlobalId,
        share: u32,
        count: u32,
        desc: ExternalSourceDesc,
        not_null: Vec<(usize, String)>,
        start: BTreeMap<i32, i64>,
    },
    /// The coordinator has taken share `share`'s last batch into a commit: its reader may send
    /// the next.
    ShareTaken { id: GlobalId, share: u32 },
    /// Stop the readers of source `id` that run in the processes other than 0.
    StopShares { id: GlobalId },
}

/// One worker's shard of one arrangement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrangementInfo {
    /// The catalog object it is exported as (a table's or materialized view's rows, an index),
    /// or the dataflow that built it for its own use.
    pub owner: u64,
    /// What it holds, unique within its owner: `rows`, `errors`, `1 join input` ...
    pub name: String,
    /// What it is keyed by, as expression text (`#n` are the arranged rows' columns).
    pub key: String,
    pub records: u64,
    pub batches: u64,
    pub bytes: u64,
    /// Dataflows importing it now (the sharing count).
    pub readers: u64,
}

/// One worker's view of one installed dataflow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataflowInfo {
    pub id: DataflowId,
    /// Milliseconds from installation until its result was complete at its `as_of` on this
    /// worker, if it has been.
    pub hydration_ms: Option<f64>,
}

/// Which arrangement a `PeekTrace` reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PeekTarget {
    /// The arrangement of a table or materialized view, keyed by the whole row.
    Collection(GlobalId),
    /// An index (keyed by its key expressions); `keys` restricts the read to those key values.
    Index {
        id: GlobalId,
        keys: Option<Vec<Row>>,
    },
    /// The rows of table `id` as stored, each ending with its position, whose other columns
    /// are one of `rows`: how UPDATE and DELETE learn the positions of rows an index found.
    StoredRows { id: GlobalId, rows: Vec<Row> },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// One worker's share of a peek: its rows with multiplicities at the peek time, or the error
    /// the collection held at that time.
    PeekResult {
        peek_id: u64,
        worker: usize,
        result: Result<Vec<(Row, i64)>, EvalError>,
    },
    /// One worker's changes of a subscription at times before `upper`, and that it will send
    /// nothing more before `upper`. An empty `upper` means the subscription is complete.
    SubscribeBatch {
        subscribe_id: u64,
        worker: usize,
        updates: Vec<(Row, u64, i64)>,
        errors: Vec<EvalError>,
        upper: Option<u64>,
    },
    /// A reader of share `share` of source `id` (in a process other than 0): its status, and
    /// with `batch` the next batch of decoded records, which the coordinator commits with
    /// its offsets and acknowledges with `Command::ShareTaken`.
    SourceBatch {
        id: GlobalId,
        share: u32,
        batch: Option<ShareBatch>,
        status: ReaderStatus,
    },
    /// A worker finished building the dataflow.
    DataflowInstalled { id: DataflowId, worker: usize },
    /// One worker's answer to `Introspect`.
    Introspection {
        request_id: u64,
        worker: usize,
        arrangements: Vec<ArrangementInfo>,
        dataflows: Vec<DataflowInfo>,
    },
}
