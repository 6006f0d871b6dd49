//! One timely worker of the compute runtime: receives commands in sequence and applies them.
//!
//! Commands enter on worker 0 only, through a small command dataflow that broadcasts them, so
//! that every worker — threads of this process or of others in a cluster — sees the same commands
//! in the same order (each command carries a sequence number; workers apply them sorted by it).
//! Responses leave through a `ResponseRoute` (straight to the coordinator in process 0, through a
//! response dataflow to worker 0 elsewhere). Workers never share
//! memory: each holds its own shard of every arrangement, its own table inputs (fed on worker 0
//! and exchanged by key inside the arrange operator) and its own catalog of traces. A table
//! append's rows do not travel with the broadcast command: worker 0 keeps them aside until the
//! command comes back to it in sequence, so each row crosses to one worker only. Direct peeks
//! (`direct.rs`) arrive beside the commands and start once the commands sent before them have
//! been applied.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TryRecvError};
use kpg_engine::InputSession;
use kpg_storage::records::Share;
use kpg_types::command::{Command, DataflowId, PeekTarget, Response};
use kpg_types::{DataflowDescription, DataflowSink, GlobalId, Row};
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::InputHandleVec;
use timely::worker::Worker;

use crate::cluster::ResponseRoute;
use crate::direct::{DirectPeek, PeekRequest};
use crate::introspection::{catalog_arrangements, watch_hydration, DataflowRecord};
use crate::peek::{PendingPeek, Reply};
use crate::render::{keyed_rows, Renderer};
use crate::shares::Shares;
use crate::sinks::{peek_sink, subscribe_sink};
use crate::sources::SourceRunner;
use crate::table_inputs::TableInputs;
use crate::trace_catalog::{CollectionTraces, IndexTraces, TraceCatalog};
use crate::typedefs::arrange_input;

/// How long an idle worker sleeps before looking for work; commands and data wake it sooner.
const PARK: Duration = Duration::from_millis(20);
/// How long a worker that received a direct peek keeps stepping (yielding its core between
/// steps) before it parks again. A client issuing lookups one after another sends the next
/// within a round trip, and waking a parked thread costs more than the lookup itself: a
/// prepared lookup over loopback took 0.155 ms with workers parking at once, 0.066 ms lingering
/// 300 us (`--bench prepared`; 100 us and 1 ms were slower).
const LINGER: Duration = Duration::from_micros(300);

/// The state a worker keeps between commands.
struct WorkerState {
    index: usize,
    responses: Sender<Response>,
    tables: TableInputs,
    /// Running sources, by the source's id.
    sources: HashMap<GlobalId, SourceRunner>,
    /// Readers of external sources' partitions hosted here (processes other than 0).
    shares: Shares,
    traces: TraceCatalog,
    /// Peeks of arrangements waiting for them to be complete at their timestamps.
    peeks: Vec<PendingPeek>,
    /// Timely dataflow indexes of installed dataflows, by catalog or dataflow id.
    dataflows: HashMap<DataflowId, usize>,
    /// What introspection reports about each installed dataflow.
    records: HashMap<DataflowId, DataflowRecord>,
}

