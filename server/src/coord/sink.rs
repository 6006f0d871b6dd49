//! Kafka sinks: `CREATE SINK ... INTO KAFKA` and the writer thread each one runs.
//!
//! A sink is a subscription to its object, with progress. Once a time is complete (the
//! subscription's frontier passes it), the changes at that time and before go to the topic in
//! one Kafka transaction together with a progress record (`{"sink": id, "frontier": t}` keyed
//! by the sink in the progress topic), in timestamp order, each message with its timestamp in
//! the `kpg-timestamp` header.
//!
//! Exactly once across restarts: the topic itself is the record of what was written. A sink
//! that starts (created, or restored after a restart or crash) reads back the topic's committed
//! messages, reconstructs what they amount to (the multiset of rows for DEBEZIUM, each key's
//! last value for UPSERT), and writes, as its first transaction, only the difference between
//! that and the object's contents at its start time. A consumer reading with
//! `isolation.level = read_committed` therefore never sees a change twice or misses one: the
//! changes made while kpg was down arrive as one batch at the restart's time. Reading back costs
//! a scan of the topic at each start.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use kpg_sql::sink::{PlannedSink, SinkEnvelope};
use kpg_storage::kafka_sink::{ensure_topic, read_back, Outgoing, TransactionalWriter};
use kpg_types::{Datum, GlobalId, RelationDesc, Row};
use serde_json::{Map, Value};

use super::sequence::ExecuteResult;
use super::{Coordinator, SubscribeEvent, Subscription};
use crate::catalog::{Op, SinkEntry};
use crate::error::ExecError;

