//! The compute runtime: timely workers that build and run dataflows on kpg's engine.
//!
//! `start` launches the workers (threads of this process) and returns a `ComputeHandle` through
//! which the coordinator sends `Command`s and receives `Response`s. `start_cluster` does the same
//! for one process of several forming one timely cluster over TCP: process 0 holds worker 0 and
//! the coordinator's handle, the other processes only run workers (see `cluster.rs`). Each worker
//! keeps the traces of tables and materialized views, renders `DataflowDescription`s with the
//! engine, and answers peeks and subscriptions through sinks. The runtime knows no SQL: it
//! evaluates the planner's expressions and aggregates, and nothing else.

mod cluster;
mod direct;
mod introspection;
mod peek;
mod render;
mod shares;
mod sinks;
mod sources;
mod table_inputs;
mod trace_catalog;
mod typedefs;
mod worker;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use kpg_types::command::{Command, Response};

pub use cluster::{start_cluster, ClusterConfig, Started, WorkerProcess};
pub use direct::{PeekReply, PeekRequest, PeekShare};

use direct::DirectPeek;

/// How long commands queued under a stream of commits may wait for worker 0 to be woken
/// (`ComputeHandle::wake_coalesced`).
pub const COALESCE: Duration = Duration::from_millis(1);

/// The coordinator's end of the runtime.
pub struct ComputeHandle {
    /// The command channel to worker 0, and the number of commands sent on it (what a direct
    /// peek waits for, see `direct.rs`): one lock, so the count is the peek's position.
    commands: Mutex<(Sender<Command>, u64)>,
    worker0: Thread,
    /// Commands were queued (`queue_all`) that worker 0 has not been woken for yet.
    unwoken: AtomicBool,
    /// When worker 0 was last woken, in microseconds after `epoch`.
    last_wake: AtomicU64,
    epoch: Instant,
    /// Each worker's direct-peek channel and thread, when every worker is in this process.
    direct: Vec<(Sender<DirectPeek>, Thread)>,
    /// Responses from every worker (of every process), in the order each worker produced them.
    pub responses: Receiver<Response>,
    /// Workers across all processes.
    workers: usize,
    /// Workers in this process (process 0): workers `0..local`.
    local: usize,
    /// Joined on drop, after the command sender (dropped first) has stopped the workers. In a
    /// `Mutex` only because the guards are not `Sync`.
    _guards: Mutex<timely::communication::WorkerGuards<()>>,
}

impl ComputeHandle {
    /// Sends a command to every worker (it enters on worker 0 and is sequenced from there).
    pub fn send(&self, cmd: Command) {
        {
            let mut commands = self.commands.lock().expect("command channel");
            if commands.0.send(cmd).is_err() {
                tracing::error!("compute workers have stopped");
            }
            commands.1 += 1;
        }
        self.wake();
    }

    /// Sends several commands in order, as `send` would one after the other, waking worker 0
    /// once (a commit group's appends and the advance after them).
    pub fn send_all(&self, cmds: impl IntoIterator<Item = Command>) {
        self.queue_all(cmds);
        self.wake();
    }

    /// Queues commands as `send_all` does without waking worker 0: the caller calls `wake` or
    /// `wake_coalesced` soon (after something more urgent, such as answering the clients who
    /// waited for the write these commands make readable).
    pub fn queue_all(&self, cmds: impl IntoIterator<Item = Command>) {
        {
            let mut commands = self.commands.lock().expect("command channel");
            for cmd in cmds {
                if commands.0.send(cmd).is_err() {
                    tracing::error!("compute workers have stopped");
                }
                commands.1 += 1;
            }
        }
        self.unwoken.store(true, Ordering::SeqCst);
    }

    /// Wakes worker 0 to read the commands queued for it.
    pub fn wake(&self) {
        self.unwoken.store(false, Ordering::SeqCst);
        self.last_wake
            .store(self.epoch.elapsed().as_micros() as u64, Ordering::Relaxed);
        self.worker0.unpark();
    }

    /// Wakes worker 0 for the commands queued, unless `more` are about to be queued (the
    /// caller has them in hand and will call this again right after) and worker 0 was woken
    /// less than [`COALESCE`] ago. Under a stream of small commits the workers then step once
    /// for several of them rather than once each: a wake-up and the round of progress between
    /// the workers that follows cost more than a few rows. No wake-up is lost (the last call of
    /// a burst has no `more`), and a reader is not delayed: every other command, and a direct
    /// peek that finds commands left unwoken, wakes worker 0 itself.
    pub fn wake_coalesced(&self, more: bool) {
        let now = self.epoch.elapsed().as_micros() as u64;
        let last = self.last_wake.load(Ordering::Relaxed);
        if !more || now >= last + COALESCE.as_micros() as u64 {
            self.wake();
        }
    }

    /// Whether `peek_direct` is available: every worker runs in this process.
    pub fn direct_peeks(&self) -> bool {
        !self.direct.is_empty()
    }