/// Runs a worker until the coordinator goes away. `commands` is `Some` on worker 0 only;
/// `coordinator` (the channel responses go to) only in the process that holds worker 0;
/// `direct` (direct peeks) only when every worker is in that process.
pub(crate) fn run_worker(
    worker: &mut Worker,
    commands: Option<Receiver<Command>>,
    coordinator: Option<Sender<Response>>,
    direct: Option<Receiver<DirectPeek>>,
) {
    let received: Rc<RefCell<Vec<(u64, Command)>>> = Rc::new(RefCell::new(Vec::new()));
    let closed = Rc::new(Cell::new(false));
    let mut command_input: InputHandleVec<u64, (u64, Command)> = InputHandleVec::new();
    {
        let received = Rc::clone(&received);
        let closed = Rc::clone(&closed);
        worker.dataflow_named::<u64, _, _>("Commands", |scope| {
            scope.input_from(&mut command_input).broadcast().sink(
                Pipeline,
                "CommandSink",
                move |(input, frontier)| {
                    input.for_each(|_cap, data| received.borrow_mut().append(data));
                    closed.set(frontier.frontier().is_empty());
                },
            );
        });
    }
    let mut route = ResponseRoute::new(worker, coordinator);
    let mut state = WorkerState {
        index: worker.index(),
        responses: route.sender.clone(),
        tables: TableInputs::default(),
        sources: HashMap::new(),
        shares: Shares::new(route.sender.clone()),
        traces: TraceCatalog::default(),
        peeks: Vec::new(),
        dataflows: HashMap::new(),
        records: HashMap::new(),
    };
    let mut sequence: u64 = 0;
    // The number of commands this worker has applied (they are applied in sequence), and the
    // direct peeks waiting for commands sent before them.
    let mut applied: u64 = 0;
    let mut direct_waiting: Vec<DirectPeek> = Vec::new();
    // When this worker last received a direct peek (see `LINGER`).
    let mut last_direct: Option<Instant> = None;
    // Worker 0's rows of the `Append` commands in flight, by sequence number.
    let mut held_appends: HashMap<u64, Vec<(Row, i64)>> = HashMap::new();
    // Only worker 0 sends commands; the others close their inputs at once, so that the command
    // stream ends exactly when worker 0's does.
    let mut command_input = commands.as_ref().map(|_| command_input);
    loop {
        if let (Some(rx), Some(input)) = (&commands, command_input.as_mut()) {
            let mut sent = false;
            loop {
                match rx.try_recv() {
                    Ok(mut cmd) => {
                        // A table's rows enter on worker 0 alone (the arrange operator sends
                        // each to the worker that arranges it): the other workers, here or in
                        // other processes, get the command without them.
                        if let Command::Append { updates, .. } = &mut cmd {
                            held_appends.insert(sequence, std::mem::take(updates));
                        }
                        input.send((sequence, cmd));
                        sequence += 1;
                        sent = true;
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        command_input = None;
                        break;
                    }
                }
            }
            if sent {
                if let Some(input) = command_input.as_mut() {
                    input.advance_to(sequence);
                }
            }
        }
        // A source still loading its snapshot keeps the worker from sleeping.
        let loading = state.step_sources();
        let lingering = last_direct.is_some_and(|at| at.elapsed() < LINGER);
        worker.step_or_park(Some(match loading || lingering {
            true => Duration::ZERO,
            false => PARK,
        }));
        if lingering && !loading {
            std::thread::yield_now();
        }
        let mut batch = std::mem::take(&mut *received.borrow_mut());
        batch.sort_by_key(|(seq, _)| *seq);
        // Direct peeks are taken after the batch: one sent before a command in the batch was
        // sent before that command, so it is in the channel by now. Each starts exactly
        // between the commands sent before it and those sent after it (a DROP of its index
        // later in the same batch must not be applied first).
        if let Some(direct) = &direct {
            let before = direct_waiting.len();
            direct_waiting.extend(direct.try_iter());
            if direct_waiting.len() > before {
                last_direct = Some(Instant::now());
            }
        }
        start_direct_peeks(&mut state, &mut direct_waiting, applied);
        for (seq, mut cmd) in batch {
            if let Command::Append { updates, .. } = &mut cmd {
                if let Some(held) = held_appends.remove(&seq) {
                    *updates = held;
                }
            }
            state.apply(worker, cmd);
            applied = seq + 1;
            start_direct_peeks(&mut state, &mut direct_waiting, applied);
        }
        let (index, responses) = (state.index, &state.responses);
        state
            .peeks
            .retain_mut(|peek| !peek.try_answer(index, responses));
        route.forward();
        if closed.get() {
            tracing::info!(worker = state.index, "command stream closed; worker stops");
            // Timely keeps stepping a worker until its dataflows finish; table inputs and
            // maintained views never do, so they are dropped.
            drop(state);
            for index in worker.installed_dataflows() {
                worker.drop_dataflow(index);
            }
            return;
        }
    }
}

/// What a dataflow exports to the worker's trace catalog.
enum Export {
    Collection(GlobalId, CollectionTraces),
    Index(GlobalId, IndexTraces),
}

