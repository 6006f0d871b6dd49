//! Peeks handed straight to the workers of this process, beside the command stream.
//!
//! A `Command::PeekTrace` enters on worker 0, is broadcast by timely to every worker, and each
//! worker's answer goes back through the coordinator's response channel: for a point lookup
//! that is four thread wake-ups (worker 0, every other worker, the coordinator's dispatcher, the
//! waiting session) around a microsecond of reading. A direct peek goes from the caller to the
//! workers' own channels and each worker answers through the peek's `reply`: two wake-ups.
//!
//! Ordering is what makes it equivalent to the sequenced command. The handle counts the commands
//! it has sent (`ComputeHandle::send`, under one lock with the count), and a direct peek carries
//! that count (`after`): a worker starts it only once it has applied that many commands, so the
//! peek sees exactly the catalog of traces, compaction frontiers and table inputs it would have
//! seen had it been sent as a command at that moment. From there it is the same `PendingPeek`:
//! it waits until its traces are complete at its timestamp, then reads.
//!
//! Only where every worker lives in this process (`timely::Config::process`); a cluster of
//! several processes sequences every peek through the command stream.

use std::sync::Arc;

use kpg_types::command::PeekTarget;
use kpg_types::{EvalError, Row, ScalarExpr};

/// One worker's share of a peek: its rows with multiplicities, or the error the collection held.
pub type PeekShare = Result<Vec<(Row, i64)>, EvalError>;

/// Called once by each worker a direct peek was given to, on that worker's thread, with the
/// worker's index and its share. It must not block.
pub type PeekReply = Arc<dyn Fn(usize, PeekShare) + Send + Sync>;

/// What a direct peek reads: the fields of `Command::PeekTrace`.
pub struct PeekRequest {
    pub peek_id: u64,
    pub target: PeekTarget,
    pub timestamp: u64,
    pub predicates: Vec<ScalarExpr>,
    pub projection: Option<Vec<usize>>,
}

/// A direct peek as a worker receives it.
pub(crate) struct DirectPeek {
    /// The number of commands sent before the peek: the worker starts it once it has applied
    /// that many.
    pub after: u64,
    pub request: PeekRequest,
    pub reply: PeekReply,
}
