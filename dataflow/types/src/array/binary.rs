//! PostgreSQL's binary wire format of a one-dimensional array (what pgjdbc and tokio-postgres
//! read when they ask for binary results): the number of dimensions (0 for an empty array,
//! else 1), a has-NULLs flag, the element type's OID, the length and lower bound (1) of the
//! dimension, then each element as a length (-1 for NULL) and its binary value.
//!
//! The element encodings are PostgreSQL's `*send` functions: big-endian integers and floats,
//! dates as days and timestamps as microseconds since 2000-01-01, intervals as microseconds,
//! days and months, text as its UTF-8 bytes, jsonb as version 1 then its text.

use crate::datum::Datum;
use chrono::{NaiveDate, NaiveDateTime};

/// The binary form of the array `elems` whose element type has OID `elem_oid` (`lower` is
/// the lower bound: 1 for arrays, 0 for `int2vector`).
pub fn encode(elems: &[Datum], elem_oid: u32, lower: i32) -> Vec<u8> {
    let mut out = Vec::new();
    let ndim: i32 = if elems.is_empty() { 0 } else { 1 };
    out.extend_from_slice(&ndim.to_be_bytes());
    out.extend_from_slice(&i32::from(elems.iter().any(Datum::is_null)).to_be_bytes());
    out.extend_from_slice(&elem_oid.to_be_bytes());
    if ndim == 1 {
        out.extend_from_slice(&(elems.len() as i32).to_be_bytes());
        out.extend_from_slice(&lower.to_be_bytes());
    }
    let mut value = Vec::new();
    for e in elems {
        if e.is_null() {
            out.extend_from_slice(&(-1i32).to_be_bytes());
            continue;
        }
        value.clear();
        write_value(e, &mut value);
        out.extend_from_slice(&(value.len() as i32).to_be_bytes());
        out.extend_from_slice(&value);
    }
    out
}

/// Why binary array input was not read.
#[derive(Debug, PartialEq, Eq)]
pub enum DecodeError<E> {
    /// Not PostgreSQL's array format (22P03).
    Malformed,
    /// Several dimensions or a lower bound other than 1 (0A000).
    Unsupported(&'static str),
    /// An element's own decoding failed.
    Element(E),
}

/// Reads an array sent in binary (a bind parameter) into its text form, each element's bytes
/// turned into its text by `element`.
pub fn decode_to_text<E>(
    bytes: &[u8],
    element: impl Fn(&[u8]) -> Result<String, E>,
) -> Result<String, DecodeError<E>> {
    let mut rest = bytes;
    let int = |rest: &mut &[u8]| -> Result<i32, DecodeError<E>> {
        let b = take(rest, 4).ok_or(DecodeError::Malformed)?;
        Ok(i32::from_be_bytes(b.try_into().expect("4 bytes")))
    };
    let ndim = int(&mut rest)?;
    let _has_nulls = int(&mut rest)?;
    let _elem_oid = int(&mut rest)?;
    let len = match ndim {
        0 => 0,
        1 => {
            let len = int(&mut rest)?;
            if int(&mut rest)? != 1 {
                return Err(DecodeError::Unsupported(
                    "arrays with a lower bound other than 1",
                ));
            }
            len
        }
        n if n > 1 => return Err(DecodeError::Unsupported("multidimensional arrays")),
        _ => return Err(DecodeError::Malformed),
    };
    let mut elems = Vec::new();
    for _ in 0..len {
        let n = int(&mut rest)?;
        if n < 0 {
            elems.push(Datum::Null);
            continue;
        }
        let b = take(&mut rest, n as usize).ok_or(DecodeError::Malformed)?;
        elems.push(Datum::String(element(b).map_err(DecodeError::Element)?));
    }
    if !rest.is_empty() {
        return Err(DecodeError::Malformed);
    }
    let mut out = String::new();
    crate::array::write(&elems, &mut out, Datum::write_text);
    Ok(out)
}

/// The first `n` bytes of `rest`, which moves past them.
fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if rest.len() < n {
        return None;
    }
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    Some(head)
}

/// The binary form of a record (`array/record.rs`): the number of fields, then each field's
/// type OID, length (-1 for NULL) and binary value.
pub fn encode_record(fields: &[Datum]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(fields.len() as i32).to_be_bytes());
    let mut value = Vec::new();
    for f in fields {
        out.extend_from_slice(&oid_of(f).to_be_bytes());
        if f.is_null() {
            out.extend_from_slice(&(-1i32).to_be_bytes());
            continue;
        }
        value.clear();
        write_value(f, &mut value);
        out.extend_from_slice(&(value.len() as i32).to_be_bytes());
        out.extend_from_slice(&value);
    }
    out
}

