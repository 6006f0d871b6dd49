//! `COPY t [(columns)] FROM STDIN [WITH (FORMAT text | csv, DELIMITER, NULL, HEADER, QUOTE)]`.
//!
//! The statement is planned when it arrives (its table and columns resolved); the data the client then streams is collected and,
//! on CopyDone, parsed with PostgreSQL's rules for the format (text: tab-separated, `\N` for
//! NULL, backslash escapes; CSV: the `csv` crate, unquoted empty field for NULL), converted to the
//! columns' types like an INSERT would, and written in one append. A bad line fails the whole
//! COPY with the line number, and nothing is written.

use kpg_sql::{CopyFormat, CopyFromPlan};
use kpg_types::packed::RowPacker;
use kpg_types::{Datum, GlobalId, RelationDesc, Row, ScalarType};

use crate::error::ExecError;
use crate::statement_context::DateInput;

/// A COPY FROM STDIN in progress.
pub struct CopyIn {
    pub table: GlobalId,
    table_name: String,
    desc: RelationDesc,
    /// For each field of an input line, the table column it fills.
    columns: Vec<usize>,
    format: CopyFormat,
    data: Vec<u8>,
}

/// Starts the COPY FROM STDIN planned as `plan`.
pub fn start(plan: CopyFromPlan) -> CopyIn {
    CopyIn {
        table: plan.table,
        table_name: plan.table_name,
        desc: plan.desc,
        columns: plan.columns,
        format: plan.format,
        data: Vec::new(),
    }
}

impl CopyIn {
    pub fn push(&mut self, data: &[u8]) {
        self.data.extend_from_slice(data);
    }

    /// The columns of an input line, for the CopyInResponse.
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// Parses the collected data into table rows; `zone` is the session's, in which
    /// timestamptz text without a zone is read, and `input` its date input settings. A large
    /// COPY is parsed on several threads, each a run of whole records (lines of the text
    /// format; the CSV format's records, which may span lines, are found first).
    pub fn rows(
        &self,
        zone: &kpg_types::datetime::Zone,
        input: &DateInput,
    ) -> Result<Vec<Row>, ExecError> {
        let text = std::str::from_utf8(&self.data)
            .map_err(|_| ExecError::new("22021", "invalid byte sequence for encoding \"UTF8\""))?;
        let threads = match text.len() >= PARALLEL_BYTES {
            true => std::thread::available_parallelism().map_or(1, |n| n.get().min(4)),
            false => 1,
        };
        // Each part's rows, or the index of its failing record and the error; combined in
        // order, the index of a failing record counts the records of the parts before it.
        type Part = (Vec<Row>, Result<(), (usize, ExecError)>);
        let parts: Vec<Part> = match &self.format {
            CopyFormat::Text { delimiter, null } => {
                // Nothing after the end line is read, not even its line ends (with `\r` line
                // ends, the end line is found once they are `\n`).
                let text = line_ends(&text[..text_end(text)]).map_err(|(line, e)| {
                    e.with_detail(format!("COPY {}, line {line}", self.table_name))
                })?;
                let end = match &text {
                    std::borrow::Cow::Owned(lines) => text_end(lines),
                    std::borrow::Cow::Borrowed(cut) => cut.len(),
                };
                let text = &text[..end];
                in_parallel(&split_lines(text, threads), input, |part| {
                    // Line by line, fields borrowed from the input unless they hold escapes.
                    let mut rows = Vec::with_capacity(part.len() / 64);
                    let mut fields = Vec::with_capacity(self.columns.len());
                    let mut packer = RowPacker::new();
                    for (i, record) in text_records(part).enumerate() {
                        fields.clear();
                        split_text_fields(record, *delimiter, null, &mut fields);
                        match self.row(&fields, zone, &mut packer) {
                            Ok(row) => rows.push(row),
                            Err(e) => return (rows, Err((i, e))),
                        }
                    }
                    (rows, Ok(()))
                })
            }
            CopyFormat::Csv {
                delimiter,
                quote,
                null,
                header,
            } => {
                let records = csv_records(text, *delimiter, *quote, null, *header)?;
                let per = records.len().div_ceil(threads).max(1);
                let chunks: Vec<_> = records.chunks(per).collect();
                in_parallel(&chunks, input, |chunk| {
                    let mut rows = Vec::with_capacity(chunk.len());
                    let mut packer = RowPacker::new();
                    for (i, fields) in chunk.iter().enumerate() {
                        match self.row(fields, zone, &mut packer) {
                            Ok(row) => rows.push(row),
                            Err(e) => return (rows, Err((i, e))),
                        }
                    }
                    (rows, Ok(()))
                })
            }
        };
        let mut all = Vec::with_capacity(parts.iter().map(|(rows, _)| rows.len()).sum());
        for (rows, result) in parts {
            if let Err((i, e)) = result {
                let line = format!("COPY {}, line {}", self.table_name, all.len() + i + 1);
                return Err(e.with_detail(line));
            }
            all.extend(rows);
        }
        Ok(all)
    }