/// Starts the waiting direct peeks that were sent after exactly the commands applied so far
/// (`after <= applied`); the others keep waiting.
fn start_direct_peeks(state: &mut WorkerState, waiting: &mut Vec<DirectPeek>, applied: u64) {
    if waiting.iter().all(|p| p.after > applied) {
        return;
    }
    for peek in std::mem::take(waiting) {
        match peek.after <= applied {
            true => state.start_peek(peek.request, Reply::Direct(peek.reply)),
            false => waiting.push(peek),
        }
    }
}

impl WorkerState {
    /// Lets every source loading its snapshot feed some more; returns whether any still is.
    fn step_sources(&mut self) -> bool {
        let mut loading = false;
        for source in self.sources.values_mut() {
            loading |= source.step();
        }
        loading
    }

    fn apply(&mut self, worker: &mut Worker, cmd: Command) {
        match cmd {
            Command::CreateTable { id, since } => {
                // Tests make a worker fail here (`FAILPOINTS=compute-create-table=panic`).
                fail::fail_point!("compute-create-table");
                let mut input = InputSession::new();
                let index = worker.next_dataflow_index();
                let trace = worker.dataflow_named::<u64, _, _>(&format!("table-u{id}"), |scope| {
                    arrange_input(&mut input, scope)
                });
                self.tables.insert(id, input, since);
                self.traces.collections.insert(
                    id,
                    CollectionTraces {
                        oks: trace,
                        errs: None,
                        positions: true,
                    },
                );
                self.dataflows.insert(id, index);
            }
            Command::CreateSource {
                id,
                since,
                desc,
                resume_after,
            } => {
                let since = since.max(self.tables.time());
                let started = SourceRunner::start(worker, id, since, desc, resume_after);
                for (export, oks) in started.traces {
                    self.traces.collections.insert(
                        export,
                        CollectionTraces {
                            oks,
                            errs: None,
                            positions: false,
                        },
                    );
                }
                self.sources.insert(id, started.runner);
                self.dataflows.insert(id, started.dataflow);
            }
            Command::Append { id, time, updates } => {
                // Worker 0 feeds every table (the others get the command without its rows);
                // the arrange operator spreads rows by key.
                self.tables.append(id, time, updates);
            }
            Command::AdvanceTables { time } => {
                self.tables.advance(time);
                for source in self.sources.values_mut() {
                    source.advance(self.tables.time());
                }
            }
            Command::CreateDataflow { id, desc } => {
                self.tables.add_reader(id, desc.plan.imports());
                self.create_dataflow(worker, id, desc)
            }
            Command::DropDataflow { id } => {
                self.tables.remove_reader(id);
                self.records.remove(&id);
                if let Some(index) = self.dataflows.remove(&id) {
                    worker.drop_dataflow(index);
                }
                self.fail_peeks_of(id);
            }
            Command::PeekTrace {
                peek_id,
                target,
                timestamp,
                predicates,
                projection,
            } => {
                let request = PeekRequest {
                    peek_id,
                    target,
                    timestamp,
                    predicates,
                    projection,
                };
                self.start_peek(request, Reply::Coordinator);
            }
            Command::DropCollection { id } => {
                self.records.remove(&id);
                self.traces.remove(id);
                self.tables.remove_reader(id);
                self.tables.remove(id);
                self.sources.remove(&id);
                if let Some(index) = self.dataflows.remove(&id) {
                    worker.drop_dataflow(index);
                }
                self.fail_peeks_of(id);
            }
            Command::AllowCompaction { id, since } => self.traces.allow_compaction(id, since),
            Command::ReadShare {
                id,
                share,
                count,
                desc,
                not_null,
                start,
            } => {
                if share as usize == self.index {
                    let share = Share {
                        index: share,
                        count,
                    };
                    self.shares.start(id, share, desc, not_null, start);
                }
            }
            Command::ShareTaken { id, share } => self.shares.taken(id, share),
            Command::StopShares { id } => self.shares.stop(id),
            Command::Introspect { request_id } => {
                let mut arrangements = catalog_arrangements(&self.traces);
                for (id, record) in &self.records {
                    arrangements.extend(record.arrangements.iter().filter_map(|a| a.info(*id)));
                }
                let dataflows = self.records.iter().map(|(id, r)| r.info(*id)).collect();
                let _ = self.responses.send(Response::Introspection {
                    request_id,
                    worker: self.index,
                    arrangements,
                    dataflows,
                });
            }
        }
    }

