//! `DatumRef`: one datum of a packed row, borrowed from its bytes, and reading it.
//!
//! Fixed-width values are decoded into the view (a date, an interval); strings, bytea and uuids
//! borrow the row's bytes; numerics, jsonb, arrays and records stay in their packed form until
//! asked for (`NumericRef::to_numeric` allocates only for a mantissa beyond 96 bits).
//! `to_datum` makes the owned `Datum`.

use super::row::PackedSlice;
use super::{get_len, get_varint, tag};
use crate::datum::Datum;
use crate::interval::Interval;
use crate::jsonb::Json;
use crate::numeric::{Numeric, Special};
use chrono::{DateTime, NaiveDate, NaiveDateTime};
use num_bigint::BigInt;
use ordered_float::OrderedFloat;

/// One SQL value borrowed from a packed row: `Datum`'s variants, by reference where they own.
#[derive(Clone, Copy, Debug)]
pub enum DatumRef<'a> {
    Null,
    Bool(bool),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Float32(OrderedFloat<f32>),
    Float64(OrderedFloat<f64>),
    Numeric(NumericRef<'a>),
    String(&'a str),
    Date(NaiveDate),
    Timestamp(NaiveDateTime),
    Interval(Interval),
    Time(i64),
    Uuid(&'a [u8; 16]),
    Bytes(&'a [u8]),
    Jsonb(JsonbRef<'a>),
    Array(PackedSlice<'a>),
    Int2Vector(Int2VectorRef<'a>),
    Record(PackedSlice<'a>),
    TimestampTz(NaiveDateTime),
}

/// A packed numeric.
#[derive(Clone, Copy, Debug)]
pub enum NumericRef<'a> {
    /// `mantissa / 10^scale`, the mantissa below 2^96 and the scale at most 28.
    Small {
        mantissa: i128,
        scale: u8,
    },
    Special(Special),
    /// The scale (u32) and the mantissa's signed little-endian bytes.
    Big(&'a [u8]),
}

impl NumericRef<'_> {
    /// The owned value (allocates only for a big mantissa).
    pub fn to_numeric(&self) -> Numeric {
        match *self {
            NumericRef::Small { mantissa, scale } => Numeric::from_i128(mantissa, u32::from(scale))
                .expect("packed numeric within limits"),
            NumericRef::Special(s) => Numeric::special_value(s),
            NumericRef::Big(b) => {
                Numeric::from_parts(BigInt::from_signed_bytes_le(&b[4..]), big_scale(b))
                    .expect("packed numeric within limits")
            }
        }
    }

    /// Digits after the point (0 for the special values), as `Numeric::scale`.
    pub fn scale(&self) -> u32 {
        match *self {
            NumericRef::Small { scale, .. } => u32::from(scale),
            NumericRef::Special(_) => 0,
            NumericRef::Big(b) => big_scale(b),
        }
    }
}

pub(super) fn big_scale(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("packed numeric scale"))
}

/// A packed jsonb value (one json node, `packed.rs`).
#[derive(Clone, Copy, Debug)]
pub struct JsonbRef<'a>(pub(super) &'a [u8]);

impl JsonbRef<'_> {
    /// The owned json tree.
    pub fn to_json(&self) -> Json {
        let (j, n) = read_json(self.0);
        debug_assert_eq!(n, self.0.len());
        j
    }
}

fn read_json(data: &[u8]) -> (Json, usize) {
    match data[0] {
        tag::JSON_OBJECT => {
            let (count, mut at) = get_len(&data[1..]);
            at += 1;
            let mut members = Vec::with_capacity(count);
            for _ in 0..count {
                let (key, n) = read(&data[at..]);
                at += n;
                let DatumRef::String(key) = key else {
                    panic!("packed jsonb: key is not a string")
                };
                let (value, n) = read_json(&data[at..]);
                at += n;
                members.push((key.to_string(), value));
            }
            (Json::Object(members), at)
        }
        tag::ARRAY => {
            let (count, mut at) = get_len(&data[1..]);
            at += 1;
            let mut elems = Vec::with_capacity(count);
            for _ in 0..count {
                let (value, n) = read_json(&data[at..]);
                at += n;
                elems.push(value);
            }
            (Json::Array(elems), at)
        }
        _ => {
            let (d, n) = read(data);
            let j = match d {
                DatumRef::Null => Json::Null,
                DatumRef::Bool(b) => Json::Bool(b),
                DatumRef::Numeric(n) => Json::Number(n.to_numeric()),
                DatumRef::String(s) => Json::String(s.to_string()),
                other => panic!("packed jsonb: unexpected {other:?}"),
            };
            (j, n)
        }
    }
}

/// A packed `int2vector`: its elements, two little-endian bytes each.
#[derive(Clone, Copy, Debug)]
pub struct Int2VectorRef<'a>(pub(super) &'a [u8]);

impl<'a> Int2VectorRef<'a> {
    pub fn iter(&self) -> impl Iterator<Item = i16> + 'a {
        self.0
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
    }
}

impl DatumRef<'_> {
    pub fn is_null(&self) -> bool {
        matches!(self, DatumRef::Null)
    }

    /// `Datum::canonical` of the value: its canonical form when it is not that form. Values
    /// of types with one form per value, and small numerics already trimmed, are answered
    /// without making an owned datum.
    pub fn canonical(&self) -> Option<Datum> {
        match *self {
            DatumRef::Numeric(NumericRef::Small { mantissa, scale }) => {
                if scale == 0 || mantissa % 10 != 0 {
                    None
                } else {
                    self.to_datum().canonical()
                }
            }
            DatumRef::Numeric(NumericRef::Big(_))
            | DatumRef::Interval(_)
            | DatumRef::Float32(_)
            | DatumRef::Float64(_)
            | DatumRef::Array(_) => self.to_datum().canonical(),
            _ => None,
        }
    }

    /// The owned value.
    pub fn to_datum(&self) -> Datum {
        match *self {
            DatumRef::Null => Datum::Null,
            DatumRef::Bool(b) => Datum::Bool(b),
            DatumRef::Int16(i) => Datum::Int16(i),
            DatumRef::Int32(i) => Datum::Int32(i),
            DatumRef::Int64(i) => Datum::Int64(i),
            DatumRef::Float32(f) => Datum::Float32(f),
            DatumRef::Float64(f) => Datum::Float64(f),
            DatumRef::Numeric(n) => Datum::Numeric(n.to_numeric()),
            DatumRef::String(s) => Datum::String(s.to_string()),
            DatumRef::Date(d) => Datum::Date(d),
            DatumRef::Timestamp(t) => Datum::Timestamp(t),
            DatumRef::Interval(iv) => Datum::Interval(iv),
            DatumRef::Time(t) => Datum::Time(t),
            DatumRef::Uuid(u) => Datum::Uuid(*u),
            DatumRef::Bytes(b) => Datum::Bytes(b.to_vec()),
            DatumRef::Jsonb(j) => Datum::Jsonb(Box::new(j.to_json())),
            DatumRef::Array(a) => Datum::Array(a.iter().map(|d| d.to_datum()).collect()),
            DatumRef::Int2Vector(v) => Datum::Int2Vector(v.iter().collect()),
            DatumRef::Record(r) => Datum::Record(r.iter().map(|d| d.to_datum()).collect()),
            DatumRef::TimestampTz(t) => Datum::TimestampTz(t),
        }
    }
}

