//! `CREATE SOURCE ... FROM KAFKA | FILE`, which sqlparser does not know: parsed here, then
//! planned into where to read, the decoding of keys and values, and the source's columns.
//!
//! ```text
//! CREATE SOURCE [IF NOT EXISTS] name [(column type [NOT NULL], ...)]
//!     FROM KAFKA BROKER 'host:port' TOPIC 'topic'
//!     [FORMAT f | KEY FORMAT f VALUE FORMAT f]
//!     [INCLUDE KEY [AS name] | PARTITION [AS name] | OFFSET [AS name] | TIMESTAMP [AS name], ...]
//!     [ENVELOPE NONE | UPSERT]
//! CREATE SOURCE [IF NOT EXISTS] name [(column type [NOT NULL], ...)]
//!     FROM FILE 'path' FORMAT f [WITH (TAIL = true | false)]
//! f: CSV [WITH HEADER] [DELIMITED BY 'c'] | JSON | TEXT | BYTES
//! ```
//!
//! The columns are the value's (declared for CSV and JSON; `text` for TEXT, `data` for BYTES),
//! then the key (`key`, with `INCLUDE KEY` or `ENVELOPE UPSERT`, whose key format must be TEXT
//! or BYTES), then the included metadata. A file is read line by line, one record a line (CSV
//! `WITH HEADER` skips the first). Whether the server may read the path is the server's to
//! decide. What Materialize has and kpg not yet — `CREATE CONNECTION`, `INCLUDE HEADERS`,
//! `START OFFSET`, JSON without columns (a `jsonb` column), keys of several columns — is refused
//! as not supported (0A000).

use kpg_types::external::{
    Decoding, Envelope, ExternalSourceDesc, Format, Include, KafkaStart, Transport,
};
use kpg_types::{ColumnType, RelationDesc, ScalarType};
use sqlparser::ast::{ColumnDef, ColumnOption, ObjectName};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use crate::error::PlanError;
use crate::names::{fold, object_name};
use crate::parse::Refusal;
use crate::statement::PlannedStatement;
use crate::words::{expect_word, parse_word, word_is};
use crate::Catalog;

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
    pub key_format: Option<Format>,
    pub value_format: Format,
    /// What `INCLUDE` lists, in order, with its `AS` name.
    pub include: Vec<(IncludeItem, Option<String>)>,
    pub envelope: Envelope,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IncludeItem {
    Key,
    Meta(Include),
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
                return Err(Refusal::Parser(ParserError::ParserError(format!(
                    "unknown option {option} of a file source (it takes TAIL)"
                ))));
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
    let mut header = false;
    if parse_word(parser, "key") {
        expect_word(parser, "format")?;
        key_format = Some(parse_format(parser)?.0);
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
    if header {
        return Err(Refusal::Unsupported(
            "FORMAT CSV WITH HEADER for Kafka (each record is one row; declare the columns \
             instead)"
                .into(),
        ));
    }
    let value_format = value_format.ok_or_else(|| {
        ParserError::ParserError("CREATE SOURCE FROM KAFKA needs FORMAT or VALUE FORMAT".into())
    })?;
    let mut include = Vec::new();
    if parse_word(parser, "include") {
        loop {
            let next = parser.next_token();
            let item = match &next.token {
                t if word_is(t, "key") => IncludeItem::Key,
                t if word_is(t, "partition") => IncludeItem::Meta(Include::Partition),
                t if word_is(t, "offset") => IncludeItem::Meta(Include::Offset),
                t if word_is(t, "timestamp") => IncludeItem::Meta(Include::Timestamp),
                t if word_is(t, "headers") || word_is(t, "header") => {
                    return Err(Refusal::Unsupported("INCLUDE HEADERS".into()))
                }
                _ => return Ok(parser.expected("KEY, PARTITION, OFFSET or TIMESTAMP", next)?),
            };
            let alias = if parser.parse_keyword(Keyword::AS) {
                Some(fold(&parser.parse_identifier()?))
            } else {
                None
            };
            include.push((item, alias));
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
    }
    let envelope = if parse_word(parser, "envelope") {
        let next = parser.next_token();
        match &next.token {
            t if word_is(t, "none") => Envelope::None,
            t if word_is(t, "upsert") => Envelope::Upsert,
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
        },
        connection,
        key_format,
        value_format,
        include,
        envelope,
    })
}

/// `START OFFSET (o, ...)` or `START TIMESTAMP ms`.
fn parse_start(parser: &mut Parser<'_>) -> Result<KafkaStart, Refusal> {
    expect_word(parser, "start")?;
    let number = |parser: &mut Parser<'_>| -> Result<i64, Refusal> {
        let next = parser.next_token();
        match &next.token {
            Token::Number(n, _) => n.parse::<i64>().map_err(|_| {
                Refusal::Parser(ParserError::ParserError(format!("invalid number {n}")))
            }),
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
            return Err(Refusal::Unsupported(
                "a START TIMESTAMP relative to now (a negative one); give milliseconds since \
                 the epoch"
                    .into(),
            ));
        }
        Ok(KafkaStart::Timestamp(number(parser)?))
    } else {
        Ok(parser.expected("OFFSET or TIMESTAMP", parser.peek_token())?)
    }
}