/// The type OID a value's variant is sent as (text for strings; 0 for NULL, whose type a
/// record does not keep).
fn oid_of(d: &Datum) -> u32 {
    match d {
        Datum::Null | Datum::Array(_) | Datum::Int2Vector(_) | Datum::Record(_) => 0,
        Datum::Bool(_) => 16,
        Datum::Int16(_) => 21,
        Datum::Int32(_) => 23,
        Datum::Int64(_) => 20,
        Datum::Float32(_) => 700,
        Datum::Float64(_) => 701,
        Datum::Numeric(_) => 1700,
        Datum::String(_) => 25,
        Datum::Date(_) => 1082,
        Datum::Timestamp(_) => 1114,
        Datum::TimestampTz(_) => 1184,
        Datum::Interval(_) => 1186,
        Datum::Time(_) => 1083,
        Datum::Uuid(_) => 2950,
        Datum::Bytes(_) => 17,
        Datum::Jsonb(_) => 3802,
    }
}

fn epoch() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2000, 1, 1)
        .expect("valid date")
        .and_hms_opt(0, 0, 0)
        .expect("valid time")
}

/// One non-NULL element's binary value.
fn write_value(d: &Datum, out: &mut Vec<u8>) {
    match d {
        Datum::Null => {}
        Datum::Bool(b) => out.push(u8::from(*b)),
        Datum::Int16(i) => out.extend_from_slice(&i.to_be_bytes()),
        Datum::Int32(i) => out.extend_from_slice(&i.to_be_bytes()),
        Datum::Int64(i) => out.extend_from_slice(&i.to_be_bytes()),
        Datum::Float32(f) => out.extend_from_slice(&f.0.to_bits().to_be_bytes()),
        Datum::Float64(f) => out.extend_from_slice(&f.0.to_bits().to_be_bytes()),
        Datum::Numeric(n) => out.extend_from_slice(&n.to_pg_binary()),
        Datum::String(s) => out.extend_from_slice(s.as_bytes()),
        Datum::Date(d) => {
            let days = (*d - epoch().date()).num_days() as i32;
            out.extend_from_slice(&days.to_be_bytes())
        }
        Datum::Timestamp(t) | Datum::TimestampTz(t) => {
            let us = (*t - epoch()).num_microseconds().unwrap_or(i64::MAX);
            out.extend_from_slice(&us.to_be_bytes())
        }
        Datum::Interval(iv) => {
            out.extend_from_slice(&iv.micros.to_be_bytes());
            out.extend_from_slice(&iv.days.to_be_bytes());
            out.extend_from_slice(&iv.months.to_be_bytes());
        }
        Datum::Time(t) => out.extend_from_slice(&t.to_be_bytes()),
        Datum::Uuid(u) => out.extend_from_slice(u),
        Datum::Bytes(b) => out.extend_from_slice(b),
        Datum::Jsonb(j) => {
            out.push(1);
            out.extend_from_slice(j.to_text().as_bytes());
        }
        // Elements are never arrays (no multi-dimensional arrays).
        Datum::Array(_) | Datum::Int2Vector(_) | Datum::Record(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_it_encodes() {
        let elems = [
            Datum::String("a b".into()),
            Datum::Null,
            Datum::String("".into()),
        ];
        let bytes = encode(&elems, 25, 1);
        let utf8 = |b: &[u8]| String::from_utf8(b.to_vec());
        assert_eq!(decode_to_text(&bytes, utf8).unwrap(), r#"{"a b",NULL,""}"#);
        assert_eq!(decode_to_text(&encode(&[], 23, 1), utf8).unwrap(), "{}");
        assert_eq!(
            decode_to_text(&encode(&elems, 25, 0), utf8),
            Err(DecodeError::Unsupported(
                "arrays with a lower bound other than 1"
            ))
        );
        assert_eq!(
            decode_to_text(&bytes[..9], utf8),
            Err(DecodeError::Malformed)
        );
    }

    #[test]
    fn int4_array_with_null() {
        let bytes = encode(&[Datum::Int32(7), Datum::Null], 23, 1);
        let want: Vec<u8> = [1i32, 1, 23, 2, 1, 4, 7, -1]
            .iter()
            .flat_map(|i| i.to_be_bytes())
            .collect();
        assert_eq!(bytes, want);
        let empty: Vec<u8> = [0i32, 0, 25].iter().flat_map(|i| i.to_be_bytes()).collect();
        assert_eq!(encode(&[], 25, 1), empty);
    }
}
