//! Cursors: `DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO] SCROLL] CURSOR
//! [WITH | WITHOUT HOLD] FOR <SUBSCRIBE ... | query>`, `FETCH [direction] [FROM | IN] name
//! [WITH (TIMEOUT [=] 'interval')]`, `MOVE [direction] [FROM | IN] name` and `CLOSE name | ALL`,
//! parsed here because sqlparser knows neither `FOR SUBSCRIBE`, FETCH's timeout nor MOVE. The
//! session runs them (a cursor is session state); the planner only plans the declared statement.
//!
//! The directions are PostgreSQL's grammar (`fetch_args` in gram.y), reduced as it reduces
//! them: NEXT is FORWARD 1, PRIOR is BACKWARD 1, FIRST is ABSOLUTE 1, LAST is ABSOLUTE -1, a
//! bare count is FORWARD count, and no direction is FORWARD 1. Counts are signed 32-bit
//! integers, as PostgreSQL's `SignedIconst`. Conflicting options (`SCROLL NO SCROLL`) parse,
//! and are refused when the cursor is declared, with PostgreSQL's SQLSTATE.

use crate::words::word_is;
use std::time::Duration;

use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use crate::names::fold;
use crate::statement::ParsedStatement;

/// Where FETCH or MOVE goes. A count of `None` is ALL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchDirection {
    Forward(Option<i64>),
    Backward(Option<i64>),
    Absolute(i64),
    Relative(i64),
}

/// `FETCH | MOVE [direction] name [WITH (TIMEOUT = ...)]` (`is_move` for MOVE), as parsed
/// and as planned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetch {
    pub name: String,
    pub direction: FetchDirection,
    pub is_move: bool,
    pub timeout: Option<std::time::Duration>,
}

/// The options written before `CURSOR` and the hold written after it. Each flag records that
/// the option was written; both of a conflicting pair may be set (see the module notes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CursorOptions {
    pub binary: bool,
    pub scroll: bool,
    pub no_scroll: bool,
    pub insensitive: bool,
    pub asensitive: bool,
    pub hold: bool,
}

/// Whether the parser stands at DECLARE, FETCH, MOVE or CLOSE.
pub fn at_cursor_statement(parser: &Parser<'_>) -> bool {
    let t = &parser.peek_token_ref().token;
    word_is(t, "declare") || word_is(t, "fetch") || word_is(t, "move") || word_is(t, "close")
}

