//! Packed rows: a row as one byte string, a tag byte per datum and a compact payload.
//!
//! A `Row` of `Datum`s costs a 32-byte enum a column plus a heap allocation per row and per
//! string. A `PackedRow` is the same values written one after another: a tag byte that says
//! the variant and the payload's form, then the payload — small integers in 1, 2 or 4 bytes,
//! strings and bytea inline after their length (a string shorter than 128 bytes has its length
//! in the tag), numerics as a scale byte and a variable-length mantissa, dates, timestamps,
//! times and intervals fixed width, arrays and records as a nested packed row, jsonb as a
//! nested tree of the same tags. Rows up to `INLINE` bytes need no heap allocation.
//!
//! Rows are read through `DatumRef`s, borrowed views (a string is a `&str` into the row),
//! without allocating, and written by a `RowPacker` from `&Datum`s or `DatumRef`s without an
//! intermediate `Vec<Datum>`.
//!
//! Order and equality are those of the row's `Vec<Datum>` (`datum.rs`: SQL order, ties broken
//! by representation), computed datum by datum over the borrowed views. The encoding is
//! canonical — one byte string per `Datum`-equal value: integers take the fewest bytes that
//! hold them, a numeric has one form (`numeric.rs`), a float NaN is written as the one NaN of
//! its sign — so equality is byte equality and hashing hashes the bytes. (A NaN's payload bits,
//! which no SQL operation observes, do not survive packing.)
//!
//! - `datum_ref`: the borrowed datum, reading one datum from bytes, and conversion to `Datum`.
//! - `packer`: writing datums.
//! - `input`: text input (PostgreSQL's input rules) written straight into a packer.
//! - `order`: comparing borrowed datums and packed rows.
//! - `row`: `PackedRow` (owned, inline when small) and `PackedSlice` (borrowed).
//! - `check`: accepting bytes from outside (a data directory) only when a packer could have
//!   written them.

mod bytes;
mod check;
#[cfg(test)]
mod check_tests;
mod datum_ref;
mod input;
mod numeric_key;
mod order;
mod packer;
mod row;
#[cfg(test)]
mod tests;

pub use check::check_row;
pub use datum_ref::{DatumRef, Int2VectorRef, JsonbRef, NumericRef};
pub use packer::RowPacker;
pub use row::{PackedIter, PackedRow, PackedSlice, INLINE};

/// The tag bytes. Every datum starts with one; the payload that follows is fixed by it.
mod tag {
    pub const NULL: u8 = 0;
    pub const FALSE: u8 = 1;
    pub const TRUE: u8 = 2;
    /// Integers in the fewest little-endian bytes that hold them.
    pub const INT16_1: u8 = 3;
    pub const INT16_2: u8 = 4;
    pub const INT32_1: u8 = 5;
    pub const INT32_2: u8 = 6;
    pub const INT32_4: u8 = 7;
    pub const INT64_1: u8 = 8;
    pub const INT64_2: u8 = 9;
    pub const INT64_4: u8 = 10;
    pub const INT64_8: u8 = 11;
    /// The IEEE bits, little-endian.
    pub const FLOAT32: u8 = 12;
    pub const FLOAT64: u8 = 13;
    /// A scale byte (at most 28), then the zigzag varint of the mantissa (below 2^96).
    pub const NUMERIC: u8 = 14;
    /// A varint length, then the scale (u32) and the mantissa's signed little-endian bytes.
    pub const NUMERIC_BIG: u8 = 15;
    pub const NUMERIC_NEG_INF: u8 = 16;
    pub const NUMERIC_POS_INF: u8 = 17;
    pub const NUMERIC_NAN: u8 = 18;
    /// A varint length, then UTF-8 (strings of 128 bytes or more; shorter ones: `SHORT_STRING`).
    pub const STRING: u8 = 19;
    /// Days from the common era (i32).
    pub const DATE: u8 = 20;
    /// Microseconds from the Unix epoch (i64), or, when the value has nanoseconds, seconds
    /// (i64) and nanoseconds (u32).
    pub const TIMESTAMP: u8 = 21;
    pub const TIMESTAMP_NANOS: u8 = 22;
    pub const TIMESTAMPTZ: u8 = 23;
    pub const TIMESTAMPTZ_NANOS: u8 = 24;
    /// Months (i32), days (i32), microseconds (i64).
    pub const INTERVAL: u8 = 25;
    /// Microseconds since midnight (i64).
    pub const TIME: u8 = 26;
    /// 16 bytes.
    pub const UUID: u8 = 27;
    /// A varint length, then the bytes.
    pub const BYTES: u8 = 28;
    /// A varint length, then one json node (below).
    pub const JSONB: u8 = 29;
    /// A varint length, then the elements as a packed row.
    pub const ARRAY: u8 = 30;
    /// A varint count, then the elements (i16 each).
    pub const INT2VECTOR: u8 = 31;
    /// A varint length, then the fields as a packed row.
    pub const RECORD: u8 = 32;
    /// Inside jsonb: an object, a varint count of members, then each key (a string datum) and
    /// value. A json null, boolean, number and string use the datum tags; an array is `ARRAY`
    /// followed by a varint count and the elements.
    pub const JSON_OBJECT: u8 = 33;
    /// `SHORT_STRING + n`: a string of `n` < 128 bytes follows.
    pub const SHORT_STRING: u8 = 128;
}

/// Appends `v` as an unsigned LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut v: u128) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an unsigned varint at the start of `data`: its value and its length in bytes.
fn get_varint(data: &[u8]) -> (u128, usize) {
    let mut v = 0u128;
    let mut shift = 0;
    for (i, b) in data.iter().enumerate() {
        v |= u128::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return (v, i + 1);
        }
        shift += 7;
    }
    panic!("packed row: truncated varint");
}

/// A length varint: its value as `usize`.
fn get_len(data: &[u8]) -> (usize, usize) {
    let (v, n) = get_varint(data);
    (v as usize, n)
}
