//! Several processes forming one timely cluster over TCP.
//!
//! Every process runs the same number of worker threads; timely numbers the workers of process
//! `p` from `p * threads`. Process 0 holds worker 0, where commands enter, and the coordinator's
//! `ComputeHandle`. Workers of process 0 answer the coordinator directly through its channel;
//! workers of the other processes send their responses through a small response dataflow that
//! exchanges them to worker 0, which forwards them to the same channel. Timely delivers the
//! messages of one channel between two workers in order, so the coordinator still sees each
//! worker's responses in the order that worker produced them.
//!
//! The other processes stop when the command stream closes (worker 0 stops) or, since timely
//! cannot survive a lost peer, when the connection to another process breaks (the binary turns
//! timely's communication panic into an exit).

use crossbeam_channel::{Receiver, Sender};
use kpg_types::command::Response;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::InputHandleVec;
use timely::worker::Worker;

use crate::{launch, worker, ComputeHandle};

/// Where this process sits in the cluster.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    /// This process's index, `0..addresses.len()`.
    pub process: usize,
    /// `host:port` of every process, in process order; each process listens on its own.
    pub addresses: Vec<String>,
    /// Worker threads in each process.
    pub workers: usize,
}

/// What a process of the cluster runs.
pub enum Started {
    /// Process 0: the coordinator's handle on the whole cluster.
    Coordinator(ComputeHandle),
    /// Any other process: only workers, which run until the cluster stops.
    Workers(WorkerProcess),
}

/// The workers of a process other than 0.
pub struct WorkerProcess {
    guards: timely::communication::WorkerGuards<()>,
}

impl WorkerProcess {
    /// Blocks until every worker of this process has stopped.
    pub fn join(self) -> Result<(), String> {
        let failed = self
            .guards
            .join()
            .into_iter()
            .filter_map(Result::err)
            .collect::<Vec<_>>();
        if failed.is_empty() {
            Ok(())
        } else {
            Err(failed.join("; "))
        }
    }
}

/// Joins the cluster described by `config`. Blocks until every process has connected.
pub fn start_cluster(config: ClusterConfig) -> Result<Started, String> {
    let processes = config.addresses.len();
    if config.process >= processes {
        return Err(format!(
            "process {} is not among the {processes} addresses",
            config.process
        ));
    }
    let threads = config.workers.max(1);
    let timely_config = timely::Config {
        communication: timely::CommunicationConfig::Cluster {
            threads,
            process: config.process,
            addresses: config.addresses,
            report: false,
            zerocopy: false,
        },
        worker: timely::WorkerConfig::default(),
    };
    if config.process == 0 {
        return launch(timely_config, threads * processes).map(Started::Coordinator);
    }
    let guards = timely::execute(timely_config, |worker| {
        worker::run_worker(worker, None, None, None);
    })?;
    Ok(Started::Workers(WorkerProcess { guards }))
}

/// How one worker's responses reach the coordinator.
pub(crate) struct ResponseRoute {
    /// Where the worker's sinks and peeks send their responses.
    pub sender: Sender<Response>,
    /// On workers of processes other than 0: what they sent, and the response dataflow's input
    /// (with its epoch) that carries it to worker 0.
    forward: Option<(Receiver<Response>, InputHandleVec<u64, Response>, u64)>,
}

impl ResponseRoute {
    /// Builds the response dataflow (every worker must, in the same order as its other
    /// dataflows). `coordinator` is the coordinator's channel, which only process 0 has.
    pub fn new(worker: &mut Worker, coordinator: Option<Sender<Response>>) -> Self {
        let mut input: InputHandleVec<u64, Response> = InputHandleVec::new();
        let to_coordinator = coordinator.clone();
        worker.dataflow_named::<u64, _, _>("Responses", |scope| {
            scope.input_from(&mut input).sink(
                Exchange::new(|_: &Response| 0),
                "ResponseSink",
                move |(data, _frontier)| {
                    data.for_each(|_cap, batch| {
                        if let Some(tx) = &to_coordinator {
                            for response in batch.drain(..) {
                                // The coordinator may be shutting down; nothing to do then.
                                let _ = tx.send(response);
                            }
                        }
                    });
                },
            );
        });
        match coordinator {
            // The input is dropped (closed): this worker answers the coordinator directly.
            Some(sender) => ResponseRoute {
                sender,
                forward: None,
            },
            None => {
                let (sender, receiver) = crossbeam_channel::unbounded();
                ResponseRoute {
                    sender,
                    forward: Some((receiver, input, 0)),
                }
            }
        }
    }

    /// Moves the responses produced since the last call into the response dataflow. Advancing
    /// its input makes timely send the buffered messages on the next step.
    pub fn forward(&mut self) {
        if let Some((receiver, input, epoch)) = &mut self.forward {
            let mut sent = false;
            while let Ok(response) = receiver.try_recv() {
                input.send(response);
                sent = true;
            }
            if sent {
                *epoch += 1;
                input.advance_to(*epoch);
            }
        }
    }
}
