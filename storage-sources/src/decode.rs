//! Decoders: the bytes of a record's key or value to typed columns, with PostgreSQL's text
//! input rules for every field (`Datum::parse_text`, the same as `COPY`'s).
//!
//! A record that cannot be decoded — wrong field count, a field its column's type does not
//! accept, invalid JSON or UTF-8 — is an error with a reason that names the column and value,
//! never a panic and never a silently dropped record: the source records it and goes on.

use kpg_types::external::{Decoding, Format};
use kpg_types::{Datum, ScalarType};

/// Decodes one part of each record into its columns.
pub struct Decoder {
    decoding: Decoding,
}

impl Decoder {
    pub fn new(decoding: Decoding) -> Decoder {
        Decoder { decoding }
    }

    /// The columns `bytes` holds, or why it cannot be decoded.
    pub fn decode(&self, bytes: &[u8]) -> Result<Vec<Datum>, String> {
        let columns = &self.decoding.columns;
        match &self.decoding.format {
            Format::Bytes => Ok(vec![Datum::Bytes(bytes.to_vec())]),
            Format::Text => Ok(vec![Datum::String(utf8(bytes)?.to_string())]),
            Format::Csv { delimiter } => {
                let fields = csv_fields(utf8(bytes)?, *delimiter)?;
                if fields.len() != columns.len() {
                    return Err(format!(
                        "expected {} CSV fields, found {}",
                        columns.len(),
                        fields.len()
                    ));
                }
                fields
                    .into_iter()
                    .zip(columns)
                    .map(|(field, (name, ty))| match field {
                        None => Ok(Datum::Null),
                        Some(text) => parse(&text, name, ty),
                    })
                    .collect()
            }
            // No columns: the whole document, as jsonb.
            Format::Json if columns.is_empty() => {
                let text = utf8(bytes)?;
                let json = kpg_types::jsonb::Json::parse(text)
                    .map_err(|_| format!("invalid JSON: {}", excerpt(text)))?;
                Ok(vec![Datum::Jsonb(Box::new(json))])
            }
            Format::Json => {
                let value: serde_json::Value =
                    serde_json::from_slice(bytes).map_err(|e| format!("invalid JSON: {e}"))?;
                let serde_json::Value::Object(object) = value else {
                    return Err(format!(
                        "expected a JSON object, found {}",
                        json_kind(&value)
                    ));
                };
                columns
                    .iter()
                    .map(|(name, ty)| match object.get(name) {
                        None | Some(serde_json::Value::Null) => Ok(Datum::Null),
                        Some(serde_json::Value::String(s)) => parse(s, name, ty),
                        Some(v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_))) => {
                            parse(&v.to_string(), name, ty)
                        }
                        Some(v) if is_string_type(ty) => Ok(Datum::String(v.to_string())),
                        Some(v) => Err(format!(
                            "column \"{name}\" ({ty}) cannot hold a JSON {}",
                            json_kind(v)
                        )),
                    })
                    .collect()
            }
        }
    }
}

/// The start of a long text, for an error message.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|e| format!("invalid UTF-8: {e}"))
}

fn parse(text: &str, column: &str, ty: &ScalarType) -> Result<Datum, String> {
    Datum::parse_text(text, ty).map_err(|e| format!("column \"{column}\": {e}"))
}

