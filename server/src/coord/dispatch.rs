//! Routes worker responses to the reads waiting for them.
//!
//! A peek completes when every worker has answered; its rows are the sum of the workers' shares.
//! A subscription's changes are released in timestamp order: a time is emitted only once every
//! worker's reported frontier has passed it, because until then another worker may still hold
//! changes at that time.

use std::sync::Arc;

use kpg_sql::SubscribeOptions;
use kpg_types::command::Response;
use kpg_types::Row;
use tokio::sync::mpsc;

use super::{Coordinator, SubscribeEvent};

/// What the coordinator tracks for one subscription.
pub(super) struct SubscribeState {
    /// Each worker's reported frontier; `None` inside means that worker is complete.
    uppers: Vec<Option<Option<u64>>>,
    pending: Vec<(Row, u64, i64)>,
    tx: mpsc::UnboundedSender<SubscribeEvent>,
    /// The start time: changes at it are the snapshot.
    as_of: u64,
    options: SubscribeOptions,
    /// The last frontier reported as progress.
    progressed: u64,
}

impl SubscribeState {
    pub(super) fn new(
        workers: usize,
        tx: mpsc::UnboundedSender<SubscribeEvent>,
        as_of: u64,
        options: SubscribeOptions,
    ) -> Self {
        SubscribeState {
            uppers: vec![Some(Some(0)); workers],
            pending: Vec::new(),
            tx,
            as_of,
            options,
            progressed: 0,
        }
    }

    /// The least frontier over all workers, `None` when all are complete.
    fn frontier(&self) -> Option<u64> {
        self.uppers.iter().filter_map(|u| u.flatten()).min()
    }
}

/// Starts the thread that receives worker responses.
pub(super) fn spawn_dispatcher(coord: Arc<Coordinator>) {
    let responses = coord.compute.responses.clone();
    let weak = Arc::downgrade(&coord);
    drop(coord);
    std::thread::Builder::new()
        .name("kpg-dispatch".into())
        .spawn(move || {
            while let Ok(response) = responses.recv() {
                let Some(coord) = weak.upgrade() else { return };
                coord.dispatch(response);
            }
        })
        .expect("spawn dispatcher thread");
}

impl Coordinator {
    fn dispatch(&self, response: Response) {
        let mut state = self.lock();
        match response {
            Response::PeekResult {
                peek_id, result, ..
            } => {
                let Some(peek) = state.peeks.get_mut(&peek_id) else {
                    return;
                };
                match result {
                    Ok(rows) => peek.rows.extend(rows),
                    Err(e) => peek.error = peek.error.take().or(Some(e)),
                }
                peek.remaining -= 1;
                if peek.remaining == 0 {
                    let mut peek = state.peeks.remove(&peek_id).expect("present");
                    let result = match peek.error.take() {
                        Some(e) => Err(e),
                        None => Ok(crate::storage::consolidate(std::mem::take(&mut peek.rows))),
                    };
                    if let Some(tx) = peek.tx.take() {
                        let _ = tx.send(result);
                    }
                }
            }
            Response::SubscribeBatch {
                subscribe_id,
                worker,
                updates,
                errors,
                upper,
            } => {
                let Some(sub) = state.subscribes.get_mut(&subscribe_id) else {
                    return;
                };
                if let Some(e) = errors.into_iter().next() {
                    let _ = sub.tx.send(SubscribeEvent::Error(e));
                    return;
                }
                sub.pending.extend(updates);
                sub.uppers[worker] = Some(upper);
                let frontier = sub.frontier();
                let (mut ready, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut sub.pending)
                    .into_iter()
                    .partition(|(_, t, _)| frontier.is_none_or(|f| *t < f));
                sub.pending = rest;
                let (as_of, snapshot, up_to) = (sub.as_of, sub.options.snapshot, sub.options.up_to);
                ready.retain(|(_, t, _)| (snapshot || *t > as_of) && up_to.is_none_or(|u| *t < u));
                ready.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
                let mut out: Vec<(u64, i64, Row)> = Vec::with_capacity(ready.len());
                for (row, time, diff) in ready {
                    match out.last_mut() {
                        Some((t, d, r)) if *t == time && *r == row => *d += diff,
                        _ => out.push((time, diff, row)),
                    }
                }
                out.retain(|(_, d, _)| *d != 0);
                if !out.is_empty() && sub.tx.send(SubscribeEvent::Updates(out)).is_err() {
                    tracing::debug!(subscribe_id, "subscriber went away");
                }
                // Progress is reported from the start time on, once per advance.
                if let Some(f) = frontier {
                    if sub.options.progress && f > sub.progressed && f > as_of {
                        sub.progressed = f;
                        let _ = sub.tx.send(SubscribeEvent::Progress(f));
                    }
                }
                // UP TO: once nothing before it can change, the subscription is over (dropping
                // its sender ends the stream).
                if up_to.is_some_and(|u| frontier.is_none_or(|f| f >= u)) {
                    state.subscribes.remove(&subscribe_id);
                }
            }
            Response::DataflowInstalled { .. } => {}
            Response::SourceBatch {
                id,
                share,
                batch,
                status,
            } => {
                // To the thread that commits this share's batches (none once dropped).
                if let Some(tx) = state.shares.get(&(id, share)) {
                    let _ = tx.send((batch, status));
                }
            }
            Response::Introspection {
                request_id,
                arrangements,
                dataflows,
                ..
            } => {
                let Some(pending) = state.introspections.get_mut(&request_id) else {
                    return;
                };
                pending.figures.add(arrangements, dataflows);
                pending.remaining -= 1;
                if pending.remaining == 0 {
                    let mut done = state.introspections.remove(&request_id).expect("present");
                    if let Some(tx) = done.tx.take() {
                        let _ = tx.send(done.figures);
                    }
                }
            }
        }
    }
}
