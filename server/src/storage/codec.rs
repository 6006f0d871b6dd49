//! The byte form of what the store keeps. Every stored value starts with a format byte, so a
//! later kpg can tell its own encoding from an older one and refuse (or convert) instead of
//! misreading.
//!
//! Format 3 (this one): catalog records and counters are bincode; table updates are a count,
//! then per update its diff and its row's packed bytes (`kpg_types::packed`) behind their
//! length — what the row already is in memory, so writing is a copy, and reading checks the
//! bytes (`check_row`) before they become a row. Format 2 wrote each datum again in an
//! encoding of its own (a tag byte and a payload); its values are still read (its records are
//! the same bincode); a merge that decodes them writes format 3, one that joins values as
//! bytes (`Concat`) keeps each format apart. Format 1 (bincode for rows too,
//! with one value per table write) is refused with a clear message.

use chrono::{DateTime, NaiveDate};
use kpg_types::packed::{check_row, DatumRef, RowPacker};
use kpg_types::{Datum, Row};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::StoreError;

/// The one encoding written today.
pub const FORMAT: u8 = 3;
/// The encoding before it: the same records, table updates datum by datum.
const FORMAT_2: u8 = 2;

pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = vec![FORMAT];
    bincode::serialize_into(&mut out, value).expect("serializing into memory cannot fail");
    out
}

pub fn decode<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, StoreError> {
    bincode::deserialize(body(bytes, what)?)
        .map_err(|e| StoreError(format!("{what} is damaged (cannot be decoded: {e})")))
}

/// The bytes after the format byte, if it is this kpg's.
fn body<'a>(bytes: &'a [u8], what: &str) -> Result<&'a [u8], StoreError> {
    Ok(formatted(bytes, what)?.1)
}

/// The format byte, if it is one this kpg reads, and the bytes after it.
fn formatted<'a>(bytes: &'a [u8], what: &str) -> Result<(u8, &'a [u8]), StoreError> {
    match bytes.split_first() {
        Some((&f, rest)) if f == FORMAT || f == FORMAT_2 => Ok((f, rest)),
        Some((other, _)) => Err(StoreError(format!(
            "{what} is in storage format {other}, which this kpg does not read (it writes format \
             {FORMAT}); the data directory was written by another version of kpg"
        ))),
        None => Err(StoreError(format!("{what} is empty"))),
    }
}

/// A stored value of table updates is cut after about this many bytes, so that no value is
/// large (redb gives a large value a page run of the next power of two, and a write of it
/// allocates and clears as much memory).
pub const CHUNK_BYTES: usize = 60 * 1024;

/// Encodes `updates` as values of at most about [`CHUNK_BYTES`] each (at least one value).
pub fn encode_updates(updates: &[(Row, i64)]) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    let mut rest = updates;
    while !rest.is_empty() || chunks.is_empty() {
        let mut body = Vec::with_capacity(CHUNK_BYTES + 1024);
        let mut n = 0usize;
        for (row, diff) in rest {
            put_zigzag(&mut body, *diff);
            put_bytes(&mut body, row.packed().as_bytes());
            n += 1;
            if body.len() >= CHUNK_BYTES {
                break;
            }
        }
        rest = &rest[n..];
        let mut out = Vec::with_capacity(body.len() + 11);
        out.push(FORMAT);
        put_varint(&mut out, n as u64);
        out.extend_from_slice(&body);
        chunks.push(out);
    }
    chunks
}

/// Decodes one value written by [`encode_updates`], appending its updates to `out`; returns
/// how many it held.
pub fn decode_updates(
    bytes: &[u8],
    what: &str,
    out: &mut Vec<(Row, i64)>,
) -> Result<usize, StoreError> {
    let damaged = |why: &str| StoreError(format!("{what} is damaged (cannot be decoded: {why})"));
    let (format, body) = formatted(bytes, what)?;
    let mut reader = Reader(body);
    let n = reader.varint().ok_or_else(|| damaged("no count"))? as usize;
    out.reserve(n.min(1 << 20));
    let mut packer = RowPacker::new();
    for _ in 0..n {
        let diff = reader.zigzag().ok_or_else(|| damaged("truncated"))?;
        let row = if format == FORMAT {
            let bytes = reader.bytes().ok_or_else(|| damaged("truncated row"))?;
            Row::from_packed(check_row(bytes).map_err(|e| damaged(&e))?)
        } else {
            reader.row_v2(&mut packer).map_err(|e| damaged(&e))?
        };
        out.push((row, diff));
    }
    if !reader.0.is_empty() {
        return Err(damaged("bytes after the last update"));
    }
    Ok(n)
}

