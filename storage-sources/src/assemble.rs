//! A record's row: the decoded key and value, the included metadata and headers, and (with
//! `VALUE DECODING ERRORS = INLINE`) the error column, in the order the planner put the
//! source's columns (`kpg_types::external`). Also the key that identifies an upserted row, as
//! decoded from a record or read back from a stored row, so that both are the same value.

use kpg_types::external::{ExternalSourceDesc, Include};
use kpg_types::packed::{DatumRef, RowPacker};
use kpg_types::{Datum, Row};

use crate::decode::Decoder;
use crate::records::Record;

/// Makes the rows of one source.
pub struct RowMaker {
    desc: ExternalSourceDesc,
    key: Option<Decoder>,
    value: Decoder,
    /// The columns that must not be NULL, with their names.
    not_null: Vec<(usize, String)>,
    value_width: usize,
    key_width: usize,
}

impl RowMaker {
    /// `not_null`: the positions and names of the source's NOT NULL columns.
    pub fn new(desc: ExternalSourceDesc, not_null: Vec<(usize, String)>) -> RowMaker {
        // A part decoded whole (JSON without columns) is one column.
        let width = |n: usize| n.max(1);
        RowMaker {
            key: desc.key.clone().map(Decoder::new),
            value: Decoder::new(desc.value.clone()),
            value_width: width(desc.value.columns.len()),
            key_width: desc.key.as_ref().map_or(0, |k| width(k.columns.len())),
            not_null,
            desc,
        }
    }

    /// Where the key's columns are in a row.
    fn key_range(&self) -> std::ops::Range<usize> {
        let start = if self.desc.key_first {
            0
        } else {
            self.value_width
        };
        start..start + self.key_width
    }

    /// The record's key columns: `None` for a record without a key (or a source that does not
    /// read keys); an error if the key cannot be decoded.
    pub fn key(&self, r: &Record) -> Result<Option<Vec<Datum>>, String> {
        match (&self.key, &r.key) {
            (Some(decoder), Some(k)) => {
                decoder.decode(k).map(Some).map_err(|e| format!("key: {e}"))
            }
            _ => Ok(None),
        }
    }

    /// The identity of an upserted key (what `key` decoded), as one row.
    pub fn identity(key: &[Datum]) -> Row {
        Row::new(key.to_vec())
    }

    /// The identity of the key a stored row (as `row` made it) holds.
    pub fn stored_identity(&self, row: &Row) -> Row {
        let datums = row.datums();
        Row::new(datums[self.key_range()].to_vec())
    }

    /// The record's row with `key`'s columns (NULLs for `None`), or why it cannot be made;
    /// `Ok(None)` for a record without a value. The value is decoded straight into the row.
    pub fn row(&self, r: &Record, key: Option<&[Datum]>) -> Result<Option<Row>, String> {
        thread_local! {
            static PACKER: std::cell::RefCell<RowPacker> =
                std::cell::RefCell::new(RowPacker::new());
        }
        let Some(value) = &r.value else {
            return Ok(None);
        };
        let row = PACKER.with(|packer| {
            let mut packer = packer.borrow_mut();
            packer.clear();
            let made = self.pack(&mut packer, r, key, value);
            match made {
                Ok(()) => Ok(Row::from_packed(packer.finish())),
                Err(e) => {
                    packer.clear();
                    Err(e)
                }
            }
        })?;
        if let Some((_, column)) = self
            .not_null
            .iter()
            .find(|(i, _)| matches!(row.get(*i), DatumRef::Null))
        {
            return Err(format!(
                "column \"{column}\" is NOT NULL, and the record has no value for it"
            ));
        }
        Ok(Some(row))
    }

    /// Packs a row's columns in the source's order: key and value, the metadata, no error.
    fn pack(
        &self,
        packer: &mut RowPacker,
        r: &Record,
        key: Option<&[Datum]>,
        value: &[u8],
    ) -> Result<(), String> {
        let push_key = |packer: &mut RowPacker| match key {
            Some(k) => packer.extend(k),
            None => (0..self.key_width).for_each(|_| packer.push_ref(DatumRef::Null)),
        };
        if self.desc.key_first {
            push_key(packer);
        }
        self.value.decode_into(value, packer)?;
        if !self.desc.key_first {
            push_key(packer);
        }
        for include in &self.desc.include {
            packer.push(&self.include(r, include, false)?);
        }
        if self.desc.inline_errors {
            packer.push_ref(DatumRef::Null);
        }
        Ok(())
    }

