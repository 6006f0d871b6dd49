//! Decoders: the bytes of a record's key or value to typed columns, with PostgreSQL's text
//! input rules for every field (`RowPacker::push_text`: `Datum::parse_text`'s rules, the same
//! as `COPY`'s), written straight into the row's packer: a CSV field is unquoted into a buffer
//! kept per thread and read from there, a JSON member is borrowed from the record
//! (`decode_json.rs`), so no field becomes an owned `String` or `Datum` on its way.
//!
//! A record that cannot be decoded — wrong field count, a field its column's type does not
//! accept, invalid JSON or UTF-8 — is an error with a reason that names the column and value,
//! never a panic and never a silently dropped record: the source records it and goes on.

use crate::decode_json::Field;
use kpg_types::external::{Decoding, Format};
use kpg_types::packed::{DatumRef, RowPacker};
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
        let mut packer = RowPacker::new();
        self.decode_into(bytes, &mut packer)?;
        Ok(packer.finish().unpack())
    }

    /// Appends the columns `bytes` holds to `packer`, or says why it cannot be decoded (then
    /// `packer` may hold some of them: the caller clears it).
    pub fn decode_into(&self, bytes: &[u8], packer: &mut RowPacker) -> Result<(), String> {
        let columns = &self.decoding.columns;
        match &self.decoding.format {
            Format::Bytes => packer.push_ref(DatumRef::Bytes(bytes)),
            Format::Text => packer.push_ref(DatumRef::String(no_nul(utf8(bytes)?)?)),
            Format::Csv { delimiter } => {
                csv_into(utf8(bytes)?, *delimiter, columns, packer)?;
            }
            // No columns: the whole document, as jsonb.
            Format::Json if columns.is_empty() => {
                let text = utf8(bytes)?;
                let json = kpg_types::jsonb::Json::parse(text)
                    .map_err(|_| format!("invalid JSON: {}", excerpt(text)))?;
                packer.push(&Datum::Jsonb(Box::new(json)));
            }
            // An object (anything else is an error, said by `json_kind_error`).
            Format::Json if first_json_byte(bytes) == Some(b'{') => {
                let fields = crate::decode_json::object_fields(bytes, columns)
                    .map_err(|e| format!("invalid JSON: {e}"))?;
                for ((name, ty), field) in columns.iter().zip(fields) {
                    match field {
                        None | Some(Field::Null) => packer.push_ref(DatumRef::Null),
                        Some(Field::Str(s)) => push(packer, &s, name, ty)?,
                        Some(Field::Value(
                            v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_)),
                        )) => push(packer, &v.to_string(), name, ty)?,
                        Some(Field::Value(v)) if is_string_type(ty) => {
                            packer.push_ref(DatumRef::String(&v.to_string()))
                        }
                        Some(Field::Value(v)) => {
                            return Err(format!(
                                "column \"{name}\" ({ty}) cannot hold a JSON {}",
                                json_kind(&v)
                            ))
                        }
                    }
                }
            }
            Format::Json => return Err(json_kind_error(bytes)),
        }
        Ok(())
    }
}