impl Coordinator {
    /// `CREATE SINK`: checks the broker (creating the topics if missing), enters the sink and
    /// starts its writer on a subscription to the object.
    pub(super) async fn create_sink(
        self: &Arc<Self>,
        sink: PlannedSink,
    ) -> Result<ExecuteResult, ExecError> {
        let tag = "CREATE SINK";
        let taken = |state: &super::State| state.catalog.name_taken(&sink.name);
        if taken(&self.lock()) {
            return match sink.if_not_exists {
                true => Ok(ExecuteResult::Command(tag.into())),
                false => Err(ExecError::new(
                    "42710",
                    format!("sink \"{}\" already exists", sink.name),
                )),
            };
        }
        if !self.restoring.load(Ordering::SeqCst) {
            let (broker, topics) = (
                sink.broker.clone(),
                [sink.topic.clone(), sink.progress_topic.clone()],
            );
            tokio::task::spawn_blocking(move || {
                topics.iter().try_for_each(|t| ensure_topic(&broker, t))
            })
            .await
            .map_err(|e| ExecError::internal(format!("checking the broker: {e}")))?
            .map_err(|e| ExecError::new("08001", format!("cannot write to Kafka: {e}")))?;
        }
        let (id, as_of) = {
            let mut state = self.lock();
            if taken(&state) {
                return Err(ExecError::new(
                    "42710",
                    format!("sink \"{}\" already exists", sink.name),
                ));
            }
            if let Some(gone) = sink
                .depends_on
                .iter()
                .find(|d| !state.catalog.contains(**d))
            {
                return Err(ExecError::new(
                    "42P01",
                    format!("u{gone}, which the sink reads, was dropped while it was planned"),
                ));
            }
            let id = Self::allocate_id(&mut state);
            let entry = SinkEntry {
                name: sink.name.clone(),
                depends_on: sink.depends_on.clone(),
            };
            state
                .catalog
                .transact(vec![Op::CreateSink { id, sink: entry }])?;
            (id, state.upper - 1)
        };
        let options = kpg_sql::SubscribeOptions {
            progress: true,
            as_of: Some(as_of),
            at_least: true,
            ..Default::default()
        };
        let subscription = match self.subscribe(sink.plan.clone(), options) {
            Ok(s) => s,
            Err(e) => {
                // Nothing else can have come to depend on the sink yet.
                let _ = self.lock().catalog.transact(vec![Op::Drop(id)]);
                return Err(e);
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        self.lock().sinks.insert(id, Arc::clone(&stop));
        let writer = SinkWriter {
            id,
            sink,
            stop,
            as_of,
        };
        std::thread::Builder::new()
            .name(format!("kpg-sink-u{id}"))
            .spawn(move || writer.run(subscription))
            .map_err(|e| ExecError::internal(format!("starting the sink's writer: {e}")))?;
        Ok(ExecuteResult::Command(tag.into()))
    }
}

struct SinkWriter {
    id: GlobalId,
    sink: PlannedSink,
    stop: Arc<AtomicBool>,
    as_of: u64,
}

impl SinkWriter {
    fn run(self, mut subscription: Subscription) {
        let writer = loop {
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            let started = [&self.sink.topic, &self.sink.progress_topic]
                .iter()
                .try_for_each(|t| ensure_topic(&self.sink.broker, t))
                .and_then(|()| {
                    TransactionalWriter::new(&self.sink.broker, &format!("kpg-sink-u{}", self.id))
                });
            match started {
                Ok(w) => break w,
                Err(e) => {
                    tracing::warn!(sink = self.id, "sink stalled: {e}");
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        };
        let mut pending: Vec<(u64, i64, Row)> = Vec::new();
        let mut reconciled = false;
        while !self.stop.load(Ordering::SeqCst) {
            let event = match subscription.rx.try_recv() {
                Ok(event) => event,
                Err(tokio::sync::mpsc::error::TryRecvError::Empty) => {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => return,
            };
            let frontier = match event {
                SubscribeEvent::Updates(updates) => {
                    pending.extend(updates);
                    continue;
                }
                SubscribeEvent::Progress(frontier) => frontier,
                SubscribeEvent::Error(e) => {
                    tracing::error!(sink = self.id, "sink stopped: its object has an error: {e}");
                    return;
                }
            };
            let (ready, rest): (Vec<_>, Vec<_>) =
                pending.drain(..).partition(|(t, _, _)| *t < frontier);
            pending = rest;
            let mut messages = if reconciled {
                self.changes(ready)
            } else {
                if frontier <= self.as_of {
                    pending.extend(ready);
                    continue;
                }
                reconciled = true;
                match self.reconcile(ready) {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::error!(sink = self.id, "sink stopped: {e}");
                        return;
                    }
                }
            };
            if messages.is_empty() {
                continue;
            }
            let progress =
                serde_json::json!({ "sink": format!("u{}", self.id), "frontier": frontier });
            messages.push(Outgoing {
                topic: self.sink.progress_topic.clone(),
                key: Some(format!("kpg-sink-u{}", self.id).into_bytes()),
                value: Some(progress.to_string().into_bytes()),
                timestamp: frontier,
            });
            if let Err(e) = writer.write(&messages) {
                // The transaction was aborted: a restarted sink reconciles from the topic.
                tracing::error!(sink = self.id, "sink stopped: {e}");
                return;
            }
        }
    }

    /// The first transaction: the object's contents at the start time (the snapshot,
    /// `updates`) minus what the topic already holds.
    fn reconcile(&self, updates: Vec<(u64, i64, Row)>) -> Result<Vec<Outgoing>, String> {
        let written = read_back(&self.sink.broker, &self.sink.topic)?;
        let time = self.as_of;
        let mut out = Vec::new();
        match self.sink.envelope {
            SinkEnvelope::Debezium => {
                let mut net: BTreeMap<String, i64> = BTreeMap::new();
                for (_, value) in written {
                    let Some(v) = value.and_then(|v| serde_json::from_slice::<Value>(&v).ok())
                    else {
                        continue;
                    };
                    for (field, sign) in [("before", -1), ("after", 1)] {
                        if let Some(row) = v.get(field).filter(|r| !r.is_null()) {
                            *net.entry(row.to_string()).or_default() -= sign;
                        }
                    }
                }
                for (_, diff, row) in updates {
                    *net.entry(self.row_json(&row).to_string()).or_default() += diff;
                }
                for (row, diff) in net {
                    let row: Value = serde_json::from_str(&row).expect("our JSON");
                    out.extend(self.debezium(&row, diff, time));
                }
            }
            SinkEnvelope::Upsert => {
                let mut last: HashMap<String, Option<String>> = HashMap::new();
                for (key, value) in written {
                    let Some(key) = key.and_then(|k| String::from_utf8(k).ok()) else {
                        continue;
                    };
                    last.insert(key, value.and_then(|v| String::from_utf8(v).ok()));
                }
                let mut want: BTreeMap<String, Option<String>> = BTreeMap::new();
                for (_, diff, row) in &updates {
                    if *diff > 0 {
                        want.insert(
                            self.key_json(row).to_string(),
                            Some(self.row_json(row).to_string()),
                        );
                    }
                }
                for (key, value) in &last {
                    if value.is_some() && !want.contains_key(key) {
                        want.insert(key.clone(), None);
                    }
                }
                for (key, value) in want {
                    // Written differently, or never written (and not a delete of nothing).
                    if (value.is_some() || last.contains_key(&key))
                        && last.get(&key) != Some(&value)
                    {
                        out.push(self.message(
                            Some(key.into_bytes()),
                            value.map(String::into_bytes),
                            time,
                        ));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The messages of complete times after the start, in timestamp order.
    fn changes(&self, mut updates: Vec<(u64, i64, Row)>) -> Vec<Outgoing> {
        updates.sort_by_key(|u| (u.0, u.1));
        let mut out = Vec::new();
        match self.sink.envelope {
            SinkEnvelope::Debezium => {
                for (time, diff, row) in updates {
                    out.extend(self.debezium(&self.row_json(&row), diff, time));
                }
            }
            SinkEnvelope::Upsert => {
                // Per time, each key's new row, or none (a delete).
                let mut by_time: BTreeMap<u64, BTreeMap<String, Option<String>>> = BTreeMap::new();
                for (time, diff, row) in &updates {
                    let keys = by_time.entry(*time).or_default();
                    let key = self.key_json(row).to_string();
                    if *diff > 0 {
                        keys.insert(key, Some(self.row_json(row).to_string()));
                    } else {
                        keys.entry(key).or_insert(None);
                    }
                }
                for (time, keys) in by_time {
                    for (key, value) in keys {
                        out.push(self.message(
                            Some(key.into_bytes()),
                            value.map(String::into_bytes),
                            time,
                        ));
                    }
                }
            }
        }
        out
    }

    fn debezium(&self, row: &Value, diff: i64, time: u64) -> Vec<Outgoing> {
        let value = if diff > 0 {
            serde_json::json!({ "before": null, "after": row })
        } else {
            serde_json::json!({ "before": row, "after": null })
        };
        (0..diff.unsigned_abs())
            .map(|_| self.message(None, Some(value.to_string().into_bytes()), time))
            .collect()
    }

    fn message(&self, key: Option<Vec<u8>>, value: Option<Vec<u8>>, time: u64) -> Outgoing {
        Outgoing {
            topic: self.sink.topic.clone(),
            key,
            value,
            timestamp: time,
        }
    }

    fn row_json(&self, row: &Row) -> Value {
        json_object(&self.sink.desc, row, None)
    }

    fn key_json(&self, row: &Row) -> Value {
        json_object(&self.sink.desc, row, Some(&self.sink.key))
    }
}

/// A row as a JSON object of its columns (only `columns`, if given): numbers and booleans as
/// JSON numbers and booleans, NULL as null, everything else (numerics too, to keep every
/// digit) as its PostgreSQL text.
fn json_object(desc: &RelationDesc, row: &Row, columns: Option<&[usize]>) -> Value {
    let mut object = Map::new();
    let all: Vec<usize> = (0..desc.columns.len()).collect();
    for &i in columns.unwrap_or(&all) {
        let value = match &row.datums()[i] {
            Datum::Null => Value::Null,
            Datum::Bool(b) => Value::Bool(*b),
            Datum::Int16(n) => Value::from(*n),
            Datum::Int32(n) => Value::from(*n),
            Datum::Int64(n) => Value::from(*n),
            Datum::Float32(f) if f.is_finite() => Value::from(f.0 as f64),
            Datum::Float64(f) if f.is_finite() => Value::from(f.0),
            d => Value::String(d.to_text().unwrap_or_default()),
        };
        object.insert(desc.columns[i].0.clone(), value);
    }
    Value::Object(object)
}
