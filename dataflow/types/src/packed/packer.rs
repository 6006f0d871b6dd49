//! `RowPacker`: writes datums, owned or borrowed, into a packed row.
//!
//! A packer keeps one growing buffer; `finish` copies it into a `PackedRow` of exactly its size
//! (inline when it fits) and empties the buffer for the next row, so packing many rows
//! allocates only for the rows that do not fit inline. Every value is written in its one
//! canonical form (`packed.rs`), which is what lets equality be byte equality.

use super::datum_ref::{DatumRef, NumericRef};
use super::row::{PackedRow, PackedSlice};
use super::{put_varint, tag};
use crate::datum::Datum;
use crate::interval::Interval;
use crate::jsonb::Json;
use crate::numeric::{Numeric, Special};
use chrono::{NaiveDate, NaiveDateTime};

/// Builds packed rows datum by datum.
#[derive(Clone, Debug, Default)]
pub struct RowPacker {
    buf: Vec<u8>,
}

impl RowPacker {
    pub fn new() -> RowPacker {
        RowPacker::default()
    }

    /// Appends an owned datum.
    pub fn push(&mut self, d: &Datum) {
        write_datum(&mut self.buf, d);
    }

    /// Appends a borrowed datum (from this or another packed row).
    pub fn push_ref(&mut self, d: DatumRef<'_>) {
        write_ref(&mut self.buf, d);
    }

    /// Appends a string datum of `s` followed by `blanks` spaces (a padded `char(n)` value).
    pub fn push_padded_str(&mut self, s: &str, blanks: usize) {
        write_str_parts(&mut self.buf, s, blanks);
    }

    /// Appends every datum of `datums`.
    pub fn extend<'d>(&mut self, datums: impl IntoIterator<Item = &'d Datum>) {
        for d in datums {
            self.push(d);
        }
    }

    /// Appends every datum of a packed row (a copy of its bytes).
    pub fn extend_packed(&mut self, row: PackedSlice<'_>) {
        self.buf.extend_from_slice(row.as_bytes());
    }

    /// The row written so far, leaving the packer empty for the next one.
    pub fn finish(&mut self) -> PackedRow {
        let row = PackedRow::from_packed(&self.buf);
        self.buf.clear();
        row
    }

    /// What was written since the last `finish`, borrowed (a row built to be read, not kept).
    pub fn as_slice(&self) -> PackedSlice<'_> {
        PackedSlice::from_packed(&self.buf)
    }

    /// Forgets what was written since the last `finish`.
    pub fn clear(&mut self) {
        self.buf.clear();
    }
}

