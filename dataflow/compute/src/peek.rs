//! Peeks answered straight from arrangements, with no dataflow (the fast path for reads).
//!
//! A pending peek holds its own handles on the traces it reads, so a concurrent DROP cannot pull
//! the data from under it. Each time the worker has stepped, pending peeks whose traces are
//! complete at their timestamp read their shard through a cursor (or seek the requested keys of
//! an index), apply the predicates and projection, and answer the coordinator (or, for a direct
//! peek, whoever asked: `direct.rs`).

use crossbeam_channel::Sender;
use kpg_engine::{Semigroup, TraceAgent};
use kpg_types::command::{PeekTarget, Response};
use kpg_types::{MapFilterProject, Row, ScalarExpr};

use crate::direct::{PeekReply, PeekRequest, PeekShare};
use crate::trace_catalog::TraceCatalog;
use crate::typedefs::{ErrTrace, KeyedTrace, RowTrace};

enum Source {
    Collection(RowTrace),
    Index(KeyedTrace, Option<Vec<Row>>),
    /// A table's arrangement, and the rows (without positions) to find in it.
    Stored(RowTrace, Vec<Row>),
}

/// Where a peek's answer goes.
pub enum Reply {
    /// The coordinator's response channel (`Response::PeekResult`).
    Coordinator,
    /// The reply of a direct peek.
    Direct(PeekReply),
}

impl Reply {
    /// Sends this worker's share of peek `peek_id`.
    pub fn send(
        &self,
        peek_id: u64,
        worker: usize,
        result: PeekShare,
        responses: &Sender<Response>,
    ) {
        match self {
            Reply::Coordinator => {
                let _ = responses.send(Response::PeekResult {
                    peek_id,
                    worker,
                    result,
                });
            }
            Reply::Direct(reply) => reply(worker, result),
        }
    }
}

pub struct PendingPeek {
    peek_id: u64,
    /// The index or collection read (a drop of it fails the peek if it is still incomplete).
    target: kpg_types::GlobalId,
    reply: Reply,
    timestamp: u64,
    source: Source,
    errs: Option<ErrTrace>,
    predicates: Vec<ScalarExpr>,
    projection: Option<Vec<usize>>,
}

impl PendingPeek {
    /// Prepares a peek; gives back its id and reply if the target is unknown (the coordinator
    /// only peeks objects that exist, so this is a dropped object's race: it answers no rows).
    pub fn new(
        request: PeekRequest,
        reply: Reply,
        traces: &TraceCatalog,
    ) -> Result<Self, (u64, Reply)> {
        let PeekRequest {
            peek_id,
            target,
            timestamp,
            predicates,
            projection,
        } = request;
        let target_id = match &target {
            PeekTarget::Collection(id)
            | PeekTarget::Index { id, .. }
            | PeekTarget::StoredRows { id, .. } => *id,
        };
        let Some((source, errs)) = Self::source(target, traces) else {
            return Err((peek_id, reply));
        };
        Ok(PendingPeek {
            peek_id,
            target: target_id,
            reply,
            timestamp,
            source,
            errs,
            predicates,
            projection,
        })
    }

    /// The traces `target` reads, with handles of their own.
    fn source(target: PeekTarget, traces: &TraceCatalog) -> Option<(Source, Option<ErrTrace>)> {
        Some(match target {
            PeekTarget::Collection(id) => {
                let c = traces.collections.get(&id)?;
                (Source::Collection(c.oks.clone()), c.errs.clone())
            }
            PeekTarget::Index { id, keys } => {
                let i = traces.indexes.get(&id)?;
                let mut keys = keys;
                if let Some(keys) = &mut keys {
                    keys.sort();
                    keys.dedup();
                }
                (Source::Index(i.oks.clone(), keys), Some(i.errs.clone()))
            }
            PeekTarget::StoredRows { id, mut rows } => {
                let c = traces.collections.get(&id)?;
                rows.sort();
                rows.dedup();
                (Source::Stored(c.oks.clone(), rows), None)
            }
        })
    }

    /// Answers the peek if its traces are complete at its timestamp; returns whether it did.
    pub fn try_answer(&mut self, worker: usize, responses: &Sender<Response>) -> bool {
        let t = self.timestamp;
        if !complete(&self.source, self.errs.as_ref(), t) {
            return false;
        }
        let result = self.read();
        self.reply.send(self.peek_id, worker, result, responses);
        true
    }

    /// After `dropped` was dropped on this worker: a peek of it whose data is not complete at
    /// its timestamp never will be (the dataflow that advanced it is gone), so it fails now
    /// instead of waiting forever (and holding back compaction). Returns whether it answered.
    pub fn fail_if_dropped(
        &mut self,
        dropped: kpg_types::GlobalId,
        worker: usize,
        responses: &Sender<Response>,
    ) -> bool {
        if self.target != dropped || complete(&self.source, self.errs.as_ref(), self.timestamp) {
            return false;
        }
        let result = Err(kpg_types::EvalError::ReadTargetDropped);
        self.reply.send(self.peek_id, worker, result, responses);
        true
    }

