//! Parameter values of a Bind message: the PostgreSQL types a client may declare for
//! parameters, and decoding of each value (text or binary format) into the text form the
//! planner binds (see `kpg_sql::bind_values` and `kpg_sql::plan_bound`).
//!
//! Binary values are decoded by the parameter's type as the client was told it (the declared
//! type, else the type kpg inferred): the fixed-width integers and floats, bool, numeric
//! (base-10000 digits), date (days since 2000-01-01), timestamp (microseconds since then),
//! time (microseconds since midnight), interval (microseconds, days, months), uuid (16 bytes),
//! bytea (the bytes, passed on as their hex text), jsonb (a version byte, then the text), the
//! string types, and one-dimensional arrays of these (each element by its type, into the
//! array's text). Text values are passed on as they are; the planner parses them with
//! PostgreSQL's input rules, so a bad value is the same 22P02 error as a bad literal.

use kpg_types::{Datum, Interval, ScalarType};
use pgwire::api::Type;

use crate::error::ExecError;

/// The kpg type a client-declared parameter type binds as, `Ok(None)` for "unknown" (no type
/// declared), or 0A000 for types kpg does not have. `bpchar` and `name` are text.
pub fn declared_type(ty: &Type) -> Result<Option<ScalarType>, ExecError> {
    Ok(Some(match *ty {
        Type::UNKNOWN => return Ok(None),
        Type::BOOL => ScalarType::Bool,
        Type::INT2 => ScalarType::Int16,
        Type::INT4 => ScalarType::Int32,
        Type::INT8 => ScalarType::Int64,
        Type::FLOAT4 => ScalarType::Float32,
        Type::FLOAT8 => ScalarType::Float64,
        Type::NUMERIC => ScalarType::NUMERIC,
        Type::TEXT | Type::BPCHAR | Type::NAME => ScalarType::Text,
        Type::VARCHAR => ScalarType::VarChar { max_length: None },
        Type::DATE => ScalarType::Date,
        Type::TIMESTAMP => ScalarType::Timestamp,
        Type::TIMESTAMPTZ => ScalarType::TimestampTz,
        Type::INTERVAL => ScalarType::Interval,
        Type::TIME => ScalarType::Time,
        Type::UUID => ScalarType::Uuid,
        Type::BYTEA => ScalarType::Bytea,
        Type::JSONB => ScalarType::Jsonb,
        _ if element_type(ty).is_some() => {
            let elem = element_type(ty).expect("an array type");
            match declared_type(&elem)? {
                Some(e) => ScalarType::array_of(e),
                None => return Ok(None),
            }
        }
        _ => {
            return Err(ExecError::unsupported(format!(
                "parameters of type {}",
                ty.name()
            )))
        }
    }))
}

/// The PostgreSQL type clients are told a parameter has: the kpg type's, text if unknown.
pub fn described_type(ty: Option<ScalarType>) -> Type {
    ty.and_then(|t| Type::from_oid(t.oid()))
        .unwrap_or(Type::TEXT)
}

