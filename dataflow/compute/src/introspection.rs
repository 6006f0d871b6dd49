//! Introspection: what a worker reports about its arrangements and dataflows.
//!
//! Every arrangement the worker holds is observed through a weak handle (`TraceLiveness`), so
//! watching it never keeps a trace alive or holds back its compaction: the exported traces of
//! the trace catalog (tables', materialized views' and indexes' rows and errors) and the
//! arrangements a dataflow builds for its own joins and reductions, registered by the renderer.
//! A dataflow's hydration time is taken by a sink on an arranged stream of batches (cheap: the
//! batches are shared, not copied) when that stream's frontier first passes the `as_of`.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Instant;

use kpg_engine::{BatchStream, TraceLiveness};
use kpg_types::command::{ArrangementInfo, DataflowInfo};
use kpg_types::{expr_list, EvalError, Row};
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::operator::Operator;

use crate::trace_catalog::TraceCatalog;

/// Bytes a value owns on the heap beyond its own `size_of` (which the column holding it counts),
/// as the allocator rounds them.
pub trait HeapSize {
    fn heap_size(&self) -> usize;
}

/// The bytes the allocator (jemalloc) hands out for a request of `n`: its size classes are
/// multiples of 16 up to 128 bytes, then four classes per doubling (160, 192, 224, 256, 320, ...).
pub fn allocation_size(n: usize) -> usize {
    match n {
        0 => 0,
        1..=8 => 8,
        9..=128 => n.div_ceil(16) * 16,
        _ => {
            let group = 1usize << ((usize::BITS - (n - 1).leading_zeros()) - 3);
            n.div_ceil(group) * group
        }
    }
}

impl HeapSize for () {
    fn heap_size(&self) -> usize {
        0
    }
}

impl HeapSize for Row {
    fn heap_size(&self) -> usize {
        allocation_size(self.packed().heap_size())
    }
}

impl HeapSize for EvalError {
    fn heap_size(&self) -> usize {
        // Errors are few; the text some carry is not counted.
        0
    }
}

impl<T: HeapSize, E: HeapSize> HeapSize for Result<T, E> {
    fn heap_size(&self) -> usize {
        match self {
            Ok(t) => t.heap_size(),
            Err(e) => e.heap_size(),
        }
    }
}

/// A weak observer of one arrangement, reporting its figures while it lives.
pub struct ArrangementProbe {
    pub name: String,
    pub key: String,
    stats: Box<dyn Fn() -> Option<kpg_engine::TraceStats>>,
}

impl ArrangementProbe {
    pub fn new<K, V, R>(name: String, key: String, liveness: TraceLiveness<K, V, u64, R>) -> Self
    where
        K: kpg_engine::Data + HeapSize,
        V: kpg_engine::Data + HeapSize,
        R: kpg_engine::Semigroup,
    {
        ArrangementProbe {
            name,
            key,
            stats: Box::new(move || liveness.stats(K::heap_size, V::heap_size)),
        }
    }

    /// The arrangement's figures attributed to `owner`, or `None` once it is gone.
    pub fn info(&self, owner: u64) -> Option<ArrangementInfo> {
        let s = (self.stats)()?;
        Some(ArrangementInfo {
            owner,
            name: self.name.clone(),
            key: self.key.clone(),
            records: s.records as u64,
            batches: s.batches as u64,
            bytes: s.bytes as u64,
            readers: s.readers as u64,
        })
    }
}

/// What a worker remembers about one installed dataflow.
pub struct DataflowRecord {
    pub arrangements: Vec<ArrangementProbe>,
    /// Milliseconds to hydrate, set once by the hydration sink.
    pub hydration_ms: Rc<Cell<Option<f64>>>,
}

impl DataflowRecord {
    pub fn info(&self, id: u64) -> DataflowInfo {
        DataflowInfo {
            id,
            hydration_ms: self.hydration_ms.get(),
        }
    }
}

/// Records in `cell` how long after `started` the stream's frontier first passed `as_of`.
pub fn watch_hydration<K, V>(
    stream: BatchStream<'_, u64, K, V, i64>,
    as_of: u64,
    started: Instant,
    cell: Rc<Cell<Option<f64>>>,
) where
    K: kpg_engine::Data,
    V: kpg_engine::Data,
{
    stream.sink(Pipeline, "Hydration", move |(input, frontier)| {
        input.for_each(|_cap, _batches| {});
        if cell.get().is_none() && !frontier.less_equal(&as_of) {
            cell.set(Some(started.elapsed().as_secs_f64() * 1000.0));
        }
    });
}

/// The figures of every exported trace in the catalog.
pub fn catalog_arrangements(traces: &TraceCatalog) -> Vec<ArrangementInfo> {
    let mut out = Vec::new();
    let probe = |name: &str, key: &str| (name.to_string(), key.to_string());
    for (id, c) in &traces.collections {
        let (n, k) = probe("rows", "(whole row)");
        out.extend(ArrangementProbe::new(n, k, c.oks.liveness()).info(*id));
        if let Some(errs) = &c.errs {
            let (n, k) = probe("errors", "(error)");
            out.extend(ArrangementProbe::new(n, k, errs.liveness()).info(*id));
        }
    }
    for (id, i) in &traces.indexes {
        let (n, k) = probe("index", &expr_list(&i.key));
        out.extend(ArrangementProbe::new(n, k, i.oks.liveness()).info(*id));
        let (n, k) = probe("index errors", "(error)");
        out.extend(ArrangementProbe::new(n, k, i.errs.liveness()).info(*id));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocation_sizes_are_jemallocs_classes() {
        let classes = [
            (0, 0),
            (1, 8),
            (8, 8),
            (9, 16),
            (100, 112),
            (128, 128),
            (129, 160),
            (200, 224),
            (256, 256),
            (257, 320),
            (1000, 1024),
            (1025, 1280),
        ];
        for (n, class) in classes {
            assert_eq!(allocation_size(n), class, "a request of {n} bytes");
        }
    }

    #[test]
    fn a_rows_heap_size_is_its_allocation() {
        let small = Row::new(vec![kpg_types::Datum::Int32(7)]);
        assert_eq!(small.heap_size(), 0, "a small row is inline");
        let text = "x".repeat(100);
        let big = Row::new(vec![kpg_types::Datum::String(text)]);
        let heap = big.packed().heap_size();
        assert!(heap > 100);
        assert_eq!(big.heap_size(), allocation_size(heap));
        assert_eq!(big.heap_size() % 16, 0);
    }
}