impl From<DatumRef<'_>> for Datum {
    fn from(d: DatumRef<'_>) -> Datum {
        d.to_datum()
    }
}

fn fixed<const N: usize>(data: &[u8]) -> [u8; N] {
    data[..N].try_into().expect("packed row: truncated datum")
}

fn micros_to_timestamp(micros: i64) -> NaiveDateTime {
    DateTime::from_timestamp_micros(micros)
        .expect("packed timestamp in range")
        .naive_utc()
}

fn nanos_to_timestamp(p: &[u8]) -> NaiveDateTime {
    let secs = i64::from_le_bytes(fixed(p));
    let nanos = u32::from_le_bytes(fixed(&p[8..]));
    DateTime::from_timestamp(secs, nanos)
        .expect("packed timestamp in range")
        .naive_utc()
}

/// A varint-length-prefixed payload: its bytes and the prefix's length plus theirs.
fn prefixed(p: &[u8]) -> (&[u8], usize) {
    let (len, n) = get_len(p);
    (&p[n..n + len], n + len)
}

/// The bytes of the string at the start of `data`, not checked as UTF-8 (`Some(None)` for
/// NULL, `None` for a datum that is neither).
pub(super) fn string_bytes(data: &[u8]) -> Option<Option<&[u8]>> {
    let t = data[0];
    if t >= tag::SHORT_STRING {
        let len = usize::from(t - tag::SHORT_STRING);
        return Some(Some(&data[1..1 + len]));
    }
    match t {
        tag::STRING => Some(Some(prefixed(&data[1..]).0)),
        tag::NULL => Some(None),
        _ => None,
    }
}

