//! `CREATE SOURCE ... FROM KAFKA | FILE`, which sqlparser does not know: parsed here, then
//! planned into where to read, the decoding of keys and values, and the source's columns
//! (`print.rs` spells the statement out again).
//!
//! ```text
//! CREATE SOURCE [IF NOT EXISTS] name [(column type [NOT NULL], ...)]
//!     FROM KAFKA BROKER 'host:port' TOPIC 'topic' | FROM KAFKA CONNECTION c (TOPIC 't' [, start])
//!     [FORMAT f | KEY FORMAT f VALUE FORMAT f]
//!     [INCLUDE KEY [AS name] | PARTITION [AS name] | OFFSET [AS name] | TIMESTAMP [AS name]
//!        | HEADERS [AS name] | HEADER 'key' AS name [BYTES], ...]
//!     [ENVELOPE NONE | UPSERT [(VALUE DECODING ERRORS = INLINE [AS name])]]
//! CREATE SOURCE [IF NOT EXISTS] name [(column type [NOT NULL], ...)]
//!     FROM FILE 'path' FORMAT f [WITH (TAIL = true | false)]
//! f: CSV [WITH HEADER] [WITH n COLUMNS] [DELIMITED BY 'c'] | JSON [WITH n COLUMNS] | TEXT | BYTES
//! start: START OFFSET (o, ...) | START TIMESTAMP ms (negative: that long before now)
//! ```
//!
//! The columns, in order: a key of several columns (`KEY FORMAT CSV | JSON WITH n COLUMNS`: the
//! first n declared columns, as Materialize puts the key first); the value's (declared for CSV
//! and JSON; `text` for TEXT, `data` for BYTES, `data jsonb` for JSON without columns); a key
//! of one column (`key`: TEXT, BYTES, or JSON without columns as `jsonb`), with `INCLUDE KEY`
//! or `ENVELOPE UPSERT`; the included metadata and headers in the order listed; and with
//! `VALUE DECODING ERRORS = INLINE` the error column (`error text`). A file is read line by
//! line, one record a line (CSV `WITH HEADER` skips the first); in a Kafka topic a partition's
//! record at offset 0 holding the column names is a header line, skipped (the value format's;
//! a key has none). Whether the server may read the
//! path is the server's to decide. A relative `START TIMESTAMP` is resolved here, against the
//! clock, into milliseconds since the epoch (as Materialize does), so the stored statement
//! names the same instant after a restart. What Materialize has and kpg not — Avro, Protobuf,
//! `ENVELOPE DEBEZIUM` — is refused as not supported (0A000).

mod plan;
mod print;

pub(crate) use plan::plan;

use kpg_types::external::{Envelope, Format, Include, KafkaStart, Transport};
use sqlparser::ast::{ColumnDef, ObjectName};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use crate::names::fold;
use crate::parse::Refusal;
use crate::words::{expect_word, parse_word, word_is};

/// `CREATE SOURCE ... FROM KAFKA | FILE`, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateExternalSource {
    pub name: ObjectName,
    pub if_not_exists: bool,
    pub columns: Vec<ColumnDef>,
    /// Where to read (a file's `header` is CSV's `WITH HEADER`; with a connection, the broker
    /// is the connection's).
    pub transport: Transport,
    /// `FROM KAFKA CONNECTION name (TOPIC 't')`
    pub connection: Option<ObjectName>,
    pub key_format: Option<FormatSpec>,
    pub value_format: FormatSpec,
    /// What `INCLUDE` lists, in order, with its `AS` name.
    pub include: Vec<(IncludeItem, Option<String>)>,
    pub envelope: Envelope,
    /// `VALUE DECODING ERRORS = INLINE [AS name]`: the error column's name.
    pub inline_errors: Option<String>,
}

/// A format and the number of columns it says it has (`WITH n COLUMNS`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatSpec {
    pub format: Format,
    pub columns: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IncludeItem {
    Key,
    Meta(Include),
}

fn syntax(message: impl Into<String>) -> Refusal {
    Refusal::Parser(ParserError::ParserError(message.into()))
}