pub fn parse_cursor_statement(
    parser: &mut Parser<'_>,
    parse_inner: impl FnOnce(&mut Parser<'_>) -> Result<ParsedStatement, ParserError>,
) -> Result<ParsedStatement, ParserError> {
    let first = parser.next_token();
    if word_is(&first.token, "close") {
        if parser.parse_keyword(Keyword::ALL) {
            return Ok(ParsedStatement::Close { name: None });
        }
        let name = fold(&parser.parse_identifier()?);
        return Ok(ParsedStatement::Close { name: Some(name) });
    }
    if word_is(&first.token, "declare") {
        let name = fold(&parser.parse_identifier()?);
        let options = parse_declare_options(parser)?;
        parser.expect_keyword_is(Keyword::FOR)?;
        // A query or a subscription (PostgreSQL's grammar takes a SELECT only).
        let next = parser.peek_token();
        let query_start = matches!(&next.token, Token::LParen)
            || ["select", "with", "values", "table", "subscribe"]
                .iter()
                .any(|w| word_is(&next.token, w));
        if !query_start {
            return parser.expected("a query or SUBSCRIBE", next);
        }
        let target = parse_inner(parser)?;
        return Ok(ParsedStatement::Declare {
            name,
            options,
            target: Box::new(target),
        });
    }
    let is_move = word_is(&first.token, "move");
    let direction = parse_direction(parser)?;
    let _ = parser.parse_keyword(Keyword::FROM) || parser.parse_keyword(Keyword::IN);
    let name = fold(&parser.parse_identifier()?);
    let mut timeout = None;
    if !is_move && parser.parse_keyword(Keyword::WITH) {
        parser.expect_token(&Token::LParen)?;
        let option = parser.next_token();
        if !word_is(&option.token, "timeout") {
            return parser.expected("TIMEOUT", option);
        }
        let _ = parser.consume_token(&Token::Eq);
        let value = parser.next_token();
        timeout = Some(match &value.token {
            Token::SingleQuotedString(s) => parse_duration(s)
                .ok_or_else(|| ParserError::ParserError(format!("invalid TIMEOUT value '{s}'")))?,
            _ => return parser.expected("a duration like '1s'", value),
        });
        parser.expect_token(&Token::RParen)?;
    }
    Ok(ParsedStatement::Fetch(Fetch {
        name,
        direction,
        is_move,
        timeout,
    }))
}

/// `[BINARY | ASENSITIVE | INSENSITIVE | [NO] SCROLL]... CURSOR [WITH | WITHOUT HOLD]`.
fn parse_declare_options(parser: &mut Parser<'_>) -> Result<CursorOptions, ParserError> {
    let mut options = CursorOptions::default();
    loop {
        let t = &parser.peek_token_ref().token;
        if word_is(t, "binary") {
            options.binary = true;
        } else if word_is(t, "insensitive") {
            options.insensitive = true;
        } else if word_is(t, "asensitive") {
            options.asensitive = true;
        } else if word_is(t, "scroll") {
            options.scroll = true;
        } else if word_is(t, "no") {
            parser.next_token();
            let next = parser.next_token();
            if !word_is(&next.token, "scroll") {
                return parser.expected("SCROLL", next);
            }
            options.no_scroll = true;
            continue;
        } else {
            break;
        }
        parser.next_token();
    }
    parser.expect_keyword_is(Keyword::CURSOR)?;
    if parser.parse_keyword(Keyword::WITH) {
        parser.expect_keyword_is(Keyword::HOLD)?;
        options.hold = true;
    } else if parser.parse_keyword(Keyword::WITHOUT) {
        parser.expect_keyword_is(Keyword::HOLD)?;
    }
    Ok(options)
}

/// FETCH's or MOVE's direction; a direction word right before the end of the statement is
/// the cursor's name (`FETCH next` fetches from a cursor called `next`, as in PostgreSQL).
fn parse_direction(parser: &mut Parser<'_>) -> Result<FetchDirection, ParserError> {
    let t = parser.peek_token_ref().token.clone();
    let ends_after = |parser: &Parser<'_>| {
        matches!(
            parser.peek_nth_token_ref(1).token,
            Token::EOF | Token::SemiColon
        ) || word_is(&parser.peek_nth_token_ref(1).token, "with")
    };
    let starts_count = |t: &Token| matches!(t, Token::Number(..) | Token::Minus | Token::Plus);
    if starts_count(&t) {
        return Ok(FetchDirection::Forward(Some(parse_signed_count(parser)?)));
    }
    if matches!(&t, Token::Word(w) if w.keyword == Keyword::ALL) {
        parser.next_token();
        return Ok(FetchDirection::Forward(None));
    }
    let word = match &t {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_lowercase(),
        _ => return Ok(FetchDirection::Forward(Some(1))),
    };
    let known = [
        "next", "prior", "first", "last", "absolute", "relative", "forward", "backward",
    ];
    if !known.contains(&word.as_str()) || ends_after(parser) {
        return Ok(FetchDirection::Forward(Some(1)));
    }
    parser.next_token();
    Ok(match word.as_str() {
        "next" => FetchDirection::Forward(Some(1)),
        "prior" => FetchDirection::Backward(Some(1)),
        "first" => FetchDirection::Absolute(1),
        "last" => FetchDirection::Absolute(-1),
        "absolute" => FetchDirection::Absolute(parse_signed_count(parser)?),
        "relative" => FetchDirection::Relative(parse_signed_count(parser)?),
        _ => {
            let count = if parser.parse_keyword(Keyword::ALL) {
                None
            } else if starts_count(&parser.peek_token_ref().token) {
                Some(parse_signed_count(parser)?)
            } else {
                Some(1)
            };
            if word == "forward" {
                FetchDirection::Forward(count)
            } else {
                FetchDirection::Backward(count)
            }
        }
    })
}

/// `[+ | -] integer`, within a 32-bit integer's range.
fn parse_signed_count(parser: &mut Parser<'_>) -> Result<i64, ParserError> {
    let negative = if parser.consume_token(&Token::Minus) {
        true
    } else {
        let _ = parser.consume_token(&Token::Plus);
        false
    };
    let token = parser.next_token();
    let Token::Number(n, _) = &token.token else {
        return parser.expected("an integer count", token);
    };
    let value = n
        .parse::<i64>()
        .ok()
        // The magnitude must be an integer literal of int4's range (-2147483648 is not).
        .filter(|v| i32::try_from(*v).is_ok())
        .map(|v| if negative { -v } else { v })
        .ok_or_else(|| ParserError::ParserError(format!("syntax error at or near \"{n}\"")))?;
    Ok(value)
}

