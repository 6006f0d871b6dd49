//! How a read straight from an arrangement reaches the workers: lookups of index keys go to
//! the workers directly (`kpg_compute`'s direct peeks), with their answers gathered here rather
//! than by the dispatcher; other reads (scans, which may return many rows) and every read in a
//! cluster of several processes go as a `Command::PeekTrace` through the command stream.
//!
//! Both are the same read: it is registered in `State::peeks` under the state lock with the
//! timestamp the oracle chose (so compaction waits for it), the runtime starts it after every
//! command sent before it, and each worker answers once its shard is complete at that
//! timestamp. A direct peek only skips the hand-offs: worker 0's broadcast of the command and
//! the dispatcher thread between the workers' answers and the waiting session.
//!
//! A lookup of one key in an index that can hold no errors goes to the one worker whose shard
//! holds that key (`ComputeHandle::key_worker`): the other workers' shards hold neither rows
//! nor errors for it. An index may hold errors when its key expressions or the collection it
//! indexes can fail, so only indexes of tables keyed by plain columns qualify (a table holds
//! rows only); every other lookup asks every worker, each answering for its shard.
//!
//! The session waits for a direct peek's answer on its own core for a moment (`answer`)
//! before it sleeps: a worker answers a lookup within tens of microseconds, and a thread put
//! to sleep and woken again costs about as much — a quarter of a lookup's time over loopback.
//! The worker, for its part, keeps stepping for a moment after a direct peek instead of parking
//! (`kpg_compute`'s worker loop), so the next lookup of a client finds it awake.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kpg_compute::{PeekReply, PeekRequest, PeekShare};
use kpg_types::command::{Command, PeekTarget};
use kpg_types::{EvalError, Row};
use tokio::sync::oneshot;

use super::{Coordinator, PeekResult, State};

/// How long the session waits for a direct peek's answer without sleeping.
const SPIN: Duration = Duration::from_micros(200);

/// The answer `rx` brings: looked for, yielding the core between looks, for up to `SPIN`,
/// then awaited as usual (a lookup behind a busy worker, a scan of many rows).
pub(super) async fn answer<T>(
    mut rx: oneshot::Receiver<T>,
) -> Result<T, oneshot::error::RecvError> {
    let started = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(value) => return Ok(value),
            Err(oneshot::error::TryRecvError::Empty) if started.elapsed() < SPIN => {
                std::thread::yield_now()
            }
            // Waited long enough, or abandoned (the await says so at once).
            Err(_) => return rx.await,
        }
    }
}

/// The workers' shares of a direct peek, until the last one arrives.
struct Gather {
    remaining: usize,
    rows: Vec<(Row, i64)>,
    error: Option<EvalError>,
    tx: Option<oneshot::Sender<PeekResult>>,
}

impl Gather {
    fn add(&mut self, share: PeekShare) {
        match share {
            Ok(rows) => self.rows.extend(rows),
            Err(e) => self.error = self.error.take().or(Some(e)),
        }
        self.remaining = self.remaining.saturating_sub(1);
        if self.remaining > 0 {
            return;
        }
        let result = match self.error.take() {
            Some(e) => Err(e),
            None => Ok(crate::storage::consolidate(std::mem::take(&mut self.rows))),
        };
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(result);
        }
    }
}

impl Coordinator {
    /// Sends the read `request`, registered in `state.peeks` under its id (see `read`), to the
    /// workers: directly if it looks up index keys and the runtime allows, else as a command.
    pub(super) fn send_peek(&self, state: &mut State, request: PeekRequest) {
        let lookup = matches!(request.target, PeekTarget::Index { keys: Some(_), .. });
        let tx = match lookup && self.compute.direct_peeks() {
            true => state
                .peeks
                .get_mut(&request.peek_id)
                .and_then(|p| p.tx.take()),
            false => None,
        };
        let Some(tx) = tx else {
            self.compute.send(Command::PeekTrace {
                peek_id: request.peek_id,
                target: request.target,
                timestamp: request.timestamp,
                predicates: request.predicates,
                projection: request.projection,
            });
            return;
        };
        let only = match &request.target {
            PeekTarget::Index {
                id,
                keys: Some(keys),
            } if keys.len() == 1 && holds_no_errors(state, *id) => {
                Some(self.compute.key_worker(&keys[0]))
            }
            _ => None,
        };
        let gather = Mutex::new(Gather {
            remaining: match only {
                Some(_) => 1,
                None => self.compute.workers(),
            },
            rows: Vec::new(),
            error: None,
            tx: Some(tx),
        });
        let reply: PeekReply =
            Arc::new(move |_worker, share| gather.lock().expect("peek shares").add(share));
        if self.compute.peek_direct(request, reply, only).is_err() {
            // Not reached (`direct_peeks` said yes); the reader sees the peek abandoned.
            tracing::error!("a direct peek was refused by the runtime");
        }
    }
}

/// Whether index `id` can hold no errors: it indexes a table by plain columns.
fn holds_no_errors(state: &State, id: kpg_types::GlobalId) -> bool {
    let Some(index) = state.catalog.index(id) else {
        return false;
    };
    state.catalog.kind(index.on) == Some(crate::catalog::Kind::Table)
        && index
            .key
            .iter()
            .all(|e| matches!(e, kpg_types::ScalarExpr::Column(_)))
}
