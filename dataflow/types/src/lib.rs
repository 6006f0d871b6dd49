//! The contract between the SQL planner and the dataflow runtime, with no timely in it.
//!
//! - `scalar`: SQL types and relation schemas.
//! - `datum`: values and rows, with PostgreSQL's text formats.
//! - `packed`: rows as compact byte strings, read through borrowed datums.
//! - `numeric`: exact decimal numbers of any size, with PostgreSQL's arithmetic.
//! - `float_text`: real and double precision as PostgreSQL prints them.
//! - `array`: one-dimensional arrays, their text and binary formats and functions.
//! - `interval`, `datetime`: the interval and timestamp types and the date/time functions.
//! - `accum`: aggregates computed from contributions carried in differences.
//! - `expr`, `agg`: scalar expressions and aggregates, and their evaluation (`builtins`:
//!   the string, rounding and date/time functions; `cast`: conversions between types;
//!   `failure`: which expressions can fail).
//! - `mfp`: a chain of map, filter and project nodes evaluated as one step over packed rows.
//! - `plan`: the render plan and `DataflowDescription`.
//! - `command`: the coordinator ⇄ worker protocol.
//! - `source`: sources (load generators) and the collections they export.
//! - `error`: evaluation errors with SQLSTATEs.
//! - `subquery`: subqueries before decorrelation, as `EXPLAIN RAW` shows them.
//! - `display`: SQL-like text of expressions (EXPLAIN, introspection).
//! - `pg_funcs`: functions PostgreSQL clients' catalog queries use (regular expression
//!   match, quote_ident, format_type, pg_encoding_to_char).
//!
//! The planner produces these types; the compute runtime consumes them. Neither looks past this
//! crate at the other.

pub mod accum;
pub mod agg;
pub mod array;
mod builtins;
pub mod bytes_text;
mod cast;
pub mod command;
pub mod datetime;
pub mod datum;
mod display;
pub mod error;
pub mod expr;
pub mod external;
mod failure;
mod float_text;
pub mod interval;
pub mod jsonb;
pub mod jsonb_build;
mod math;
pub mod mfp;
pub mod numeric;
pub mod oid_names;
pub mod packed;
mod pg_funcs;
pub mod plan;
pub mod reading;
pub mod scalar;
pub mod source;
pub mod styled_text;
pub mod subquery;
pub mod table_func;
pub mod temporal;
#[doc(hidden)]
pub mod test_rng;
mod text_funcs;
pub mod to_char;
pub mod window;

pub use accum::Accum;
pub use agg::{AggregateExpr, AggregateFunc};
pub use datetime::{DateKind, DateUnit};
pub use datum::{Datum, Row};
pub use display::expr_list;
pub use error::EvalError;
pub use expr::{BinaryFunc, ScalarExpr, UnaryFunc, VariadicFunc, ZonedFunc};
pub use interval::{
    Interval, IntervalField, IntervalFields, IntervalTypmod, PrecisionWithoutSeconds,
};
pub use mfp::{MapFilterProject, RowExprs, ValueRef};
pub use numeric::Numeric;
pub use pg_funcs::{format_type, quote_ident, TYPES as PG_TYPES};
pub use plan::{DataflowDescription, DataflowSink, GlobalId, Plan};
pub use scalar::{ColumnType, RelationDesc, ScalarType};
pub use source::{LoadGenerator, SourceDesc, SourceExport};
pub use styled_text::OutputStyle;
pub use subquery::{BoundSubquery, SubqueryKind, OUTER_ROW};