/// The text of parameter `index` (0-based) of type `ty`, sent in text or binary format.
pub fn decode(
    index: usize,
    value: Option<&[u8]>,
    binary: bool,
    ty: &Type,
) -> Result<Option<String>, ExecError> {
    let Some(bytes) = value else {
        return Ok(None);
    };
    if !binary {
        return utf8(index, bytes).map(Some);
    }
    let bad = || {
        ExecError::new(
            "22P03",
            format!(
                "incorrect binary data format in bind parameter {}",
                index + 1
            ),
        )
    };
    let fixed = |n: usize| -> Result<&[u8], ExecError> {
        if bytes.len() == n {
            Ok(bytes)
        } else {
            Err(bad())
        }
    };
    let text = match *ty {
        Type::BOOL => match fixed(1)?[0] {
            0 => "false".to_string(),
            _ => "true".to_string(),
        },
        Type::INT2 => i16::from_be_bytes(fixed(2)?.try_into().expect("2 bytes")).to_string(),
        Type::INT4 => i32::from_be_bytes(fixed(4)?.try_into().expect("4 bytes")).to_string(),
        Type::INT8 => i64::from_be_bytes(fixed(8)?.try_into().expect("8 bytes")).to_string(),
        Type::FLOAT4 => {
            // Its shortest decimal form reads back as the same real.
            let f = f32::from_be_bytes(fixed(4)?.try_into().expect("4 bytes"));
            float_text(format!("{f:?}").parse().unwrap_or(f64::from(f)))
        }
        Type::FLOAT8 => float_text(f64::from_be_bytes(fixed(8)?.try_into().expect("8 bytes"))),
        Type::NUMERIC => numeric_text(bytes).ok_or_else(bad)?,
        Type::DATE => {
            let days = i32::from_be_bytes(fixed(4)?.try_into().expect("4 bytes"));
            let epoch = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).expect("valid date");
            match days {
                i32::MAX => "infinity".to_string(),
                i32::MIN => "-infinity".to_string(),
                _ => epoch
                    .checked_add_signed(chrono::Duration::days(i64::from(days)))
                    .ok_or_else(bad)?
                    .format("%Y-%m-%d")
                    .to_string(),
            }
        }
        Type::TIMESTAMP | Type::TIMESTAMPTZ => {
            // Microseconds since 2000-01-01 00:00:00 (UTC for timestamptz, written with its
            // offset, so the session's zone does not change it).
            let usec = i64::from_be_bytes(fixed(8)?.try_into().expect("8 bytes"));
            match usec {
                i64::MAX => "infinity".to_string(),
                i64::MIN => "-infinity".to_string(),
                _ => {
                    let epoch = chrono::NaiveDate::from_ymd_opt(2000, 1, 1)
                        .expect("valid date")
                        .and_hms_opt(0, 0, 0)
                        .expect("valid time");
                    let ts = epoch
                        .checked_add_signed(chrono::Duration::microseconds(usec))
                        .ok_or_else(bad)?;
                    match *ty {
                        Type::TIMESTAMPTZ => Datum::TimestampTz(ts),
                        _ => Datum::Timestamp(ts),
                    }
                    .to_text()
                    .ok_or_else(bad)?
                }
            }
        }
        Type::INTERVAL => {
            // Microseconds, days, months.
            let b = fixed(16)?;
            let micros = i64::from_be_bytes(b[0..8].try_into().expect("8 bytes"));
            let days = i32::from_be_bytes(b[8..12].try_into().expect("4 bytes"));
            let months = i32::from_be_bytes(b[12..16].try_into().expect("4 bytes"));
            Datum::Interval(Interval::new(months, days, micros))
                .to_text()
                .ok_or_else(bad)?
        }
        Type::TIME => {
            let micros = i64::from_be_bytes(fixed(8)?.try_into().expect("8 bytes"));
            if !(0..=86_400_000_000).contains(&micros) {
                return Err(ExecError::new("22008", "time out of range"));
            }
            Datum::Time(micros).to_text().ok_or_else(bad)?
        }
        Type::UUID => {
            let u: [u8; 16] = fixed(16)?.try_into().expect("16 bytes");
            Datum::Uuid(u).to_text().ok_or_else(bad)?
        }
        Type::BYTEA => Datum::Bytes(bytes.to_vec()).to_text().ok_or_else(bad)?,
        // jsonb: a version byte (1), then the text.
        Type::JSONB => match bytes.split_first() {
            Some((1, text)) => utf8(index, text)?,
            Some((version, _)) => {
                return Err(ExecError::new(
                    "XX000",
                    format!("unsupported jsonb version number {version}"),
                ))
            }
            None => return Err(bad()),
        },
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
            utf8(index, bytes)?
        }
        // An array: its elements decoded by their type, written as the array's text.
        _ if element_type(ty).is_some() => {
            use kpg_types::array::binary::{decode_to_text, DecodeError};
            let elem = element_type(ty).expect("an array type");
            let element =
                |b: &[u8]| decode(index, Some(b), true, &elem).map(Option::unwrap_or_default);
            match decode_to_text(bytes, element) {
                Ok(text) => text,
                Err(DecodeError::Malformed) => return Err(bad()),
                Err(DecodeError::Unsupported(what)) => return Err(ExecError::unsupported(what)),
                Err(DecodeError::Element(e)) => return Err(e),
            }
        }
        _ => {
            return Err(ExecError::unsupported(format!(
                "binary format for parameters of type {}",
                ty.name()
            )))
        }
    };
    Ok(Some(text))
}

/// The element type of one of kpg's array types.
fn element_type(ty: &Type) -> Option<Type> {
    match kpg_types::array::element_oid(ty.oid()) {
        0 => None,
        elem => Type::from_oid(elem),
    }
}

fn utf8(index: usize, bytes: &[u8]) -> Result<String, ExecError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| {
        ExecError::new(
            "22021",
            format!(
                "invalid byte sequence for encoding \"UTF8\" in bind parameter {}",
                index + 1
            ),
        )
    })
}

fn float_text(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        format!("{f:?}")
    }
}