pub(super) fn write_datum(out: &mut Vec<u8>, d: &Datum) {
    match d {
        Datum::Null => out.push(tag::NULL),
        Datum::Bool(b) => out.push(if *b { tag::TRUE } else { tag::FALSE }),
        Datum::Int16(i) => write_i16(out, *i),
        Datum::Int32(i) => write_i32(out, *i),
        Datum::Int64(i) => write_i64(out, *i),
        Datum::Float32(f) => write_f32(out, f.0),
        Datum::Float64(f) => write_f64(out, f.0),
        Datum::Numeric(n) => write_numeric(out, n),
        Datum::String(s) => write_str(out, s),
        Datum::Date(d) => write_date(out, d),
        Datum::Timestamp(t) => write_timestamp(out, t, tag::TIMESTAMP),
        Datum::TimestampTz(t) => write_timestamp(out, t, tag::TIMESTAMPTZ),
        Datum::Interval(iv) => write_interval(out, iv),
        Datum::Time(t) => {
            out.push(tag::TIME);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Datum::Uuid(u) => {
            out.push(tag::UUID);
            out.extend_from_slice(u);
        }
        Datum::Bytes(b) => write_prefixed(out, tag::BYTES, b),
        Datum::Jsonb(j) => nested(out, tag::JSONB, |o| write_json(o, j)),
        Datum::Array(elems) => nested(out, tag::ARRAY, |o| {
            elems.iter().for_each(|e| write_datum(o, e))
        }),
        Datum::Int2Vector(v) => write_int2vector(out, v.iter().copied(), v.len()),
        Datum::Record(fields) => nested(out, tag::RECORD, |o| {
            fields.iter().for_each(|e| write_datum(o, e))
        }),
    }
}

pub(super) fn write_ref(out: &mut Vec<u8>, d: DatumRef<'_>) {
    match d {
        DatumRef::Null => out.push(tag::NULL),
        DatumRef::Bool(b) => out.push(if b { tag::TRUE } else { tag::FALSE }),
        DatumRef::Int16(i) => write_i16(out, i),
        DatumRef::Int32(i) => write_i32(out, i),
        DatumRef::Int64(i) => write_i64(out, i),
        DatumRef::Float32(f) => write_f32(out, f.0),
        DatumRef::Float64(f) => write_f64(out, f.0),
        DatumRef::Numeric(NumericRef::Small { mantissa, scale }) => {
            write_small_numeric(out, mantissa, scale)
        }
        DatumRef::Numeric(NumericRef::Special(s)) => write_special(out, s),
        DatumRef::Numeric(NumericRef::Big(b)) => write_prefixed(out, tag::NUMERIC_BIG, b),
        DatumRef::String(s) => write_str(out, s),
        DatumRef::Date(d) => write_date(out, &d),
        DatumRef::Timestamp(t) => write_timestamp(out, &t, tag::TIMESTAMP),
        DatumRef::TimestampTz(t) => write_timestamp(out, &t, tag::TIMESTAMPTZ),
        DatumRef::Interval(iv) => write_interval(out, &iv),
        DatumRef::Time(t) => {
            out.push(tag::TIME);
            out.extend_from_slice(&t.to_le_bytes());
        }
        DatumRef::Uuid(u) => {
            out.push(tag::UUID);
            out.extend_from_slice(u);
        }
        DatumRef::Bytes(b) => write_prefixed(out, tag::BYTES, b),
        DatumRef::Jsonb(j) => write_prefixed(out, tag::JSONB, j.0),
        DatumRef::Array(a) => write_prefixed(out, tag::ARRAY, a.as_bytes()),
        DatumRef::Int2Vector(v) => write_int2vector(out, v.iter(), v.0.len() / 2),
        DatumRef::Record(r) => write_prefixed(out, tag::RECORD, r.as_bytes()),
    }
}

fn write_i16(out: &mut Vec<u8>, i: i16) {
    match i8::try_from(i) {
        Ok(b) => out.extend_from_slice(&[tag::INT16_1, b as u8]),
        Err(_) => {
            out.push(tag::INT16_2);
            out.extend_from_slice(&i.to_le_bytes());
        }
    }
}

fn write_i32(out: &mut Vec<u8>, i: i32) {
    if let Ok(b) = i8::try_from(i) {
        out.extend_from_slice(&[tag::INT32_1, b as u8]);
    } else if let Ok(s) = i16::try_from(i) {
        out.push(tag::INT32_2);
        out.extend_from_slice(&s.to_le_bytes());
    } else {
        out.push(tag::INT32_4);
        out.extend_from_slice(&i.to_le_bytes());
    }
}

fn write_i64(out: &mut Vec<u8>, i: i64) {
    if let Ok(b) = i8::try_from(i) {
        out.extend_from_slice(&[tag::INT64_1, b as u8]);
    } else if let Ok(s) = i16::try_from(i) {
        out.push(tag::INT64_2);
        out.extend_from_slice(&s.to_le_bytes());
    } else if let Ok(w) = i32::try_from(i) {
        out.push(tag::INT64_4);
        out.extend_from_slice(&w.to_le_bytes());
    } else {
        out.push(tag::INT64_8);
        out.extend_from_slice(&i.to_le_bytes());
    }
}

/// A NaN is written as the one NaN of its sign (the canonical form).
fn write_f32(out: &mut Vec<u8>, f: f32) {
    let f = if f.is_nan() { f32::NAN.copysign(f) } else { f };
    out.push(tag::FLOAT32);
    out.extend_from_slice(&f.to_le_bytes());
}

fn write_f64(out: &mut Vec<u8>, f: f64) {
    let f = if f.is_nan() { f64::NAN.copysign(f) } else { f };
    out.push(tag::FLOAT64);
    out.extend_from_slice(&f.to_le_bytes());
}

fn write_numeric(out: &mut Vec<u8>, n: &Numeric) {
    if let Some(s) = n.special() {
        return write_special(out, s);
    }
    match n.small_parts() {
        Some((mantissa, scale)) => write_small_numeric(out, mantissa, scale as u8),
        None => {
            let (m, scale) = n.parts();
            let mut payload = scale.to_le_bytes().to_vec();
            payload.extend_from_slice(&m.to_signed_bytes_le());
            write_prefixed(out, tag::NUMERIC_BIG, &payload);
        }
    }
}

fn write_small_numeric(out: &mut Vec<u8>, mantissa: i128, scale: u8) {
    out.extend_from_slice(&[tag::NUMERIC, scale]);
    // Zigzag: small magnitudes of either sign take few bytes.
    put_varint(out, ((mantissa << 1) ^ (mantissa >> 127)) as u128);
}

fn write_special(out: &mut Vec<u8>, s: Special) {
    out.push(match s {
        Special::NegInf => tag::NUMERIC_NEG_INF,
        Special::PosInf => tag::NUMERIC_POS_INF,
        Special::NaN => tag::NUMERIC_NAN,
    });
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    write_str_parts(out, s, 0);
}

/// A string of `s` and `blanks` spaces after it.
fn write_str_parts(out: &mut Vec<u8>, s: &str, blanks: usize) {
    let len = s.len() + blanks;
    match u8::try_from(len) {
        Ok(n) if n < 128 => out.push(tag::SHORT_STRING + n),
        _ => {
            out.push(tag::STRING);
            put_varint(out, len as u128);
        }
    }
    out.extend_from_slice(s.as_bytes());
    out.resize(out.len() + blanks, b' ');
}

fn write_date(out: &mut Vec<u8>, d: &NaiveDate) {
    use chrono::Datelike;
    out.push(tag::DATE);
    out.extend_from_slice(&d.num_days_from_ce().to_le_bytes());
}

/// Microseconds when the value has none finer (always, for values kpg makes), else seconds
/// and nanoseconds.
fn write_timestamp(out: &mut Vec<u8>, t: &NaiveDateTime, micros_tag: u8) {
    let utc = t.and_utc();
    let nanos = utc.timestamp_subsec_nanos();
    if nanos.is_multiple_of(1000) && nanos < 1_000_000_000 {
        out.push(micros_tag);
        out.extend_from_slice(&utc.timestamp_micros().to_le_bytes());
    } else {
        out.push(micros_tag + 1);
        out.extend_from_slice(&utc.timestamp().to_le_bytes());
        out.extend_from_slice(&nanos.to_le_bytes());
    }
}

fn write_interval(out: &mut Vec<u8>, iv: &Interval) {
    let (months, days, micros) = iv.fields();
    out.push(tag::INTERVAL);
    out.extend_from_slice(&months.to_le_bytes());
    out.extend_from_slice(&days.to_le_bytes());
    out.extend_from_slice(&micros.to_le_bytes());
}

fn write_int2vector(out: &mut Vec<u8>, v: impl Iterator<Item = i16>, count: usize) {
    out.push(tag::INT2VECTOR);
    put_varint(out, count as u128);
    for i in v {
        out.extend_from_slice(&i.to_le_bytes());
    }
}

fn write_prefixed(out: &mut Vec<u8>, t: u8, payload: &[u8]) {
    out.push(t);
    put_varint(out, payload.len() as u128);
    out.extend_from_slice(payload);
}

/// Writes `t`, the length of what `body` writes, then it.
fn nested(out: &mut Vec<u8>, t: u8, body: impl FnOnce(&mut Vec<u8>)) {
    let mut inner = Vec::new();
    body(&mut inner);
    write_prefixed(out, t, &inner);
}

fn write_json(out: &mut Vec<u8>, j: &Json) {
    match j {
        Json::Null => out.push(tag::NULL),
        Json::Bool(b) => out.push(if *b { tag::TRUE } else { tag::FALSE }),
        Json::Number(n) => write_numeric(out, n),
        Json::String(s) => write_str(out, s),
        Json::Array(elems) => {
            out.push(tag::ARRAY);
            put_varint(out, elems.len() as u128);
            elems.iter().for_each(|e| write_json(out, e));
        }
        Json::Object(members) => {
            out.push(tag::JSON_OBJECT);
            put_varint(out, members.len() as u128);
            for (k, v) in members {
                write_str(out, k);
                write_json(out, v);
            }
        }
    }
}
