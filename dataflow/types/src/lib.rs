//! The contract between the SQL planner and the dataflow runtime, with no timely in it.
//!
//! - `scalar`: SQL types and relation schemas.
//! - `datum`: values and rows, with PostgreSQL's text formats.
//! - `expr`, `agg`: scalar expressions and aggregates, and their evaluation.
//! - `plan`: the render plan and `DataflowDescription`.
//! - `command`: the coordinator ⇄ worker protocol.
//! - `error`: evaluation errors with SQLSTATEs.
//!
//! The planner produces these types; the compute runtime consumes them. Neither looks past this
//! crate at the other.

pub mod agg;
pub mod command;
pub mod datum;
pub mod error;
pub mod expr;
pub mod plan;
pub mod scalar;

pub use agg::{AggregateExpr, AggregateFunc};
pub use datum::{Datum, Row};
pub use error::EvalError;
pub use expr::{BinaryFunc, ScalarExpr, UnaryFunc, VariadicFunc};
pub use plan::{DataflowDescription, DataflowSink, GlobalId, Plan};
pub use scalar::{ColumnType, RelationDesc, ScalarType};