/// `START OFFSET (o, ...)` / `START TIMESTAMP ms` as SQL, or nothing for the beginning.
fn start_sql(start: &KafkaStart) -> Option<String> {
    match start {
        KafkaStart::Beginning => None,
        KafkaStart::Offsets(o) => {
            let o: Vec<String> = o.iter().map(i64::to_string).collect();
            Some(format!("START OFFSET ({})", o.join(", ")))
        }
        KafkaStart::Timestamp(t) => Some(format!("START TIMESTAMP {t}")),
    }
}

/// A format, and whether it said `WITH HEADER` (CSV only).
fn parse_format(parser: &mut Parser<'_>) -> Result<(Format, bool), Refusal> {
    let next = parser.next_token();
    let mut header = false;
    let format = match &next.token {
        t if word_is(t, "csv") => {
            if word_is(&parser.peek_token_ref().token, "with")
                && word_is(&parser.peek_nth_token_ref(1).token, "header")
            {
                parser.next_token();
                parser.next_token();
                header = true;
            }
            let mut delimiter = b',';
            if parse_word(parser, "delimited") {
                expect_word(parser, "by")?;
                let d = parser.parse_literal_string()?;
                match d.as_bytes() {
                    [b] if b.is_ascii() && *b != b'"' && *b != b'\n' && *b != b'\r' => {
                        delimiter = *b
                    }
                    _ => {
                        return Err(Refusal::Parser(ParserError::ParserError(format!(
                            "DELIMITED BY must be one ASCII character other than a quote or a \
                             line break, not '{d}'"
                        ))))
                    }
                }
            }
            Format::Csv { delimiter }
        }
        t if word_is(t, "json") => Format::Json,
        t if word_is(t, "text") => Format::Text,
        t if word_is(t, "bytes") => Format::Bytes,
        t if word_is(t, "avro") || word_is(t, "protobuf") || word_is(t, "regex") => {
            return Err(Refusal::Unsupported(format!("FORMAT {}", next.token)))
        }
        _ => return Ok(parser.expected("CSV, JSON, TEXT or BYTES", next)?),
    };
    Ok((format, header))
}

/// The one column of a TEXT or BYTES part.
fn single_column(format: &Format, name: &str) -> Option<(String, ScalarType)> {
    match format {
        Format::Text => Some((name.to_string(), ScalarType::Text)),
        Format::Bytes => Some((name.to_string(), ScalarType::Bytea)),
        Format::Csv { .. } | Format::Json => None,
    }
}

