//! Checking bytes from outside the process before they are used as a packed row.
//!
//! Reading a packed row trusts its bytes: a `RowPacker` wrote them, so every tag is known,
//! every length is within the row and every string is UTF-8 (the readers panic otherwise). A
//! data directory hands back bytes a packer wrote in an earlier process — or bytes a disk or a
//! person damaged. `check_row` accepts exactly the rows a packer writes: it walks every datum
//! without trusting a length (nested arrays, records and jsonb included, to a bounded depth),
//! checks what the readers would otherwise panic on (UTF-8, dates, timestamps and numerics in
//! range), and then writes each datum again and compares, so that a datum not in its one
//! canonical form (an integer in too many bytes, a second NaN) is refused too: equality of
//! rows is byte equality only for canonical rows.

use super::datum_ref::{read, DatumRef};
use super::packer::{write_datum, write_ref};
use super::row::PackedRow;
use super::tag;
use crate::numeric::Numeric;
use chrono::{DateTime, NaiveDate};
use num_bigint::BigInt;

/// Arrays, records and json nested deeper than this are refused (json input stops at 128).
const MAX_DEPTH: usize = 256;

/// The row `bytes` hold, if they are a row a packer writes; else what is wrong with them.
pub fn check_row(bytes: &[u8]) -> Result<PackedRow, String> {
    check_datums(bytes, 0, &mut Vec::new())?;
    Ok(PackedRow::from_packed(bytes))
}

/// Checks datums one after another up to the end of `data`.
fn check_datums(data: &[u8], depth: usize, scratch: &mut Vec<u8>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("values nested deeper than {MAX_DEPTH}"));
    }
    let mut at = 0;
    while at < data.len() {
        let datum = &data[at..];
        let n = check_datum(datum, depth, scratch)?;
        // The datum's bytes are well formed: reading it cannot panic. Written again, it must
        // come out the same.
        let (d, _) = read(&datum[..n]);
        scratch.clear();
        match d {
            // Their owned form is what has one canonical encoding; nested rows were compared
            // datum by datum already, and their prefix is compared here.
            DatumRef::Numeric(_) | DatumRef::Jsonb(_) => write_datum(scratch, &d.to_datum()),
            _ => write_ref(scratch, d),
        }
        if scratch[..] != datum[..n] {
            return Err(format!("a {} value not in its canonical form", kind(&d)));
        }
        at += n;
    }
    Ok(())
}

