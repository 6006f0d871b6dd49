//! `CREATE SINK ... INTO KAFKA` and `DROP SINK`, which sqlparser does not know.
//!
//! ```text
//! CREATE SINK [IF NOT EXISTS] name FROM object
//!     INTO KAFKA CONNECTION c (TOPIC 't') | INTO KAFKA BROKER 'host:port' TOPIC 't'
//!     [KEY (column, ...)] FORMAT JSON [ENVELOPE DEBEZIUM | UPSERT]
//! DROP SINK [IF EXISTS] name [, ...]
//! ```
//!
//! A sink writes every change of a table, source, view or materialized view to a topic, in
//! timestamp order. `DEBEZIUM` (the default) writes `{"before": row|null, "after": row|null}`
//! per change; `UPSERT` writes each key's new row, or a null value when the key's row goes,
//! keyed by the `KEY` columns (which UPSERT needs). Rows are JSON objects of the columns.

use kpg_types::{GlobalId, Plan, RelationDesc};
use sqlparser::ast::ObjectName;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

use crate::catalog::read_plan;
use crate::error::PlanError;
use crate::names::{fold, object_name};
use crate::parse::Refusal;
use crate::statement::{ParsedStatement, PlannedStatement};
use crate::words::{at_create_or_drop, expect_word, parse_drop, parse_word, word_is};
use crate::Catalog;

/// How a sink writes changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SinkEnvelope {
    Debezium,
    Upsert,
}

/// `CREATE SINK`, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateSink {
    pub name: ObjectName,
    pub if_not_exists: bool,
    pub from: ObjectName,
    pub connection: Option<ObjectName>,
    pub broker: Option<String>,
    pub topic: String,
    pub key: Vec<String>,
    pub envelope: SinkEnvelope,
}

/// A planned sink: what it reads and where it writes.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedSink {
    pub name: String,
    pub if_not_exists: bool,
    pub plan: Plan,
    pub desc: RelationDesc,
    pub broker: String,
    pub topic: String,
    pub progress_topic: String,
    /// The key columns' positions (UPSERT).
    pub key: Vec<usize>,
    pub envelope: SinkEnvelope,
    /// The object read and the connection used.
    pub depends_on: Vec<GlobalId>,
    pub sql: String,
}

/// Whether the parser stands at `CREATE SINK` or `DROP SINK`.
pub(crate) fn at_sink_statement(parser: &Parser<'_>) -> bool {
    at_create_or_drop(parser, "sink")
}

pub(crate) fn parse(parser: &mut Parser<'_>) -> Result<ParsedStatement, Refusal> {
    if word_is(&parser.peek_token_ref().token, "drop") {
        let d = parse_drop(parser)?;
        return Ok(ParsedStatement::DropSink {
            names: d.names,
            if_exists: d.if_exists,
        });
    }
    parser.expect_keyword(Keyword::CREATE)?;
    parser.next_token(); // SINK
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    parser.expect_keyword(Keyword::FROM)?;
    let from = parser.parse_object_name(false)?;
    parser.expect_keyword(Keyword::INTO)?;
    let next = parser.next_token();
    if !word_is(&next.token, "kafka") {
        return Err(Refusal::Unsupported(format!(
            "CREATE SINK ... INTO {} (kpg has Kafka sinks)",
            next.token
        )));
    }
    let (connection, broker, topic) = if parse_word(parser, "connection") {
        let connection = parser.parse_object_name(false)?;
        parser.expect_token(&Token::LParen)?;
        expect_word(parser, "topic")?;
        let _ = parser.consume_token(&Token::Eq);
        let topic = parser.parse_literal_string()?;
        if parser.consume_token(&Token::Comma) {
            return Err(Refusal::Unsupported(
                "options of a Kafka sink other than TOPIC".into(),
            ));
        }
        parser.expect_token(&Token::RParen)?;
        (Some(connection), None, topic)
    } else {
        expect_word(parser, "broker")?;
        let broker = parser.parse_literal_string()?;
        expect_word(parser, "topic")?;
        (None, Some(broker), parser.parse_literal_string()?)
    };
    let mut key = Vec::new();
    if parse_word(parser, "key") {
        parser.expect_token(&Token::LParen)?;
        key = parser
            .parse_comma_separated(|p| p.parse_identifier())?
            .iter()
            .map(fold)
            .collect();
        parser.expect_token(&Token::RParen)?;
    }
    expect_word(parser, "format")?;
    let format = parser.next_token();
    if !word_is(&format.token, "json") {
        return Err(Refusal::Unsupported(format!(
            "FORMAT {} for a sink (kpg writes JSON)",
            format.token
        )));
    }
    let envelope = if parse_word(parser, "envelope") {
        let next = parser.next_token();
        match &next.token {
            t if word_is(t, "debezium") => SinkEnvelope::Debezium,
            t if word_is(t, "upsert") => SinkEnvelope::Upsert,
            _ => return Ok(parser.expected("DEBEZIUM or UPSERT", next)?),
        }
    } else {
        SinkEnvelope::Debezium
    };
    Ok(ParsedStatement::CreateSink(Box::new(CreateSink {
        name,
        if_not_exists,
        from,
        connection,
        broker,
        topic,
        key,
        envelope,
    })))
}

