//! Sinks: how a dataflow's result leaves the workers for the coordinator.
//!
//! - A peek sink accumulates the result at one timestamp and answers once its input frontier has
//!   passed that timestamp (the result is then final on this worker).
//! - A subscribe sink reports, each time its input frontier advances, the changes at the times
//!   that just became complete, together with the new frontier. The coordinator merges the
//!   workers' reports and emits a time only when every worker has passed it, so clients see
//!   changes in timestamp order.

use crossbeam_channel::Sender;
use kpg_engine::operators::arrange::hash_key;
use kpg_engine::{consolidate, consolidate_updates};
use kpg_types::command::Response;
use kpg_types::{EvalError, Row};
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::core::Exchange;
use timely::dataflow::operators::generic::operator::Operator;

use crate::typedefs::{Errs, Oks};

type Outcome = Result<Row, EvalError>;

/// The rows and the errors as one collection. Equal errors are sent to one worker first: an
/// error and its retraction raised on different workers (a grouping set's row over no input,
/// made on one worker and retracted by the group's row on another) must cancel in the sink's
/// consolidation, which is per worker.
fn combine<'s>(oks: Oks<'s>, errs: Errs<'s>) -> kpg_engine::Collection<'s, u64, Outcome, i64> {
    let errs = kpg_engine::Collection::new(errs.inner.exchange(|(e, _, _)| hash_key(e)));
    oks.map(Ok).concat(errs.map(Err))
}

/// Answers a peek at `timestamp` with this worker's share of the result.
pub fn peek_sink(
    oks: Oks<'_>,
    errs: Errs<'_>,
    peek_id: u64,
    timestamp: u64,
    responses: Sender<Response>,
) {
    let worker = oks.scope().index();
    let mut buffer: Vec<(Outcome, i64)> = Vec::new();
    let mut answered = false;
    combine(oks, errs)
        .inner
        .sink(Pipeline, "PeekSink", move |(input, frontier)| {
            input.for_each(|_cap, data| {
                buffer.extend(
                    data.drain(..)
                        .filter(|(_, t, _)| *t <= timestamp)
                        .map(|(d, _, r)| (d, r)),
                );
            });
            if !answered && !frontier.less_equal(&timestamp) {
                answered = true;
                consolidate(&mut buffer);
                let mut rows = Vec::with_capacity(buffer.len());
                let mut error = None;
                for (outcome, diff) in buffer.drain(..) {
                    match outcome {
                        Ok(row) => rows.push((row, diff)),
                        Err(e) if diff > 0 => error = error.or(Some(e)),
                        Err(_) => {}
                    }
                }
                let result = match error {
                    Some(e) => Err(e),
                    None => Ok(rows),
                };
                // The coordinator may have given up on the peek; nothing to do then.
                let _ = responses.send(Response::PeekResult {
                    peek_id,
                    worker,
                    result,
                });
            }
        });
}

/// Streams every change of the result to the coordinator, in batches closed by frontiers.
pub fn subscribe_sink(
    oks: Oks<'_>,
    errs: Errs<'_>,
    subscribe_id: u64,
    responses: Sender<Response>,
) {
    let worker = oks.scope().index();
    let mut pending: Vec<(Outcome, u64, i64)> = Vec::new();
    let mut reported: Option<Option<u64>> = None;
    combine(oks, errs)
        .inner
        .sink(Pipeline, "SubscribeSink", move |(input, frontier)| {
            input.for_each(|_cap, data| pending.append(data));
            let upper = frontier.frontier().first().copied();
            if reported == Some(upper) {
                return;
            }
            reported = Some(upper);
            let complete = |t: &u64| upper.is_none_or(|u| *t < u);
            let (mut ready, rest): (Vec<_>, Vec<_>) =
                pending.drain(..).partition(|(_, t, _)| complete(t));
            pending = rest;
            consolidate_updates(&mut ready);
            let mut updates = Vec::with_capacity(ready.len());
            let mut errors = Vec::new();
            for (outcome, time, diff) in ready {
                match outcome {
                    Ok(row) => updates.push((row, time, diff)),
                    Err(e) if diff > 0 => errors.push(e),
                    Err(_) => {}
                }
            }
            let _ = responses.send(Response::SubscribeBatch {
                subscribe_id,
                worker,
                updates,
                errors,
                upper,
            });
        });
}