fn is_string_type(ty: &ScalarType) -> bool {
    matches!(
        ty,
        ScalarType::Text | ScalarType::VarChar { .. } | ScalarType::Char { .. }
    )
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// The fields of one CSV record (a trailing line break is allowed), `None` for an unquoted
/// empty field (PostgreSQL's NULL); csv-core does the unquoting. Its reader (a state machine
/// built per delimiter, which costs more than reading a short record) is kept per thread.
fn csv_fields(text: &str, delimiter: u8) -> Result<Vec<Option<String>>, String> {
    thread_local! {
        static READER: std::cell::RefCell<Option<(u8, csv_core::Reader)>> =
            const { std::cell::RefCell::new(None) };
    }
    let text = text.strip_suffix('\n').unwrap_or(text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let input = text.as_bytes();
    // Unquoting only removes bytes; a record has at most one field per input byte, plus one.
    let mut output = vec![0u8; input.len()];
    let mut ends = vec![0usize; input.len() + 1];
    let (fields, read) = READER.with(|cell| {
        let mut cell = cell.borrow_mut();
        let reader = match &mut *cell {
            Some((d, reader)) if *d == delimiter => reader,
            slot => {
                let reader = csv_core::ReaderBuilder::new().delimiter(delimiter).build();
                &mut slot.insert((delimiter, reader)).1
            }
        };
        reader.reset();
        let (mut read, mut fields) = (0, 0);
        loop {
            let (result, nin, _, nend) =
                reader.read_record(&input[read..], &mut output, &mut ends[fields..]);
            read += nin;
            fields += nend;
            match result {
                csv_core::ReadRecordResult::InputEmpty if read == input.len() && nin == 0 => {
                    // End of input: one more call with nothing left finishes the record.
                    let (result, _, _, nend) =
                        reader.read_record(&[], &mut output, &mut ends[fields..]);
                    fields += nend;
                    break (
                        matches!(result, csv_core::ReadRecordResult::Record).then_some(fields),
                        read,
                    );
                }
                csv_core::ReadRecordResult::InputEmpty => {}
                csv_core::ReadRecordResult::Record => break (Some(fields), read),
                csv_core::ReadRecordResult::End => break (None, read),
                csv_core::ReadRecordResult::OutputFull
                | csv_core::ReadRecordResult::OutputEndsFull => {
                    unreachable!("the buffers are as long as the input")
                }
            }
        }
    });
    let Some(fields) = fields else {
        return Ok(vec![None]);
    };
    if read < input.len() {
        return Err("more than one CSV record in one message".into());
    }
    let quoted = quoted_fields(text, delimiter);
    let mut start = 0;
    (0..fields)
        .map(|i| {
            let field = &output[start..ends[i]];
            start = ends[i];
            if field.is_empty() && !quoted.get(i).copied().unwrap_or(false) {
                Ok(None)
            } else {
                std::str::from_utf8(field)
                    .map(|f| Some(f.to_string()))
                    .map_err(|e| format!("invalid CSV: {e}"))
            }
        })
        .collect()
}

/// Whether each field of one CSV record starts with a quote.
fn quoted_fields(text: &str, delimiter: u8) -> Vec<bool> {
    let mut out = Vec::new();
    let mut at_start = true;
    let mut in_quotes = false;
    for &b in text.as_bytes() {
        if at_start {
            out.push(b == b'"');
            at_start = false;
            if b == b'"' {
                in_quotes = true;
                continue;
            }
        }
        if b == b'"' {
            in_quotes = !in_quotes;
        } else if b == delimiter && !in_quotes {
            at_start = true;
        }
    }
    if at_start {
        out.push(false);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoder(format: Format, columns: &[(&str, ScalarType)]) -> Decoder {
        Decoder::new(Decoding {
            format,
            columns: columns.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        })
    }

    #[test]
    fn csv_fields_nulls_quotes_and_errors() {
        let d = decoder(
            Format::Csv { delimiter: b',' },
            &[
                ("a", ScalarType::Int32),
                ("b", ScalarType::Text),
                ("c", ScalarType::Date),
            ],
        );
        assert_eq!(
            d.decode(b"1,\"x, \"\"y\"\"\",2024-02-29\n").unwrap(),
            vec![
                Datum::Int32(1),
                Datum::String("x, \"y\"".into()),
                Datum::Date(chrono::NaiveDate::from_ymd_opt(2024, 2, 29).unwrap())
            ]
        );
        assert_eq!(
            d.decode(b",\"\",").unwrap(),
            vec![Datum::Null, Datum::String(String::new()), Datum::Null]
        );
        assert!(d
            .decode(b"1,2")
            .unwrap_err()
            .contains("expected 3 CSV fields, found 2"));
        let e = d.decode(b"x,y,2024-01-01").unwrap_err();
        assert!(e.contains("column \"a\"") && e.contains("\"x\""), "{e}");
        assert!(d
            .decode(b"1,a,2024-02-30")
            .unwrap_err()
            .contains("column \"c\""));
        assert!(d.decode(&[0xff, b',', b'1']).unwrap_err().contains("UTF-8"));
        assert!(d
            .decode(b"1,a,2024-01-01\n2,b,2024-01-02")
            .unwrap_err()
            .contains("more than one CSV record"));
        assert!(d
            .decode(b"")
            .unwrap_err()
            .contains("expected 3 CSV fields, found 1"));
        // The reader kept per thread follows each decoder's delimiter.
        let tabs = decoder(
            Format::Csv { delimiter: b'\t' },
            &[("a", ScalarType::Int32), ("b", ScalarType::Text)],
        );
        assert_eq!(
            tabs.decode(b"7\tx,y\r\n").unwrap(),
            vec![Datum::Int32(7), Datum::String("x,y".into())]
        );
        assert_eq!(d.decode(b"3,\"q\",").unwrap()[1], Datum::String("q".into()));
    }

    #[test]
    fn json_fields_by_name() {
        let d = decoder(
            Format::Json,
            &[
                ("id", ScalarType::Int64),
                ("name", ScalarType::Text),
                ("ok", ScalarType::Bool),
                (
                    "n",
                    ScalarType::Numeric {
                        precision: None,
                        scale: None,
                    },
                ),
            ],
        );
        let row = d
            .decode(br#"{"id": 7, "name": {"x": [1]}, "extra": 1, "n": "1.50"}"#)
            .unwrap();
        assert_eq!(row[0], Datum::Int64(7));
        assert_eq!(row[1], Datum::String(r#"{"x":[1]}"#.into()));
        assert_eq!(row[2], Datum::Null);
        assert_eq!(row[3].to_text().as_deref(), Some("1.50"));
        assert!(d.decode(b"[1]").unwrap_err().contains("JSON object"));
        assert!(d.decode(b"{").unwrap_err().contains("invalid JSON"));
        assert!(d
            .decode(br#"{"id": "x"}"#)
            .unwrap_err()
            .contains("column \"id\""));
        assert!(d
            .decode(br#"{"ok": [true]}"#)
            .unwrap_err()
            .contains("JSON array"));
    }

    #[test]
    fn text_and_bytes() {
        let t = decoder(Format::Text, &[("text", ScalarType::Text)]);
        assert_eq!(t.decode(b"hi").unwrap(), vec![Datum::String("hi".into())]);
        assert!(t.decode(&[0xc3]).is_err());
        let b = decoder(Format::Bytes, &[("data", ScalarType::Bytea)]);
        assert_eq!(
            b.decode(&[0, 255]).unwrap(),
            vec![Datum::Bytes(vec![0, 255])]
        );
    }
}
