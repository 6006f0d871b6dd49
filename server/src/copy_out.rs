//! `COPY (query) TO STDOUT` and `COPY t [(columns)] TO STDOUT`, in text or CSV format with the
//! options `COPY FROM` takes (read by `kpg_sql::CopyTo`): the query runs as a SELECT, and its rows are
//! written as COPY data by PostgreSQL's rules — text: delimiter-separated, `\N` for NULL,
//! backslash escapes; CSV: quoted where needed (an empty string is quoted so that it differs
//! from NULL), with an optional header line.

use kpg_sql::CopyFormat;
use kpg_types::{OutputStyle, RelationDesc, Row};

use crate::pgwire_server::copy_text;

/// How a COPY TO STDOUT writes its query's rows.
pub struct CopyOut<'a> {
    format: &'a CopyFormat,
}

impl<'a> CopyOut<'a> {
    pub fn new(format: &'a CopyFormat) -> Self {
        CopyOut { format }
    }

    /// The COPY data lines for `rows` (with the header line first if asked for), values as
    /// the session's output settings say.
    pub fn lines(&self, desc: &RelationDesc, rows: &[Row], style: &OutputStyle) -> Vec<String> {
        let mut out = Vec::with_capacity(rows.len() + 1);
        match self.format {
            CopyFormat::Text { delimiter, null } => {
                for row in rows {
                    let mut line = String::new();
                    for (i, datum) in row.datums().iter().enumerate() {
                        if i > 0 {
                            line.push(*delimiter);
                        }
                        if datum.is_null() {
                            line.push_str(null);
                            continue;
                        }
                        let mut field = String::new();
                        copy_text(datum, style, &mut field);
                        if *delimiter != '\t' {
                            field = field.replace(*delimiter, &format!("\\{delimiter}"));
                        }
                        line.push_str(&field);
                    }
                    line.push('\n');
                    out.push(line);
                }
            }
            CopyFormat::Csv {
                delimiter,
                quote,
                null,
                header,
            } => {
                let (delimiter, quote) = (*delimiter as char, *quote as char);
                let field = |value: &str, line: &mut String| {
                    let needs_quotes =
                        value == null || value.contains([delimiter, quote, '\n', '\r']);
                    if needs_quotes {
                        line.push(quote);
                        for c in value.chars() {
                            if c == quote {
                                line.push(quote);
                            }
                            line.push(c);
                        }
                        line.push(quote);
                    } else {
                        line.push_str(value);
                    }
                };
                let mut push_line = |values: Vec<Option<String>>| {
                    let mut line = String::new();
                    for (i, v) in values.iter().enumerate() {
                        if i > 0 {
                            line.push(delimiter);
                        }
                        match v {
                            None => line.push_str(null),
                            Some(v) => field(v, &mut line),
                        }
                    }
                    line.push('\n');
                    out.push(line);
                };
                if *header {
                    push_line(desc.names().map(|n| Some(n.to_string())).collect());
                }
                for row in rows {
                    push_line(
                        row.datums()
                            .iter()
                            .map(|d| d.to_text_styled(style))
                            .collect(),
                    );
                }
            }
        }
        out
    }
}
