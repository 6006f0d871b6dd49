//! Running sources on a worker: each source is one dataflow with an input per exported
//! collection, fed by the worker loop from a `kpg-storage` generator.
//!
//! Every worker generates its own share of the snapshot at the source's `since`, a bounded
//! amount per step so that commands and peeks keep being served while a large snapshot loads.
//! The inputs stay at `since` until the snapshot is in, so nothing reads a partial snapshot.
//! After it, the source follows the tables' time: when `AdvanceTables` moves time to `t`, worker
//! 0 generates every tick whose time (`since + n * tick`) is before `t`, at that time, and every
//! worker advances its inputs to `t`. Data and times are thus functions of the commands alone,
//! the same on every worker and in every process. A source resumed after a restart with `k`
//! ticks made before it generates ticks 1 to `k` into its snapshot (worker 0), and tick
//! `k + n` at `since + n * tick`: it goes on where it stopped, repeating and skipping nothing.

use std::collections::HashMap;

use kpg_engine::InputSession;
use kpg_storage::Generator;
use kpg_types::{GlobalId, Row, SourceDesc};
use timely::worker::Worker;

use crate::typedefs::{arrange_input, RowTrace};

/// Snapshot rows a worker feeds per step.
const SNAPSHOT_FUEL: usize = 20_000;

pub struct SourceRunner {
    generator: Box<dyn Generator>,
    /// One input per exported collection.
    inputs: Vec<InputSession<u64, Row, i64>>,
    /// The input each generator output feeds.
    by_output: HashMap<usize, usize>,
    /// This worker's share of the snapshot still to feed.
    snapshot: Option<Box<dyn Iterator<Item = (usize, Row)>>>,
    since: u64,
    tick_ms: u64,
    /// The next tick to generate (worker 0 only generates ticks).
    next_tick: u64,
    /// Ticks made before a restart, which the snapshot includes.
    resumed: u64,
    makes_ticks: bool,
    /// The time the inputs are to be advanced to once the snapshot is in.
    time: u64,
}

/// A started source: its runner, the timely dataflow index, and the trace of each export.
pub struct Started {
    pub runner: SourceRunner,
    pub dataflow: usize,
    pub traces: Vec<(GlobalId, RowTrace)>,
}

impl SourceRunner {
    /// Builds the dataflow of source `id` on this worker.
    pub fn start(
        worker: &mut Worker,
        id: GlobalId,
        since: u64,
        desc: SourceDesc,
        resume_after: u64,
    ) -> Started {
        let mut inputs: Vec<InputSession<u64, Row, i64>> =
            desc.exports.iter().map(|_| InputSession::new()).collect();
        let dataflow = worker.next_dataflow_index();
        let arranged = worker.dataflow_named::<u64, _, _>(&format!("source-u{id}"), |scope| {
            inputs
                .iter_mut()
                .map(|input| arrange_input(input, scope))
                .collect::<Vec<_>>()
        });
        for input in &mut inputs {
            input.advance_to(since);
            input.flush();
        }
        let by_output = desc
            .exports
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.output.map(|o| (o, i)))
            .collect();
        let generator = kpg_storage::generator(&desc);
        let snapshot = generator.snapshot(worker.index(), worker.peers());
        let traces = desc.exports.iter().map(|e| e.id).zip(arranged).collect();
        Started {
            runner: SourceRunner {
                generator,
                inputs,
                by_output,
                snapshot: Some(snapshot),
                since,
                tick_ms: desc.generator.tick_ms().max(1),
                next_tick: resume_after + 1,
                resumed: resume_after,
                makes_ticks: worker.index() == 0,
                time: since,
            },
            dataflow,
            traces,
        }
    }

    /// Feeds a bounded part of the snapshot; returns whether more remains.
    pub fn step(&mut self) -> bool {
        let Some(snapshot) = self.snapshot.as_mut() else {
            return false;
        };
        let mut fed = 0;
        for (output, row) in snapshot.by_ref() {
            if let Some(&input) = self.by_output.get(&output) {
                self.inputs[input].update_at(row, self.since, 1);
            }
            fed += 1;
            if fed == SNAPSHOT_FUEL {
                break;
            }
        }
        if fed < SNAPSHOT_FUEL {
            self.snapshot = None;
            if self.makes_ticks {
                for n in 1..=self.resumed {
                    for (output, row, diff) in self.generator.tick(n) {
                        if let Some(&input) = self.by_output.get(&output) {
                            self.inputs[input].update_at(row, self.since, diff);
                        }
                    }
                }
            }
            self.advance(self.time);
            return false;
        }
        for input in &mut self.inputs {
            input.flush();
        }
        true
    }

    /// Moves the source to `time`: generates the ticks before it and closes the times before
    /// it (at once, or when the snapshot is in).
    pub fn advance(&mut self, time: u64) {
        self.time = self.time.max(time);
        if self.snapshot.is_some() {
            return;
        }
        if self.makes_ticks {
            loop {
                let at = self.since + (self.next_tick - self.resumed) * self.tick_ms;
                if at >= self.time {
                    break;
                }
                for (output, row, diff) in self.generator.tick(self.next_tick) {
                    if let Some(&input) = self.by_output.get(&output) {
                        self.inputs[input].update_at(row, at, diff);
                    }
                }
                self.next_tick += 1;
            }
        }
        for input in &mut self.inputs {
            input.advance_to(self.time);
            input.flush();
        }
    }
}