/// Reads the datum at the start of `data` (bytes a `RowPacker` wrote): the view and the
/// number of bytes it takes, tag included.
pub(super) fn read(data: &[u8]) -> (DatumRef<'_>, usize) {
    let t = data[0];
    let p = &data[1..];
    if t >= tag::SHORT_STRING {
        let len = usize::from(t - tag::SHORT_STRING);
        return (DatumRef::String(utf8(&p[..len])), 1 + len);
    }
    let (d, n) = match t {
        tag::NULL => (DatumRef::Null, 0),
        tag::FALSE => (DatumRef::Bool(false), 0),
        tag::TRUE => (DatumRef::Bool(true), 0),
        tag::INT16_1 => (DatumRef::Int16(i16::from(p[0] as i8)), 1),
        tag::INT16_2 => (DatumRef::Int16(i16::from_le_bytes(fixed(p))), 2),
        tag::INT32_1 => (DatumRef::Int32(i32::from(p[0] as i8)), 1),
        tag::INT32_2 => (DatumRef::Int32(i32::from(i16::from_le_bytes(fixed(p)))), 2),
        tag::INT32_4 => (DatumRef::Int32(i32::from_le_bytes(fixed(p))), 4),
        tag::INT64_1 => (DatumRef::Int64(i64::from(p[0] as i8)), 1),
        tag::INT64_2 => (DatumRef::Int64(i64::from(i16::from_le_bytes(fixed(p)))), 2),
        tag::INT64_4 => (DatumRef::Int64(i64::from(i32::from_le_bytes(fixed(p)))), 4),
        tag::INT64_8 => (DatumRef::Int64(i64::from_le_bytes(fixed(p))), 8),
        tag::FLOAT32 => (
            DatumRef::Float32(OrderedFloat(f32::from_le_bytes(fixed(p)))),
            4,
        ),
        tag::FLOAT64 => (
            DatumRef::Float64(OrderedFloat(f64::from_le_bytes(fixed(p)))),
            8,
        ),
        tag::NUMERIC => {
            let (z, n) = get_varint(&p[1..]);
            let mantissa = ((z >> 1) as i128) ^ -((z & 1) as i128);
            let scale = p[0];
            (
                DatumRef::Numeric(NumericRef::Small { mantissa, scale }),
                1 + n,
            )
        }
        tag::NUMERIC_BIG => {
            let (b, n) = prefixed(p);
            (DatumRef::Numeric(NumericRef::Big(b)), n)
        }
        tag::NUMERIC_NEG_INF => (DatumRef::Numeric(NumericRef::Special(Special::NegInf)), 0),
        tag::NUMERIC_POS_INF => (DatumRef::Numeric(NumericRef::Special(Special::PosInf)), 0),
        tag::NUMERIC_NAN => (DatumRef::Numeric(NumericRef::Special(Special::NaN)), 0),
        tag::STRING => {
            let (b, n) = prefixed(p);
            (DatumRef::String(utf8(b)), n)
        }
        tag::DATE => {
            let days = i32::from_le_bytes(fixed(p));
            let d = NaiveDate::from_num_days_from_ce_opt(days).expect("packed date in range");
            (DatumRef::Date(d), 4)
        }
        tag::TIMESTAMP => (
            DatumRef::Timestamp(micros_to_timestamp(i64::from_le_bytes(fixed(p)))),
            8,
        ),
        tag::TIMESTAMP_NANOS => (DatumRef::Timestamp(nanos_to_timestamp(p)), 12),
        tag::TIMESTAMPTZ => (
            DatumRef::TimestampTz(micros_to_timestamp(i64::from_le_bytes(fixed(p)))),
            8,
        ),
        tag::TIMESTAMPTZ_NANOS => (DatumRef::TimestampTz(nanos_to_timestamp(p)), 12),
        tag::INTERVAL => (
            DatumRef::Interval(Interval::new(
                i32::from_le_bytes(fixed(p)),
                i32::from_le_bytes(fixed(&p[4..])),
                i64::from_le_bytes(fixed(&p[8..])),
            )),
            16,
        ),
        tag::TIME => (DatumRef::Time(i64::from_le_bytes(fixed(p))), 8),
        tag::UUID => (DatumRef::Uuid(p[..16].try_into().expect("packed uuid")), 16),
        tag::BYTES => {
            let (b, n) = prefixed(p);
            (DatumRef::Bytes(b), n)
        }
        tag::JSONB => {
            let (b, n) = prefixed(p);
            (DatumRef::Jsonb(JsonbRef(b)), n)
        }
        tag::ARRAY => {
            let (b, n) = prefixed(p);
            (DatumRef::Array(PackedSlice::from_packed(b)), n)
        }
        tag::INT2VECTOR => {
            let (count, n) = get_len(p);
            let b = &p[n..n + 2 * count];
            (DatumRef::Int2Vector(Int2VectorRef(b)), n + 2 * count)
        }
        tag::RECORD => {
            let (b, n) = prefixed(p);
            (DatumRef::Record(PackedSlice::from_packed(b)), n)
        }
        other => panic!("packed row: unknown tag {other}"),
    };
    (d, 1 + n)
}