pub(crate) fn plan(
    cs: &CreateExternalSource,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let name = object_name(&cs.name)?;
    let mut transport = cs.transport.clone();
    let mut depends_on = Vec::new();
    if let Some(connection) = &cs.connection {
        let cname = object_name(connection)?;
        let c = catalog.resolve_connection(&cname).ok_or_else(|| {
            PlanError::new("42704", format!("connection \"{cname}\" does not exist"))
        })?;
        if let Transport::Kafka { broker, .. } = &mut transport {
            *broker = c.broker.clone();
        }
        depends_on.push(c.id);
    }
    // The value's columns.
    let mut columns: Vec<(String, ColumnType)> = Vec::new();
    match &cs.value_format {
        // JSON without a column list: the whole document as one `data jsonb` column.
        Format::Json if cs.columns.is_empty() => {
            columns.push((
                "data".to_string(),
                ColumnType::new(ScalarType::Jsonb, false),
            ));
        }
        Format::Csv { .. } | Format::Json => {
            if cs.columns.is_empty() {
                return Err(PlanError::new(
                    "42601",
                    "FORMAT CSV needs the source's columns: CREATE SOURCE s (a int, b text) \
                     FROM KAFKA ...",
                ));
            }
            for c in &cs.columns {
                let mut nullable = true;
                for option in &c.options {
                    match option.option {
                        ColumnOption::NotNull => nullable = false,
                        ColumnOption::Null => nullable = true,
                        _ => {
                            return Err(PlanError::unsupported(format!(
                                "column option {} on a source column",
                                option.option
                            )))
                        }
                    }
                }
                let ty = crate::types::scalar_type(&c.data_type)?;
                columns.push((fold(&c.name), ColumnType::new(ty, nullable)));
            }
        }
        format => {
            if !cs.columns.is_empty() {
                return Err(PlanError::new(
                    "42601",
                    format!(
                        "FORMAT {} has one column of its own; a column list is only for CSV and \
                         JSON",
                        format.name()
                    ),
                ));
            }
            let column = if *format == Format::Text {
                "text"
            } else {
                "data"
            };
            let (n, ty) = single_column(format, column).expect("text or bytes");
            columns.push((n, ColumnType::new(ty, false)));
        }
    }
    // (A JSON document's decoding has no columns: it is the whole value.)
    let value = Decoding {
        format: cs.value_format.clone(),
        columns: match (&cs.value_format, cs.columns.is_empty()) {
            (Format::Json, true) => Vec::new(),
            _ => columns.iter().map(|(n, t)| (n.clone(), t.scalar)).collect(),
        },
    };
    // The key, as a column of its own.
    let key_alias = cs.include.iter().find_map(|(item, alias)| match item {
        IncludeItem::Key => Some(alias.clone().unwrap_or_else(|| "key".to_string())),
        IncludeItem::Meta(_) => None,
    });
    let needs_key = key_alias.is_some() || cs.envelope == Envelope::Upsert;
    let key = if needs_key {
        let format = cs
            .key_format
            .clone()
            .or_else(|| match cs.value_format {
                Format::Text | Format::Bytes => Some(cs.value_format.clone()),
                _ => None,
            })
            .ok_or_else(|| {
                PlanError::new(
                    "42601",
                    "the key needs a format: say KEY FORMAT TEXT | BYTES VALUE FORMAT ...",
                )
            })?;
        let column = key_alias.unwrap_or_else(|| "key".to_string());
        let Some((n, ty)) = single_column(&format, &column) else {
            return Err(PlanError::unsupported(format!(
                "KEY FORMAT {} (keys of several columns); use KEY FORMAT TEXT or BYTES",
                format.name()
            )));
        };
        // An upsert key is never NULL: a record without a key cannot be upserted.
        columns.push((
            n.clone(),
            ColumnType::new(ty, cs.envelope != Envelope::Upsert),
        ));
        Some(Decoding {
            format,
            columns: vec![(n, ty)],
        })
    } else {
        if cs.key_format.is_some() {
            return Err(PlanError::new(
                "42601",
                "KEY FORMAT without INCLUDE KEY or ENVELOPE UPSERT: the key would not be read",
            ));
        }
        None
    };
    let mut include = Vec::new();
    for (item, alias) in &cs.include {
        let IncludeItem::Meta(meta) = item else {
            continue;
        };
        if include.contains(meta) {
            return Err(PlanError::new("42601", "an INCLUDE item is named twice"));
        }
        include.push(*meta);
        let (default, ty, nullable) = match meta {
            Include::Partition => ("partition", ScalarType::Int32, false),
            Include::Offset => ("offset", ScalarType::Int64, false),
            Include::Timestamp => ("timestamp", ScalarType::Timestamp, true),
        };
        let n = alias.clone().unwrap_or_else(|| default.to_string());
        columns.push((n, ColumnType::new(ty, nullable)));
    }
    for (i, (n, _)) in columns.iter().enumerate() {
        if columns[..i].iter().any(|(m, _)| m == n) {
            return Err(PlanError::new(
                "42701",
                format!("column \"{n}\" specified more than once"),
            ));
        }
    }
    match &transport {
        Transport::Kafka { broker, topic, .. }
            if broker.trim().is_empty() || topic.trim().is_empty() =>
        {
            return Err(PlanError::new(
                "22023",
                "BROKER and TOPIC must not be empty",
            ));
        }
        Transport::File { path, .. } if path.is_empty() => {
            return Err(PlanError::new("22023", "the file's path must not be empty"));
        }
        _ => {}
    }
    let _ = catalog;
    Ok(PlannedStatement::CreateExternalSource {
        name: name.clone(),
        if_not_exists: cs.if_not_exists,
        desc: RelationDesc::new(columns),
        sql: sql(cs, &name),
        depends_on,
        source: ExternalSourceDesc {
            transport,
            key,
            value,
            include,
            envelope: cs.envelope,
        },
    })
}