/// PostgreSQL's binary numeric: ndigits, weight, sign, dscale (each 16 bits), then ndigits
/// base-10000 digits, the first worth 10000^weight.
fn numeric_text(bytes: &[u8]) -> Option<String> {
    let word = |i: usize| -> Option<u16> {
        Some(u16::from_be_bytes(
            bytes.get(2 * i..2 * i + 2)?.try_into().ok()?,
        ))
    };
    let ndigits = usize::from(word(0)?);
    let weight = i64::from(word(1)? as i16);
    let sign = word(2)?;
    let dscale = usize::from(word(3)?);
    if bytes.len() != 8 + 2 * ndigits {
        return None;
    }
    match sign {
        0x0000 | 0x4000 => {}
        0xC000 => return Some("NaN".to_string()),
        0xD000 => return Some("Infinity".to_string()),
        0xF000 => return Some("-Infinity".to_string()),
        _ => return None,
    }
    let digit = |pos: i64| -> Option<u16> {
        // The digit worth 10000^pos.
        let i = weight - pos;
        if (0..ndigits as i64).contains(&i) {
            let d = word(4 + i as usize)?;
            (d < 10000).then_some(d)
        } else {
            Some(0)
        }
    };
    let mut int_part = String::new();
    for pos in (0..=weight.max(0)).rev() {
        int_part.push_str(&format!("{:04}", digit(pos)?));
    }
    let int_part = int_part.trim_start_matches('0');
    let mut text = String::new();
    if sign == 0x4000 {
        text.push('-');
    }
    text.push_str(if int_part.is_empty() { "0" } else { int_part });
    if dscale > 0 {
        let mut frac = String::new();
        let mut pos = -1;
        while frac.len() < dscale {
            frac.push_str(&format!("{:04}", digit(pos)?));
            pos -= 1;
        }
        frac.truncate(dscale);
        text.push('.');
        text.push_str(&frac);
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(weight: i16, sign: u16, dscale: u16, digits: &[u16]) -> Vec<u8> {
        let mut b = Vec::new();
        for w in [digits.len() as u16, weight as u16, sign, dscale]
            .into_iter()
            .chain(digits.iter().copied())
        {
            b.extend_from_slice(&w.to_be_bytes());
        }
        b
    }

    #[test]
    fn numeric_binary() {
        // 12.50
        assert_eq!(
            numeric_text(&numeric(0, 0, 2, &[12, 5000])).as_deref(),
            Some("12.50")
        );
        // -100000000.0001
        assert_eq!(
            numeric_text(&numeric(2, 0x4000, 4, &[1, 0, 0, 1])).as_deref(),
            Some("-100000000.0001")
        );
        // 0.00012
        assert_eq!(
            numeric_text(&numeric(-1, 0, 5, &[1, 2000])).as_deref(),
            Some("0.00012")
        );
        assert_eq!(numeric_text(&numeric(0, 0, 0, &[])).as_deref(), Some("0"));
        assert_eq!(numeric_text(&[0, 1]), None);
    }

    #[test]
    fn binary_values() {
        let d = |v: &[u8], ty: &Type| decode(0, Some(v), true, ty).unwrap().unwrap();
        assert_eq!(d(&(-7i16).to_be_bytes(), &Type::INT2), "-7");
        assert_eq!(d(&5i32.to_be_bytes(), &Type::INT4), "5");
        assert_eq!(d(&0.1f32.to_be_bytes(), &Type::FLOAT4), "0.1");
        assert_eq!(d(&(-2.5f64).to_be_bytes(), &Type::FLOAT8), "-2.5");
        assert_eq!(d(&[1], &Type::BOOL), "true");
        assert_eq!(d(&31i32.to_be_bytes(), &Type::DATE), "2000-02-01");
        assert_eq!(
            d(
                &(86_400_000_000i64 + 1_500_000).to_be_bytes(),
                &Type::TIMESTAMP
            ),
            "2000-01-02 00:00:01.5"
        );
        let mut iv = 3_600_000_000i64.to_be_bytes().to_vec();
        iv.extend_from_slice(&2i32.to_be_bytes());
        iv.extend_from_slice(&14i32.to_be_bytes());
        assert_eq!(d(&iv, &Type::INTERVAL), "1 year 2 mons 2 days 01:00:00");
        assert_eq!(d("hé".as_bytes(), &Type::TEXT), "hé");
        let e = decode(1, Some(&[0, 0, 1]), true, &Type::INT4).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("22P03", "incorrect binary data format in bind parameter 2")
        );
        assert_eq!(decode(0, None, true, &Type::INT4).unwrap(), None);
        assert_eq!(
            decode(0, Some(&[0xff]), false, &Type::TEXT)
                .unwrap_err()
                .code,
            "22021"
        );
    }
}