    /// Hands a peek directly (`direct.rs`) to every worker, or to worker `only` alone; each
    /// calls `reply` with its share. It reads as a `Command::PeekTrace` sent now would. Returns
    /// the request back if direct peeks are not available (`direct_peeks`).
    pub fn peek_direct(
        &self,
        request: PeekRequest,
        reply: PeekReply,
        only: Option<usize>,
    ) -> Result<(), PeekRequest> {
        let chosen = match only {
            Some(w) => self.direct.get(w..=w).unwrap_or_default(),
            None => &self.direct[..],
        };
        let Some(((last, last_thread), others)) = chosen.split_last() else {
            return Err(request);
        };
        let commands = self.commands.lock().expect("command channel");
        let after = commands.1;
        let send = |tx: &Sender<DirectPeek>, thread: &Thread, request: PeekRequest| {
            let peek = DirectPeek {
                after,
                request,
                reply: Arc::clone(&reply),
            };
            if tx.send(peek).is_err() {
                tracing::error!("compute workers have stopped");
            }
            thread.unpark();
        };
        for (tx, thread) in others {
            let copy = PeekRequest {
                peek_id: request.peek_id,
                target: request.target.clone(),
                timestamp: request.timestamp,
                predicates: request.predicates.clone(),
                projection: request.projection.clone(),
            };
            send(tx, thread, copy);
        }
        send(last, last_thread, request);
        drop(commands);
        // The peek starts after the commands sent before it, which worker 0 may not have been
        // woken for yet (`wake_coalesced`).
        if self.unwoken.load(Ordering::SeqCst) {
            self.wake();
        }
        Ok(())
    }

    /// The worker whose shard of an arrangement holds `key` (arrangements route a key by
    /// `kpg_engine`'s `hash_key` of its canonical form, as timely's exchange does: the hash
    /// modulo the number of workers).
    pub fn key_worker(&self, key: &kpg_types::Row) -> usize {
        let canonical = key.canonical();
        let key = canonical.as_ref().unwrap_or(key);
        let hash = kpg_engine::operators::arrange::hash_key(key);
        (hash % self.workers.max(1) as u64) as usize
    }

    /// The number of workers in the cluster (all processes), each of which answers every peek,
    /// subscription and introspection request.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The workers in this process, the one holding worker 0: workers `0..local_workers()`.
    pub fn local_workers(&self) -> usize {
        self.local
    }
}

/// Starts `workers` timely worker threads in this process, alone.
pub fn start(workers: usize) -> Result<ComputeHandle, String> {
    let workers = workers.max(1);
    launch(timely::Config::process(workers), workers)
}

/// Runs the workers under `config` and returns the coordinator's handle; the caller must be the
/// process that holds worker 0. `total` is the number of workers across all processes.
fn launch(config: timely::Config, total: usize) -> Result<ComputeHandle, String> {
    let (cmd_tx, cmd_rx) = crossbeam_channel::unbounded();
    let (resp_tx, resp_rx) = crossbeam_channel::unbounded();
    // Direct peeks only when this process holds every worker (`direct.rs`).
    let local = match &config.communication {
        timely::CommunicationConfig::Process(threads) => *threads,
        timely::CommunicationConfig::Cluster { threads, .. } => *threads,
        _ => 0,
    };
    let direct = local == total;
    let (thread_tx, thread_rx) = crossbeam_channel::unbounded();
    let mut direct_tx = Vec::new();
    let mut direct_rx = Vec::new();
    for _ in 0..if direct { total } else { 0 } {
        let (tx, rx) = crossbeam_channel::unbounded();
        direct_tx.push(tx);
        direct_rx.push(Some(rx));
    }
    let cmd_rx = Arc::new(Mutex::new(Some(cmd_rx)));
    let direct_rx = Arc::new(Mutex::new(direct_rx));
    let guards = timely::execute(config, move |worker| {
        let index = worker.index();
        let _ = thread_tx.send((index, std::thread::current()));
        let commands = if index == 0 {
            cmd_rx.lock().expect("command slot").take()
        } else {
            None
        };
        let direct = direct_rx
            .lock()
            .expect("direct-peek slots")
            .get_mut(index)
            .and_then(Option::take);
        worker::run_worker(worker, commands, Some(resp_tx.clone()), direct);
    })?;
    // Worker 0's thread, and with direct peeks every worker's.
    let mut threads: Vec<Option<Thread>> = vec![None; total.max(1)];
    while threads[0].is_none() || (direct && threads.iter().any(Option::is_none)) {
        let (index, thread) = thread_rx
            .recv()
            .map_err(|_| "a worker did not start".to_string())?;
        if let Some(slot) = threads.get_mut(index) {
            *slot = Some(thread);
        }
    }
    let worker0 = threads[0].clone().expect("worker 0's thread");
    let direct = match direct {
        true => direct_tx
            .into_iter()
            .zip(
                threads
                    .into_iter()
                    .map(|t| t.expect("every worker's thread")),
            )
            .collect(),
        false => Vec::new(),
    };
    Ok(ComputeHandle {
        commands: Mutex::new((cmd_tx, 0)),
        worker0,
        unwoken: AtomicBool::new(false),
        last_wake: AtomicU64::new(0),
        epoch: Instant::now(),
        direct,
        responses: resp_rx,
        workers: total,
        local: local.max(1),
        _guards: Mutex::new(guards),
    })
}