/// Parses what follows `CREATE SOURCE [IF NOT EXISTS] name [(columns)] FROM FILE`.
pub(crate) fn parse_file(
    parser: &mut Parser<'_>,
    name: ObjectName,
    if_not_exists: bool,
    columns: Vec<ColumnDef>,
) -> Result<CreateExternalSource, Refusal> {
    let path = parser.parse_literal_string()?;
    expect_word(parser, "format")?;
    let (value_format, header) = parse_format(parser)?;
    let mut tail = false;
    if parse_word(parser, "with") {
        parser.expect_token(&Token::LParen)?;
        loop {
            let option = parser.parse_identifier()?;
            let _ = parser.consume_token(&Token::Eq);
            if !option.value.eq_ignore_ascii_case("tail") {
                return Err(syntax(format!(
                    "unknown option {option} of a file source (it takes TAIL)"
                )));
            }
            let next = parser.next_token();
            tail = match &next.token {
                t if word_is(t, "true") || word_is(t, "on") => true,
                t if word_is(t, "false") || word_is(t, "off") => false,
                _ => return Ok(parser.expected("true or false", next)?),
            };
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
        parser.expect_token(&Token::RParen)?;
    }
    Ok(CreateExternalSource {
        name,
        if_not_exists,
        columns,
        transport: Transport::File { path, tail, header },
        connection: None,
        key_format: None,
        value_format,
        include: Vec::new(),
        envelope: Envelope::None,
        inline_errors: None,
    })
}

/// Parses what follows `CREATE SOURCE [IF NOT EXISTS] name [(columns)] FROM KAFKA`.
pub(crate) fn parse(
    parser: &mut Parser<'_>,
    name: ObjectName,
    if_not_exists: bool,
    columns: Vec<ColumnDef>,
) -> Result<CreateExternalSource, Refusal> {
    let (connection, broker, topic, mut start) = if parse_word(parser, "connection") {
        let connection = parser.parse_object_name(false)?;
        parser.expect_token(&Token::LParen)?;
        expect_word(parser, "topic")?;
        let _ = parser.consume_token(&Token::Eq);
        let topic = parser.parse_literal_string()?;
        let start = if parser.consume_token(&Token::Comma) {
            parse_start(parser)?
        } else {
            KafkaStart::Beginning
        };
        parser.expect_token(&Token::RParen)?;
        (Some(connection), String::new(), topic, start)
    } else {
        expect_word(parser, "broker")?;
        let broker = parser.parse_literal_string()?;
        expect_word(parser, "topic")?;
        (
            None,
            broker,
            parser.parse_literal_string()?,
            KafkaStart::Beginning,
        )
    };
    let mut key_format = None;
    let mut value_format = None;
    // CSV's `WITH HEADER` on the value format: a partition's record at offset 0 that holds the
    // column names is its header line, skipped (`kpg_storage::records::HeaderLine`).
    let mut header = false;
    if parse_word(parser, "key") {
        expect_word(parser, "format")?;
        let (format, key_header) = parse_format(parser)?;
        if key_header {
            return Err(Refusal::Unsupported(
                "KEY FORMAT CSV WITH HEADER (a key is one record's; a header line is a value)"
                    .into(),
            ));
        }
        key_format = Some(format);
        expect_word(parser, "value")?;
        expect_word(parser, "format")?;
        let (format, h) = parse_format(parser)?;
        value_format = Some(format);
        header = h;
    } else if parse_word(parser, "format") {
        let (format, h) = parse_format(parser)?;
        value_format = Some(format);
        header = h;
    }
    let value_format = value_format.ok_or_else(|| {
        ParserError::ParserError("CREATE SOURCE FROM KAFKA needs FORMAT or VALUE FORMAT".into())
    })?;
    let mut include = Vec::new();
    if parse_word(parser, "include") {
        loop {
            include.push(parse_include(parser)?);
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
    }
    let mut inline_errors = None;
    let envelope = if parse_word(parser, "envelope") {
        let next = parser.next_token();
        match &next.token {
            t if word_is(t, "none") => Envelope::None,
            t if word_is(t, "upsert") => {
                if parser.consume_token(&Token::LParen) {
                    for word in ["value", "decoding", "errors"] {
                        expect_word(parser, word)?;
                    }
                    parser.expect_token(&Token::Eq)?;
                    expect_word(parser, "inline")?;
                    let name = if parser.parse_keyword(Keyword::AS) {
                        fold(&parser.parse_identifier()?)
                    } else {
                        "error".to_string()
                    };
                    inline_errors = Some(name);
                    parser.expect_token(&Token::RParen)?;
                }
                Envelope::Upsert
            }
            t if word_is(t, "debezium") => {
                return Err(Refusal::Unsupported("ENVELOPE DEBEZIUM".into()))
            }
            _ => return Ok(parser.expected("NONE or UPSERT", next)?),
        }
    } else {
        Envelope::None
    };
    if parse_word(parser, "with") {
        parser.expect_token(&Token::LParen)?;
        start = parse_start(parser)?;
        parser.expect_token(&Token::RParen)?;
    }
    Ok(CreateExternalSource {
        name,
        if_not_exists,
        columns,
        transport: Transport::Kafka {
            broker,
            topic,
            start,
            header,
        },
        connection,
        key_format,
        value_format,
        include,
        envelope,
        inline_errors,
    })
}

/// One item of `INCLUDE`, with its `AS` name.
fn parse_include(parser: &mut Parser<'_>) -> Result<(IncludeItem, Option<String>), Refusal> {
    let next = parser.next_token();
    let item = match &next.token {
        t if word_is(t, "key") => IncludeItem::Key,
        t if word_is(t, "partition") => IncludeItem::Meta(Include::Partition),
        t if word_is(t, "offset") => IncludeItem::Meta(Include::Offset),
        t if word_is(t, "timestamp") => IncludeItem::Meta(Include::Timestamp),
        t if word_is(t, "headers") => IncludeItem::Meta(Include::Headers),
        t if word_is(t, "header") => {
            // `HEADER 'key' AS name [BYTES]`: the name is required (as in Materialize).
            let key = parser.parse_literal_string()?;
            parser.expect_keyword(Keyword::AS)?;
            let alias = fold(&parser.parse_identifier()?);
            let bytes = parse_word(parser, "bytes");
            return Ok((
                IncludeItem::Meta(Include::Header { key, bytes }),
                Some(alias),
            ));
        }
        _ => {
            return Ok(parser.expected(
                "KEY, PARTITION, OFFSET, TIMESTAMP, HEADERS or HEADER 'key'",
                next,
            )?)
        }
    };
    let alias = if parser.parse_keyword(Keyword::AS) {
        Some(fold(&parser.parse_identifier()?))
    } else {
        None
    };
    Ok((item, alias))
}

/// `START OFFSET (o, ...)` or `START TIMESTAMP ms`; a negative timestamp is that many
/// milliseconds before now, resolved here.
fn parse_start(parser: &mut Parser<'_>) -> Result<KafkaStart, Refusal> {
    expect_word(parser, "start")?;
    let number = |parser: &mut Parser<'_>| -> Result<i64, Refusal> {
        let next = parser.next_token();
        match &next.token {
            Token::Number(n, _) => n
                .parse::<i64>()
                .map_err(|_| syntax(format!("invalid number {n}"))),
            _ => Ok(parser.expected("a non-negative whole number", next)?),
        }
    };
    if parse_word(parser, "offset") {
        let _ = parser.consume_token(&Token::Eq);
        parser.expect_token(&Token::LParen)?;
        let mut offsets = vec![number(parser)?];
        while parser.consume_token(&Token::Comma) {
            offsets.push(number(parser)?);
        }
        parser.expect_token(&Token::RParen)?;
        Ok(KafkaStart::Offsets(offsets))
    } else if parse_word(parser, "timestamp") {
        let _ = parser.consume_token(&Token::Eq);
        if parser.consume_token(&Token::Minus) {
            let ago = number(parser)?;
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64);
            return Ok(KafkaStart::Timestamp((now - ago).max(0)));
        }
        Ok(KafkaStart::Timestamp(number(parser)?))
    } else {
        Ok(parser.expected("OFFSET or TIMESTAMP", parser.peek_token())?)
    }
}

