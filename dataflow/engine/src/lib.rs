//! kpg's differential dataflow engine: collections of updates on timely dataflow.
//!
//! The engine knows nothing of SQL. A [`Collection`] is a stream of `(data, time, diff)` updates
//! where times form a [`Lattice`] and diffs a [`Semigroup`]/[`Abelian`] group; the SQL runtime
//! uses `T = u64` (milliseconds) and `R = i64`. Stateful operators work on *arrangements*
//! ([`Arranged`]): a stream of immutable, shared, sorted batches plus a [`TraceAgent`] handle on the
//! compacted trace of all of them, which other operators and later dataflows share (`import`).
//!
//! Layout: `lattice`, `difference`, `consolidation` (algebra); `trace/` (batch, batcher, merge,
//! spine, cursor, handle, enter: storage, with no timely operators); `collection`, `input`
//! (record-level operators and inputs); `operators/` (arrange, import, join, reduce, count,
//! iterate, and the one-shot snapshot join and reduce). Timely 0.32 is touched through `timely::dataflow::{Scope, Stream}`, the generic
//! operator builders and the feedback/enter/leave operators only.
//!
//! Public API (the contract the runtime codes against):
//! ```text
//! trait Lattice: PartialOrder + Ord + Clone + Debug + 'static { join, meet, advance_by(AntichainRef) }
//! trait Semigroup { is_zero, plus_equals }   trait Abelian: Semigroup { negate, zero }   trait Multiply
//! trait Data: timely::ExchangeData + Ord + Hash + Debug + Clone + SortKey + ArenaCopy {}
//!   (blanket impl; from kpg-sortkey: SortKey, an order-preserving u64 prefix the batcher sorts
//!   by, default none; ArenaCopy, how a batch stores the value's heap bytes, default a clone)
//! consolidate(&mut Vec<(D, R)>)   consolidate_updates(&mut Vec<(D, T, R)>)
//! struct Collection<'s, T, D, R = i64> { pub inner: StreamVec<'s, T, (D, T, R)> }
//!   map, filter, flat_map, concat, negate, inspect, probe, probe_with, enter, leave,
//!   consolidate, arrange_by_key (D = (K, V)), arrange_by_self, join (D = (K, V)),
//!   snapshot_join(other, time, |&K, &V, &V2| -> impl IntoIterator<Item = D>),
//!   snapshot_reduce(name, time, |&K, &[(&V, R)], &mut Vec<(V2, R2)>|)  (one-shot reads: by hashing,
//!   the result only correct read at `time`),
//!   count / distinct / threshold (any lattice T, R: Abelian + From<i8>),
//!   iterate(|Collection<'i, Product<T, u64>, D, R>| -> same)  (R: Abelian)
//! struct Variable<'s, T, D, R>: new(scope, step), new_from(source, step), collection(), set(&result), Deref
//! struct InputSession<T, D, R> (T: TotalOrder)
//!   new, to_collection(&mut self, Scope<'s, T>), update, update_at, insert, remove,
//!   advance_to, flush, time, close
//! struct Arranged<'s, T, K, V, R> { pub stream: BatchStream<'s, T, K, V, R>, pub trace: TraceAgent<K, V, T, R> }
//!   as_collection(|&K, &V| -> D), join_core(&Arranged<'s, T, K, V2, R>, |&K, &V, &V2| -> impl IntoIterator<Item = D>),
//!   reduce_abelian::<V2, R2>(name, |&K, &[(&V, R)], &mut Vec<(V2, R2)>|)  (any lattice T),
//!   enter(inner scope) -> Arranged<'i, TI, K, V, R>  (no copy: times read as (t, 0))
//! struct TraceAgent<K, V, T, R>: Clone
//!   set_logical_compaction(AntichainRef<T>), set_physical_compaction(AntichainRef<T>),
//!   get_logical_compaction(), read_upper(&mut Antichain<T>), import(Scope<'s, T>),
//!   import_frontier(Scope<'s, T>, as_of: AntichainRef<T>), cursor(), cursor_through(frontier),
//!   read_at(&T) -> Vec<(K, V, R)>, try_read_at(&T) -> Result<_, ReadError>, len, set_effort(Effort),
//!   stored_batches() -> Vec<BatchRef<K, V, T, R>>,
//!   enter::<TI>() -> TraceAgent<K, V, TI, R>
//! ```
//! Workers: arrange exchanges updates by a stable hash of the key (`hash_key`, the same in every
//! process); every other operator is worker-local. Everything exchanged is `Data`, whose
//! `timely::ExchangeData` bound (serde) is what cluster mode (several processes) needs to
//! serialize it; `tests/cluster.rs` runs two processes over localhost.
//!
//! Note the small departures timely 0.32 imposes: scopes are `Scope<'s, T>` values (no `G: Scope`
//! generic) and streams carry the scope lifetime, so every type above has a `'s` parameter.

pub mod collection;
pub mod consolidation;
pub mod difference;
pub mod input;
pub mod lattice;
pub mod operators;
pub mod trace;

use std::fmt::Debug;
use std::hash::Hash;
use std::rc::Rc;

pub use collection::Collection;
pub use consolidation::{consolidate, consolidate_updates};
pub use difference::{Abelian, Multiply, Semigroup};
pub use input::InputSession;
pub use kpg_sortkey::{Arena, ArenaCopy, SortKey};
pub use lattice::Lattice;
pub use operators::arrange::{Arranged, BatchStream};
pub use operators::iterate::Variable;
pub use trace::batch::{Batch, Description};
pub use trace::cursor::TraceCursor;
pub use trace::handle::{TraceAgent, TraceLiveness, TraceStats};
pub use trace::spine::Effort;

/// Data that can be updated, arranged and exchanged between workers; its `SortKey` (an
/// order-preserving integer prefix, none by default) lets the batcher's sorts compare integers,
/// and its `ArenaCopy` lets a batch keep its heap bytes in the batch's own arena.
pub trait Data: timely::ExchangeData + Ord + Hash + Debug + Clone + SortKey + ArenaCopy {}
impl<D: timely::ExchangeData + Ord + Hash + Debug + Clone + SortKey + ArenaCopy> Data for D {}

/// A shared, immutable batch.
pub type BatchRef<K, V, T, R> = Rc<Batch<K, V, T, R>>;

/// Why a read through a trace handle was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The read time is not beyond the handle's logical compaction frontier, so the trace may
    /// already have advanced updates past it.
    BeforeSince,
    /// The read time is beyond the trace's upper: the trace is not yet complete there.
    NotComplete,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::BeforeSince => {
                write!(f, "read time is before the trace's compaction frontier")
            }
            ReadError::NotComplete => write!(f, "read time is not yet complete in the trace"),
        }
    }
}

impl std::error::Error for ReadError {}
