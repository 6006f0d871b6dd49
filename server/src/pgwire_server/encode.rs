//! Results on the wire: row descriptions (PostgreSQL type OIDs and modifiers), data rows in
//! text or binary format, command tags, and COPY text for subscriptions. Text output
//! follows the session's `extra_float_digits`, `DateStyle`, `IntervalStyle` and `TimeZone`
//! (`OutputStyle`); binary output does not depend on them.

use std::sync::Arc;

use futures::stream;
use kpg_types::{Datum, OutputStyle, RelationDesc, Row};
use pgwire::api::portal::Format;
use pgwire::api::results::{
    CopyResponse, DataRowEncoder, FieldFormat, FieldInfo, QueryResponse, Response, Tag,
};
use pgwire::api::Type;
use pgwire::error::PgWireResult;
use pgwire::messages::copy::CopyData;
use pgwire::messages::data::DataRow;

use super::error_response;
use crate::coord::ExecuteResult;
use crate::error::ExecError;
use crate::session::Outcome;

pub fn fields(desc: &RelationDesc, format: Option<&Format>) -> Vec<FieldInfo> {
    desc.columns
        .iter()
        .enumerate()
        .map(|(i, (name, ty))| {
            let format = format.map_or(FieldFormat::Text, |f| f.format_for(i));
            let pg_type = Type::from_oid(ty.scalar.oid()).unwrap_or(Type::TEXT);
            let size = type_size(&pg_type);
            FieldInfo::new(name.clone(), None, None, pg_type, format)
                .with_type_size(size)
                .with_type_modifier(ty.scalar.typmod())
        })
        .collect()
}

/// The type's `typlen` as PostgreSQL's RowDescription carries it: the width of a fixed-size
/// type, -1 for a variable-length one.
fn type_size(ty: &Type) -> i16 {
    match *ty {
        Type::BOOL | Type::CHAR => 1,
        Type::INT2 => 2,
        Type::INT4 | Type::FLOAT4 | Type::DATE | Type::OID => 4,
        Type::INT8 | Type::FLOAT8 | Type::TIMESTAMP | Type::TIMESTAMPTZ | Type::TIME => 8,
        Type::INTERVAL | Type::UUID => 16,
        Type::NAME => 64,
        _ => -1,
    }
}

/// The response for what came of a statement (`Outcome`), rows encoded in `format` (a FETCH
/// from a BINARY cursor's in binary where text was asked for) and `style`.
pub fn outcome_response(
    outcome: Outcome,
    format: &Format,
    style: &OutputStyle,
) -> PgWireResult<Response> {
    Ok(match outcome {
        Outcome::Result {
            result,
            binary,
            fetch,
        } => {
            let mut response = to_response(result, &cursor_format(binary, format), style)?;
            if let (true, Response::Query(rows)) = (fetch, &mut response) {
                rows.set_command_tag("FETCH");
            }
            response
        }
        Outcome::CopyIn { width } => Response::CopyIn(CopyResponse::new(0, width, stream::empty())),
        Outcome::CopyOut { desc, lines } => {
            let data = lines
                .into_iter()
                .map(|l| Ok(CopyData::new(l.into_bytes().into())));
            Response::CopyOut(CopyResponse::new(0, desc.arity(), stream::iter(data)))
        }
        Outcome::TransactionStart => Response::TransactionStart(Tag::new("BEGIN")),
        Outcome::TransactionEnd(tag) => Response::TransactionEnd(Tag::new(tag)),
        Outcome::Tag(tag) => Response::Execution(Tag::new(tag)),
        Outcome::Error(e) => error_response(e),
    })
}

/// The format of a result: binary for a FETCH from a BINARY cursor (`binary`) where text was
/// asked for, else `format`.
pub fn cursor_format(binary: bool, format: &Format) -> Format {
    match (binary, format) {
        (true, Format::UnifiedText) => Format::UnifiedBinary,
        _ => format.clone(),
    }
}

/// `result` as a response; `style` is the session's, for values in text format.
pub fn to_response(
    result: ExecuteResult,
    format: &Format,
    style: &OutputStyle,
) -> PgWireResult<Response> {
    Ok(match result {
        ExecuteResult::Command(tag) => Response::Execution(command_tag(&tag)),
        ExecuteResult::Written { tag, desc, rows } => {
            let response = to_response(ExecuteResult::Rows { desc, rows }, format, style)?;
            match response {
                Response::Query(mut q) => {
                    // pgwire appends the number of rows sent (`INSERT 0` + ` 3`).
                    q.set_command_tag(&tag);
                    Response::Query(q)
                }
                other => other,
            }
        }
        ExecuteResult::Rows { desc, rows } => {
            let schema = Arc::new(fields(&desc, Some(format)));
            let mut encoder = DataRowEncoder::new(Arc::clone(&schema));
            let data: Vec<PgWireResult<DataRow>> = rows
                .into_iter()
                .map(|row| data_row(&mut encoder, &schema, &row, style))
                .collect();
            Response::Query(QueryResponse::new(schema, stream::iter(data)))
        }
        ExecuteResult::Subscription { .. } => {
            return Ok(error_response(ExecError::unsupported(
                "SUBSCRIBE inside a multi-statement query",
            )))
        }
    })
}

/// `row` as a DataRow of `schema`'s fields, the encoder's (their formats; `style` for text).
pub fn data_row(
    encoder: &mut DataRowEncoder,
    schema: &[FieldInfo],
    row: &Row,
    style: &OutputStyle,
) -> PgWireResult<DataRow> {
    for (datum, field) in row.datums().iter().zip(schema) {
        encode_datum(encoder, datum, field, style)?;
    }
    Ok(encoder.take_row())
}