    /// Starts a peek of an arrangement (it answers once the arrangement is complete at its
    /// time), or answers at once with no rows if the arrangement is unknown.
    /// Fails the pending peeks of `id`, just dropped, that wait for data it will never have.
    fn fail_peeks_of(&mut self, id: GlobalId) {
        let (index, responses) = (self.index, &self.responses);
        self.peeks
            .retain_mut(|peek| !peek.fail_if_dropped(id, index, responses));
    }

    fn start_peek(&mut self, request: PeekRequest, reply: Reply) {
        match &request.target {
            PeekTarget::Collection(id) | PeekTarget::StoredRows { id, .. } => {
                self.tables.catch_up(*id)
            }
            // An index is a dataflow importing its table, which therefore keeps up.
            PeekTarget::Index { .. } => {}
        }
        match PendingPeek::new(request, reply, &self.traces) {
            Ok(peek) => self.peeks.push(peek),
            Err((peek_id, reply)) => {
                reply.send(peek_id, self.index, Ok(Vec::new()), &self.responses)
            }
        }
    }

    fn create_dataflow(&mut self, worker: &mut Worker, id: DataflowId, desc: DataflowDescription) {
        let index = worker.next_dataflow_index();
        let responses = self.responses.clone();
        let traces = &mut self.traces;
        let started = Instant::now();
        let hydration_ms = Rc::new(Cell::new(None));
        let mut arrangements = Vec::new();
        let exported = worker.dataflow_named::<u64, _, _>(&desc.name, |scope| {
            let mut renderer = Renderer::new(scope, desc.as_of, traces);
            if let DataflowSink::Peek { timestamp, .. } = &desc.sink {
                renderer = renderer.read_once_at(*timestamp);
            }
            let rendered = renderer.render(&desc.plan);
            arrangements = std::mem::take(&mut renderer.arrangements);
            let rendered = match rendered {
                Ok(rendered) => rendered,
                Err(missing) => {
                    tracing::error!(dataflow = %desc.name, "plan reads unknown collection u{}", missing.0);
                    return None;
                }
            };
            match desc.sink {
                DataflowSink::Materialize { id } => {
                    let oks = rendered.oks.map(|row| (row, ())).arrange_by_key();
                    let errs = rendered.errs.map(|e| (e, ())).arrange_by_key();
                    watch_hydration(oks.stream.clone(), desc.as_of, started, Rc::clone(&hydration_ms));
                    Some(Export::Collection(id, CollectionTraces { oks: oks.trace, errs: Some(errs.trace), positions: false }))
                }
                DataflowSink::Index { id, key } => {
                    let (pairs, key_errs) = keyed_rows(rendered.oks, key.clone(), false);
                    let oks = pairs.arrange_by_key();
                    let errs = rendered.errs.concat(key_errs).map(|e| (e, ())).arrange_by_key();
                    watch_hydration(oks.stream.clone(), desc.as_of, started, Rc::clone(&hydration_ms));
                    Some(Export::Index(id, IndexTraces { oks: oks.trace, errs: errs.trace, key }))
                }
                DataflowSink::Peek { peek_id, timestamp } => {
                    peek_sink(rendered.oks, rendered.errs, peek_id, timestamp, responses);
                    None
                }
                DataflowSink::Subscribe { subscribe_id } => {
                    subscribe_sink(rendered.oks, rendered.errs, subscribe_id, responses);
                    None
                }
            }
        });
        match exported {
            Some(Export::Collection(id, traces)) => {
                self.traces.collections.insert(id, traces);
            }
            Some(Export::Index(id, traces)) => {
                self.traces.indexes.insert(id, traces);
            }
            None => {}
        }
        self.records.insert(
            id,
            DataflowRecord {
                arrangements,
                hydration_ms,
            },
        );
        self.dataflows.insert(id, index);
    }
}
