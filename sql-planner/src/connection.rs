//! `CREATE CONNECTION ... TO KAFKA` and `DROP CONNECTION`, which sqlparser does not know.
//!
//! ```text
//! CREATE CONNECTION [IF NOT EXISTS] name TO KAFKA (BROKER 'host:port' [, PROGRESS TOPIC 't'])
//! DROP CONNECTION [IF EXISTS] name [, ...] [CASCADE | RESTRICT]
//! ```
//!
//! A connection is a named broker address that sources (and sinks) refer to instead of
//! spelling it out (`FROM KAFKA CONNECTION k (TOPIC 't')`). It is not a relation: it has no
//! columns and cannot be read. Sources that use it depend on it, so it cannot be dropped from
//! under them without CASCADE. kpg checks no broker at `CREATE CONNECTION` (the sources using it
//! do, when they are created).

use kpg_types::GlobalId;
use sqlparser::ast::ObjectName;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use crate::error::PlanError;
use crate::names::object_name;
use crate::parse::Refusal;
use crate::statement::{ParsedStatement, PlannedStatement};
use crate::words::{at_create_or_drop, parse_drop, word_is};
use crate::Catalog;

/// A connection as the catalog keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionItem {
    pub id: GlobalId,
    pub name: String,
    pub broker: String,
    /// Where sinks using it keep their progress (default: `_kpg-progress-<id>`).
    pub progress_topic: Option<String>,
}

/// Whether the parser stands at `CREATE CONNECTION` or `DROP CONNECTION`.
pub(crate) fn at_connection_statement(parser: &Parser<'_>) -> bool {
    at_create_or_drop(parser, "connection")
}

pub(crate) fn parse(parser: &mut Parser<'_>) -> Result<ParsedStatement, Refusal> {
    if word_is(&parser.peek_token_ref().token, "drop") {
        let d = parse_drop(parser)?;
        return Ok(ParsedStatement::DropConnection {
            names: d.names,
            if_exists: d.if_exists,
            cascade: d.cascade,
        });
    }
    parser.expect_keyword(Keyword::CREATE)?;
    parser.next_token(); // CONNECTION
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    parser.expect_keyword(Keyword::TO)?;
    let next = parser.next_token();
    if !word_is(&next.token, "kafka") {
        return Err(Refusal::Unsupported(format!(
            "CREATE CONNECTION ... TO {} (kpg has Kafka connections)",
            next.token
        )));
    }
    parser.expect_token(&Token::LParen)?;
    let (mut broker, mut progress_topic) = (None, None);
    loop {
        let mut words = Vec::new();
        while let Token::Word(w) = &parser.peek_token_ref().token {
            if w.quote_style.is_some() {
                break;
            }
            words.push(w.value.to_uppercase());
            parser.next_token();
        }
        let _ = parser.consume_token(&Token::Eq);
        match words.join(" ").as_str() {
            "BROKER" | "BROKERS" => broker = Some(parser.parse_literal_string()?),
            "PROGRESS TOPIC" => progress_topic = Some(parser.parse_literal_string()?),
            "" => return Ok(parser.expected("an option name", parser.peek_token())?),
            other => {
                return Err(Refusal::Unsupported(format!(
                    "the Kafka connection option {other} (kpg takes BROKER and PROGRESS TOPIC)"
                )))
            }
        }
        if !parser.consume_token(&Token::Comma) {
            break;
        }
    }
    parser.expect_token(&Token::RParen)?;
    let broker = broker.ok_or_else(|| {
        ParserError::ParserError("a Kafka connection needs BROKER 'host:port'".into())
    })?;
    Ok(ParsedStatement::CreateConnection(Box::new(
        CreateConnection {
            name,
            if_not_exists,
            broker,
            progress_topic,
        },
    )))
}

/// `CREATE CONNECTION`, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateConnection {
    pub name: ObjectName,
    pub if_not_exists: bool,
    pub broker: String,
    pub progress_topic: Option<String>,
}

pub(crate) fn plan_create(
    cc: &CreateConnection,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let name = object_name(&cc.name)?;
    if cc.broker.trim().is_empty() {
        return Err(PlanError::new("22023", "BROKER must not be empty"));
    }
    let _ = catalog;
    let literal = |s: &str| format!("'{}'", s.replace('\'', "''"));
    let mut options = vec![format!("BROKER {}", literal(&cc.broker))];
    if let Some(t) = &cc.progress_topic {
        options.push(format!("PROGRESS TOPIC {}", literal(t)));
    }
    Ok(PlannedStatement::CreateConnection {
        sql: format!(
            "CREATE CONNECTION {} TO KAFKA ({})",
            kpg_types::quote_ident(&name),
            options.join(", ")
        ),
        name,
        if_not_exists: cc.if_not_exists,
        broker: cc.broker.clone(),
        progress_topic: cc.progress_topic.clone(),
    })
}

pub(crate) fn plan_drop(
    names: &[ObjectName],
    if_exists: bool,
    cascade: bool,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let mut ids = Vec::new();
    for n in names {
        let name = object_name(n)?;
        match catalog.resolve_connection(&name) {
            Some(c) => {
                if !ids.contains(&c.id) {
                    ids.push(c.id)
                }
            }
            None if if_exists => {}
            None => {
                return Err(PlanError::new(
                    "42704",
                    format!("connection \"{name}\" does not exist"),
                ))
            }
        }
    }
    Ok(PlannedStatement::Drop {
        ids,
        cascade,
        tag: "DROP CONNECTION",
        sql: None,
    })
}