/// Splits a tag like `INSERT 0 3` into pgwire's command and row count.
fn command_tag(tag: &str) -> Tag {
    match tag.rsplit_once(' ') {
        Some((command, rows))
            if rows.chars().all(|c| c.is_ascii_digit()) && command != "CREATE" =>
        {
            match rows.parse() {
                Ok(n) => Tag::new(command).with_rows(n),
                Err(_) => Tag::new(tag),
            }
        }
        _ => Tag::new(tag),
    }
}

/// Encodes a datum in the field's format: PostgreSQL's text output, or its binary encoding.
fn encode_datum(
    encoder: &mut DataRowEncoder,
    datum: &Datum,
    field: &FieldInfo,
    style: &OutputStyle,
) -> PgWireResult<()> {
    let ty = field.datatype().clone();
    // The text is already PostgreSQL's output; as `text`, pgwire sends it unchanged (it would
    // quote it again for an array type).
    let text = |encoder: &mut DataRowEncoder, value: Option<String>| {
        encoder.encode_field_with_type_and_format(
            &value,
            &Type::TEXT,
            FieldFormat::Text,
            field.format_options(),
        )
    };
    if field.format() == FieldFormat::Text || datum.is_null() {
        return text(encoder, datum.to_text_styled(style));
    }
    let fmt = FieldFormat::Binary;
    let opts = field.format_options();
    match datum {
        Datum::Null => text(encoder, None),
        Datum::Bool(b) => encoder.encode_field_with_type_and_format(b, &ty, fmt, opts),
        Datum::Int16(i) => encoder.encode_field_with_type_and_format(i, &ty, fmt, opts),
        Datum::Int32(i) => encoder.encode_field_with_type_and_format(i, &ty, fmt, opts),
        Datum::Int64(i) => encoder.encode_field_with_type_and_format(i, &ty, fmt, opts),
        Datum::Float32(f) => encoder.encode_field_with_type_and_format(&f.0, &ty, fmt, opts),
        Datum::Float64(f) => encoder.encode_field_with_type_and_format(&f.0, &ty, fmt, opts),
        Datum::Numeric(d) => {
            encoder.encode_field_with_type_and_format(&d.to_pg_binary(), &ty, fmt, opts)
        }
        Datum::String(s) => encoder.encode_field_with_type_and_format(s, &ty, fmt, opts),
        Datum::Date(d) => encoder.encode_field_with_type_and_format(d, &ty, fmt, opts),
        Datum::Timestamp(t) => encoder.encode_field_with_type_and_format(t, &ty, fmt, opts),
        Datum::TimestampTz(t) => {
            encoder.encode_field_with_type_and_format(&t.and_utc(), &ty, fmt, opts)
        }
        Datum::Interval(iv) => {
            // PostgreSQL's binary interval: microseconds (int8), days (int4), months (int4).
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&iv.micros.to_be_bytes());
            bytes[8..12].copy_from_slice(&iv.days.to_be_bytes());
            bytes[12..].copy_from_slice(&iv.months.to_be_bytes());
            encoder.encode_field_with_type_and_format(&bytes, &ty, fmt, opts)
        }
        // Microseconds since midnight (int8), the 16 bytes, the bytes.
        Datum::Time(t) => {
            encoder.encode_field_with_type_and_format(&t.to_be_bytes(), &ty, fmt, opts)
        }
        Datum::Uuid(u) => encoder.encode_field_with_type_and_format(u, &ty, fmt, opts),
        Datum::Bytes(b) => encoder.encode_field_with_type_and_format(b, &ty, fmt, opts),
        // jsonb's binary form: version 1, then the text.
        Datum::Jsonb(j) => {
            let mut bytes = vec![1u8];
            bytes.extend_from_slice(j.to_text().as_bytes());
            encoder.encode_field_with_type_and_format(&bytes, &ty, fmt, opts)
        }
        Datum::Array(a) => {
            let elem = kpg_types::array::element_oid(ty.oid());
            let bytes = kpg_types::array::binary::encode(a, elem, 1);
            encoder.encode_field_with_type_and_format(&bytes, &ty, fmt, opts)
        }
        Datum::Record(f) => {
            let bytes = kpg_types::array::binary::encode_record(f);
            encoder.encode_field_with_type_and_format(&bytes, &ty, fmt, opts)
        }
        // int2vector: an int2 array subscripted from 0.
        Datum::Int2Vector(v) => {
            let elems = kpg_types::array::int2vector::elements(v);
            let bytes = kpg_types::array::binary::encode(&elems, 21, 0);
            encoder.encode_field_with_type_and_format(&bytes, &ty, fmt, opts)
        }
    }
}

/// Writes a datum in COPY text format: `\N` for NULL, with backslash escapes (values as
/// the session's `style` says).
pub fn copy_text(datum: &Datum, style: &OutputStyle, out: &mut String) {
    match datum.to_text_styled(style) {
        None => out.push_str("\\N"),
        Some(text) => {
            for c in text.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_text_escapes() {
        let mut s = String::new();
        copy_text(
            &Datum::String("a\tb\\c\nd".into()),
            &OutputStyle::default(),
            &mut s,
        );
        assert_eq!(s, "a\\tb\\\\c\\nd");
        let mut s = String::new();
        copy_text(&Datum::Null, &OutputStyle::default(), &mut s);
        assert_eq!(s, "\\N");
    }

    #[test]
    fn command_tags() {
        assert_eq!(
            format!("{:?}", command_tag("INSERT 0 3")),
            format!("{:?}", Tag::new("INSERT 0").with_rows(3))
        );
        assert_eq!(
            format!("{:?}", command_tag("CREATE TABLE")),
            format!("{:?}", Tag::new("CREATE TABLE"))
        );
    }
}