/// Joins values written by [`encode_updates`] into values of about [`CHUNK_BYTES`] each
/// without decoding their updates: each value's updates are copied as bytes after the ones
/// before them. What merging runs costs when nothing in them can cancel (no retractions): the
/// runs' updates, in order, unconsolidated (loading consolidates), in fewer and fuller values.
/// Values of different formats are not joined with each other.
#[derive(Default)]
pub struct Concat {
    chunks: Vec<Vec<u8>>,
    body: Vec<u8>,
    format: u8,
    count: u64,
    rows: usize,
}

impl Concat {
    /// Appends the updates of one value.
    pub fn push(&mut self, value: &[u8], what: &str) -> Result<(), StoreError> {
        let (format, body) = formatted(value, what)?;
        let mut reader = Reader(body);
        let n = reader.varint().ok_or_else(|| {
            StoreError(format!("{what} is damaged (cannot be decoded: no count)"))
        })?;
        if n == 0 {
            return Ok(());
        }
        if self.count > 0
            && (self.body.len() + reader.0.len() > CHUNK_BYTES || format != self.format)
        {
            self.flush();
        }
        self.format = format;
        self.body.extend_from_slice(reader.0);
        self.count += n;
        self.rows += n as usize;
        Ok(())
    }

    fn flush(&mut self) {
        let mut out = Vec::with_capacity(self.body.len() + 11);
        out.push(self.format);
        put_varint(&mut out, self.count);
        out.extend_from_slice(&self.body);
        self.chunks.push(out);
        self.body.clear();
        self.count = 0;
    }