pub(crate) fn plan_create(
    cs: &CreateSink,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let name = object_name(&cs.name)?;
    let from = object_name(&cs.from)?;
    let item = catalog
        .resolve(&from)
        .ok_or_else(|| PlanError::undefined_table(&from))?;
    let mut depends_on = vec![item.id];
    let (broker, progress_topic, via) = match (&cs.connection, &cs.broker) {
        (Some(c), _) => {
            let cname = object_name(c)?;
            let conn = catalog.resolve_connection(&cname).ok_or_else(|| {
                PlanError::new("42704", format!("connection \"{cname}\" does not exist"))
            })?;
            depends_on.push(conn.id);
            let progress = conn
                .progress_topic
                .clone()
                .unwrap_or_else(|| "_kpg-progress".to_string());
            (
                conn.broker,
                progress,
                format!("CONNECTION {} (TOPIC {})", c, literal(&cs.topic)),
            )
        }
        (None, Some(b)) => (
            b.clone(),
            "_kpg-progress".to_string(),
            format!("BROKER {} TOPIC {}", literal(b), literal(&cs.topic)),
        ),
        (None, None) => return Err(PlanError::syntax("a sink needs a broker or a connection")),
    };
    if cs.topic.is_empty() {
        return Err(PlanError::new("22023", "TOPIC must not be empty"));
    }
    let mut key = Vec::new();
    for k in &cs.key {
        let i = item
            .desc
            .columns
            .iter()
            .position(|(n, _)| n == k)
            .ok_or_else(|| {
                PlanError::new(
                    "42703",
                    format!("column \"{k}\" does not exist in \"{from}\""),
                )
            })?;
        key.push(i);
    }
    if cs.envelope == SinkEnvelope::Upsert && key.is_empty() {
        return Err(PlanError::new(
            "42601",
            "ENVELOPE UPSERT needs KEY (column, ...): the columns that identify a row",
        ));
    }
    let key_sql = if cs.key.is_empty() {
        String::new()
    } else {
        let cols: Vec<String> = cs.key.iter().map(|k| kpg_types::quote_ident(k)).collect();
        format!(" KEY ({})", cols.join(", "))
    };
    let envelope = match cs.envelope {
        SinkEnvelope::Debezium => "DEBEZIUM",
        SinkEnvelope::Upsert => "UPSERT",
    };
    Ok(PlannedStatement::CreateSink(Box::new(PlannedSink {
        sql: format!(
            "CREATE SINK {} FROM {} INTO KAFKA {via}{key_sql} FORMAT JSON ENVELOPE {envelope}",
            kpg_types::quote_ident(&name),
            kpg_types::quote_ident(&from),
        ),
        name,
        if_not_exists: cs.if_not_exists,
        plan: read_plan(catalog, &item)?,
        desc: item.desc,
        broker,
        topic: cs.topic.clone(),
        progress_topic,
        key,
        envelope: cs.envelope,
        depends_on,
    })))
}

fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

pub(crate) fn plan_drop(
    names: &[ObjectName],
    if_exists: bool,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let mut ids = Vec::new();
    for n in names {
        let name = object_name(n)?;
        match catalog.resolve_sink(&name) {
            Some(id) => {
                if !ids.contains(&id) {
                    ids.push(id)
                }
            }
            None if if_exists => {}
            None => {
                return Err(PlanError::new(
                    "42704",
                    format!("sink \"{name}\" does not exist"),
                ))
            }
        }
    }
    Ok(PlannedStatement::Drop {
        ids,
        cascade: false,
        tag: "DROP SINK",
        sql: None,
    })
}
