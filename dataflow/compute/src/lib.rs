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
mod introspection;
mod peek;
mod render;
mod sinks;
mod sources;
mod trace_catalog;
mod typedefs;
mod worker;

use std::sync::{Arc, Mutex};
use std::thread::Thread;

use crossbeam_channel::{Receiver, Sender};
use kpg_types::command::{Command, Response};

pub use cluster::{start_cluster, ClusterConfig, Started, WorkerProcess};

/// The coordinator's end of the runtime.
pub struct ComputeHandle {
    commands: Sender<Command>,
    worker0: Thread,
    /// Responses from every worker (of every process), in the order each worker produced them.
    pub responses: Receiver<Response>,
    /// Workers across all processes.
    workers: usize,
    /// Joined on drop, after the command sender (dropped first) has stopped the workers. In a
    /// `Mutex` only because the guards are not `Sync`.
    _guards: Mutex<timely::communication::WorkerGuards<()>>,
}

impl ComputeHandle {
    /// Sends a command to every worker (it enters on worker 0 and is sequenced from there).
    pub fn send(&self, cmd: Command) {
        if self.commands.send(cmd).is_err() {
            tracing::error!("compute workers have stopped");
        }
        self.worker0.unpark();
    }

    /// The number of workers in the cluster (all processes), each of which answers every peek,
    /// subscription and introspection request.
    pub fn workers(&self) -> usize {
        self.workers
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
    let (thread_tx, thread_rx) = crossbeam_channel::bounded(1);
    let cmd_rx = Arc::new(Mutex::new(Some(cmd_rx)));
    let guards = timely::execute(config, move |worker| {
        let commands = if worker.index() == 0 {
            let _ = thread_tx.send(std::thread::current());
            cmd_rx.lock().expect("command slot").take()
        } else {
            None
        };
        worker::run_worker(worker, commands, Some(resp_tx.clone()));
    })?;
    let worker0 = thread_rx
        .recv()
        .map_err(|_| "worker 0 did not start".to_string())?;
    Ok(ComputeHandle {
        commands: cmd_tx,
        worker0,
        responses: resp_rx,
        workers: total,
        _guards: Mutex::new(guards),
    })
}