    /// With `VALUE DECODING ERRORS = INLINE`: the row of a record whose value could not be
    /// decoded: its key, NULL value columns, its metadata (what of it can be read), and the
    /// reason in the error column.
    pub fn error_row(&self, r: &Record, key: &[Datum], reason: &str) -> Row {
        let nulls = vec![Datum::Null; self.value_width];
        let datums = match self.assemble(r, Some(key), nulls.clone(), Some(reason), false) {
            Ok(datums) => datums,
            Err(also) => {
                // A header that cannot be read either: NULL (its column is nullable), the
                // other metadata as it is, and both reasons.
                let reason = format!("{reason}; {also}");
                self.assemble(r, Some(key), nulls, Some(&reason), true)
                    .expect("only headers fail, and leniently they do not")
            }
        };
        Row::new(datums)
    }

    /// Key and value columns in the source's order.
    fn layout(&self, key: Option<&[Datum]>, value: Vec<Datum>) -> Vec<Datum> {
        let key: Vec<Datum> = match key {
            Some(k) => k.to_vec(),
            None => vec![Datum::Null; self.key_width],
        };
        if self.desc.key_first {
            [key, value].concat()
        } else {
            [value, key].concat()
        }
    }

    /// The row's datums; a header that cannot be read is an error, or NULL with
    /// `lenient_headers` (an INLINE error row, whose reason says so).
    fn assemble(
        &self,
        r: &Record,
        key: Option<&[Datum]>,
        value: Vec<Datum>,
        error: Option<&str>,
        lenient_headers: bool,
    ) -> Result<Vec<Datum>, String> {
        let mut datums = self.layout(key, value);
        for include in &self.desc.include {
            datums.push(self.include(r, include, lenient_headers)?);
        }
        if self.desc.inline_errors {
            datums.push(error.map_or(Datum::Null, |e| Datum::String(e.to_string())));
        }
        Ok(datums)
    }

    /// An included metadata column's value; a header that cannot be read is an error, or
    /// NULL with `lenient_headers`.
    fn include(
        &self,
        r: &Record,
        include: &Include,
        lenient_headers: bool,
    ) -> Result<Datum, String> {
        Ok(match include {
            Include::Partition => Datum::Int32(r.partition),
            Include::Offset => Datum::Int64(r.offset),
            Include::Timestamp => match r
                .timestamp
                .and_then(chrono::DateTime::from_timestamp_millis)
            {
                Some(t) => Datum::Timestamp(t.naive_utc()),
                None => Datum::Null,
            },
            Include::Headers | Include::Header { .. } if lenient_headers => {
                headers_datum(r, include).unwrap_or(Datum::Null)
            }
            Include::Headers | Include::Header { .. } => headers_datum(r, include)?,
        })
    }
}

/// An included header column's value, or why the record's headers cannot give it.
fn headers_datum(r: &Record, include: &Include) -> Result<Datum, String> {
    if let Some(e) = &r.headers_error {
        return Err(format!("headers: {e}"));
    }
    match include {
        Include::Headers => headers_jsonb(&r.headers),
        Include::Header { key, bytes } => header(&r.headers, key, *bytes),
        _ => unreachable!("not a header column: {include:?}"),
    }
}

/// Every header as a `jsonb` array of `{"key": text, "value": "\\x<hex>" | null}`.
fn headers_jsonb(headers: &[(String, Option<Vec<u8>>)]) -> Result<Datum, String> {
    let list: Vec<serde_json::Value> = headers
        .iter()
        .map(|(k, v)| {
            let value = v.as_ref().map_or(serde_json::Value::Null, |v| {
                serde_json::Value::String(Datum::Bytes(v.clone()).to_text().unwrap_or_default())
            });
            serde_json::json!({"key": k, "value": value})
        })
        .collect();
    let text = serde_json::Value::Array(list).to_string();
    kpg_types::jsonb::Json::parse(&text)
        .map(|json| Datum::Jsonb(Box::new(json)))
        .map_err(|e| format!("headers as jsonb: {e}"))
}

/// The last value of header `key`: text (it must be UTF-8) or bytes; NULL if there is none.
fn header(headers: &[(String, Option<Vec<u8>>)], key: &str, bytes: bool) -> Result<Datum, String> {
    let Some((_, Some(v))) = headers.iter().rev().find(|(k, _)| k == key) else {
        return Ok(Datum::Null);
    };
    if bytes {
        return Ok(Datum::Bytes(v.clone()));
    }
    std::str::from_utf8(v)
        .map(|s| Datum::String(s.to_string()))
        .map_err(|e| format!("header \"{key}\": invalid UTF-8: {e}"))
}