/// `'250ms'`, `'1s'`, `'1.5 seconds'`, `'2 min'`, or a bare number of seconds.
fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let number: f64 = number.parse().ok()?;
    let seconds = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "s" | "sec" | "secs" | "second" | "seconds" => number,
        "ms" | "millisecond" | "milliseconds" => number / 1000.0,
        "min" | "mins" | "minute" | "minutes" => number * 60.0,
        _ => return None,
    };
    (seconds >= 0.0 && seconds.is_finite()).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn fetch(sql: &str) -> (String, FetchDirection, bool) {
        match parse(sql).unwrap().remove(0) {
            ParsedStatement::Fetch(Fetch {
                name,
                direction,
                is_move,
                ..
            }) => (name, direction, is_move),
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn cursor_statements_parse() {
        let stmts = parse(
            "DECLARE c CURSOR FOR SUBSCRIBE t WITH (SNAPSHOT = false); \
             FETCH 10 c WITH (TIMEOUT = '250ms'); FETCH ALL FROM c; FETCH c; CLOSE c; CLOSE ALL; \
             DECLARE d CURSOR FOR SELECT 1",
        )
        .unwrap();
        assert!(
            matches!(&stmts[0], ParsedStatement::Declare { name, target, .. }
            if name == "c" && matches!(**target, ParsedStatement::Subscribe { .. }))
        );
        assert_eq!(
            stmts[1],
            ParsedStatement::Fetch(Fetch {
                name: "c".into(),
                direction: FetchDirection::Forward(Some(10)),
                is_move: false,
                timeout: Some(Duration::from_millis(250))
            })
        );
        assert!(matches!(
            &stmts[2],
            ParsedStatement::Fetch(Fetch {
                direction: FetchDirection::Forward(None),
                timeout: None,
                ..
            })
        ));
        assert!(matches!(
            &stmts[3],
            ParsedStatement::Fetch(Fetch {
                direction: FetchDirection::Forward(Some(1)),
                ..
            })
        ));
        assert_eq!(
            stmts[4],
            ParsedStatement::Close {
                name: Some("c".into())
            }
        );
        assert_eq!(stmts[5], ParsedStatement::Close { name: None });
        assert!(matches!(&stmts[6], ParsedStatement::Declare { target, .. }
            if matches!(**target, ParsedStatement::Sql(_))));
        assert!(parse("FETCH 1 c WITH (TIMEOUT = 'soon')").is_err());
        // Counts are int4 literals with a sign: -2147483648 is not one (as in PostgreSQL).
        assert_eq!(
            fetch("FETCH -2147483647 c").1,
            FetchDirection::Forward(Some(-2147483647))
        );
        assert!(parse("FETCH -2147483648 c").is_err());
        assert!(parse("MOVE ABSOLUTE 2147483648 c").is_err());
        assert_eq!(
            parse_duration("1.5 seconds"),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_duration("0"), Some(Duration::ZERO));
    }

    #[test]
    fn directions_reduce_as_postgres() {
        use FetchDirection::*;
        let c = |d| ("c".to_string(), d, false);
        assert_eq!(fetch("FETCH NEXT FROM c"), c(Forward(Some(1))));
        assert_eq!(fetch("FETCH prior c"), c(Backward(Some(1))));
        assert_eq!(fetch("FETCH FIRST IN c"), c(Absolute(1)));
        assert_eq!(fetch("FETCH LAST c"), c(Absolute(-1)));
        assert_eq!(fetch("FETCH ABSOLUTE -3 c"), c(Absolute(-3)));
        assert_eq!(fetch("FETCH RELATIVE +2 FROM c"), c(Relative(2)));
        assert_eq!(fetch("FETCH -2 c"), c(Forward(Some(-2))));
        assert_eq!(fetch("FETCH FORWARD c"), c(Forward(Some(1))));
        assert_eq!(fetch("FETCH FORWARD ALL c"), c(Forward(None)));
        assert_eq!(fetch("FETCH BACKWARD 4 c"), c(Backward(Some(4))));
        assert_eq!(fetch("FETCH BACKWARD ALL IN c"), c(Backward(None)));
        assert_eq!(fetch("FETCH BACKWARD c"), c(Backward(Some(1))));
        assert_eq!(fetch("MOVE LAST c"), ("c".to_string(), Absolute(-1), true));
        assert_eq!(
            fetch("FETCH next"),
            ("next".into(), Forward(Some(1)), false)
        );
        assert_eq!(
            fetch("MOVE backward"),
            ("backward".into(), Forward(Some(1)), true)
        );
        assert!(parse("FETCH 3000000000 c").is_err());
        assert!(parse("FETCH ABSOLUTE c").is_err());
    }

    #[test]
    fn declare_options_parse() {
        let options = |sql: &str| match parse(sql).unwrap().remove(0) {
            ParsedStatement::Declare { options, .. } => options,
            other => panic!("{sql}: {other:?}"),
        };
        assert_eq!(
            options("DECLARE c BINARY INSENSITIVE SCROLL CURSOR WITH HOLD FOR SELECT 1"),
            CursorOptions {
                binary: true,
                insensitive: true,
                scroll: true,
                hold: true,
                ..CursorOptions::default()
            }
        );
        assert_eq!(
            options("DECLARE c NO SCROLL CURSOR WITHOUT HOLD FOR SELECT 1"),
            CursorOptions {
                no_scroll: true,
                ..CursorOptions::default()
            }
        );
        assert!(options("DECLARE c SCROLL NO SCROLL CURSOR FOR SELECT 1").no_scroll);
        assert!(parse("DECLARE c NO CURSOR FOR SELECT 1").is_err());
        assert!(parse("DECLARE c CURSOR WITH FOR SELECT 1").is_err());
    }
}
