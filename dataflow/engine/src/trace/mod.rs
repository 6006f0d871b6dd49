//! Traces: the indexed, compacted, shared history of a collection.
//!
//! Owns the storage half of an arrangement: immutable [`batch::Batch`]es built by the
//! [`batcher::Batcher`], kept by the fueled [`spine::Spine`], read through
//! [`cursor::TraceCursor`]s and shared through [`handle::TraceAgent`]s. Nothing here knows about
//! timely operators except the activators of import listeners.

pub mod batch;
pub mod batcher;
pub mod cursor;
pub mod enter;
pub mod handle;
pub mod merge;
pub mod spine;
