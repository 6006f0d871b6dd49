//! Parsing: sqlparser with PostgreSQL's dialect, plus kpg's own statements.
//!
//! The statement loop mirrors sqlparser's `parse_statements` (statements separated by `;`,
//! empty statements skipped) but looks at the next tokens first: a statement starting with
//! `SUBSCRIBE` or `COPY (SUBSCRIBE` is parsed by `subscribe.rs`, anything else by sqlparser.
//! Statements for sources, sinks and connections, which kpg does not have yet, are refused
//! with 0A000 before sqlparser would call them syntax errors.
//!
//! Two forms sqlparser misreads are rewritten in the tokens first: `INTERVAL (p) '...'`,
//! which sqlparser reads as the type `interval(p)` followed by an interval literal without
//! the precision, becomes `CAST('...' AS INTERVAL (p))`, what PostgreSQL makes of it; and an
//! element of `ROLLUP (...)`, `CUBE (...)` or `GROUPING SETS (...)` that starts with a
//! parenthesis but goes on after it (`ROLLUP ((a % 10)::int4, b)`), which sqlparser takes for
//! a parenthesized list and then fails on, is put in parentheses of its own.

use crate::error::PlanError;
use crate::statement::ParsedStatement;
use crate::subscribe::{at_subscribe, parse_subscribe};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

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

fn parse_inner(sql: &str) -> Result<Vec<ParsedStatement>, Refusal> {
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(ParserError::from)?;
    let mut parser = Parser::new(&dialect)
        .with_tokens_with_locations(grouping_elements(interval_precision(tokens)?));
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
        let stmt = if crate::sink::at_sink_statement(&parser) {
            crate::sink::parse(&mut parser)?
        } else if crate::connection::at_connection_statement(&parser) {
            crate::connection::parse(&mut parser)?
        } else if crate::source::at_source_statement(&parser) {
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
        } else if crate::ddl::at_create_table_as_names(&parser) {
            crate::ddl::parse_create_table_as_names(&mut parser)?
        } else if crate::index::at_default_index(&parser) {
            crate::index::parse_default_index(&mut parser)?
        } else {
            crate::session_statement::typed(parser.parse_statement()?)
        };
        stmts.push(stmt);
        expecting_delimiter = true;
    }
    Ok(stmts)
}

/// Rewrites `INTERVAL (p) 'text'` as `CAST('text' AS INTERVAL (p))` (the new tokens take the
/// spans of the ones they stand for). A qualifier after it is PostgreSQL's syntax error.
fn interval_precision(tokens: Vec<TokenWithSpan>) -> Result<Vec<TokenWithSpan>, ParserError> {
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let mut out = Vec::with_capacity(tokens.len() + 4);
    let mut copied = 0;
    let mut k = 0;
    while k < significant.len() {
        let at = |j: usize| significant.get(k + j).map(|&i| &tokens[i].token);
        let keyword = |j: usize| match at(j) {
            Some(Token::Word(w)) if w.quote_style.is_none() => w.keyword,
            _ => Keyword::NoKeyword,
        };
        let literal = keyword(0) == Keyword::INTERVAL
            && at(1) == Some(&Token::LParen)
            && matches!(at(2), Some(Token::Number(..)))
            && at(3) == Some(&Token::RParen)
            && matches!(
                at(4),
                Some(Token::SingleQuotedString(_) | Token::EscapedStringLiteral(_))
            );
        if !literal {
            k += 1;
            continue;
        }
        use Keyword::{DAY, HOUR, MINUTE, MONTH, SECOND, YEAR};
        if matches!(keyword(5), YEAR | MONTH | DAY | HOUR | MINUTE | SECOND) {
            let Some(Token::Word(w)) = at(5) else {
                unreachable!("a keyword is a word")
            };
            return Err(ParserError::ParserError(format!(
                "syntax error at or near \"{}\"",
                w.value
            )));
        }
        let token = |j: usize| tokens[significant[k + j]].clone();
        let made = |t: Token, j: usize| TokenWithSpan::new(t, tokens[significant[k + j]].span);
        out.extend(tokens[copied..significant[k]].iter().cloned());
        out.extend([
            made(Token::make_keyword("CAST"), 0),
            made(Token::LParen, 0),
            token(4),
            made(Token::make_keyword("AS"), 4),
            token(0),
            token(1),
            token(2),
            token(3),
            made(Token::RParen, 4),
        ]);
        copied = significant[k + 4] + 1;
        k += 5;
    }
    out.extend(tokens[copied..].iter().cloned());
    Ok(out)
}

/// Puts each element of `ROLLUP (...)`, `CUBE (...)` and `GROUPING SETS (...)` that starts
/// with `(` but does not end with its matching `)` in parentheses of its own: sqlparser reads
/// an element starting with `(` as a parenthesized list, so `ROLLUP ((a % 10)::int4, b)` was a
/// syntax error; `((a % 10)::int4)` is the one-expression list PostgreSQL reads it as.
fn grouping_elements(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let keyword = |k: usize| match sig.get(k).map(|&i| &tokens[i].token) {
        Some(Token::Word(w)) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    };
    let is = |k: usize, t: &Token| sig.get(k).is_some_and(|&i| &tokens[i].token == t);
    // (first, last) token indices of the elements to wrap.
    let mut wrap: Vec<(usize, usize)> = Vec::new();
    for k in 0..sig.len() {
        let open = match keyword(k) {
            Keyword::ROLLUP | Keyword::CUBE => k + 1,
            Keyword::GROUPING if keyword(k + 1) == Keyword::SETS => k + 2,
            _ => continue,
        };
        if !is(open, &Token::LParen) {
            continue;
        }
        let mut j = open + 1;
        'elements: loop {
            let start = j;
            // The element's last token, and where the `(` it starts with closes.
            let mut depth = 0usize;
            let mut first_closed = None;
            while j < sig.len() {
                match tokens[sig[j]].token {
                    Token::LParen => depth += 1,
                    Token::RParen if depth == 0 => break,
                    Token::RParen => {
                        depth -= 1;
                        if depth == 0 && first_closed.is_none() {
                            first_closed = Some(j);
                        }
                    }
                    Token::Comma if depth == 0 => break,
                    _ => {}
                }
                j += 1;
            }
            if j >= sig.len() || j == start {
                break 'elements;
            }
            if is(start, &Token::LParen) && first_closed.is_some_and(|c| c + 1 < j) {
                wrap.push((sig[start], sig[j - 1]));
            }
            if is(j, &Token::Comma) {
                j += 1;
            } else {
                break 'elements;
            }
        }
    }
    if wrap.is_empty() {
        return tokens;
    }
    let mut out = Vec::with_capacity(tokens.len() + 2 * wrap.len());
    for (i, t) in tokens.into_iter().enumerate() {
        let span = t.span;
        for _ in wrap.iter().filter(|w| w.0 == i) {
            out.push(TokenWithSpan::new(Token::LParen, span));
        }
        out.push(t);
        for _ in wrap.iter().filter(|w| w.1 == i) {
            out.push(TokenWithSpan::new(Token::RParen, span));
        }
    }
    out
}