    fn row<S: AsRef<str>>(
        &self,
        fields: &[Option<S>],
        zone: &kpg_types::datetime::Zone,
        packer: &mut RowPacker,
    ) -> Result<Row, ExecError> {
        // As PostgreSQL: extra fields first, then the named columns in order, each field read
        // (and failing) before a later column is found missing.
        if fields.len() > self.columns.len() {
            return Err(ExecError::new(
                "22P04",
                "extra data after last expected column",
            ));
        }
        let field = |i: usize| {
            fields.get(i).ok_or_else(|| {
                let name = &self.desc.columns[self.columns[i]].0;
                ExecError::new("22P04", format!("missing data for column \"{name}\""))
            })
        };
        let in_order = self.columns.iter().enumerate().all(|(i, c)| i == *c);
        if !in_order {
            // Columns named in another order: read in that order, then packed in the table's.
            let mut datums = vec![Datum::Null; self.desc.arity()];
            for (i, &column) in self.columns.iter().enumerate() {
                if let Some(text) = field(i)? {
                    let ty = &self.desc.columns[column].1.scalar;
                    datums[column] =
                        kpg_types::datetime::parse_text_in_zone(text.as_ref(), ty, zone)?;
                }
            }
            return Ok(Row::new(datums));
        }
        // Each field's text is written straight into the row (`RowPacker::push_text`, the
        // input rules of `Datum::parse_text` without an owned datum between); a column the
        // COPY does not name is NULL. (`packer` is the caller's, kept from row to row.)
        packer.clear();
        for column in 0..self.desc.arity() {
            let text = match column < self.columns.len() {
                true => field(column)?.as_ref().map(|t| t.as_ref()),
                false => None,
            };
            let Some(text) = text else {
                packer.push(&Datum::Null);
                continue;
            };
            let ty = &self.desc.columns[column].1.scalar;
            match ty {
                // Text without a zone is read in the session's.
                ScalarType::TimestampTz | ScalarType::TimestampTzOf(_) | ScalarType::Array(_) => {
                    packer.push(&kpg_types::datetime::parse_text_in_zone(text, ty, zone)?)
                }
                _ => packer.push_text(text, ty)?,
            }
        }
        Ok(Row::from_packed(packer.finish()))
    }
}

/// COPY text of at least this many bytes is parsed on several threads.
const PARALLEL_BYTES: usize = 1 << 20;

/// PostgreSQL's text format ends at an end line `\.`, if there is one: the length of the
/// text before it.
fn text_end(text: &str) -> usize {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        if bare.strip_suffix('\r').unwrap_or(bare) == "\\." {
            return at;
        }
        at += line.len();
    }
    text.len()
}