    /// The joined values (none for no updates) and how many updates they hold.
    pub fn finish(mut self) -> (Vec<Vec<u8>>, usize) {
        if self.count > 0 {
            self.flush();
        }
        (self.chunks, self.rows)
    }
}

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const INT16: u8 = 3;
const INT32: u8 = 4;
const INT64: u8 = 5;
const FLOAT32: u8 = 6;
const FLOAT64: u8 = 7;
const NUMERIC: u8 = 8;
const STRING: u8 = 9;
const DATE: u8 = 10;
const TIMESTAMP: u8 = 11;
const TIME: u8 = 12;
const UUID: u8 = 13;
const BYTES: u8 = 14;
/// A numeric with an `i128` mantissa: its scale and mantissa.
const SMALL_NUMERIC: u8 = 15;
/// Any other type: its bincode, length-prefixed.
const OTHER: u8 = 255;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_zigzag(out: &mut Vec<u8>, v: i64) {
    put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    fn zigzag128(&mut self) -> Option<i128> {
        let mut v = 0u128;
        for shift in (0..128).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u128) << shift;
            if b < 0x80 {
                return Some(((v >> 1) as i128) ^ -((v & 1) as i128));
            }
        }
        None
    }

    fn zigzag(&mut self) -> Option<i64> {
        let v = self.varint()?;
        Some(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.varint()? as usize;
        self.take(n)
    }

    fn text(&mut self) -> Result<&'a str, String> {
        let bytes = self.bytes().ok_or("truncated text")?;
        std::str::from_utf8(bytes).map_err(|_| "text that is not UTF-8".to_string())
    }

    /// Reads a row of format 2 straight into `packer` (owned datums are made only for values that need
    /// no allocation, or for the rare types stored as bincode).
    fn row_v2(&mut self, packer: &mut RowPacker) -> Result<Row, String> {
        let truncated = || "truncated row".to_string();
        let arity = self.varint().ok_or_else(truncated)? as usize;
        packer.clear();
        for _ in 0..arity {
            let tag = self.byte().ok_or_else(truncated)?;
            let narrow = |v: i64| format!("integer {v} out of range for its type");
            let datum = match tag {
                NULL => Datum::Null,
                FALSE => Datum::Bool(false),
                TRUE => Datum::Bool(true),
                INT16 => {
                    let v = self.zigzag().ok_or_else(truncated)?;
                    Datum::Int16(i16::try_from(v).map_err(|_| narrow(v))?)
                }
                INT32 => {
                    let v = self.zigzag().ok_or_else(truncated)?;
                    Datum::Int32(i32::try_from(v).map_err(|_| narrow(v))?)
                }
                INT64 => Datum::Int64(self.zigzag().ok_or_else(truncated)?),
                FLOAT32 => {
                    let b = self.take(4).ok_or_else(truncated)?;
                    Datum::Float32(f32::from_le_bytes(b.try_into().unwrap()).into())
                }
                FLOAT64 => {
                    let b = self.take(8).ok_or_else(truncated)?;
                    Datum::Float64(f64::from_le_bytes(b.try_into().unwrap()).into())
                }
                NUMERIC => {
                    let text = self.text()?;
                    Datum::Numeric(
                        text.parse()
                            .map_err(|e| format!("numeric {text:?}: {e:?}"))?,
                    )
                }
                SMALL_NUMERIC => {
                    let scale = self.varint().ok_or_else(truncated)?;
                    let mantissa = self.zigzag128().ok_or_else(truncated)?;
                    Datum::Numeric(
                        u32::try_from(scale)
                            .ok()
                            .and_then(|s| kpg_types::Numeric::from_i128(mantissa, s).ok())
                            .ok_or_else(|| format!("numeric {mantissa}e-{scale} out of range"))?,
                    )
                }
                STRING => {
                    packer.push_ref(DatumRef::String(self.text()?));
                    continue;
                }
                DATE => {
                    let days = self.zigzag().ok_or_else(truncated)?;
                    Datum::Date(
                        i32::try_from(days)
                            .ok()
                            .and_then(NaiveDate::from_num_days_from_ce_opt)
                            .ok_or_else(|| format!("date {days} out of range"))?,
                    )
                }
                TIMESTAMP => {
                    let secs = self.zigzag().ok_or_else(truncated)?;
                    let nanos = self.varint().ok_or_else(truncated)?;
                    Datum::Timestamp(
                        u32::try_from(nanos)
                            .ok()
                            .and_then(|n| DateTime::from_timestamp(secs, n))
                            .ok_or_else(|| format!("timestamp {secs}.{nanos} out of range"))?
                            .naive_utc(),
                    )
                }
                TIME => Datum::Time(self.zigzag().ok_or_else(truncated)?),
                UUID => Datum::Uuid(self.take(16).ok_or_else(truncated)?.try_into().unwrap()),
                BYTES => {
                    packer.push_ref(DatumRef::Bytes(self.bytes().ok_or_else(truncated)?));
                    continue;
                }
                OTHER => {
                    let bytes = self.bytes().ok_or_else(truncated)?;
                    bincode::deserialize(bytes).map_err(|e| e.to_string())?
                }
                other => return Err(format!("unknown datum tag {other}")),
            };
            packer.push(&datum);
        }
        Ok(Row::from_packed(packer.finish()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Datelike as _;
    use kpg_types::packed::NumericRef;
    use kpg_types::{Datum, Row};

    // The writer of format 2, kept to test that its values are still read.

    /// `updates` as one value of format 2.
    fn encode_v2(updates: &[(Row, i64)]) -> Vec<u8> {
        let mut out = vec![FORMAT_2];
        put_varint(&mut out, updates.len() as u64);
        for (row, diff) in updates {
            put_zigzag(&mut out, *diff);
            put_row(&mut out, row);
        }
        out
    }

    fn put_zigzag128(out: &mut Vec<u8>, v: i128) {
        let mut v = ((v << 1) ^ (v >> 127)) as u128;
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// Writes a row datum by datum, read in place from its packed form (no owned datums are
    /// made except for the rare types stored as bincode).
    fn put_row(out: &mut Vec<u8>, row: &Row) {
        // The arity goes first; it is known after the datums (counting them first would read the
        // row twice): a one-byte place for it, widened afterwards if it is not enough.
        let at = out.len();
        out.push(0);
        let mut arity = 0u64;
        for datum in row.iter() {
            arity += 1;
            put_datum(out, datum);
        }
        if arity < 0x80 {
            out[at] = arity as u8;
        } else {
            let mut prefix = Vec::with_capacity(4);
            put_varint(&mut prefix, arity);
            out.splice(at..at + 1, prefix);
        }
    }

    fn put_datum(out: &mut Vec<u8>, datum: DatumRef<'_>) {
        match datum {
            DatumRef::Null => out.push(NULL),
            DatumRef::Bool(false) => out.push(FALSE),
            DatumRef::Bool(true) => out.push(TRUE),
            DatumRef::Int16(v) => {
                out.push(INT16);
                put_zigzag(out, v as i64);
            }
            DatumRef::Int32(v) => {
                out.push(INT32);
                put_zigzag(out, v as i64);
            }
            DatumRef::Int64(v) => {
                out.push(INT64);
                put_zigzag(out, v);
            }
            DatumRef::Float32(v) => {
                out.push(FLOAT32);
                out.extend_from_slice(&v.0.to_le_bytes());
            }
            DatumRef::Float64(v) => {
                out.push(FLOAT64);
                out.extend_from_slice(&v.0.to_le_bytes());
            }
            DatumRef::Numeric(NumericRef::Small { mantissa, scale }) => {
                out.push(SMALL_NUMERIC);
                put_varint(out, scale as u64);
                put_zigzag128(out, mantissa);
            }
            DatumRef::Numeric(n) => put_numeric(out, &n.to_numeric()),
            DatumRef::String(s) => {
                out.push(STRING);
                put_bytes(out, s.as_bytes());
            }
            DatumRef::Date(d) => {
                out.push(DATE);
                put_zigzag(out, d.num_days_from_ce() as i64);
            }
            DatumRef::Timestamp(ts) => {
                out.push(TIMESTAMP);
                let utc = ts.and_utc();
                put_zigzag(out, utc.timestamp());
                put_varint(out, utc.timestamp_subsec_nanos() as u64);
            }
            DatumRef::Time(micros) => {
                out.push(TIME);
                put_zigzag(out, micros);
            }
            DatumRef::Uuid(u) => {
                out.push(UUID);
                out.extend_from_slice(u);
            }
            DatumRef::Bytes(b) => {
                out.push(BYTES);
                put_bytes(out, b);
            }
            other => {
                out.push(OTHER);
                let bytes = bincode::serialize(&other.to_datum())
                    .expect("serializing into memory cannot fail");
                put_bytes(out, &bytes);
            }
        }
    }

    /// A numeric that is not a small packed one: small parts if it has them, else its text.
    fn put_numeric(out: &mut Vec<u8>, n: &kpg_types::Numeric) {
        use std::io::Write as _;
        if let Some((mantissa, scale)) = n.small_parts() {
            out.push(SMALL_NUMERIC);
            put_varint(out, scale as u64);
            put_zigzag128(out, mantissa);
            return;
        }
        out.push(NUMERIC);
        // The text is short: a one-byte length, fixed up afterwards if it is not.
        let at = out.len();
        out.push(0);
        write!(out, "{n}").expect("writing into memory cannot fail");
        let len = out.len() - at - 1;
        if len < 0x80 {
            out[at] = len as u8;
        } else {
            let text = out.split_off(at + 1);
            out.truncate(at);
            put_bytes(out, &text);
        }
    }

    #[test]
    fn values_round_trip_and_damage_is_an_error() {
        let record = (7u64, "CREATE TABLE t (a int)".to_string());
        let bytes = encode(&record);
        assert_eq!(decode::<(u64, String)>(&bytes, "record").unwrap(), record);
        let err = decode::<(u64, String)>(&bytes[..bytes.len() - 3], "record r").unwrap_err();
        assert!(err.0.contains("record r is damaged"), "{err}");
        let mut future = bytes.clone();
        future[0] = 9;
        let err = decode::<(u64, String)>(&future, "record").unwrap_err();
        assert!(err.0.contains("format 9"), "{err}");
    }

    #[test]
    fn updates_round_trip_in_chunks_and_damage_is_an_error() {
        let ts = chrono::NaiveDate::from_ymd_opt(1998, 12, 1)
            .unwrap()
            .and_hms_nano_opt(23, 59, 58, 123_456_789)
            .unwrap();
        let every = Row::new(vec![
            Datum::Null,
            Datum::Bool(true),
            Datum::Bool(false),
            Datum::Int16(-300),
            Datum::Int32(i32::MIN),
            Datum::Int64(i64::MAX),
            Datum::Float32((-1.5f32).into()),
            Datum::Float64(f64::NAN.into()),
            Datum::Numeric("12345678901234567890.1230".parse().unwrap()),
            Datum::Numeric("-0.00".parse().unwrap()),
            Datum::Numeric("-79228162514264337593543950335".parse().unwrap()),
            Datum::Numeric(format!("1.{}", "7".repeat(200)).parse().unwrap()),
            Datum::String("näive\ttext".into()),
            Datum::String("x".repeat(300)),
            Datum::Date(chrono::NaiveDate::from_ymd_opt(-44, 3, 15).unwrap()),
            Datum::Timestamp(ts),
            Datum::Time(86_400_000_000),
            Datum::Uuid([7; 16]),
            Datum::Bytes(vec![0, 255, 1]),
            Datum::Interval(kpg_types::Interval {
                months: -1,
                days: 2,
                micros: 3,
            }),
        ]);
        // More columns than a one-byte arity holds.
        let wide = Row::new((0..200).map(Datum::Int32).collect());
        let mut updates = vec![(every.clone(), -3), (Row::empty(), 1), (wide, 2)];
        for i in 0..20_000i64 {
            updates.push((
                Row::new(vec![Datum::Int64(i), Datum::String(i.to_string())]),
                1,
            ));
        }
        let chunks = encode_updates(&updates);
        assert!(chunks.len() > 1, "{} chunks", chunks.len());
        assert!(chunks.iter().all(|c| c.len() < CHUNK_BYTES + 1024));
        let mut back = Vec::new();
        for c in &chunks {
            decode_updates(c, "updates", &mut back).unwrap();
        }
        assert_eq!(back.len(), updates.len());
        // NaN compares equal to itself in datum order; compare the encodings as well.
        assert_eq!(back, updates);
        assert_eq!(encode_updates(&back), chunks);
        assert_eq!(encode_updates(&[]).len(), 1);

        // Values of format 2 read back as the same rows.
        let mut v2 = Vec::new();
        decode_updates(&encode_v2(&updates), "updates", &mut v2).unwrap();
        assert_eq!(v2, updates);
        for ((a, _), (b, _)) in v2.iter().zip(&updates) {
            assert_eq!(a.packed().as_bytes(), b.packed().as_bytes());
        }

        let one = &chunks[0];
        let err =
            decode_updates(&one[..one.len() - 2], "updates of u1", &mut Vec::new()).unwrap_err();
        assert!(err.0.contains("updates of u1 is damaged"), "{err}");
        let mut old = one.clone();
        old[0] = 1;
        let err = decode_updates(&old, "updates", &mut Vec::new()).unwrap_err();
        assert!(err.0.contains("format 1"), "{err}");
    }

    /// Joined values hold the updates of the values joined, in order, in full chunks.
    #[test]
    fn values_join_without_decoding() {
        let run = |from: i64, n: i64| -> Vec<(Row, i64)> {
            (from..from + n)
                .map(|i| {
                    (
                        Row::new(vec![Datum::Int64(i), Datum::String("x".repeat(40))]),
                        1,
                    )
                })
                .collect()
        };
        let runs = [
            run(0, 3),
            Vec::new(),
            run(10, 5_000),
            run(20_000, 1),
            run(30_000, 7),
        ];
        let mut concat = Concat::default();
        let mut inputs = 0;
        for r in &runs {
            for chunk in encode_updates(r) {
                concat.push(&chunk, "updates").unwrap();
                inputs += 1;
            }
        }
        let (chunks, rows) = concat.finish();
        let all: Vec<(Row, i64)> = runs.concat();
        assert_eq!(rows, all.len());
        assert!(chunks.len() < inputs, "{} of {inputs}", chunks.len());
        assert!(chunks.iter().all(|c| c.len() < CHUNK_BYTES + 1024));
        let mut back = Vec::new();
        for c in &chunks {
            decode_updates(c, "updates", &mut back).unwrap();
        }
        assert_eq!(back, all);
        assert!(Concat::default().finish().0.is_empty());
        let err = Concat::default()
            .push(&[FORMAT], "updates of u2")
            .unwrap_err();
        assert!(err.0.contains("updates of u2 is damaged"), "{err}");

        // Values of format 2 and 3 are joined each with its own kind.
        let mut concat = Concat::default();
        let v2 = [encode_v2(&runs[0]), encode_v2(&runs[3])];
        for value in [&encode_updates(&runs[4])[0], &v2[0], &v2[1]] {
            concat.push(value, "updates").unwrap();
        }
        let (chunks, rows) = concat.finish();
        assert_eq!(rows, 11);
        let formats: Vec<u8> = chunks.iter().map(|c| c[0]).collect();
        assert_eq!(formats, [FORMAT, FORMAT_2]);
        let mut back = Vec::new();
        for c in &chunks {
            decode_updates(c, "updates", &mut back).unwrap();
        }
        assert_eq!(back, [&runs[4][..], &runs[0], &runs[3]].concat());
    }

    /// A row's bytes that a packer would not write are an error that names the value, never a
    /// row (nor a crash when the row is read).
    #[test]
    fn damaged_rows_are_an_error() {
        let row = Row::new(vec![Datum::Int64(5), Datum::String("ok".into())]);
        let value = encode_updates(&[(row.clone(), 1)]).remove(0);
        let mut back = Vec::new();
        decode_updates(&value, "updates", &mut back).unwrap();
        assert_eq!(back, [(row.clone(), 1)]);
        let bytes = row.packed().as_bytes();
        let at = value.len() - bytes.len();
        // The string's bytes are not UTF-8; the integer's tag is unknown.
        for (offset, byte) in [(bytes.len() - 1, 0xff), (0, 0x7f)] {
            let mut bad = value.clone();
            bad[at + offset] = byte;
            let err = decode_updates(&bad, "updates of u3", &mut Vec::new()).unwrap_err();
            assert!(err.0.contains("updates of u3 is damaged"), "{err}");
        }
    }
}
