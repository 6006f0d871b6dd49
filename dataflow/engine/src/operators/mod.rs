//! Operators on arrangements: arrange, import, join, reduce and its count-like specializations.
//!
//! Each file renders one operator family; all of them consume and produce the batch streams and
//! trace handles defined in `crate::trace`, so an arrangement built once is shared by every
//! operator (and every later dataflow) that reads it.

pub(crate) mod acknowledged;
pub mod arrange;
pub mod count;
pub mod import;
pub mod iterate;
pub mod join;
pub mod reduce;
pub mod total;