/// PostgreSQL's text format ends every line as its first line ends — `\n`, `\r\n` or `\r` —
/// and refuses data that mixes them (a carriage return or newline in a value is written `\r`,
/// `\n`). The text with its lines ending in `\n` (copied only for `\r`), or the line where
/// another line end is found and the error.
fn line_ends(text: &str) -> Result<std::borrow::Cow<'_, str>, (usize, ExecError)> {
    let bytes = text.as_bytes();
    let line_of = |at: usize| memchr::memchr_iter(b'\n', &bytes[..at]).count() + 1;
    let cr = |at: usize| {
        (
            line_of(at),
            ExecError::new("22P04", "literal carriage return found in data")
                .with_hint("Use \"\\r\" to represent carriage return."),
        )
    };
    let nl = |line: usize| {
        (
            line,
            ExecError::new("22P04", "literal newline found in data")
                .with_hint("Use \"\\n\" to represent newline."),
        )
    };
    let Some(first) = memchr::memchr2(b'\r', b'\n', bytes) else {
        return Ok(text.into());
    };
    match (bytes[first], bytes.get(first + 1)) {
        (b'\n', _) => match memchr::memchr(b'\r', bytes) {
            Some(at) => Err(cr(at)),
            None => Ok(text.into()),
        },
        (_, Some(b'\n')) => {
            // Every `\r` followed by `\n`, every `\n` after `\r`.
            for at in memchr::memchr2_iter(b'\r', b'\n', bytes) {
                match bytes[at] {
                    b'\r' if bytes.get(at + 1) != Some(&b'\n') => return Err(cr(at)),
                    b'\n' if at == 0 || bytes[at - 1] != b'\r' => return Err(nl(line_of(at))),
                    _ => {}
                }
            }
            Ok(text.into())
        }
        _ => match memchr::memchr(b'\n', bytes) {
            Some(at) => Err(nl(memchr::memchr_iter(b'\r', &bytes[..at]).count() + 1)),
            None => Ok(text.replace('\r', "\n").into()),
        },
    }
}

/// The records of a run of whole lines of the text format: each line without its line end
/// (an empty line too is a record, as in PostgreSQL: one empty field).
fn text_records(lines: &str) -> impl Iterator<Item = &str> {
    let lines = lines.strip_suffix('\n').unwrap_or(lines);
    lines
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
}

/// `text` cut into at most `parts` runs of whole lines, of about equal length.
fn split_lines(text: &str, parts: usize) -> Vec<&str> {
    let mut runs = Vec::with_capacity(parts);
    let mut rest = text;
    for left in (1..=parts).rev() {
        if rest.is_empty() {
            break;
        }
        if left == 1 {
            runs.push(rest);
            break;
        }
        let target = rest.len() / left;
        let cut = match rest[target..].find('\n') {
            Some(n) => target + n + 1,
            None => rest.len(),
        };
        runs.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    runs
}

/// `parse` of each of `parts`, in order: the first on this thread, the others on threads of
/// their own, each with the session's date input settings.
fn in_parallel<P: Sync, R: Send>(
    parts: &[P],
    input: &DateInput,
    parse: impl Fn(&P) -> R + Sync,
) -> Vec<R> {
    let Some((first, others)) = parts.split_first() else {
        return Vec::new();
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = others
            .iter()
            .map(|part| scope.spawn(|| input.run(|| parse(part))))
            .collect();
        let mut results = vec![input.run(|| parse(first))];
        for handle in handles {
            match handle.join() {
                Ok(result) => results.push(result),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        results
    })
}

/// Splits a text-format record at delimiters not escaped by a backslash into `fields`:
/// `None` for a field equal to `null` (as written), the field unescaped otherwise (borrowed
/// when it has no escapes).
fn split_text_fields<'a>(
    line: &'a str,
    delimiter: char,
    null: &str,
    fields: &mut Vec<Option<std::borrow::Cow<'a, str>>>,
) {
    let mut field = |raw: &'a str| {
        fields.push(if raw == null {
            None
        } else if raw.contains('\\') {
            Some(std::borrow::Cow::Owned(unescape(raw)))
        } else {
            Some(std::borrow::Cow::Borrowed(raw))
        })
    };
    let mut start = 0;
    let mut chars = line.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c == delimiter {
            field(&line[start..i]);
            start = i + c.len_utf8();
        }
    }
    field(&line[start..]);
}

fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// CSV records: an unquoted field equal to `null` is NULL; a quoted one is a string.
fn csv_records(
    text: &str,
    delimiter: u8,
    quote: u8,
    null: &str,
    header: bool,
) -> Result<Vec<Vec<Option<String>>>, ExecError> {
    let text = text
        .strip_suffix("\\.\n")
        .or_else(|| text.strip_suffix("\\."))
        .unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .quote(quote)
        .has_headers(header)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut records = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| {
            ExecError::new("22P04", format!("bad CSV data: {e}"))
                .with_detail(format!("line {}", i + 1))
        })?;
        let position = record.position().map(|p| p.byte() as usize);
        let fields = record
            .iter()
            .enumerate()
            .map(|(f, value)| {
                // The csv crate drops quotes, so NULL (an unquoted null string) is told apart
                // from a quoted empty string by looking at the raw line.
                let quoted = position
                    .is_some_and(|start| raw_field_is_quoted(text, start, delimiter, quote, f));
                if value == null && !quoted {
                    None
                } else {
                    Some(value.to_string())
                }
            })
            .collect();
        records.push(fields);
    }
    Ok(records)
}

/// Whether field `index` of the CSV line starting at byte `start` begins with a quote.
fn raw_field_is_quoted(text: &str, start: usize, delimiter: u8, quote: u8, index: usize) -> bool {
    let bytes = &text.as_bytes()[start..];
    let (mut field, mut in_quotes, mut at_field_start) = (0, false, true);
    for &b in bytes {
        if at_field_start && field == index {
            return b == quote;
        }
        at_field_start = false;
        if b == quote {
            in_quotes = !in_quotes;
        } else if b == delimiter && !in_quotes {
            field += 1;
            at_field_start = true;
        } else if b == b'\n' && !in_quotes {
            break;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str, delimiter: char, null: &str) -> Vec<Vec<Option<String>>> {
        text_records(&text[..text_end(text)])
            .map(|line| {
                let mut fields = Vec::new();
                split_text_fields(line, delimiter, null, &mut fields);
                fields
                    .into_iter()
                    .map(|f| f.map(|f| f.into_owned()))
                    .collect()
            })
            .collect()
    }

    /// The parts cover the text in order, each of whole lines; the end line cuts the text.
    #[test]
    fn text_splits_into_whole_lines() {
        let text: String = (0..1000).map(|i| format!("{i}\tline {i}\r\n")).collect();
        for parts in 1..6 {
            let runs = split_lines(&text, parts);
            assert!(runs.len() <= parts && !runs.is_empty());
            assert!(runs.iter().all(|r| !r.is_empty()));
            assert_eq!(runs.concat(), text);
            assert!(runs.iter().all(|r| r.is_empty() || r.ends_with('\n')));
        }
        assert_eq!(split_lines("no line end", 3), ["no line end"]);
        assert_eq!(text_end("a\n\\.\r\nb\n"), 2);
        assert_eq!(text_end("a\nb\\.\n"), 6);
        assert_eq!(text_end("a\n\\."), 2);
    }

    #[test]
    fn text_format_escapes_and_nulls() {
        let records = records("1\ta\\tb\t\\N\n2\tx\\\\y\t\n\\.\n", '\t', "\\N");
        assert_eq!(
            records,
            vec![
                vec![Some("1".into()), Some("a\tb".into()), None],
                vec![Some("2".into()), Some("x\\y".into()), Some(String::new())],
            ]
        );
    }

    #[test]
    fn csv_null_versus_quoted_empty() {
        let records = csv_records("k,v\n1,\n2,\"\"\n3,\"a,b\"\n", b',', b'"', "", true).unwrap();
        assert_eq!(
            records,
            vec![
                vec![Some("1".into()), None],
                vec![Some("2".into()), Some(String::new())],
                vec![Some("3".into()), Some("a,b".into())],
            ]
        );
    }
}
