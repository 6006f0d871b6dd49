//! Operators on arrangements: arrange, import, join, reduce and its count-like specializations;
//! and for one-shot reads, a join and a reduce through hash tables (`snapshot_*`).
//!
//! Each file renders one operator family; all of them consume and produce the batch streams and
//! trace handles defined in `crate::trace`, so an arrangement built once is shared by every
//! operator (and every later dataflow) that reads it.

pub(crate) mod acknowledged;
pub mod arrange;
pub mod count;
pub(crate) mod hash_table;
pub mod import;
pub mod iterate;
pub mod join;
pub mod reduce;
pub mod snapshot_join;
pub mod snapshot_reduce;
pub mod total;