fn kind(d: &DatumRef<'_>) -> &'static str {
    match d {
        DatumRef::Int16(_) | DatumRef::Int32(_) | DatumRef::Int64(_) => "integer",
        DatumRef::Float32(_) | DatumRef::Float64(_) => "float",
        DatumRef::Numeric(_) => "numeric",
        DatumRef::Jsonb(_) => "jsonb",
        DatumRef::Timestamp(_) | DatumRef::TimestampTz(_) => "timestamp",
        _ => "packed",
    }
}

/// The length of the well-formed datum at the start of `data` (not empty), tag included.
fn check_datum(data: &[u8], depth: usize, scratch: &mut Vec<u8>) -> Result<usize, String> {
    let t = data[0];
    let p = &data[1..];
    let need = |n: usize| {
        if p.len() >= n {
            Ok(n)
        } else {
            Err(format!("a value of tag {t} cut short"))
        }
    };
    if t >= tag::SHORT_STRING {
        let n = need(usize::from(t - tag::SHORT_STRING))?;
        utf8(&p[..n])?;
        return Ok(1 + n);
    }
    let n = match t {
        tag::NULL | tag::FALSE | tag::TRUE => 0,
        tag::NUMERIC_NEG_INF | tag::NUMERIC_POS_INF | tag::NUMERIC_NAN => 0,
        tag::INT16_1 | tag::INT32_1 | tag::INT64_1 => need(1)?,
        tag::INT16_2 | tag::INT32_2 | tag::INT64_2 => need(2)?,
        tag::INT32_4 | tag::INT64_4 | tag::FLOAT32 => need(4)?,
        tag::INT64_8 | tag::FLOAT64 => need(8)?,
        tag::INTERVAL | tag::UUID => need(16)?,
        tag::TIME => {
            let n = need(8)?;
            let micros = i64::from_le_bytes(p[..8].try_into().unwrap());
            if !(0..=86_400_000_000).contains(&micros) {
                return Err(format!("time of {micros} microseconds out of range"));
            }
            n
        }
        tag::DATE => {
            let n = need(4)?;
            let days = i32::from_le_bytes(p[..4].try_into().unwrap());
            NaiveDate::from_num_days_from_ce_opt(days)
                .ok_or_else(|| format!("date {days} out of range"))?;
            n
        }
        tag::TIMESTAMP | tag::TIMESTAMPTZ => {
            let n = need(8)?;
            let micros = i64::from_le_bytes(p[..8].try_into().unwrap());
            DateTime::from_timestamp_micros(micros)
                .ok_or_else(|| format!("timestamp {micros} out of range"))?;
            n
        }
        tag::TIMESTAMP_NANOS | tag::TIMESTAMPTZ_NANOS => {
            let n = need(12)?;
            let secs = i64::from_le_bytes(p[..8].try_into().unwrap());
            let nanos = u32::from_le_bytes(p[8..12].try_into().unwrap());
            DateTime::from_timestamp(secs, nanos)
                .ok_or_else(|| format!("timestamp {secs}.{nanos} out of range"))?;
            n
        }
        tag::NUMERIC => {
            let scale = *p.first().ok_or("a numeric cut short")?;
            let (z, len) = varint(&p[1..])?;
            let mantissa = ((z >> 1) as i128) ^ -((z & 1) as i128);
            Numeric::from_i128(mantissa, u32::from(scale))
                .map_err(|_| format!("numeric {mantissa}e-{scale} out of range"))?;
            1 + len
        }
        tag::NUMERIC_BIG => {
            let (b, n) = prefixed(p)?;
            if b.len() < 5 {
                return Err("a numeric cut short".into());
            }
            let scale = u32::from_le_bytes(b[..4].try_into().unwrap());
            Numeric::from_parts(BigInt::from_signed_bytes_le(&b[4..]), scale)
                .map_err(|_| "numeric out of range".to_string())?;
            n
        }
        tag::STRING => {
            let (b, n) = prefixed(p)?;
            utf8(b)?;
            n
        }
        tag::BYTES => prefixed(p)?.1,
        tag::JSONB => {
            let (b, n) = prefixed(p)?;
            if check_json(b, depth + 1, scratch)? != b.len() {
                return Err("bytes after a jsonb value".into());
            }
            n
        }
        tag::ARRAY | tag::RECORD => {
            let (b, n) = prefixed(p)?;
            check_datums(b, depth + 1, scratch)?;
            n
        }
        tag::INT2VECTOR => {
            let (count, n) = varint(p)?;
            let bytes = usize::try_from(count)
                .ok()
                .and_then(|c| c.checked_mul(2))
                .ok_or("an int2vector cut short")?;
            need(n.saturating_add(bytes))?
        }
        other => return Err(format!("unknown tag {other}")),
    };
    Ok(1 + n)
}

/// The length of the well-formed json node at the start of `data`.
fn check_json(data: &[u8], depth: usize, scratch: &mut Vec<u8>) -> Result<usize, String> {
    if depth > MAX_DEPTH {
        return Err(format!("values nested deeper than {MAX_DEPTH}"));
    }
    let t = *data.first().ok_or("a jsonb value cut short")?;
    match t {
        tag::JSON_OBJECT | tag::ARRAY => {
            let (count, mut at) = varint(&data[1..])?;
            at += 1;
            // Each member takes at least one byte: a count beyond the bytes runs out below.
            let mut left = count;
            while left > 0 {
                if at >= data.len() {
                    return Err("a jsonb value cut short".into());
                }
                if t == tag::JSON_OBJECT {
                    let key = data[at];
                    if key != tag::STRING && key < tag::SHORT_STRING {
                        return Err("a jsonb key that is not a string".into());
                    }
                    at += check_datum(&data[at..], depth + 1, scratch)?;
                    if at >= data.len() {
                        return Err("a jsonb value cut short".into());
                    }
                }
                at += check_json(&data[at..], depth + 1, scratch)?;
                left -= 1;
            }
            Ok(at)
        }
        tag::NULL | tag::FALSE | tag::TRUE | tag::STRING => check_datum(data, depth, scratch),
        tag::NUMERIC | tag::NUMERIC_BIG => check_datum(data, depth, scratch),
        t if t >= tag::SHORT_STRING => check_datum(data, depth, scratch),
        other => Err(format!("tag {other} inside a jsonb value")),
    }
}

/// An unsigned varint that ends within `data`: its value and length.
fn varint(data: &[u8]) -> Result<(u128, usize), String> {
    let mut v = 0u128;
    for (i, b) in data.iter().take(19).enumerate() {
        v |= u128::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((v, i + 1));
        }
    }
    Err("a length cut short".into())
}

/// A length-prefixed payload that ends within `p`: it, and the prefix's length plus its own.
fn prefixed(p: &[u8]) -> Result<(&[u8], usize), String> {
    let (len, n) = varint(p)?;
    match usize::try_from(len) {
        Ok(len) if len <= p.len() - n => Ok((&p[n..n + len], n + len)),
        _ => Err("a value longer than its row".into()),
    }
}

fn utf8(b: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(b).map_err(|_| "text that is not UTF-8".to_string())
}