/// The statement spelled out (for `SHOW CREATE SOURCE` and the data directory).
/// A string literal in SQL.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A format as SQL spells it.
fn format(f: &Format) -> String {
    match f {
        Format::Csv { delimiter: b',' } => "CSV".to_string(),
        Format::Csv { delimiter } => {
            format!(
                "CSV DELIMITED BY {}",
                literal(&(*delimiter as char).to_string())
            )
        }
        other => other.name().to_string(),
    }
}

fn sql(cs: &CreateExternalSource, name: &str) -> String {
    let ident = kpg_types::quote_ident;
    let mut out = format!("CREATE SOURCE {}", ident(name));
    if !cs.columns.is_empty() {
        let cols: Vec<String> = cs.columns.iter().map(|c| c.to_string()).collect();
        out.push_str(&format!(" ({})", cols.join(", ")));
    }
    let (broker, topic) = match &cs.transport {
        Transport::Kafka { topic, start, .. } if cs.connection.is_some() => {
            let c = cs.connection.as_ref().expect("a connection");
            let start = start_sql(start).map_or(String::new(), |s| format!(", {s}"));
            out.push_str(&format!(
                " FROM KAFKA CONNECTION {c} (TOPIC {}{start})",
                literal(topic)
            ));
            return finish_sql(cs, out);
        }
        Transport::Kafka { broker, topic, .. } => (broker, topic),
        Transport::File { path, tail, header } => {
            let header = if *header { " WITH HEADER" } else { "" };
            let format = format(&cs.value_format);
            let format = match format.strip_prefix("CSV") {
                Some(rest) => format!("CSV{header}{rest}"),
                None => format,
            };
            return format!(
                "{out} FROM FILE {} FORMAT {format} WITH (TAIL = {tail})",
                literal(path)
            );
        }
    };
    out.push_str(&format!(
        " FROM KAFKA BROKER {} TOPIC {}",
        literal(broker),
        literal(topic)
    ));
    finish_sql(cs, out)
}

/// The formats, INCLUDE and ENVELOPE of a Kafka source's SQL, after `out`.
fn finish_sql(cs: &CreateExternalSource, mut out: String) -> String {
    let ident = kpg_types::quote_ident;
    match &cs.key_format {
        Some(k) => out.push_str(&format!(
            " KEY FORMAT {} VALUE FORMAT {}",
            format(k),
            format(&cs.value_format)
        )),
        None => out.push_str(&format!(" FORMAT {}", format(&cs.value_format))),
    }
    if !cs.include.is_empty() {
        let items: Vec<String> = cs
            .include
            .iter()
            .map(|(item, alias)| {
                let word = match item {
                    IncludeItem::Key => "KEY",
                    IncludeItem::Meta(Include::Partition) => "PARTITION",
                    IncludeItem::Meta(Include::Offset) => "OFFSET",
                    IncludeItem::Meta(Include::Timestamp) => "TIMESTAMP",
                };
                match alias {
                    Some(a) => format!("{word} AS {}", ident(a)),
                    None => word.to_string(),
                }
            })
            .collect();
        out.push_str(&format!(" INCLUDE {}", items.join(", ")));
    }
    out.push_str(match cs.envelope {
        Envelope::None => " ENVELOPE NONE",
        Envelope::Upsert => " ENVELOPE UPSERT",
    });
    if let (None, Transport::Kafka { start, .. }) = (&cs.connection, &cs.transport) {
        if let Some(start) = start_sql(start) {
            out.push_str(&format!(" WITH ({start})"));
        }
    }
    out
}