/// The first byte of a JSON text after its leading whitespace.
fn first_json_byte(bytes: &[u8]) -> Option<u8> {
    bytes
        .iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// Why a record that does not start with `{` is not a JSON object.
fn json_kind_error(bytes: &[u8]) -> String {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Err(e) => format!("invalid JSON: {e}"),
        Ok(value) => format!("expected a JSON object, found {}", json_kind(&value)),
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

/// `text` if it holds no NUL character, which PostgreSQL's text types cannot hold (its input
/// refuses the byte 0x00 and the JSON escape `\u0000` alike).
fn no_nul(text: &str) -> Result<&str, String> {
    match text.contains('\0') {
        true => Err("invalid byte sequence for encoding \"UTF8\": 0x00".to_string()),
        false => Ok(text),
    }
}

/// Appends the value of column `column` of type `ty` that `text` is the input form of.
fn push(packer: &mut RowPacker, text: &str, column: &str, ty: &ScalarType) -> Result<(), String> {
    push_nul_free(packer, text, column, ty, false)
}

/// `push`, where `nul_free` says the text is known to hold no NUL (checked once for a record).
fn push_nul_free(
    packer: &mut RowPacker,
    text: &str,
    column: &str,
    ty: &ScalarType,
    nul_free: bool,
) -> Result<(), String> {
    let text = match !nul_free && is_string_type(ty) {
        true => no_nul(text).map_err(|e| format!("column \"{column}\": {e}"))?,
        false => text,
    };
    packer
        .push_text(text, ty)
        .map_err(|e| format!("column \"{column}\": {e}"))
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

/// One CSV record (a trailing line break is allowed), its fields parsed into `columns`' types
/// and appended to `packer`; an unquoted empty field is NULL (PostgreSQL's). csv-core does the
/// unquoting into a buffer kept per thread, as is its reader (a state machine built per
/// delimiter, which costs more than reading a short record): no field is copied but into the
/// packer.
fn csv_into(
    text: &str,
    delimiter: u8,
    columns: &[(String, ScalarType)],
    packer: &mut RowPacker,
) -> Result<(), String> {
    struct Scratch {
        delimiter: u8,
        reader: csv_core::Reader,
        output: Vec<u8>,
        ends: Vec<usize>,
    }
    thread_local! {
        static SCRATCH: std::cell::RefCell<Option<Scratch>> =
            const { std::cell::RefCell::new(None) };
    }
    let text = text.strip_suffix('\n').unwrap_or(text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let input = text.as_bytes();
    SCRATCH.with(|cell| {
        let mut cell = cell.borrow_mut();
        let scratch = match &mut *cell {
            Some(s) if s.delimiter == delimiter => s,
            slot => slot.insert(Scratch {
                delimiter,
                reader: csv_core::ReaderBuilder::new().delimiter(delimiter).build(),
                output: Vec::new(),
                ends: Vec::new(),
            }),
        };
        // Unquoting only removes bytes: the output is never longer than the input. Field
        // ends: room for one more field than the columns (a record with more fields than that
        // is counted again with room for all; see below). Both only grow, so a record does not
        // pay for clearing what the last one left.
        if scratch.output.len() < input.len() {
            scratch.output.resize(input.len(), 0);
        }
        if scratch.ends.len() < columns.len() + 1 {
            scratch.ends.resize(columns.len() + 1, 0);
        }
        let Scratch {
            reader,
            output,
            ends,
            ..
        } = scratch;
        reader.reset();
        let (mut read, mut fields) = (0, 0);
        let fields = loop {
            let (result, nin, _, nend) =
                reader.read_record(&input[read..], output, &mut ends[fields..]);
            read += nin;
            fields += nend;
            match result {
                csv_core::ReadRecordResult::InputEmpty if read == input.len() && nin == 0 => {
                    // End of input: one more call with nothing left finishes the record. (A
                    // guard: csv-core answers a call with input by consuming some, so the end
                    // comes through the next arm and a call with none — Record, End, or
                    // OutputEndsFull when the last field's end finds no room.)
                    let (result, _, _, nend) = reader.read_record(&[], output, &mut ends[fields..]);
                    fields += nend;
                    break matches!(result, csv_core::ReadRecordResult::Record).then_some(fields);
                }
                csv_core::ReadRecordResult::InputEmpty => {}
                csv_core::ReadRecordResult::Record => break Some(fields),
                csv_core::ReadRecordResult::End => break None,
                // More fields than the columns and one: read the record again with room for
                // every field it can have (one per input byte, plus one), to count them.
                csv_core::ReadRecordResult::OutputEndsFull => {
                    ends.resize(ends.len().max(input.len() + 1), 0);
                    reader.reset();
                    (read, fields) = (0, 0);
                }
                csv_core::ReadRecordResult::OutputFull => {
                    unreachable!("the output is as long as the input")
                }
            }
        };
        // No record at all: one empty field.
        let Some(fields) = fields else {
            return if columns.len() == 1 {
                packer.push_ref(DatumRef::Null);
                Ok(())
            } else {
                Err(format!("expected {} CSV fields, found 1", columns.len()))
            };
        };
        if read < input.len() {
            return Err("more than one CSV record in one message".into());
        }
        if fields != columns.len() {
            return Err(format!(
                "expected {} CSV fields, found {fields}",
                columns.len()
            ));
        }
        // The unquoted fields as one string (valid: unquoting removes only ASCII quotes from
        // the record, which is valid UTF-8), checked for NULs at once.
        let all = std::str::from_utf8(&output[..ends[..fields].last().copied().unwrap_or(0)])
            .map_err(|e| format!("invalid CSV: {e}"))?;
        let nul_free = !all.as_bytes().contains(&0);
        // Whether fields were quoted matters only for empty ones ("" is an empty string).
        let mut quoted: Option<Vec<bool>> = None;
        let mut start = 0;
        for (i, (name, ty)) in columns.iter().enumerate() {
            // Field ends are where a delimiter (ASCII) was: character boundaries.
            let field = all
                .get(start..ends[i])
                .ok_or_else(|| "invalid CSV: a field ends inside a character".to_string())?;
            start = ends[i];
            if field.is_empty()
                && !quoted
                    .get_or_insert_with(|| quoted_fields(text, delimiter))
                    .get(i)
                    .copied()
                    .unwrap_or(false)
            {
                packer.push_ref(DatumRef::Null);
                continue;
            }
            push_nul_free(packer, field, name, ty, nul_free)?;
        }
        Ok(())
    })
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
        // Records with more fields: counted exactly, also beyond the room kept for one extra
        // field, and a record after them decodes as before.
        assert!(d
            .decode(b"1,a,2024-01-01,x")
            .unwrap_err()
            .contains("expected 3 CSV fields, found 4"));
        // One field too many for the room kept, the last (also empty) being the one without
        // room, with and without a line break.
        assert!(d
            .decode(b"1,a,2024-01-01,x,y")
            .unwrap_err()
            .contains("expected 3 CSV fields, found 5"));
        assert!(d
            .decode(b"1,a,2024-01-01,x,y\n")
            .unwrap_err()
            .contains("expected 3 CSV fields, found 5"));
        assert!(d
            .decode(b"1,a,2024-01-01,x,")
            .unwrap_err()
            .contains("expected 3 CSV fields, found 5"));
        assert!(d
            .decode(b"1,a,2024-01-01,x,\"y,z\",,,")
            .unwrap_err()
            .contains("expected 3 CSV fields, found 8"));
        assert_eq!(d.decode(b"5,b,2024-03-01").unwrap()[0], Datum::Int32(5));
        // A short record after a long one reads only its own bytes.
        assert_eq!(
            d.decode(b"6,\"a much longer text than the next\",2024-03-02")
                .unwrap()[1],
            Datum::String("a much longer text than the next".into())
        );
        assert_eq!(
            d.decode(b"7,c,2024-03-03").unwrap(),
            vec![
                Datum::Int32(7),
                Datum::String("c".into()),
                Datum::Date(chrono::NaiveDate::from_ymd_opt(2024, 3, 3).unwrap())
            ]
        );
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
        // Escapes in names and values, a key given twice (the last counts), every digit of
        // a number, whitespace around the object.
        let row = d
            .decode(b" {\"i\\u0064\": 1, \"name\": \"a\\\"b\\u00e9\", \"id\": 2, \"n\": 1.50} \n")
            .unwrap();
        assert_eq!(row[0], Datum::Int64(2));
        assert_eq!(row[1], Datum::String("a\"b\u{e9}".into()));
        assert_eq!(row[3].to_text().as_deref(), Some("1.50"));
        assert!(d.decode(b"7").unwrap_err().contains("found number"));
        assert!(d.decode(b"{} x").unwrap_err().contains("invalid JSON"));
        assert!(d
            .decode(br#"{"skip": [1, {"a": tru}]}"#)
            .unwrap_err()
            .contains("invalid JSON"));
    }

    /// Records PostgreSQL would not read are errors wherever the bad part is: invalid UTF-8 or
    /// a lone surrogate escape in a member that is not a column, a NUL character in a text
    /// value (JSON's `\u0000`, a raw 0x00 in CSV or TEXT).
    #[test]
    fn bad_text_anywhere_is_an_error() {
        let j = decoder(
            Format::Json,
            &[("id", ScalarType::Int32), ("kind", ScalarType::Text)],
        );
        assert!(j.decode(b"{\"id\": 1, \"x\": \"\xff\xfe\"}").is_err());
        assert!(j.decode(br#"{"id": 2, "x": "\ud800"}"#).is_err());
        assert!(j.decode(br#"{"id": 2, "x": ["\ud800"]}"#).is_err());
        assert!(j.decode(br#"{"id": 2, "x": {"\ud800": 1}}"#).is_err());
        assert!(j
            .decode(br#"{"id": 3, "kind": "a\u0000b"}"#)
            .unwrap_err()
            .contains("0x00"));
        let row = j.decode(br#"{"id": 3, "kind": "ok", "x": {"y": ["\u00e9", 1.5, null]}}"#);
        assert_eq!(
            row.unwrap(),
            vec![Datum::Int32(3), Datum::String("ok".into())]
        );
        let c = decoder(
            Format::Csv { delimiter: b',' },
            &[("id", ScalarType::Int32), ("kind", ScalarType::Text)],
        );
        assert!(c.decode(b"1,a\x00b").unwrap_err().contains("0x00"));
        let t = decoder(Format::Text, &[("text", ScalarType::Text)]);
        assert!(t.decode(b"a\x00b").unwrap_err().contains("0x00"));
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
