//! Sources: turning a source description into timestamped updates — the built-in load
//! generators (TPC-H and a counter), and for external streams the readers of Kafka topics
//! (`kafka.rs`) and files (`file.rs`) behind one trait (`records.rs`), the decoders of record
//! keys and values (`decode.rs`) and the rows made of them (`assemble.rs`), read in batches
//! (`reading.rs`), which the server drives, or in the other processes of a cluster
//! (`share_reader.rs`), which send their batches to process 0.
//!
//! A generator is split the way the runtime runs it: every worker generates its own disjoint
//! share of the snapshot (so the snapshot is generated in parallel and never crosses a
//! channel), and the changes after it are produced tick by tick on one worker. Both are pure
//! functions of the description and the tick number, so every run, and every number of
//! workers or processes, produces the same data at the same times. This crate knows no timely:
//! `kpg-compute` feeds what it produces into the engine's inputs.

pub mod assemble;
mod counter;
pub mod decode;
mod decode_json;
pub mod file;
pub mod kafka;
pub mod kafka_sink;
pub mod reading;
pub mod records;
pub mod share_reader;
mod tpch;

use kpg_types::{LoadGenerator, Row, SourceDesc};

/// A load generator, as one worker runs it.
pub trait Generator {
    /// This worker's share of the snapshot, as `(output, row)`: worker `worker` of `peers`.
    /// The shares of all workers together are the whole snapshot, each row once.
    fn snapshot(&self, worker: usize, peers: usize) -> Box<dyn Iterator<Item = (usize, Row)>>;

    /// The changes of tick `n` (1, 2, 3 ... in order, each once), as `(output, row, diff)`.
    /// Only one worker asks for them.
    fn tick(&mut self, n: u64) -> Vec<(usize, Row, i64)>;
}

/// The generator that `desc` describes.
pub fn generator(desc: &SourceDesc) -> Box<dyn Generator> {
    match &desc.generator {
        LoadGenerator::Tpch { scale_factor, .. } => {
            Box::new(tpch::Tpch::new(*scale_factor, &desc.exports))
        }
        LoadGenerator::Counter {
            max_cardinality, ..
        } => Box::new(counter::Counter::new(*max_cardinality)),
    }
}
