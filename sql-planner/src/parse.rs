//! Parsing: sqlparser with PostgreSQL's dialect, plus kpg's own statements.
//!
//! The statement loop mirrors sqlparser's `parse_statements` (statements separated by `;`,
//! empty statements skipped) but looks at the next tokens first: a statement starting with
//! `SUBSCRIBE` or `COPY (SUBSCRIBE` is parsed by `subscribe.rs`, anything else by sqlparser.
//! Statements for sources, sinks and connections, which kpg does not have yet, are refused
//! with 0A000 before sqlparser would call them syntax errors.

use crate::error::PlanError;
use crate::statement::ParsedStatement;
use crate::subscribe::{at_subscribe, parse_subscribe};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

pub fn parse(sql: &str) -> Result<Vec<ParsedStatement>, PlanError> {
    parse_inner(sql).map_err(|e| match e {
        Refusal::Parser(e) => PlanError::from_parser(e, sql),
        Refusal::Unsupported(what) => PlanError::unsupported(what),
    })
}

pub(crate) enum Refusal {
    Parser(ParserError),
    Unsupported(String),
}

impl From<ParserError> for Refusal {
    fn from(e: ParserError) -> Self {
        Refusal::Parser(e)
    }
}

/// `CREATE | DROP SINK | CONNECTION`: statements of a streaming database that kpg
/// does not have yet, refused as not supported (0A000) rather than as syntax errors.
fn not_built(parser: &Parser<'_>) -> Option<String> {
    let word = |i: usize| match &parser.peek_nth_token_ref(i).token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_uppercase()),
        _ => None,
    };
    let verb = word(0).filter(|v| v == "CREATE" || v == "DROP")?;
    let object = word(1).filter(|o| ["SINK", "CONNECTION"].contains(&o.as_str()))?;
    Some(format!(
        "{verb} {object} (sinks and connections are not built yet)"
    ))
}

fn parse_inner(sql: &str) -> Result<Vec<ParsedStatement>, Refusal> {
    let dialect = PostgreSqlDialect {};
    let mut parser = Parser::new(&dialect).try_with_sql(sql)?;
    let mut stmts = Vec::new();
    let mut expecting_delimiter = false;
    loop {
        while parser.consume_token(&Token::SemiColon) {
            expecting_delimiter = false;
        }
        if parser.peek_token_ref().token == Token::EOF {
            break;
        }
        if expecting_delimiter {
            return Ok(parser.expected("end of statement", parser.peek_token())?);
        }
        if let Some(what) = not_built(&parser) {
            return Err(Refusal::Unsupported(what));
        }
        let stmt = if crate::source::at_source_statement(&parser) {
            crate::source::parse_source_statement(&mut parser)?
        } else if at_subscribe(&parser) {
            parse_subscribe(&mut parser)?
        } else if crate::show_create::at_show_create(&parser) {
            crate::show_create::parse_show_create(&mut parser)?
        } else if crate::cursor::at_cursor_statement(&parser) {
            crate::cursor::parse_cursor_statement(&mut parser, |p| {
                if at_subscribe(p) {
                    parse_subscribe(p)
                } else {
                    Ok(ParsedStatement::Sql(sqlparser::ast::Statement::Query(
                        p.parse_query()?,
                    )))
                }
            })?
        } else if crate::explain::at_explain(&parser) {
            crate::explain::parse_explain(&mut parser)?
        } else if crate::index::at_default_index(&parser) {
            crate::index::parse_default_index(&mut parser)?
        } else {
            ParsedStatement::Sql(parser.parse_statement()?)
        };
        stmts.push(stmt);
        expecting_delimiter = true;
    }
    Ok(stmts)
}
