//! Sources as the planner describes them to the runtime: which generator produces the data,
//! and which catalog object each of its outputs becomes.
//!
//! Only load generators exist so far. A source has one or more outputs (the TPC-H generator has
//! one per table); each output is exported under its own id as a collection readable like a
//! table. The runtime (`kpg-storage` through `kpg-compute`) generates the rows; the coordinator
//! only decides the time the source starts at, and advances it like the tables.

use serde::{Deserialize, Serialize};

use crate::plan::GlobalId;
use crate::scalar::RelationDesc;

/// A built-in generator of data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LoadGenerator {
    /// The 8 TPC-H tables at `scale_factor` as a snapshot, then every `tick_ms` one order and
    /// its line items change.
    Tpch { scale_factor: f64, tick_ms: u64 },
    /// One `bigint` column: the value n appears at tick n (the first at the source's start);
    /// with `max_cardinality` only the latest that many values remain.
    Counter {
        tick_ms: u64,
        max_cardinality: Option<u64>,
    },
}

impl LoadGenerator {
    /// The generator's name in `CREATE SOURCE ... FROM LOAD GENERATOR <name>`.
    pub fn name(&self) -> &'static str {
        match self {
            LoadGenerator::Tpch { .. } => "TPCH",
            LoadGenerator::Counter { .. } => "COUNTER",
        }
    }

    /// Milliseconds between two ticks.
    pub fn tick_ms(&self) -> u64 {
        match self {
            LoadGenerator::Tpch { tick_ms, .. } | LoadGenerator::Counter { tick_ms, .. } => {
                *tick_ms
            }
        }
    }
}

/// One collection a source exports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceExport {
    pub id: GlobalId,
    /// The generator's output it holds, or `None` for the source object of a generator with
    /// several outputs, which holds no rows itself.
    pub output: Option<usize>,
    /// The columns of the output's rows.
    pub desc: RelationDesc,
}

/// A source: its generator and what it exports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceDesc {
    pub generator: LoadGenerator,
    pub exports: Vec<SourceExport>,
}
