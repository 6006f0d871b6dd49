//! Parsing: sqlparser with PostgreSQL's dialect, plus kpg's own statements.
//!
//! The statement loop mirrors sqlparser's `parse_statements` (statements separated by `;`,
//! empty statements skipped) but looks at the next tokens first: a statement starting with
//! `SUBSCRIBE` or `COPY (SUBSCRIBE` is parsed by `subscribe.rs`, anything else by sqlparser.

use crate::error::PlanError;
use crate::statement::ParsedStatement;
use crate::subscribe::{at_subscribe, parse_subscribe};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

pub fn parse(sql: &str) -> Result<Vec<ParsedStatement>, PlanError> {
    parse_inner(sql).map_err(|e| PlanError::from_parser(e, sql))
}

fn parse_inner(sql: &str) -> Result<Vec<ParsedStatement>, ParserError> {
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
            return parser.expected("end of statement", parser.peek_token());
        }
        let stmt = if at_subscribe(&parser) {
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