    fn read(&mut self) -> PeekShare {
        let t = self.timestamp;
        if let Some(errs) = &mut self.errs {
            if let Some((e, _, _)) = errs.read_at(&t).into_iter().find(|(_, _, n)| *n > 0) {
                return Err(e);
            }
        }
        if let Some(counts) = self.counts(t) {
            return Ok(counts);
        }
        let mut rows = Vec::new();
        match &mut self.source {
            Source::Collection(trace) => {
                for (row, (), n) in trace.read_at(&t) {
                    rows.push((row, n));
                }
            }
            Source::Index(trace, None) => {
                for (_key, row, n) in trace.read_at(&t) {
                    rows.push((row, n));
                }
            }
            Source::Stored(trace, prefixes) => {
                // A stored row sorts right after its columns without the position, next to the
                // other copies of those columns: seek there and read while they match.
                let mut cursor = trace.cursor();
                for prefix in prefixes.iter() {
                    cursor.seek_key(prefix);
                    while cursor.key_valid() && cursor.key().starts_with(prefix) {
                        if let Some(n) = sum_at(&cursor, t) {
                            rows.push((cursor.key().clone(), n));
                        }
                        cursor.step_key();
                    }
                }
            }
            Source::Index(trace, Some(keys)) => {
                let mut cursor = trace.cursor();
                for key in keys.iter() {
                    // Index keys are canonical (`render::keyed_rows`): `3.00` finds `3`.
                    let canonical = key.canonical();
                    let key = canonical.as_ref().unwrap_or(key);
                    cursor.seek_key(key);
                    if !cursor.key_valid() || cursor.key() != key {
                        continue;
                    }
                    while cursor.val_valid() {
                        if let Some(n) = sum_at(&cursor, t) {
                            rows.push((cursor.val().clone(), n));
                        }
                        cursor.step_val();
                    }
                }
            }
        }
        // Predicates then projection, fused: a row is read in place, not unpacked.
        let mut mfp = MapFilterProject::new().filter(self.predicates.clone());
        if let Some(p) = &self.projection {
            mfp = mfp.project(p.clone());
        }
        let mut out = Vec::with_capacity(rows.len());
        for (row, n) in rows {
            if let Some(row) = mfp.apply(row) {
                out.push((row?, n));
            }
        }
        Ok(out)
    }

    /// A read of every row projected to no column and not filtered (the coordinator's
    /// `count(*)`): every row is the empty row, so the multiplicities are added up in place,
    /// the positive and the negative ones apart (as the rows they stand for would be counted),
    /// instead of every row being copied out. `None` for any other read.
    fn counts(&mut self, t: u64) -> Option<Vec<(Row, i64)>> {
        if !self.predicates.is_empty() || self.projection.as_ref().is_none_or(|p| !p.is_empty()) {
            return None;
        }
        let (mut positive, mut negative) = (0i64, 0i64);
        let mut add = |n: i64| match n > 0 {
            true => positive += n,
            false => negative += n,
        };
        match &mut self.source {
            Source::Collection(trace) => trace.for_each_at(&t, |_, _, n| add(n)),
            Source::Index(trace, None) => trace.for_each_at(&t, |_, _, n| add(n)),
            Source::Index(_, Some(_)) | Source::Stored(..) => return None,
        }
        Some(
            [positive, negative]
                .into_iter()
                .filter(|n| *n != 0)
                .map(|n| (Row::new(Vec::new()), n))
                .collect(),
        )
    }
}

/// The multiplicity at `t` of the cursor's current (key, val), if not zero.
fn sum_at<K: kpg_engine::Data, V: kpg_engine::Data>(
    cursor: &kpg_engine::TraceCursor<K, V, u64, i64>,
    t: u64,
) -> Option<i64> {
    let mut sum: Option<i64> = None;
    cursor.map_times(|time, n| {
        if *time <= t {
            match &mut sum {
                Some(s) => s.plus_equals(n),
                None => sum = Some(*n),
            }
        }
    });
    sum.filter(|n| *n != 0)
}

fn is_complete<K: kpg_engine::Data, V: kpg_engine::Data>(
    trace: &TraceAgent<K, V, u64, i64>,
    t: u64,
) -> bool {
    let mut upper = timely::progress::Antichain::new();
    trace.read_upper(&mut upper);
    !upper.less_equal(&t)
}

fn complete(source: &Source, errs: Option<&ErrTrace>, t: u64) -> bool {
    let oks = match source {
        Source::Collection(trace) => is_complete(trace, t),
        Source::Index(trace, _) => is_complete(trace, t),
        Source::Stored(trace, _) => is_complete(trace, t),
    };
    oks && errs.is_none_or(|e| is_complete(e, t))
}
