//! SUBSCRIBE: kpg's statement for streaming a relation's changes, which sqlparser does not know.
//!
//! Parsing looks at tokens: `SUBSCRIBE [TO] name | (query) [WITH (SNAPSHOT [=] bool,
//! PROGRESS [=] bool)] [AS OF [AT LEAST] ts] [UP TO ts]`, optionally wrapped as
//! `COPY (SUBSCRIBE ...) TO STDOUT`; timestamps are integers (milliseconds since the epoch, as
//! `mz_timestamp` shows them). Planning produces the relation's plan and columns; the server
//! prepends `mz_timestamp` (and `mz_progressed` with PROGRESS) and `mz_diff` to every row.

use crate::catalog::{read_plan, Catalog};
use crate::error::PlanError;
use crate::names::object_name;
use crate::query::{plan_subquery, QueryContext};
use crate::statement::{ParsedStatement, PlannedStatement, SubscribeTarget};
use crate::words::word_is;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

fn is_subscribe(t: &Token) -> bool {
    matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("subscribe"))
}

/// Whether the parser stands at `SUBSCRIBE` or `COPY (SUBSCRIBE`.
pub fn at_subscribe(parser: &Parser<'_>) -> bool {
    if is_subscribe(&parser.peek_token_ref().token) {
        return true;
    }
    matches!(&parser.peek_nth_token_ref(0).token, Token::Word(w) if w.keyword == Keyword::COPY)
        && parser.peek_nth_token_ref(1).token == Token::LParen
        && is_subscribe(&parser.peek_nth_token_ref(2).token)
}

/// Parses `SUBSCRIBE ...` or `COPY (SUBSCRIBE ...) TO STDOUT`; the parser is `at_subscribe`.
pub fn parse_subscribe(parser: &mut Parser<'_>) -> Result<ParsedStatement, ParserError> {
    let copy_to_stdout = parser.parse_keyword(Keyword::COPY);
    if copy_to_stdout {
        parser.expect_token(&Token::LParen)?;
    }
    parser.next_token(); // SUBSCRIBE
    let _optional_to = parser.parse_keyword(Keyword::TO);
    let target = if parser.consume_token(&Token::LParen) {
        let q = parser.parse_query()?;
        parser.expect_token(&Token::RParen)?;
        SubscribeTarget::Query(q)
    } else {
        let name = parser.parse_object_name(false)?;
        // Folded as PostgreSQL folds names; a name in another schema stays as written and
        // fails to resolve when planned.
        SubscribeTarget::Name(object_name(&name).unwrap_or_else(|_| name.to_string()))
    };
    let options = parse_options(parser)?;
    if copy_to_stdout {
        parser.expect_token(&Token::RParen)?;
        parser.expect_keyword_is(Keyword::TO)?;
        parser.expect_keyword_is(Keyword::STDOUT)?;
    }
    Ok(ParsedStatement::Subscribe {
        target,
        copy_to_stdout,
        options,
    })
}

/// How a subscription starts, ends and what it emits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscribeOptions {
    /// Emit the contents at the start time first (default true).
    pub snapshot: bool,
    /// Emit a progress row each time the subscription's frontier advances (default false).
    pub progress: bool,
    /// The start time; `None` means the current read time.
    pub as_of: Option<u64>,
    /// With `AS OF AT LEAST`: start at the earliest valid time at or after `as_of`.
    pub at_least: bool,
    /// Changes at or after this time are not emitted; the subscription ends when its frontier
    /// reaches it.
    pub up_to: Option<u64>,
}

impl Default for SubscribeOptions {
    fn default() -> Self {
        SubscribeOptions {
            snapshot: true,
            progress: false,
            as_of: None,
            at_least: false,
            up_to: None,
        }
    }
}

fn parse_options(parser: &mut Parser<'_>) -> Result<SubscribeOptions, ParserError> {
    let mut options = SubscribeOptions::default();
    if parser.parse_keyword(Keyword::WITH) {
        parser.expect_token(&Token::LParen)?;
        loop {
            let name = parser.next_token();
            let _ = parser.consume_token(&Token::Eq);
            let value = match &parser.peek_token_ref().token {
                Token::Comma | Token::RParen => true,
                _ => parse_bool(parser)?,
            };
            if word_is(&name.token, "snapshot") {
                options.snapshot = value;
            } else if word_is(&name.token, "progress") {
                options.progress = value;
            } else {
                return parser.expected("SNAPSHOT or PROGRESS", name);
            }
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
        parser.expect_token(&Token::RParen)?;
    }
    if parser.parse_keywords(&[Keyword::AS, Keyword::OF]) {
        options.at_least = parser.parse_keywords(&[Keyword::AT, Keyword::LEAST]);
        options.as_of = Some(parse_timestamp(parser)?);
    }
    if word_is(&parser.peek_token_ref().token, "up") {
        parser.next_token();
        parser.expect_keyword_is(Keyword::TO)?;
        options.up_to = Some(parse_timestamp(parser)?);
    }
    Ok(options)
}

fn parse_bool(parser: &mut Parser<'_>) -> Result<bool, ParserError> {
    let t = parser.next_token();
    for (w, v) in [
        ("true", true),
        ("on", true),
        ("false", false),
        ("off", false),
    ] {
        if word_is(&t.token, w) {
            return Ok(v);
        }
    }
    match &t.token {
        Token::Number(n, _) if n == "1" => Ok(true),
        Token::Number(n, _) if n == "0" => Ok(false),
        _ => parser.expected("a boolean", t),
    }
}

/// A timestamp: an integer number of milliseconds since the epoch.
fn parse_timestamp(parser: &mut Parser<'_>) -> Result<u64, ParserError> {
    let t = parser.next_token();
    match &t.token {
        Token::Number(n, _) => n
            .parse()
            .map_err(|_| ParserError::ParserError(format!("invalid mz_timestamp: {n}"))),
        _ => parser.expected("a timestamp (milliseconds since the epoch)", t),
    }
}

pub fn plan_subscribe(
    target: &SubscribeTarget,
    options: &SubscribeOptions,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let options = options.clone();
    if let (Some(as_of), Some(up_to)) = (options.as_of, options.up_to) {
        if up_to < as_of {
            return Err(PlanError::new(
                "22023",
                format!("UP TO ({up_to}) must not be before AS OF ({as_of})"),
            ));
        }
    }
    match target {
        SubscribeTarget::Name(name) => {
            let item = catalog
                .resolve(name)
                .ok_or_else(|| PlanError::undefined_table(name))?;
            Ok(PlannedStatement::Subscribe {
                plan: read_plan(catalog, &item)?,
                desc: item.desc,
                options,
            })
        }
        SubscribeTarget::Query(q) => {
            let (plan, scope) = plan_subquery(&QueryContext::new(catalog), q)?;
            Ok(PlannedStatement::Subscribe {
                plan,
                desc: scope.desc(),
                options,
            })
        }
    }
}