/// The number of bytes the datum at the start of `data` takes, tag included: `read`'s length,
/// found from the tag and length prefixes alone (no value decoded, no text validated).
#[inline]
pub(super) fn datum_len(data: &[u8]) -> usize {
    let t = data[0];
    if t >= tag::SHORT_STRING {
        return 1 + usize::from(t - tag::SHORT_STRING);
    }
    let p = &data[1..];
    let prefixed_len = |p: &[u8]| {
        let (len, n) = get_len(p);
        n + len
    };
    1 + match t {
        tag::NULL | tag::FALSE | tag::TRUE => 0,
        tag::NUMERIC_NEG_INF | tag::NUMERIC_POS_INF | tag::NUMERIC_NAN => 0,
        tag::INT16_1 | tag::INT32_1 | tag::INT64_1 => 1,
        tag::INT16_2 | tag::INT32_2 | tag::INT64_2 => 2,
        tag::INT32_4 | tag::INT64_4 | tag::FLOAT32 | tag::DATE => 4,
        tag::INT64_8 | tag::FLOAT64 | tag::TIMESTAMP | tag::TIMESTAMPTZ | tag::TIME => 8,
        tag::TIMESTAMP_NANOS | tag::TIMESTAMPTZ_NANOS => 12,
        tag::INTERVAL | tag::UUID => 16,
        tag::NUMERIC => 1 + get_varint(&p[1..]).1,
        tag::NUMERIC_BIG | tag::STRING | tag::BYTES | tag::JSONB | tag::ARRAY | tag::RECORD => {
            prefixed_len(p)
        }
        tag::INT2VECTOR => {
            let (count, n) = get_len(p);
            n + 2 * count
        }
        other => panic!("packed row: unknown tag {other}"),
    }
}

/// The text of a packed string: the packer wrote it from a `&str`.
fn utf8(b: &[u8]) -> &str {
    std::str::from_utf8(b).expect("packed string is UTF-8")
}