/// A format, and whether it said `WITH HEADER` (CSV only).
fn parse_format(parser: &mut Parser<'_>) -> Result<(FormatSpec, bool), Refusal> {
    let next = parser.next_token();
    let mut header = false;
    let mut columns = None;
    // `WITH HEADER` (CSV) and `WITH n COLUMNS` (CSV and JSON).
    let mut options = |parser: &mut Parser<'_>, csv: bool| -> Result<(), Refusal> {
        while word_is(&parser.peek_token_ref().token, "with") {
            let after = parser.peek_nth_token_ref(1).token.clone();
            if csv && word_is(&after, "header") {
                parser.next_token();
                parser.next_token();
                if parser.peek_token_ref().token == Token::LParen {
                    return Err(Refusal::Unsupported(
                        "CSV WITH HEADER (names) (declare the columns instead)".into(),
                    ));
                }
                header = true;
            } else if let Token::Number(n, _) = &after {
                let n = n
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| syntax(format!("WITH {n} COLUMNS: not a column count")))?;
                parser.next_token();
                parser.next_token();
                expect_word(parser, "columns")?;
                columns = Some(n);
            } else {
                break;
            }
        }
        Ok(())
    };
    let format = match &next.token {
        t if word_is(t, "csv") => {
            options(parser, true)?;
            let mut delimiter = b',';
            if parse_word(parser, "delimited") {
                expect_word(parser, "by")?;
                let d = parser.parse_literal_string()?;
                match d.as_bytes() {
                    [b] if b.is_ascii() && *b != b'"' && *b != b'\n' && *b != b'\r' => {
                        delimiter = *b
                    }
                    _ => {
                        return Err(syntax(format!(
                            "DELIMITED BY must be one ASCII character other than a quote or a \
                             line break, not '{d}'"
                        )))
                    }
                }
            }
            Format::Csv { delimiter }
        }
        t if word_is(t, "json") => {
            options(parser, false)?;
            Format::Json
        }
        t if word_is(t, "text") => Format::Text,
        t if word_is(t, "bytes") => Format::Bytes,
        t if word_is(t, "avro") || word_is(t, "protobuf") || word_is(t, "regex") => {
            return Err(Refusal::Unsupported(format!("FORMAT {}", next.token)))
        }
        _ => return Ok(parser.expected("CSV, JSON, TEXT or BYTES", next)?),
    };
    Ok((FormatSpec { format, columns }, header))
}
